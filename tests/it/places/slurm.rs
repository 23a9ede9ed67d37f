//! Managed `r.execute` runs on a Slurm place through the real `rho`, on a single-node Slurm the
//! test starts: a run followed to its end with its outputs registered and its job journaled,
//! scancel, kill -9 of slurmctld during a run, kill -9 of Rho during runs, a lost sbatch answer
//! (unknown, never submitted again, not even by a retry), a refused one retried on the same
//! cluster, requirements checked where the run runs, and a session in an allocation.
use crate::support::env::Launch;
use crate::support::poll::until;
use crate::support::service::sha256_hex;
use crate::support::slurm::Slurm;
use crate::support::Env;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub(super) fn rscript() -> String {
    let out = std::process::Command::new("Rscript")
        .args(["-e", "cat(file.path(R.home('bin'), 'Rscript'))"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn env(s: &Slurm) -> Env {
    let e = Env::launch(Launch {
        name: Some("hpc"),
        ..Launch::default()
    });
    e.ok(
        "kernel.place.set",
        json!({"place": "hpc", "define": s.definition(&rscript())}),
    );
    e
}

pub(super) fn submit(e: &Env, op: &str, code: &str, extra: Value) -> Value {
    let script = e.script(&format!("{op}.R"), code);
    let mut input = json!({"script": script, "place": "hpc"});
    for (k, v) in extra.as_object().unwrap() {
        input[k] = v.clone();
    }
    e.ok("action.submit", e.submit_body(op, input))
}

/// On the place `hpc`: a requirement the cluster lacks refuses the run naming it, one it has
/// lets the run be sent (`q1`, `q2`).
pub(super) fn requirements_are_checked_on_the_cluster(e: &Env) {
    let script = e.script("q1.R", "1");
    let (_, err) = e.err(
        "action.submit",
        e.submit_body(
            "q1",
            json!({"script": script, "place": "hpc", "requirements": [{"package": "surely.not.installed.pkg", "source": "cran"}]}),
        ),
    );
    assert_eq!(err["code"], "unavailable", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("surely.not.installed.pkg"),
        "{err}"
    );
    let ok = submit(
        e,
        "q2",
        "cat(jsonlite::toJSON(1))",
        json!({"requirements": [{"package": "jsonlite", "source": "cran"}]}),
    );
    assert_eq!(ok["delivery"], "sent", "{ok}");
}

pub(super) fn jobs_named(s: &Slurm, name: &str) -> usize {
    let queued = s.cmd("squeue", &["-h", "-t", "all", "-n", name, "-o", "%i"]);
    queued.lines().filter(|l| !l.trim().is_empty()).count()
}

#[test]
fn a_run_on_the_slurm_place_is_followed_to_its_end_and_its_outputs_are_registered() {
    let s = Slurm::start();
    let e = env(&s);
    let code = "args <- commandArgs(TRUE)\nwriteLines('a,b\\n1,2', file.path(args[1], 'out.csv'))\ncat('done', args[2], '\\n')\n";
    let a = submit(
        &e,
        "r1",
        code,
        json!({"args": ["x"], "artifacts": [{"path": "out.csv", "kind": "table", "format": "csv"}]}),
    );
    assert_eq!(a["delivery"], "sent", "{a}");
    assert_eq!(a["slurm"]["place"], "hpc", "{a}");
    let job = a["slurm"]["jobId"]
        .as_str()
        .expect("the job id")
        .to_string();
    let done = e.wait_end("r1", 60);
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    assert_eq!(done["slurm"]["jobId"], job.as_str());
    assert_eq!(
        done["inventory"][0]["sha256"],
        sha256_hex(b"a,b\n1,2\n"),
        "{done}"
    );
    assert_eq!(e.output("r1", "stdout"), "done x \n");
    // The job carries the run's id in its name; the journal holds the job id.
    assert_eq!(jobs_named(&s, "rho-run-r1"), 1);
    // The declared output is registered as a resource of the run.
    until("the output is registered", Duration::from_secs(10), || {
        e.ok("resource.list", json!({}))["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| {
                r["path"] == "runs/r1/artifacts/out.csv" && r["provenance"]["operationId"] == "r1"
            })
    });
    // A failing script keeps its exit code.
    submit(&e, "r2", "stop('no')", json!({}));
    let failed = e.wait_end("r2", 60);
    assert_eq!(failed["exit"]["exitCode"], 1, "{failed}");
    assert!(e.output("r2", "stderr").contains("no"));
    // A place that is not a Slurm cluster, or none, is refused before anything is journaled.
    let script = e.script("x.R", "1");
    let (_, err) = e.err(
        "action.submit",
        e.submit_body("r3", json!({"script": script, "place": "nowhere"})),
    );
    assert_eq!(err["code"], "not_found", "{err}");
}

#[test]
fn scancel_stops_a_run_on_the_slurm_place() {
    let s = Slurm::start();
    let e = env(&s);
    submit(&e, "c1", "cat('started\\n')\nSys.sleep(120)\n", json!({}));
    until("the run prints", Duration::from_secs(30), || {
        e.output("c1", "stdout").contains("started")
    });
    let t = Instant::now();
    let c = e.ok("action.cancel", json!({"operationId": "c1"}));
    assert_eq!(c["stop"]["requestedBy"], "operator", "{c}");
    let done = e.wait_end("c1", 30);
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["stop"]["state"], "stopped", "{done}");
    until("the job is gone", Duration::from_secs(15), || {
        s.cmd("squeue", &["-h", "-n", "rho-run-c1"])
            .trim()
            .is_empty()
    });
}

#[test]
fn kill_9_of_slurmctld_during_a_run_is_followed_to_its_end_after_the_restart() {
    let mut s = Slurm::start();
    let e = env(&s);
    submit(
        &e,
        "k1",
        "cat('started\\n')\nSys.sleep(12)\ncat('finished\\n')\n",
        json!({}),
    );
    until("the run prints", Duration::from_secs(30), || {
        e.output("k1", "stdout").contains("started")
    });
    // The controller saves its state up to 5 s late (REMOTE.md).
    std::thread::sleep(Duration::from_secs(6));
    s.kill_ctld();
    std::thread::sleep(Duration::from_secs(2));
    let during = e.ok("action.lookup", json!({"operationId": "k1"}));
    assert_eq!(during["execution"], "running", "{during}");
    s.start_ctld(false);
    let done = e.wait_end("k1", 90);
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    assert!(e.output("k1", "stdout").contains("finished"));
    assert_eq!(
        jobs_named(&s, "rho-run-k1"),
        1,
        "one job, never submitted again"
    );
}

#[test]
fn kill_9_of_rho_during_runs_on_the_slurm_place_is_reconciled_at_the_restart() {
    let s = Slurm::start();
    let mut e = env(&s);
    // One job outlives the restart, one ends while Rho is down.
    submit(
        &e,
        "long",
        "cat('started\\n')\nSys.sleep(15)\ncat('finished\\n')\n",
        json!({}),
    );
    submit(
        &e,
        "short",
        "args <- commandArgs(TRUE)\ncat('started\\n')\nSys.sleep(3)\nwriteLines('x', file.path(args[1], 'o.txt'))\n",
        json!({"artifacts": [{"path": "o.txt", "kind": "file", "format": "txt"}]}),
    );
    until("both runs print", Duration::from_secs(30), || {
        e.output("long", "stdout").contains("started")
            && e.output("short", "stdout").contains("started")
    });
    let job = |op: &str| {
        s.cmd(
            "squeue",
            &[
                "-h",
                "-t",
                "all",
                "-n",
                &format!("rho-run-{op}"),
                "-o",
                "%i %T",
            ],
        )
        .trim()
        .to_string()
    };
    e.service.child.kill().unwrap();
    e.service.child.wait().unwrap();
    until(
        "the short job ends while Rho is down",
        Duration::from_secs(30),
        || job("short").ends_with("COMPLETED"),
    );
    assert!(job("long").ends_with("RUNNING"), "{}", job("long"));
    e.restart(&[]);
    let short = e.wait_end("short", 30);
    assert_eq!(short["execution"], "exited", "{short}");
    assert_eq!(short["exit"]["exitCode"], 0, "{short}");
    assert_eq!(
        short["inventory"][0]["sha256"],
        sha256_hex(b"x\n"),
        "{short}"
    );
    let during = e.ok("action.lookup", json!({"operationId": "long"}));
    assert_eq!(during["execution"], "running", "{during}");
    let long = e.wait_end("long", 60);
    assert_eq!(long["execution"], "exited", "{long}");
    assert_eq!(long["exit"]["exitCode"], 0, "{long}");
    assert!(e.output("long", "stdout").contains("finished"));
    // Each run is one job: nothing was submitted again.
    assert_eq!(jobs_named(&s, "rho-run-long"), 1);
    assert_eq!(jobs_named(&s, "rho-run-short"), 1);
}

#[test]
fn a_lost_sbatch_answer_makes_the_run_unknown_and_it_is_never_submitted_again() {
    let s = Slurm::start();
    // A cluster whose sbatch submits and then answers nothing readable.
    let bin = tempfile::tempdir().unwrap();
    for program in ["srun", "squeue", "scontrol", "scancel", "sacct", "sinfo"] {
        std::os::unix::fs::symlink(format!("/usr/bin/{program}"), bin.path().join(program))
            .unwrap();
    }
    let sbatch = bin.path().join("sbatch");
    std::fs::write(
        &sbatch,
        "#!/bin/sh\n/usr/bin/sbatch \"$@\" >/dev/null\necho 'Connection reset'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let e = env(&s);
    let mut d = s.definition(&rscript());
    d["slurm"]["bin"] = json!(bin.path().display().to_string());
    e.ok("kernel.place.set", json!({"place": "lossy", "define": d}));
    let script = e.script("u1.R", "Sys.sleep(1)");
    let a = e.ok(
        "action.submit",
        e.submit_body("u1", json!({"script": script, "place": "lossy"})),
    );
    assert_eq!(
        (a["delivery"].as_str(), a["execution"].as_str()),
        (Some("uncertain"), Some("unknown")),
        "{a}"
    );
    assert_eq!(a["slurm"]["jobId"], Value::Null, "{a}");
    // The job exists once; a restart does not submit it again.
    until("the job ran", Duration::from_secs(30), || {
        jobs_named(&s, "rho-run-u1") == 1
    });
    let mut e = e;
    e.restart(&[]);
    let after = e.ok("action.lookup", json!({"operationId": "u1"}));
    assert_eq!(after["execution"], "unknown", "{after}");
    // Retrying it answers its record and submits nothing.
    let retried = e.ok("action.retry", json!({"operationId": "u1"}));
    assert_eq!(retried["execution"], "unknown", "{retried}");
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(jobs_named(&s, "rho-run-u1"), 1);

    // A refused submission is not sent; its retry goes to the same cluster, once.
    let refusing = tempfile::tempdir().unwrap();
    for program in ["srun", "squeue", "scontrol", "scancel", "sacct", "sinfo"] {
        std::os::unix::fs::symlink(format!("/usr/bin/{program}"), refusing.path().join(program))
            .unwrap();
    }
    let sbatch = refusing.path().join("sbatch");
    std::fs::write(
        &sbatch,
        "#!/bin/sh\nif [ ! -e \"$0.refused\" ]; then : > \"$0.refused\"; echo 'sbatch: error: Batch job submission failed: Resource temporarily unavailable' >&2; exit 1; fi\nexec /usr/bin/sbatch \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut d = s.definition(&rscript());
    d["slurm"]["bin"] = json!(refusing.path().display().to_string());
    e.ok("kernel.place.set", json!({"place": "busy", "define": d}));
    let script = e.script("n1.R", "cat('ran\\n')");
    let (_, a) = e.err(
        "action.submit",
        e.submit_body("n1", json!({"script": script, "place": "busy"})),
    );
    assert_eq!(a["code"], "unavailable", "{a}");
    assert_eq!(a["details"]["delivery"], "not-sent", "{a}");
    assert!(a["message"].as_str().unwrap().contains("busy"), "{a}");
    assert_eq!(jobs_named(&s, "rho-run-n1"), 0);
    let r = e.ok("action.retry", json!({"operationId": "n1"}));
    assert_eq!(r["delivery"], "sent", "{r}");
    assert_eq!(r["slurm"]["place"], "busy", "{r}");
    assert!(r["slurm"]["jobId"].is_string(), "{r}");
    let done = e.wait_end("n1", 60);
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    assert_eq!(e.output("n1", "stdout"), "ran\n");
    assert_eq!(jobs_named(&s, "rho-run-n1"), 1);
}

#[test]
fn requirements_are_checked_on_the_cluster_and_a_session_runs_in_an_allocation() {
    let s = Slurm::start();
    let e = env(&s);
    requirements_are_checked_on_the_cluster(&e);
    // A Notebook session inside an allocation of its own; ending it releases the allocation.
    e.ok("kernel.place.set", json!({"place": "hpc", "language": "r"}));
    let c = e.ok(
        "kernel.run",
        json!({"language": "r", "code": "Sys.getenv('SLURM_JOB_ID') != ''", "changeId": "s1", "waitMs": 60000}),
    );
    assert_eq!(c["place"], "hpc", "{c}");
    let out: String = c["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["text"].as_str().unwrap())
        .collect();
    assert_eq!(out, "[1] TRUE\n", "{c}");
    let session = c["sessionId"].clone();
    assert!(!s
        .cmd(
            "squeue",
            &[
                "-h",
                "-n",
                &format!("rho-session-{}", session.as_str().unwrap())
            ]
        )
        .trim()
        .is_empty());
    let (status, v) = e.local("kernel.stop", json!({"sessionId": session}));
    assert_eq!(status, 200, "{v}");
    until(
        "the allocation is released",
        Duration::from_secs(20),
        || {
            s.cmd(
                "squeue",
                &[
                    "-h",
                    "-n",
                    &format!("rho-session-{}", session.as_str().unwrap()),
                ],
            )
            .trim()
            .is_empty()
        },
    );
}
