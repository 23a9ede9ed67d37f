//! Measures the Host's overhead: a trivial script from Submit to the Wait that sees it exited,
//! next to a bare `Rscript -e 1` in the same run (p50/p95 of N each, interleaved).
//!
//! `cargo run -p rho-kernels --example host_overhead -- <core-binary> [N]`

// A benchmark example aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_kernels::host::client;
use rho_kernels::host::proto::{HostReply, HostRequest, RunSpec, RunState};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let core = args.next().expect("usage: host_overhead <core-binary> [N]");
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let dir = tempfile::Builder::new()
        .prefix("rkb")
        .tempdir_in("/tmp")
        .unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(project.join(".rho")).unwrap();
    let t = Duration::from_secs(30);
    client::start(Path::new(&core), &project, t).unwrap();
    let (mut hosted, mut bare, mut submits, mut inside) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n + 2 {
        let op = format!("op-{i}");
        let run = project.join("runs").join(&op);
        let spec = RunSpec {
            operation_id: op.clone(),
            request_digest: format!("{i:064x}"),
            rscript: "Rscript".into(),
            script_name: "trivial.R".into(),
            script: "1\n".into(),
            output_directory: run.join("artifacts"),
            run_directory: run,
            args: vec![],
            working_directory: project.clone(),
            library: project.join(".rho/library"),
            artifacts: vec![],
            max_log_bytes: 1 << 20,
            stop_grace_ms: 3000,
        };
        let started = Instant::now();
        client::request(&project, &HostRequest::Submit(Box::new(spec)), t).unwrap();
        submits.push(started.elapsed());
        let reply = client::request(
            &project,
            &HostRequest::Wait {
                operation_id: op,
                timeout_ms: 30_000,
            },
            t,
        )
        .unwrap();
        let took = started.elapsed();
        let spawned_to_end = match reply {
            HostReply::Record { record } if record.state == RunState::Exited => {
                let ms = record.ended_at_ms.unwrap_or(0) - record.started_at_ms.unwrap_or(0);
                Duration::from_millis(ms.max(0) as u64)
            }
            other => panic!("{other:?}"),
        };
        let started = Instant::now();
        let status = Command::new("Rscript").args(["-e", "1"]).output().unwrap();
        assert!(status.status.success());
        let reference = started.elapsed();
        if i >= 2 {
            // The first two warm caches.
            hosted.push(took);
            inside.push(spawned_to_end);
            bare.push(reference);
        }
    }
    let _ = client::request(
        &project,
        &HostRequest::Shutdown {
            requested_by: "bench".into(),
        },
        t,
    );
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pct = |v: &mut Vec<Duration>, p: f64| {
        v.sort();
        v[((v.len() as f64 - 1.0) * p).round() as usize]
    };
    let (h50, h95) = (pct(&mut hosted, 0.5), pct(&mut hosted, 0.95));
    let (b50, b95) = (pct(&mut bare, 0.5), pct(&mut bare, 0.95));
    let mut out = std::io::stdout().lock();
    use std::io::Write;
    let _ = writeln!(
        out,
        "n={n} hosted p50 {:.1} ms p95 {:.1} ms | bare Rscript -e 1 p50 {:.1} ms p95 {:.1} ms | overhead p50 {:.1} ms",
        ms(h50),
        ms(h95),
        ms(b50),
        ms(b95),
        ms(h50) - ms(b50)
    );
    let _ = writeln!(
        out,
        "submit reply p50 {:.1} ms | spawn to recorded end (guard + R + inventory) p50 {:.1} ms",
        ms(pct(&mut submits, 0.5)),
        ms(pct(&mut inside, 0.5))
    );
}
