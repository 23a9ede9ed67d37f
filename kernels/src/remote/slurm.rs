//! Batch jobs on a Slurm cluster (here or through an ssh login node): `sbatch --parsable` with
//! Rho's run id in the job name, following a job with `scontrol show job -o` (then `sacct`, then
//! the `jobcomp/filetxt` log once the controller forgot it), and `scancel`. A job whose record
//! names another run, or that no source knows, is reported as such: never resubmitted.

use super::jobfacts::exit_pair;
pub use super::jobfacts::{parse_jobcomp, parse_scontrol, JobFacts};
use super::route::SlurmClient;
use super::ssh::{quote, SshPlace};
use super::PlaceError;
use rho_plumbing::child::{self, Cut};
use std::time::Duration;

/// The job name of Rho's run `run_id` (ids are reused after a controller crash: the name is
/// how Rho knows the job is its own).
pub fn job_name(run_id: &str) -> String {
    format!("rho-run-{run_id}")
}

/// One batch job to submit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchSpec {
    pub run_id: String,
    /// The job's command: one POSIX sh line (`--wrap`).
    pub script: String,
    /// The job's working folder where it runs (on a login node: relative to the login's
    /// folder, or absolute); sbatch runs there.
    pub workdir: String,
    pub stdout: String,
    pub stderr: String,
}

/// Why a submission has no job id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitError {
    /// sbatch said no: certainly not submitted.
    #[error("sbatch refused the job: {0}")]
    Refused(String),
    /// The reply was lost (a timeout, a dropped connection): it may have been submitted.
    #[error("the submission's reply was lost, the job may exist: {0}")]
    Doubt(String),
}

/// What following a job found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    Job(JobFacts),
    /// The job id now names another job (ids are reused after a controller crash).
    NotOurs {
        name: String,
    },
    /// No source knows the job (purged, or lost with a controller crash).
    Unknown(String),
}

fn run(
    client: &SlurmClient,
    login: Option<&SshPlace>,
    argv: &[String],
    timeout: Duration,
    max: u64,
) -> Result<child::Bounded, PlaceError> {
    run_in(client, login, None, argv, timeout, max)
}

fn run_in(
    client: &SlurmClient,
    login: Option<&SshPlace>,
    cd: Option<&str>,
    argv: &[String],
    timeout: Duration,
    max: u64,
) -> Result<child::Bounded, PlaceError> {
    if let Some(l) = login {
        l.prepare().map_err(|e| PlaceError::Spawn(e.to_string()))?;
    }
    let cmd = client.command_in(login, cd, argv, timeout)?;
    let out = child::run(cmd, timeout, max).map_err(|e| PlaceError::Spawn(e.to_string()))?;
    if out.cut == Some(Cut::Timeout) {
        return Err(PlaceError::Timeout {
            ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            printed: out.stderr_tail(400),
        });
    }
    Ok(out)
}

/// Submits `spec` (`sbatch --parsable --wrap`), the job named after the run.
pub fn submit(
    client: &SlurmClient,
    login: Option<&SshPlace>,
    spec: &BatchSpec,
    timeout: Duration,
) -> Result<String, SubmitError> {
    let mut argv = vec![
        client.program("sbatch"),
        "--parsable".into(),
        format!("--job-name={}", job_name(&spec.run_id)),
        format!("--output={}", spec.stdout),
        format!("--error={}", spec.stderr),
        "--nodes=1".into(),
        "--ntasks=1".into(),
    ];
    if let Some(p) = &client.partition {
        argv.push(format!("--partition={p}"));
    }
    argv.push(format!("--wrap={}", spec.script));
    // sbatch runs in the job's folder: the job's working folder is where it was submitted.
    let out = match run_in(
        client,
        login,
        Some(&spec.workdir),
        &argv,
        timeout,
        64 * 1024,
    ) {
        Ok(o) => o,
        // A spawn that failed sent nothing; anything else may have reached the controller.
        Err(PlaceError::Spawn(e)) => return Err(SubmitError::Refused(e)),
        Err(e) => return Err(SubmitError::Doubt(e.to_string())),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text
        .lines()
        .next()
        .and_then(|l| l.split(';').next())
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    match out.exit_code {
        Some(0) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => Ok(id),
        Some(0) => Err(SubmitError::Doubt(format!("sbatch printed {text:?}"))),
        // ssh's own failure: the command may or may not have run.
        Some(255) if login.is_some() => Err(SubmitError::Doubt(super::ssh::reason(
            &out.stderr,
            out.exit_code,
        ))),
        None => Err(SubmitError::Doubt("sbatch was killed".into())),
        Some(_) => Err(SubmitError::Refused(out.stderr_tail(400))),
    }
}

/// Follows job `job_id` of run `run_id` once: the controller first, then accounting, then the
/// job completion log (`jobcomp`: its path on the machine the commands run on).
pub fn observe(
    client: &SlurmClient,
    login: Option<&SshPlace>,
    job_id: &str,
    run_id: &str,
    jobcomp: Option<&str>,
    timeout: Duration,
) -> Result<Observed, PlaceError> {
    let ours = job_name(run_id);
    let judge = |facts: JobFacts| {
        if facts.name == ours {
            Observed::Job(facts)
        } else {
            Observed::NotOurs { name: facts.name }
        }
    };
    let out = run(
        client,
        login,
        &[
            client.program("scontrol"),
            "show".into(),
            "job".into(),
            "-o".into(),
            job_id.into(),
        ],
        timeout,
        64 * 1024,
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    if out.exit_code == Some(0) {
        if let Some(facts) = text.lines().find_map(parse_scontrol) {
            return Ok(judge(facts));
        }
    }
    let said = out.stderr_tail(300);
    if !said.contains("Invalid job id") {
        return Err(PlaceError::Remote(format!(
            "scontrol show job {job_id}: {said}"
        )));
    }
    // Purged from the controller (MinJobAge) or lost with it: accounting, then jobcomp.
    let acct = run(
        client,
        login,
        &[
            client.program("sacct"),
            "-n".into(),
            "-P".into(),
            "-X".into(),
            "-j".into(),
            job_id.into(),
            "-o".into(),
            "JobID,JobName,State,ExitCode".into(),
        ],
        timeout,
        64 * 1024,
    )?;
    if acct.exit_code == Some(0) {
        let text = String::from_utf8_lossy(&acct.stdout);
        if let Some(line) = text.lines().find(|l| l.starts_with(&format!("{job_id}|"))) {
            let f: Vec<&str> = line.split('|').collect();
            if f.len() >= 4 {
                let (exit_code, signal) = exit_pair(f[3]);
                return Ok(judge(JobFacts {
                    job_id: job_id.to_string(),
                    name: f[1].to_string(),
                    state: f[2].split(' ').next().unwrap_or_default().to_string(),
                    exit_code,
                    signal,
                    reason: None,
                    source: "sacct",
                }));
            }
        }
    }
    if let Some(path) = jobcomp {
        let script = format!(
            "grep -F -- {} {} || true",
            quote(&format!("JobId={job_id} "))?,
            quote(path)?
        );
        let cmd = match login {
            Some(l) => l.command(&script, timeout),
            None => {
                let mut c = std::process::Command::new("sh");
                c.args(["-c", &script]);
                c
            }
        };
        let out =
            child::run(cmd, timeout, 1024 * 1024).map_err(|e| PlaceError::Spawn(e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        // The last line of that id: a reused id's newer job comes later.
        let mine = text
            .lines()
            .rev()
            .filter_map(parse_jobcomp)
            .find(|f| f.job_id == job_id && f.name == ours);
        if let Some(f) = mine {
            return Ok(Observed::Job(f));
        }
    }
    Ok(Observed::Unknown(format!(
        "no source knows job {job_id} ({said})"
    )))
}

/// `scancel` of the job (SIGTERM to its steps, SIGKILL after the cluster's `KillWait`).
pub fn cancel(
    client: &SlurmClient,
    login: Option<&SshPlace>,
    job_id: &str,
    timeout: Duration,
) -> Result<(), PlaceError> {
    let out = run(
        client,
        login,
        &[client.program("scancel"), job_id.into()],
        timeout,
        16 * 1024,
    )?;
    match out.exit_code {
        Some(0) => Ok(()),
        code => Err(PlaceError::Remote(super::ssh::reason(&out.stderr, code))),
    }
}

/// The job completion log's path of the cluster (`JobCompLoc` when `JobCompType` is
/// `jobcomp/filetxt`), if it keeps one.
pub fn jobcomp_path(
    client: &SlurmClient,
    login: Option<&SshPlace>,
    timeout: Duration,
) -> Result<Option<String>, PlaceError> {
    let out = run(
        client,
        login,
        &[client.program("scontrol"), "show".into(), "config".into()],
        timeout,
        1024 * 1024,
    )?;
    if out.exit_code != Some(0) {
        return Err(PlaceError::from_exit(&out.stderr, out.exit_code));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let value = |key: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    Ok(match value("JobCompType") {
        Some(t) if t.contains("filetxt") => value("JobCompLoc"),
        _ => None,
    })
}

/// The one sh line a managed R run's job runs (what the Core Host runs, without its guard:
/// Slurm ends the job's processes): in `workdir`, `R_LIBS` led by `library`, `rscript SCRIPT
/// OUTPUT_DIR ARGS...`.
pub fn rscript_line(
    workdir: &str,
    library: &str,
    rscript: &str,
    script: &str,
    output_dir: &str,
    args: &[String],
) -> Result<String, PlaceError> {
    Ok(format!(
        "cd {} && R_LIBS={}${{R_LIBS:+:$R_LIBS}} && export R_LIBS && {}",
        quote(workdir)?,
        quote(library)?,
        rscript_here(rscript, script, output_dir, args)?
    ))
}

/// `exec rscript SCRIPT OUTPUT_DIR ARGS...` in the job's working folder, with the cluster's own
/// R library (a run staged on a login node: its paths are relative to the run's folder).
pub fn rscript_here(
    rscript: &str,
    script: &str,
    output_dir: &str,
    args: &[String],
) -> Result<String, PlaceError> {
    let mut words = vec![quote(rscript)?, quote(script)?, quote(output_dir)?];
    for a in args {
        words.push(quote(a)?);
    }
    Ok(format!("exec {}", words.join(" ")))
}
