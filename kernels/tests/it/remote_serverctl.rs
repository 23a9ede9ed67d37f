//! serverctl as docs/serverctl.md defines it, played by a fixture program: the registry, a
//! skill and its bound (refused with its path), unknown names, an absent program, the read
//! bound, a notebook session on a server through `serverctl exec`, ended by serverctl's own
//! limit for one command, and a server's files listed and copied through `exec`.

use crate::support::remote::{text, Remote};
use crate::support::serverctl::{env, Fixture};
use rho_kernels::notebook::{Language, RuntimeLimits};
use rho_kernels::remote::{
    copy, list, ListBounds, PlaceError, RemoteSpec, Route, ServerShell, Serverctl, ServerctlError,
};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(15);

fn serverctl(f: &Fixture) -> Serverctl {
    Serverctl {
        program: f.program(),
        env: vec![env(&f.registry())],
    }
}

#[test]
fn remote_serverctl_reads_the_registry_and_skills_within_their_bounds() {
    let f = Fixture::new();
    let s = serverctl(&f);
    let servers = s.servers(T).unwrap();
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0].name, "gpu1");
    assert_eq!(servers[0].skills, ["pytorch", "big"]);
    assert_eq!(servers[1].host, None);
    let skill = s.skill("gpu1", "pytorch", 1000, T).unwrap();
    assert_eq!(skill.text, "# PyTorch on gpu1\nUse CUDA 12.\n");
    assert!(skill.path.ends_with("gpu1/pytorch.md"), "{}", skill.path);
    match s.skill("gpu1", "big", 1000, T) {
        Err(ServerctlError::Limit { path, bytes, max }) => {
            assert!(path.ends_with("gpu1/big.md"));
            assert_eq!((bytes, max), (10_000, 1000));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        s.skill("nope", "pytorch", 1000, T),
        Err(ServerctlError::NotFound(_))
    ));
    assert!(matches!(
        s.skill("gpu1", "nope", 1000, T),
        Err(ServerctlError::NotFound(_))
    ));
    assert!(matches!(
        s.skill("-x", "pytorch", 1000, T),
        Err(ServerctlError::NotFound(_))
    ));
    let absent = Serverctl {
        program: f.dir.path().join("no-serverctl"),
        env: vec![],
    };
    match absent.servers(T) {
        Err(e @ ServerctlError::Absent(_)) => {
            assert!(e.to_string().contains("no-serverctl"), "{e}");
            assert!(e.to_string().contains("--serverctl"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let mut slow = serverctl(&f);
    slow.env.push(("SSM_SLOW".into(), "1".into()));
    let t = Instant::now();
    assert!(matches!(
        slow.servers(Duration::from_secs(1)),
        Err(ServerctlError::Timeout { ms: 1000, .. })
    ));
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn remote_serverctl_runs_a_session_on_a_server_until_its_limit_for_one_command() {
    let f = Fixture::new();
    let local = tempfile::tempdir().unwrap();
    let spec = RemoteSpec {
        language: Language::R,
        program: crate::support::remote::program(Language::R),
        folder: None,
        route: Route::Serverctl {
            serverctl: serverctl(&f),
            server: "gpu1".into(),
            max_seconds: 8,
        },
        local_dir: local.path().to_path_buf(),
        limits: RuntimeLimits {
            start_timeout_ms: 60_000,
            ..Default::default()
        },
        signal_timeout: T,
        fetch_timeout: T,
    };
    let started = Instant::now();
    let mut r = Remote::start(spec);
    assert_eq!(text(&r.run("x <- 6 * 7\nx")), "[1] 42\n");
    let plot = r.run("plot(1:2)");
    assert!(
        plot.iter()
            .any(|e| matches!(e, rho_kernels::notebook::SessionEvent::Plot { .. })),
        "{plot:?}"
    );
    // serverctl's limit for one command (serverctlSessionS) ends the session, saying so.
    let status = r.exited(Duration::from_secs(20));
    assert!(status.contains("serverctlSessionS"), "{status}");
    assert!(
        started.elapsed() >= Duration::from_secs(7),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn remote_serverctl_lists_and_copies_a_servers_files_with_the_ssh_places_bounds() {
    let f = Fixture::new();
    let home = f.server("gpu1").join("home");
    std::fs::create_dir_all(home.join("data/sub")).unwrap();
    for (name, bytes) in [("a.csv", 5), ("b.csv", 3), ("c.txt", 2000)] {
        std::fs::write(home.join("data").join(name), vec![b'x'; bytes]).unwrap();
    }
    let gpu = ServerShell {
        serverctl: serverctl(&f),
        server: "gpu1".into(),
    };
    // The listing: the login folder is the server's home; the first entries, the rest counted.
    let bounds = ListBounds {
        entries: 2,
        bytes: 1 << 20,
        timeout: T,
    };
    let l = list(&gpu, "data", bounds).unwrap();
    assert!(l.path.ends_with("gpu1/home/data"), "{}", l.path);
    let names: Vec<&str> = l.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a.csv", "b.csv"]);
    assert_eq!((l.omitted, l.cut), (2, true));
    let few = ListBounds {
        entries: 100,
        bytes: 40,
        timeout: T,
    };
    assert!(list(&gpu, "data", few).unwrap().cut);
    assert!(matches!(
        list(&gpu, "nowhere", bounds),
        Err(PlaceError::NotFound(_))
    ));
    // A copy: its bytes and digest; refused over the bound before anything is sent.
    let local = tempfile::tempdir().unwrap();
    let to = local.path().join("a.csv");
    let c = copy(&gpu, "data/a.csv", &to, 1000, T).unwrap();
    assert_eq!(c.bytes, 5);
    assert_eq!(c.sha256, rho_plumbing::sha256_hex(b"xxxxx"));
    let big = local.path().join("c.txt");
    assert!(matches!(
        copy(&gpu, "data/c.txt", &big, 1000, T),
        Err(PlaceError::Limit(_))
    ));
    assert!(!big.exists());
    assert!(matches!(
        copy(&gpu, "data/sub", &big, 1000, T),
        Err(PlaceError::Invalid(_))
    ));
    // A file that grows while it is copied is refused and nothing is kept.
    let growing = home.join("growing.log");
    std::fs::write(&growing, vec![b'x'; 8_000_000]).unwrap();
    let mut writer = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "for i in $(seq 1 400); do echo line >> '{}'; sleep 0.005; done",
            growing.display()
        ))
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(30));
    let kept = local.path().join("growing.log");
    let grown = copy(&gpu, "growing.log", &kept, 64 << 20, T);
    let _ = writer.kill();
    let _ = writer.wait();
    match grown {
        Err(PlaceError::Changed(why)) => assert!(why.contains("changed while being copied")),
        other => panic!("{other:?}"),
    }
    assert!(!kept.exists());
    // An unknown server and an absent serverctl say so.
    let nobody = ServerShell {
        serverctl: serverctl(&f),
        server: "nobody".into(),
    };
    assert!(matches!(
        list(&nobody, ".", bounds),
        Err(PlaceError::NotFound(w)) if w.contains("nobody")
    ));
    let absent = ServerShell {
        serverctl: Serverctl {
            program: "/nonexistent/serverctl".into(),
            env: Vec::new(),
        },
        server: "gpu1".into(),
    };
    match list(&absent, ".", bounds) {
        Err(PlaceError::Remote(w)) => assert!(w.contains("--serverctl"), "{w}"),
        other => panic!("{other:?}"),
    }
}
