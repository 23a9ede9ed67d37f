//! Batch jobs on a single-node Slurm the test starts (munge, slurmctld, slurmd): a job followed
//! to its end with its exit code and output, scancel, kill -9 of slurmctld during a run (the
//! job is followed to its end after the restart), a reused id that names another run, and a
//! job nobody knows.

use crate::support::slurm::Slurm;
use crate::support::until;
use rho_kernels::remote::slurm::{self, BatchSpec, Observed};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

fn spec(s: &Slurm, run_id: &str, script: &str) -> BatchSpec {
    let d = s.dir.path().display();
    BatchSpec {
        run_id: run_id.into(),
        script: script.into(),
        workdir: d.to_string(),
        stdout: format!("{d}/{run_id}.out"),
        stderr: format!("{d}/{run_id}.err"),
    }
}

/// Follows the job until it ended; its last facts.
fn follow(s: &Slurm, job: &str, run_id: &str, within: Duration) -> slurm::JobFacts {
    let client = s.client();
    let jobcomp = slurm::jobcomp_path(&client, None, T).unwrap();
    let deadline = Instant::now() + within;
    loop {
        if let Ok(Observed::Job(f)) =
            slurm::observe(&client, None, job, run_id, jobcomp.as_deref(), T)
        {
            if f.ended() {
                return f;
            }
        }
        assert!(
            Instant::now() < deadline,
            "job {job} did not end within {within:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn running(s: &Slurm, job: &str, run_id: &str) {
    let client = s.client();
    until(T, || {
        matches!(
            slurm::observe(&client, None, job, run_id, None, T),
            Ok(Observed::Job(f)) if f.state == "RUNNING"
        )
    });
}

#[test]
fn slurm_a_batch_job_is_followed_to_its_end_with_exit_code_and_output() {
    let s = Slurm::start();
    let client = s.client();
    let job = slurm::submit(
        &client,
        None,
        &spec(&s, "r1", "echo out; echo err >&2; exit 3"),
        T,
    )
    .unwrap();
    let f = follow(&s, &job, "r1", Duration::from_secs(30));
    assert_eq!(
        (f.state.as_str(), f.exit_code),
        ("FAILED", Some(3)),
        "{f:?}"
    );
    assert_eq!(f.name, "rho-run-r1");
    let out = std::fs::read_to_string(s.dir.path().join("r1.out")).unwrap();
    let err = std::fs::read_to_string(s.dir.path().join("r1.err")).unwrap();
    assert_eq!((out.as_str(), err.as_str()), ("out\n", "err\n"));
    // The same id asked for by another run is not its job; an id nobody knows is unknown.
    assert!(matches!(
        slurm::observe(&client, None, &job, "other", None, T).unwrap(),
        Observed::NotOurs { name } if name == "rho-run-r1"
    ));
    let jobcomp = slurm::jobcomp_path(&client, None, T).unwrap();
    assert!(jobcomp.is_some());
    assert!(matches!(
        slurm::observe(&client, None, "999999", "r1", jobcomp.as_deref(), T).unwrap(),
        Observed::Unknown(_)
    ));
    // sbatch's own refusal: certainly not submitted.
    let mut bad = client.clone();
    bad.partition = Some("nowhere".into());
    assert!(matches!(
        slurm::submit(&bad, None, &spec(&s, "r2", "true"), T),
        Err(slurm::SubmitError::Refused(_))
    ));
}

#[test]
fn slurm_scancel_ends_a_running_job() {
    let s = Slurm::start();
    let client = s.client();
    let job = slurm::submit(&client, None, &spec(&s, "c1", "echo started; sleep 60"), T).unwrap();
    running(&s, &job, "c1");
    let t = Instant::now();
    slurm::cancel(&client, None, &job, T).unwrap();
    let f = follow(&s, &job, "c1", Duration::from_secs(20));
    assert_eq!(f.state, "CANCELLED", "{f:?}");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    until(T, || s.cmd("squeue", &["-h", "-j", &job]).trim().is_empty());
}

#[test]
fn slurm_kill_9_of_slurmctld_during_a_run_is_followed_to_the_end_after_its_restart() {
    let mut s = Slurm::start();
    let client = s.client();
    let job = slurm::submit(&client, None, &spec(&s, "k1", "sleep 10; echo finished"), T).unwrap();
    running(&s, &job, "k1");
    // The controller saves its state up to 5 s late (REMOTE.md): wait past that first.
    std::thread::sleep(Duration::from_secs(6));
    s.kill_ctld();
    // With the controller gone, following says so (no answer), never that the job ended.
    let gone = slurm::observe(&client, None, &job, "k1", None, Duration::from_secs(3));
    assert!(
        !matches!(&gone, Ok(Observed::Job(f)) if f.ended()),
        "{gone:?}"
    );
    s.start_ctld(false);
    let f = follow(&s, &job, "k1", Duration::from_secs(60));
    assert_eq!(
        (f.state.as_str(), f.exit_code),
        ("COMPLETED", Some(0)),
        "{f:?}"
    );
    assert_eq!(
        std::fs::read_to_string(s.dir.path().join("k1.out")).unwrap(),
        "finished\n"
    );
}
