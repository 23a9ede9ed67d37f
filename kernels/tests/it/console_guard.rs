//! The Console guard run as `rho-core core console-guard`: it leaves the caller's session, keeps
//! the head and tail of the output with the count between, and records the exit durably.

use rho_kernels::console::files;
use std::process::Command;

fn guard(dir: &std::path::Path, head: u64, tail: u64, text: &str) -> std::process::ExitStatus {
    Command::new(env!("CARGO_BIN_EXE_rho-core"))
        .args(["core", "console-guard", "--record"])
        .arg(dir)
        .arg("--cwd")
        .arg(dir)
        .args([
            "--head",
            &head.to_string(),
            "--tail",
            &tail.to_string(),
            "--",
        ])
        .arg(text)
        .status()
        .unwrap()
}

#[test]
fn the_guard_records_streams_in_order_the_cut_and_the_exit() {
    let d = tempfile::tempdir().unwrap();
    let text = "echo out1; sleep 0.05; echo err1 >&2; sleep 0.05; printf 'xxxxxxxxxx'; sleep 0.05; printf END; exit 4";
    assert!(guard(d.path(), 12, 4, text).success());
    let head = files::read_head(d.path());
    let seen: Vec<(u8, Vec<u8>)> = head.into_iter().map(|c| (c.stream, c.bytes)).collect();
    assert_eq!(
        seen,
        vec![
            (files::STDOUT, b"out1\n".to_vec()),
            (files::STDERR, b"err1\n".to_vec()),
            (files::STDOUT, b"xx".to_vec()),
        ]
    );
    let t = files::read_tail(d.path()).unwrap();
    // Offsets count every byte: the kept tail starts after the 12 of the head and the 7 omitted.
    assert_eq!((t.start, t.kept_start(), t.end()), (19, 19, 23));
    let tail: Vec<u8> = t.chunks.into_iter().flat_map(|c| c.bytes).collect();
    assert_eq!(tail, b"xEND");
    let exit = files::read_exit(d.path()).unwrap();
    assert_eq!(exit.exit_code, Some(4));
    assert_eq!(
        (exit.stdout_bytes, exit.stderr_bytes, exit.omitted_bytes),
        (18, 5, 7)
    );
    let g = files::read_guard(d.path()).unwrap();
    assert!(g.pid > 0 && g.guard_pid > 0 && g.pid != g.guard_pid);
}

#[test]
fn the_guard_leads_its_own_session_and_the_command_its_own_group() {
    let d = tempfile::tempdir().unwrap();
    let text = "ps -o sid= -o pgid= -p $$; ps -o sid= -p $PPID";
    assert!(guard(d.path(), 4096, 64, text).success());
    let out: Vec<u8> = files::read_head(d.path())
        .into_iter()
        .flat_map(|c| c.bytes)
        .collect();
    let out = String::from_utf8_lossy(&out).to_string();
    let g = files::read_guard(d.path()).unwrap();
    let nums: Vec<i32> = out.split_whitespace().map(|n| n.parse().unwrap()).collect();
    // The command: session of the guard, group of its own; the guard: a session of its own.
    assert_eq!(nums, vec![g.guard_pid, g.pid, g.guard_pid], "{out}");
}

/// A command that writes a line to stdout, waits until the guard has read it (its pipe is empty),
/// then a line to stderr and waits the same, `n` times: the guard could know every order.
const LOCKSTEP: &str = r#"python3 -c '
import fcntl, os, struct, termios, sys
def wait(fd):
    while struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0] > 0:
        pass
for i in range(int(sys.argv[1])):
    os.write(1, b"o%d\n" % i); wait(1)
    os.write(2, b"e%d\n" % i); wait(2)
' 1500"#;

#[test]
fn every_write_the_guard_read_before_the_next_keeps_its_order_across_the_streams() {
    let d = tempfile::tempdir().unwrap();
    assert!(guard(d.path(), 1 << 20, 64, LOCKSTEP).success());
    let mut lines = Vec::new();
    for c in files::read_head(d.path()) {
        for l in String::from_utf8(c.bytes).unwrap().lines() {
            let tag = if c.stream == files::STDOUT { 'o' } else { 'e' };
            assert!(l.starts_with(tag), "{l} came on the other stream");
            lines.push(l.to_string());
        }
    }
    let want: Vec<String> = (0..1500)
        .flat_map(|i| [format!("o{i}"), format!("e{i}")])
        .collect();
    assert_eq!(lines.len(), want.len());
    let first_wrong = lines.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(first_wrong, None, "out of order at {first_wrong:?}");
}

#[test]
fn under_load_each_stream_keeps_all_its_bytes_in_order_on_its_own_tag() {
    let d = tempfile::tempdir().unwrap();
    let text =
        "i=0; while [ $i -lt 3000 ]; do printf \"o$i\\n\"; printf \"e$i\\n\" >&2; i=$((i+1)); done";
    assert!(guard(d.path(), 1 << 20, 64, text).success());
    let (mut out, mut err) = (String::new(), String::new());
    for c in files::read_head(d.path()) {
        let s = String::from_utf8(c.bytes).unwrap();
        match c.stream {
            files::STDOUT => out.push_str(&s),
            _ => err.push_str(&s),
        }
    }
    let want = |p: char| -> String { (0..3000).map(|i| format!("{p}{i}\n")).collect() };
    assert_eq!(out, want('o'));
    assert_eq!(err, want('e'));
}

/// The guard as the service starts it: `--notify --wait-go`, stdin and stdout piped.
fn waiting_guard(dir: &std::path::Path, text: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_rho-core"))
        .args(["core", "console-guard", "--record"])
        .arg(dir)
        .arg("--cwd")
        .arg(dir)
        .args([
            "--head",
            "4096",
            "--tail",
            "64",
            "--notify",
            "--wait-go",
            "--",
        ])
        .arg(text)
        .env("SHELL", "/bin/sh")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn notified(child: &mut std::process::Child) -> bool {
    use std::io::Read;
    let mut b = [0u8; 1];
    child.stdout.as_mut().unwrap().read(&mut b).unwrap_or(0) == 1
}

#[test]
fn a_guard_never_told_to_go_runs_nothing_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let mut child = waiting_guard(d.path(), "touch ran");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(!d.path().join("ran").exists());
    assert!(files::read_guard(d.path()).is_none());
    let exit = files::read_exit(d.path()).unwrap();
    assert_eq!((exit.exit_code, exit.signal), (None, None));
    assert!(exit.error.unwrap().contains("not started"));
}

#[test]
fn after_go_a_quick_command_is_told_with_its_end_and_a_long_one_at_once() {
    use std::io::Write;
    // A command that ends at once: its start is told after its exit record is written (one
    // journal write for both in the service). A loaded machine may miss the few ms: one try in
    // five is enough to show it.
    let merged = (0..5).any(|_| {
        let d = tempfile::tempdir().unwrap();
        let mut child = waiting_guard(d.path(), "exit 3");
        child.stdin.take().unwrap().write_all(b"g").unwrap();
        assert!(notified(&mut child));
        let told_with_end = files::read_exit(d.path()).is_some();
        assert!(child.wait().unwrap().success());
        assert_eq!(files::read_exit(d.path()).unwrap().exit_code, Some(3));
        told_with_end
    });
    assert!(merged, "no start was told with its end");
    // A long command: its start is told within the hold, long before its end.
    let d = tempfile::tempdir().unwrap();
    let mut child = waiting_guard(d.path(), "sleep 3");
    child.stdin.take().unwrap().write_all(b"g").unwrap();
    let t = std::time::Instant::now();
    assert!(notified(&mut child));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        t.elapsed()
    );
    assert!(files::read_guard(d.path()).is_some() && files::read_exit(d.path()).is_none());
    let g = files::read_guard(d.path()).unwrap();
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(g.pid),
        nix::sys::signal::Signal::SIGKILL,
    );
    let _ = child.wait();
}
