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
    let (omitted, tail) = files::read_tail(d.path()).unwrap();
    let tail: Vec<u8> = tail.into_iter().flat_map(|c| c.bytes).collect();
    assert_eq!(tail, b"xEND");
    assert_eq!(omitted, 7);
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
