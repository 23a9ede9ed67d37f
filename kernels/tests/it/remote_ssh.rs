//! ssh places against a private sshd on loopback: check what the server has, list a folder
//! with the cut, copy a file with the size refusal and the changed-while-copying refusal, and
//! the errors a person meets (a closed port, a server that never answers, a missing file).

use crate::support::sshd::{free_port, Sshd};
use rho_kernels::remote::{check, copy, list, Interpreters, ListBounds, PlaceError};
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

#[test]
fn a_check_reports_the_folder_r_with_jsonlite_python_and_free_space() {
    let sshd = Sshd::start();
    let control = tempfile::tempdir().unwrap();
    let place = sshd.place(control.path());
    let report = check(&place, &Interpreters::default(), T).unwrap();
    assert!(!report.cwd.is_empty(), "{report:?}");
    let r = report.r.as_ref().expect("Rscript on the server");
    assert!(r.version.contains("version"), "{r:?}");
    assert_eq!(report.jsonlite, Some(true), "{report:?}");
    assert!(
        report
            .python
            .as_ref()
            .unwrap()
            .version
            .starts_with("Python 3"),
        "{report:?}"
    );
    assert!(report.free_bytes.unwrap() > 0);
    // The connection stays open for the next call: its control socket is in the private folder.
    let sockets = std::fs::read_dir(control.path()).unwrap().count();
    assert_eq!(sockets, 1, "one multiplexing socket for the place");
    let again = check(&place, &Interpreters::default(), T).unwrap();
    assert_eq!(again.cwd, report.cwd);
    // An interpreter named by a path that is not there is reported absent, not guessed.
    let named = Interpreters {
        rscript: Some("/nowhere/Rscript".into()),
        python: Some("/usr/bin/python3".into()),
    };
    let report = check(&place, &named, T).unwrap();
    assert!(
        report.r.is_none() && report.jsonlite.is_none(),
        "{report:?}"
    );
    assert_eq!(report.python.unwrap().path, "/usr/bin/python3");
    place.close();
}

#[test]
fn a_closed_port_and_a_server_that_never_answers_say_why() {
    let sshd = Sshd::start();
    let control = tempfile::tempdir().unwrap();
    let mut place = sshd.place(control.path());
    let port = free_port().to_string();
    let at = place.args.iter().position(|a| a == "-p").unwrap() + 1;
    place.args[at] = port;
    match check(&place, &Interpreters::default(), T) {
        Err(PlaceError::Connect(why)) => assert!(why.contains("refused"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A listener that accepts and never speaks: the start bound ends it, with what was printed.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    place.args[at] = silent.local_addr().unwrap().port().to_string();
    let started = Instant::now();
    let got = check(&place, &Interpreters::default(), Duration::from_secs(2));
    assert!(
        matches!(
            got,
            Err(PlaceError::Timeout { ms: 2000, .. }) | Err(PlaceError::Connect(_))
        ),
        "{got:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_listing_is_sorted_bounded_and_counts_what_it_left_out() {
    let sshd = Sshd::start();
    let control = tempfile::tempdir().unwrap();
    let place = sshd.place(control.path());
    let data = tempfile::tempdir().unwrap();
    for i in 0..30 {
        std::fs::write(data.path().join(format!("f{i:02}.csv")), "a,b\n1,2\n").unwrap();
    }
    std::fs::create_dir(data.path().join("a sub 'dir'")).unwrap();
    let path = data.path().to_str().unwrap();
    let bounds = ListBounds {
        entries: 10,
        bytes: 1 << 20,
        timeout: T,
    };
    let l = list(&place, path, bounds).unwrap();
    assert_eq!(l.entries.len(), 10);
    assert_eq!(l.entries[0].name, "a sub 'dir'");
    assert_eq!(l.entries[0].kind, "dir");
    assert_eq!(l.entries[1].name, "f00.csv");
    assert_eq!(l.entries[1].size, 8);
    assert_eq!((l.omitted, l.cut), (21, true));
    let all = list(
        &place,
        path,
        ListBounds {
            entries: 100,
            ..bounds
        },
    )
    .unwrap();
    assert_eq!((all.entries.len(), all.omitted, all.cut), (31, 0, false));
    // The byte bound cuts the listing where it falls, and says so.
    let small = list(
        &place,
        path,
        ListBounds {
            entries: 100,
            bytes: 300,
            timeout: T,
        },
    )
    .unwrap();
    assert!(small.cut && small.entries.len() < 31, "{small:?}");
    assert_eq!(small.omitted, 31 - small.entries.len() as u64);
    match list(&place, "/no/such/folder", bounds) {
        Err(PlaceError::NotFound(why)) => assert!(why.contains("/no/such/folder")),
        other => panic!("{other:?}"),
    }
    place.close();
}

#[test]
fn a_copy_keeps_the_bytes_and_refuses_a_big_file_a_folder_and_a_changing_file() {
    let sshd = Sshd::start();
    let control = tempfile::tempdir().unwrap();
    let place = sshd.place(control.path());
    let data = tempfile::tempdir().unwrap();
    let local = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let src = data.path().join("big.bin");
    std::fs::write(&src, &bytes).unwrap();
    let dest = local.path().join("big.bin");
    let copied = copy(&place, src.to_str().unwrap(), &dest, 10 << 20, T).unwrap();
    assert_eq!(copied.bytes, 3_000_000);
    assert_eq!(
        copied.sha256,
        rho_plumbing::hex::encode(&Sha256::digest(&bytes))
    );
    assert_eq!(std::fs::read(&dest).unwrap(), bytes);

    let refused = local.path().join("refused.bin");
    match copy(&place, src.to_str().unwrap(), &refused, 1 << 20, T) {
        Err(PlaceError::Limit(why)) => assert!(why.contains("remoteCopyBytes"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(!refused.exists(), "nothing is written for a refused copy");
    assert!(matches!(
        copy(&place, data.path().to_str().unwrap(), &refused, 1 << 20, T),
        Err(PlaceError::Invalid(_))
    ));
    assert!(matches!(
        copy(&place, "/no/such/file", &refused, 1 << 20, T),
        Err(PlaceError::NotFound(_))
    ));

    // A file that grows while it is copied is refused and nothing is kept.
    let growing = data.path().join("growing.log");
    std::fs::write(&growing, vec![b'x'; 8_000_000]).unwrap();
    let writer = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "for i in $(seq 1 400); do echo line >> '{}'; sleep 0.005; done",
            growing.display()
        ))
        .spawn()
        .unwrap();
    let mut writer = scopeguard(writer);
    std::thread::sleep(Duration::from_millis(30));
    let kept = local.path().join("growing.log");
    match copy(&place, growing.to_str().unwrap(), &kept, 64 << 20, T) {
        Err(PlaceError::Changed(why)) => {
            assert!(why.contains("changed while being copied"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    assert!(!kept.exists());
    let _ = writer.0.kill();
    place.close();
}

struct Guard(std::process::Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scopeguard(c: std::process::Child) -> Guard {
    Guard(c)
}
