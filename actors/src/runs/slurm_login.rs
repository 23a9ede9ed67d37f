//! Managed runs on a Slurm cluster behind an ssh login node (issue 19, decision 0536): the
//! run's inputs (its script and the frozen copies its arguments name, at most
//! `kernel.remoteCopyBytes` together) put into a folder of its own there, and at each look its
//! logs read back bounded (`r.maxLogBytes`) and, once it ended, its declared outputs copied back
//! with their digests (each at most `kernel.remoteCopyBytes`).

use super::model::*;
use super::slurm::{SlurmCtx, SlurmLogin, SlurmTarget};
use crate::error::ActorError;
use rho_kernels::host::paths;
use rho_kernels::remote::slurm::{self as job, BatchSpec, SubmitError};
use rho_kernels::remote::{stage, PlaceError, SshPlace};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The job's stdout and stderr files in the run's folder there.
const STDOUT: &str = "rho-stdout.log";
const STDERR: &str = "rho-stderr.log";

/// A path inside the run's folder there.
fn there(login: &SlurmLogin, rel: &str) -> String {
    format!("{}/{rel}", login.folder.trim_end_matches('/'))
}

/// The files a run needs there: (here, project-relative path).
fn inputs(dir: &Path, op: &str, plan: &RunPlan) -> Vec<(PathBuf, String)> {
    let script = paths::script_path(dir, op, &plan.script_name);
    let rel = script
        .strip_prefix(dir)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| plan.script_name.clone());
    let mut files = vec![(script, rel)];
    for a in &plan.args {
        if let ResolvedArg::Resource { path, .. } = a {
            files.push((dir.join(path), path.clone()));
        }
    }
    files
}

/// Writes the frozen script here, puts the run's inputs into its folder there (refused over
/// `copy_bytes` together before anything is sent), then submits the job in that folder.
pub(crate) fn submit(
    cx: &SlurmCtx,
    place: &SshPlace,
    op: &str,
    plan: &RunPlan,
    t: &SlurmTarget,
    login: &SlurmLogin,
) -> Result<String, SubmitError> {
    let local = |e: std::io::Error| SubmitError::Refused(format!("the run's files: {e}"));
    let dir = &cx.dir;
    let script = paths::script_path(dir, op, &plan.script_name);
    if let Some(parent) = script.parent() {
        std::fs::create_dir_all(parent).map_err(local)?;
    }
    std::fs::write(&script, &plan.code).map_err(local)?;
    let files = inputs(dir, op, plan);
    let mut total = 0u64;
    for (here, _) in &files {
        total += std::fs::metadata(here).map_err(local)?.len();
    }
    if total > cx.copy_bytes {
        return Err(SubmitError::Refused(format!(
            "the run's inputs have {total} bytes, over kernel.remoteCopyBytes ({}); nothing was sent to {}",
            cx.copy_bytes, login.via
        )));
    }
    for (here, rel) in &files {
        stage::put(place, here, &there(login, rel), cx.copy_timeout)
            .map_err(|e| SubmitError::Refused(format!("copying {rel} to {}: {e}", login.via)))?;
    }
    let out = plan.output_directory.as_str();
    let line = format!(
        "mkdir -p -- {} && {}",
        rho_kernels::remote::ssh::quote(out).map_err(|e| SubmitError::Refused(e.to_string()))?,
        job::rscript_here(
            &t.rscript,
            &files[0].1,
            out,
            &super::freeze::arg_texts(&plan.args)
        )
        .map_err(|e| SubmitError::Refused(e.to_string()))?
    );
    job::submit(
        &t.client(),
        Some(place),
        &BatchSpec {
            run_id: op.to_string(),
            script: line,
            workdir: login.folder.clone(),
            stdout: STDOUT.into(),
            stderr: STDERR.into(),
        },
        super::slurm::COMMAND_TIMEOUT,
    )
}

/// Reads one log back into its file here (the head, at most `cap` bytes).
fn log(place: &SshPlace, from: &str, to: &Path, cap: u64) -> Result<LogFacts, PlaceError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| PlaceError::Local(e.to_string()))?;
    }
    Ok(
        match stage::head(place, from, to, cap, super::slurm::COMMAND_TIMEOUT)? {
            Some(h) => LogFacts {
                bytes: h.kept,
                truncated: h.truncated,
            },
            None => LogFacts::default(),
        },
    )
}

/// Reads the run's logs back and, once the job `ended`, copies its declared outputs into the
/// run's output folder here. An output that is missing there stays missing in the inventory;
/// one over `copy_bytes` is not copied (said in the service's log).
pub(crate) fn fetch(
    cx: &SlurmCtx,
    place: &SshPlace,
    op: &str,
    plan: &RunPlan,
    login: &SlurmLogin,
    ended: bool,
) -> Result<(LogFacts, LogFacts), PlaceError> {
    let dir = &cx.dir;
    let logs = (
        log(
            place,
            &there(login, STDOUT),
            &paths::stdout_path(dir, op),
            cx.max_log_bytes,
        )?,
        log(
            place,
            &there(login, STDERR),
            &paths::stderr_path(dir, op),
            cx.max_log_bytes,
        )?,
    );
    if !ended {
        return Ok(logs);
    }
    let out = dir.join(&plan.output_directory);
    for a in &plan.artifacts {
        let to = out.join(&a.path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| PlaceError::Local(e.to_string()))?;
        }
        let from = there(login, &format!("{}/{}", plan.output_directory, a.path));
        // Copied beside, then renamed: two looks at one run may copy it back at once.
        let part = stage::beside(&to);
        match rho_kernels::remote::copy(place, &from, &part, cx.copy_bytes, cx.copy_timeout) {
            Ok(_) => std::fs::rename(&part, &to).map_err(|e| PlaceError::Local(e.to_string()))?,
            Err(PlaceError::NotFound(_)) => {}
            Err(e @ (PlaceError::Limit(_) | PlaceError::Invalid(_))) => {
                tracing::warn!(operation = %op, output = %a.path, error = %e, "a declared output was not copied back");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(logs)
}

/// A program that runs Rscript where the run will run (`srun` on the cluster, through the
/// login node's ssh), for the requirements probe: its arguments are quoted for the login's
/// shell.
pub(crate) fn probe_line(
    place: &SshPlace,
    argv: &[String],
    t: &SlurmTarget,
) -> Result<String, ActorError> {
    let invalid = |e: PlaceError| ActorError::invalid("input.place", e.to_string());
    let remote = t.client().shell_line(argv).map_err(invalid)?;
    let ssh = place.command("", Duration::from_secs(30));
    let mut words = vec![quote_here(&ssh.get_program().to_string_lossy())];
    let args: Vec<String> = ssh
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // The last argument is the (empty) remote command: the script builds it from its own.
    for a in &args[..args.len().saturating_sub(1)] {
        words.push(quote_here(a));
    }
    Ok(format!(
        "cmd={}\nfor a in \"$@\"; do cmd=\"$cmd '$(printf %s \"$a\" | sed \"s/'/'\\\\\\\\''/g\")'\"; done\nexec {} \"$cmd\"",
        quote_here(&remote),
        words.join(" ")
    ))
}

/// One word for this machine's sh.
fn quote_here(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
