//! How a session reaches the machine it runs on: the place's ssh, `srun` in a Slurm allocation
//! of its own (on this machine or through an ssh login node), or `serverctl exec`. A route builds the
//! session's command (its stdio carries the protocol) and, once the job is known, the command
//! that runs a short script beside the session (a signal, reading a plot back).

use super::ssh::{quote, SshPlace};
use super::PlaceError;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// A Slurm cluster's client commands as Rho runs them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SlurmClient {
    /// The folder holding `sbatch`, `srun`, `squeue`, `scontrol`, `scancel`, `sacct`
    /// (none: the PATH of where they run).
    pub bin: Option<PathBuf>,
    /// `SLURM_CONF` for the commands (none: the cluster's default).
    pub conf: Option<PathBuf>,
    /// The partition jobs go to (none: the cluster's default).
    pub partition: Option<String>,
}

impl SlurmClient {
    /// The path of one of Slurm's commands.
    pub fn program(&self, name: &str) -> String {
        match &self.bin {
            Some(b) => b.join(name).to_string_lossy().into_owned(),
            None => name.to_string(),
        }
    }

    /// `argv` as one POSIX sh command line (for a login node), with `SLURM_CONF` set.
    pub fn shell_line(&self, argv: &[String]) -> Result<String, PlaceError> {
        let mut words = Vec::new();
        if let Some(c) = &self.conf {
            words.push(format!("SLURM_CONF={}", quote(&c.to_string_lossy())?));
        }
        for a in argv {
            words.push(quote(a)?);
        }
        Ok(words.join(" "))
    }

    /// `argv` run on this machine, or on `login` through its ssh.
    pub fn command(
        &self,
        login: Option<&SshPlace>,
        argv: &[String],
        connect: Duration,
    ) -> Result<Command, PlaceError> {
        self.command_in(login, None, argv, connect)
    }

    /// [`SlurmClient::command`] run in the folder `cd` (on the login node: relative to the
    /// login's folder).
    pub fn command_in(
        &self,
        login: Option<&SshPlace>,
        cd: Option<&str>,
        argv: &[String],
        connect: Duration,
    ) -> Result<Command, PlaceError> {
        match login {
            Some(place) => {
                let line = self.shell_line(argv)?;
                let line = match cd {
                    Some(d) => format!("cd {} && {line}", quote(d)?),
                    None => line,
                };
                Ok(place.command(&line, connect))
            }
            None => {
                let (first, rest) = argv
                    .split_first()
                    .ok_or_else(|| PlaceError::Invalid("an empty Slurm command".into()))?;
                let mut cmd = Command::new(first);
                cmd.args(rest);
                if let Some(c) = &self.conf {
                    cmd.env("SLURM_CONF", c);
                }
                if let Some(d) = cd {
                    cmd.current_dir(d);
                }
                Ok(cmd)
            }
        }
    }
}

/// Where a session runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// On an ssh place, over its (multiplexed) ssh.
    Ssh(SshPlace),
    /// In an allocation of its own (`srun --unbuffered`), here or through a login node.
    Srun {
        login: Option<SshPlace>,
        slurm: SlurmClient,
        /// The job's name (Rho's session id in it).
        job_name: String,
    },
    /// On a server the person's serverctl manages (`serverctl exec`, docs/serverctl.md).
    Serverctl {
        serverctl: super::serverctl::Serverctl,
        server: String,
        /// `serverctlSessionS`: serverctl ends the command after it.
        max_seconds: u64,
    },
}

impl Route {
    /// What ends when the session's command is killed ("ssh", "srun").
    pub fn via(&self) -> &'static str {
        match self {
            Route::Ssh(_) => "ssh",
            Route::Srun { .. } => "srun",
            Route::Serverctl { .. } => "serverctl",
        }
    }

    /// The session's command: `line` (one POSIX sh line) run where the session runs.
    pub fn session(&self, line: &str, connect: Duration) -> Result<Command, PlaceError> {
        match self {
            Route::Ssh(place) => Ok(place.command(line, connect)),
            Route::Srun {
                login,
                slurm,
                job_name,
            } => {
                let mut argv = vec![
                    slurm.program("srun"),
                    "--unbuffered".into(),
                    "--quiet".into(),
                    "--overlap".into(),
                    "--nodes=1".into(),
                    "--ntasks=1".into(),
                    format!("--job-name={job_name}"),
                ];
                if let Some(p) = &slurm.partition {
                    argv.push(format!("--partition={p}"));
                }
                argv.extend(["sh".into(), "-c".into(), line.to_string()]);
                slurm.command(login.as_ref(), &argv, connect)
            }
            Route::Serverctl {
                serverctl,
                server,
                max_seconds,
            } => Ok(serverctl.exec(server, *max_seconds, &["sh", "-c", line])),
        }
    }

    /// A short script run beside the session (`job`: its Slurm job, from the wrap frame).
    pub fn beside(
        &self,
        script: &str,
        job: &str,
        connect: Duration,
    ) -> Result<Command, PlaceError> {
        match self {
            Route::Ssh(place) => Ok(place.command(script, connect)),
            Route::Srun { login, slurm, .. } => {
                if job.is_empty() || !job.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(PlaceError::Invalid(format!(
                        "the session's Slurm job id {job:?} is not known"
                    )));
                }
                let argv = vec![
                    slurm.program("srun"),
                    format!("--jobid={job}"),
                    "--overlap".into(),
                    "--quiet".into(),
                    "--nodes=1".into(),
                    "--ntasks=1".into(),
                    "sh".into(),
                    "-c".into(),
                    script.to_string(),
                ];
                slurm.command(login.as_ref(), &argv, connect)
            }
            Route::Serverctl {
                serverctl,
                server,
                max_seconds,
            } => Ok(serverctl.exec(server, *max_seconds, &["sh", "-c", script])),
        }
    }
}
