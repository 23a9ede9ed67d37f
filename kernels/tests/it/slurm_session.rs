//! A notebook session inside a Slurm allocation of its own (`srun --unbuffered` pipes) on a
//! single-node Slurm the test starts: cells, a plot brought back, interrupt, and ending the
//! session releases the allocation, even when it is dropped right after its stop (its killed
//! srun left alone would keep the job); kill -9 of the local srun ends the job.

use crate::support::remote::{processes_with, runner_dir, text, Remote};
use crate::support::slurm::Slurm;
use crate::support::{group_alive, until};
use rho_kernels::notebook::{CellOutcome, Language, RuntimeLimits, SessionEvent};
use rho_kernels::remote::{RemoteSpec, Route};
use std::time::{Duration, Instant};

fn spec(s: &Slurm, local: &std::path::Path, language: Language, name: &str) -> RemoteSpec {
    RemoteSpec {
        language,
        program: crate::support::remote::program(language),
        folder: Some(s.dir.path().display().to_string()),
        route: Route::Srun {
            login: None,
            slurm: s.client(),
            job_name: name.into(),
        },
        local_dir: local.to_path_buf(),
        limits: RuntimeLimits {
            start_timeout_ms: 60_000,
            ..Default::default()
        },
        signal_timeout: Duration::from_secs(15),
        fetch_timeout: Duration::from_secs(30),
    }
}

fn end(events: &[SessionEvent]) -> CellOutcome {
    match events.last() {
        Some(SessionEvent::CellEnded { outcome, .. }) => *outcome,
        other => panic!("{other:?}"),
    }
}

fn jobs(s: &Slurm, name: &str) -> String {
    s.cmd("squeue", &["-h", "-n", name, "-o", "%i %T"])
        .trim()
        .to_string()
}

#[test]
fn slurm_a_session_in_an_allocation_runs_cells_and_ending_it_releases_the_allocation() {
    let s = Slurm::start();
    let local = tempfile::tempdir().unwrap();
    let mut r = Remote::start(spec(&s, local.path(), Language::R, "rho-session-a"));
    assert!(
        !jobs(&s, "rho-session-a").is_empty(),
        "the allocation is there"
    );
    let e = r.run("x <- 40 + 2\ncat(getwd(), '\\n')\nx");
    assert_eq!(end(&e), CellOutcome::Done, "{e:?}");
    let printed = text(&e);
    assert!(
        printed.contains(&s.dir.path().display().to_string()),
        "{printed}"
    );
    assert!(printed.ends_with("[1] 42\n"), "{printed}");
    let e = r.run("plot(1:5)");
    let plot = e
        .iter()
        .find_map(|x| match x {
            SessionEvent::Plot { plot, .. } => Some(plot.clone()),
            _ => None,
        })
        .expect("a plot came back");
    assert!(plot.path.starts_with(local.path()));
    let cell = r.send("cat('sleeping\\n'); Sys.sleep(30)");
    r.until_printed(cell, "sleeping", Duration::from_secs(20));
    let t = Instant::now();
    r.session.interrupt().unwrap();
    assert_eq!(
        end(&r.collect(cell, Duration::from_secs(10))),
        CellOutcome::Interrupted
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(text(&r.run("x")), "[1] 42\n");
    let (pgid, dir) = (r.started.pid, runner_dir(r.started.pid));
    r.session.stop();
    r.exited(Duration::from_secs(15));
    until(Duration::from_secs(15), || {
        jobs(&s, "rho-session-a").is_empty()
    });
    until(Duration::from_secs(10), || !group_alive(pgid));
    until(Duration::from_secs(10), || {
        !std::path::Path::new(&dir).exists()
    });
}

#[test]
fn slurm_killing_the_local_srun_ends_the_session_s_job() {
    let s = Slurm::start();
    let local = tempfile::tempdir().unwrap();
    let mut r = Remote::start(spec(&s, local.path(), Language::Python, "rho-session-k"));
    assert_eq!(text(&r.run("print(6 * 7)")), "42\n");
    let (pgid, dir) = (r.started.pid, runner_dir(r.started.pid));
    // srun keeps a helper child of its own: the one Rho started is the one whose parent is
    // not an srun.
    let all = processes_with("--job-name=rho-session-k");
    let srun: Vec<u32> = all
        .iter()
        .copied()
        .filter(|p| !all.contains(&parent(*p)))
        .collect();
    assert_eq!(srun.len(), 1, "{all:?}");
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &srun[0].to_string()])
        .status();
    let status = r.exited(Duration::from_secs(15));
    assert!(status.contains("SIGKILL"), "{status}");
    until(Duration::from_secs(15), || {
        jobs(&s, "rho-session-k").is_empty()
    });
    until(Duration::from_secs(10), || !group_alive(pgid));
    until(Duration::from_secs(10), || processes_with(&dir).is_empty());
    // Slurm ends the step with SIGKILL: the wrapper cannot remove its folder of runner files
    // (docs/remote.md says so); remove it here.
    let _ = std::fs::remove_dir_all(&dir);
}

fn parent(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn slurm_a_session_dropped_right_after_its_stop_releases_the_allocation() {
    let s = Slurm::start();
    let local = tempfile::tempdir().unwrap();
    let mut r = Remote::start(spec(&s, local.path(), Language::R, "rho-session-d"));
    assert_eq!(text(&r.run("1+1")), "[1] 2\n");
    let (pgid, dir) = (r.started.pid, runner_dir(r.started.pid));
    // The hard end of a dropped session (its local srun group killed) right after the stop.
    r.session.stop();
    drop(r);
    until(Duration::from_secs(20), || {
        jobs(&s, "rho-session-d").is_empty()
    });
    until(Duration::from_secs(10), || !group_alive(pgid));
    until(Duration::from_secs(10), || processes_with(&dir).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
