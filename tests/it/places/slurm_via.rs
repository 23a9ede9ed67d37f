//! Managed `r.execute` runs on a Slurm cluster behind an ssh login node, through the real `rho`
//! (the private sshd and the single-node Slurm the tests start): the inputs staged in the run's
//! folder there, the job followed over ssh with its logs read back bounded and its outputs
//! copied back and registered, scancel over ssh, kill -9 of Rho followed again at the restart,
//! requirements checked on the cluster; and the log bound of a cluster on this machine.
use super::slurm::{jobs_named, requirements_are_checked_on_the_cluster, rscript, submit};
use crate::support::env::Launch;
use crate::support::poll::until;
use crate::support::service::sha256_hex;
use crate::support::slurm::Slurm;
use crate::support::sshd::Sshd;
use crate::support::Env;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// A service with the ssh place `lab` (its folder `remote`) and the Slurm place `hpc` behind it.
fn env(s: &Slurm, d: &Sshd, remote: &Path) -> Env {
    let e = Env::launch(Launch {
        name: Some("via"),
        limits: Some(json!({"r": {"maxLogBytes": 1000}})),
        ..Launch::default()
    });
    let mut lab = d.definition();
    lab["folder"] = json!(remote.display().to_string());
    e.ok("kernel.place.set", json!({"place": "lab", "define": lab}));
    let mut hpc = s.definition(&rscript());
    hpc["slurm"]["via"] = json!("lab");
    e.ok("kernel.place.set", json!({"place": "hpc", "define": hpc}));
    e
}

/// The run's folder on the login node.
fn folder(remote: &Path, op: &str) -> std::path::PathBuf {
    let runs = remote.join(".rho-runs");
    std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .find(|f| {
            f.file_name()
                .to_string_lossy()
                .starts_with(&format!("{op}-"))
        })
        .unwrap_or_else(|| panic!("no folder of {op} in {}", runs.display()))
        .path()
}

#[test]
fn a_run_behind_a_login_node_is_staged_followed_and_its_outputs_copied_back() {
    let s = Slurm::start();
    let d = Sshd::start();
    let remote = tempfile::tempdir().unwrap();
    let e = env(&s, &d, remote.path());
    std::fs::write(e.dir.join("input.txt"), "payload\n").unwrap();
    let res = e.ok(
        "resource.register",
        json!({"changeId": "i1", "path": "input.txt", "kind": "file", "format": "txt"}),
    );
    let rref = json!({"resource": {"id": res["id"], "version": res["version"]}});
    let code = "a <- commandArgs(TRUE)\nwriteLines(readLines(a[3]), file.path(a[1], 'out.csv'))\ncat('done', a[2], '\\n')\ncat(strrep('e', 3000), file = stderr())\n";
    let a = submit(
        &e,
        "v1",
        code,
        json!({"args": ["x", rref], "artifacts": [{"path": "out.csv", "kind": "table", "format": "csv"}]}),
    );
    assert_eq!(a["delivery"], "sent", "{a}");
    assert_eq!(a["slurm"]["place"], "hpc", "{a}");
    assert!(a["slurm"]["jobId"].is_string(), "{a}");
    let done = e.wait_end("v1", 60);
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    assert_eq!(
        done["inventory"][0]["sha256"],
        sha256_hex(b"payload\n"),
        "{done}"
    );
    assert_eq!(e.output("v1", "stdout"), "done x \n");
    // The log is read back bounded like a local run's: its head, the cut stated.
    assert_eq!(done["logs"]["stderr"]["bytes"], 1000, "{done}");
    assert_eq!(done["logs"]["stderr"]["truncated"], true, "{done}");
    assert_eq!(e.output("v1", "stderr"), "e".repeat(1000));
    // The inputs went to the run's own folder there; the outputs were copied back from it.
    let there = folder(remote.path(), "v1");
    assert!(there.join(".rho/host/v1/v1.R").is_file());
    assert_eq!(
        std::fs::read(there.join("runs/v1/artifacts/out.csv")).unwrap(),
        b"payload\n"
    );
    assert_eq!(
        std::fs::read(e.dir.join("runs/v1/artifacts/out.csv")).unwrap(),
        b"payload\n"
    );
    assert_eq!(jobs_named(&s, "rho-run-v1"), 1);
    until("the output is registered", Duration::from_secs(10), || {
        e.ok("resource.list", json!({}))["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["path"] == "runs/v1/artifacts/out.csv")
    });
    // Requirements are checked on the cluster, through the login node.
    requirements_are_checked_on_the_cluster(&e);
    assert_eq!(e.wait_end("q2", 60)["exit"]["exitCode"], 0);
}

#[test]
fn scancel_and_kill_9_of_rho_behind_a_login_node() {
    let s = Slurm::start();
    let d = Sshd::start();
    let remote = tempfile::tempdir().unwrap();
    let mut e = env(&s, &d, remote.path());
    submit(&e, "c1", "cat('started\\n')\nSys.sleep(120)\n", json!({}));
    until("the run prints", Duration::from_secs(30), || {
        e.output("c1", "stdout").contains("started")
    });
    let c = e.ok("action.cancel", json!({"operationId": "c1"}));
    assert_eq!(c["stop"]["requestedBy"], "operator", "{c}");
    let done = e.wait_end("c1", 30);
    assert_eq!(done["stop"]["state"], "stopped", "{done}");
    until("the job is gone", Duration::from_secs(15), || {
        s.cmd("squeue", &["-h", "-n", "rho-run-c1"])
            .trim()
            .is_empty()
    });
    // kill -9 of Rho during a run that ends while it is down: followed again at the restart.
    submit(
        &e,
        "k1",
        "a <- commandArgs(TRUE)\ncat('started\\n')\nSys.sleep(4)\nwriteLines('k', file.path(a[1], 'k.txt'))\ncat('finished\\n')\n",
        json!({"artifacts": [{"path": "k.txt", "kind": "file", "format": "txt"}]}),
    );
    until("the run prints", Duration::from_secs(30), || {
        e.output("k1", "stdout").contains("started")
    });
    e.service.child.kill().unwrap();
    e.service.child.wait().unwrap();
    until(
        "the job ends while Rho is down",
        Duration::from_secs(30),
        || {
            s.cmd(
                "squeue",
                &["-h", "-t", "all", "-n", "rho-run-k1", "-o", "%T"],
            )
            .trim()
                == "COMPLETED"
        },
    );
    e.restart(&[]);
    let k = e.wait_end("k1", 30);
    assert_eq!(k["execution"], "exited", "{k}");
    assert_eq!(k["exit"]["exitCode"], 0, "{k}");
    assert_eq!(k["inventory"][0]["sha256"], sha256_hex(b"k\n"), "{k}");
    assert_eq!(e.output("k1", "stdout"), "started\nfinished\n");
    assert_eq!(jobs_named(&s, "rho-run-k1"), 1, "never submitted again");
}

#[test]
fn a_local_clusters_logs_are_bounded_with_the_cut_stated() {
    let s = Slurm::start();
    let e = Env::launch(Launch {
        name: Some("bounded"),
        limits: Some(json!({"r": {"maxLogBytes": 1000}})),
        ..Launch::default()
    });
    e.ok(
        "kernel.place.set",
        json!({"place": "hpc", "define": s.definition(&rscript())}),
    );
    submit(&e, "b1", "cat(strrep('o', 5000))\ncat('x\\n')\n", json!({}));
    let done = e.wait_end("b1", 60);
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    assert_eq!(done["logs"]["stdout"]["bytes"], 1000, "{done}");
    assert_eq!(done["logs"]["stdout"]["truncated"], true, "{done}");
    assert_eq!(done["logs"]["stderr"]["truncated"], false, "{done}");
    assert_eq!(e.output("b1", "stdout"), "o".repeat(1000));
}
