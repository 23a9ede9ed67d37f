//! serverctl as docs/serverctl.md defines it, played by a fixture program: the registry, a
//! skill and its bound (refused with its path), unknown names, an absent program, the read
//! bound, and a notebook session on a server through `serverctl exec`, ended by
//! serverctl's own limit for one command.

use crate::support::remote::{text, Remote};
use crate::support::serverctl::{env, Fixture};
use rho_kernels::notebook::{Language, RuntimeLimits};
use rho_kernels::remote::{RemoteSpec, Route, Serverctl, ServerctlError};
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
