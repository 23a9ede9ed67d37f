//! The person's serverctl, as docs/serverctl.md defines the boundary: its registry of servers,
//! a server's skills, and `exec` (the command a session on a server runs under); each read is
//! bounded in time (`serverctlReadMs`) and size, and an absent program is named.

use rho_plumbing::child::{self, Cut};
use serde::Deserialize;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// What a registry or skills answer may be.
const MAX_ANSWER: u64 = 1024 * 1024;

/// The serverctl program Rho runs (`--serverctl`/`RHO_SERVERCTL`, else on PATH).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Serverctl {
    pub program: PathBuf,
    /// Settings added to the inherited environment (the service adds none: its own `SSM_*`
    /// are serverctl's).
    pub env: Vec<(String, String)>,
}

/// One server of the registry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Server {
    pub name: String,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub skills: Vec<String>,
}

#[derive(Deserialize)]
struct Registry {
    servers: Vec<Server>,
}

/// One skill bound to a server, as `skills` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SkillInfo {
    pub name: String,
    pub path: String,
    pub bytes: u64,
}

#[derive(Deserialize)]
struct Skills {
    skills: Vec<SkillInfo>,
}

/// A skill's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub path: String,
    pub text: String,
    pub bytes: u64,
}

/// Why serverctl gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerctlError {
    #[error("{0} was not found: install serverctl or name it with --serverctl (RHO_SERVERCTL)")]
    Absent(String),
    #[error("{0}")]
    NotFound(String),
    /// A skill over the bound: refused before it was read.
    #[error("the skill at {path} has {bytes} bytes, over serverSkillBytes ({max})")]
    Limit { path: String, bytes: u64, max: u64 },
    #[error("serverctl did not answer within serverctlReadMs ({ms} ms); it was ended{}", if printed.is_empty() { String::new() } else { format!(": {printed}") })]
    Timeout { ms: u64, printed: String },
    #[error("{0}")]
    Failed(String),
}

/// A name serverctl gets as one argument: no line break, not an option.
fn name(kind: &str, n: &str) -> Result<(), ServerctlError> {
    if n.is_empty() || n.len() > 128 || n.starts_with('-') || n.contains(['\0', '\n', '\r', '/']) {
        return Err(ServerctlError::NotFound(format!(
            "{kind} {n:?} is not a name serverctl knows"
        )));
    }
    Ok(())
}

impl Serverctl {
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.program);
        c.args(args).envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Runs one read; its stdout, or why not.
    fn read(&self, args: &[&str], timeout: Duration, max: u64) -> Result<Vec<u8>, ServerctlError> {
        let shown = self.program.display().to_string();
        let run = child::run(self.command(args), timeout, max).map_err(|e| {
            if e.source.kind() == std::io::ErrorKind::NotFound {
                ServerctlError::Absent(shown.clone())
            } else {
                ServerctlError::Failed(format!("cannot run {shown}: {e}"))
            }
        })?;
        match run.cut {
            Some(Cut::Timeout) => {
                return Err(ServerctlError::Timeout {
                    ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                    printed: run.stderr_tail(400),
                })
            }
            Some(Cut::OutputLimit) => {
                return Err(ServerctlError::Failed(format!(
                    "{shown} {} printed more than {max} bytes",
                    args.first().unwrap_or(&"")
                )))
            }
            None => {}
        }
        let said = run.stderr_tail(400);
        match run.exit_code {
            Some(0) => Ok(run.stdout),
            Some(3) => Err(ServerctlError::NotFound(format!("no such server ({said})"))),
            Some(4) => Err(ServerctlError::NotFound(format!("no such skill ({said})"))),
            Some(c) => Err(ServerctlError::Failed(format!(
                "{shown} {} failed (exit {c}): {said}",
                args.first().unwrap_or(&"")
            ))),
            None => Err(ServerctlError::Failed(format!("{shown} was killed"))),
        }
    }

    /// The servers of the registry.
    pub fn servers(&self, timeout: Duration) -> Result<Vec<Server>, ServerctlError> {
        let out = self.read(&["servers", "--json"], timeout, MAX_ANSWER)?;
        let r: Registry = serde_json::from_slice(&out).map_err(|e| {
            ServerctlError::Failed(format!("serverctl servers --json is not the registry: {e}"))
        })?;
        Ok(r.servers)
    }

    /// One skill's text: refused over `max` bytes (by the size `skills` says, and by what
    /// `skill` prints).
    pub fn skill(
        &self,
        server: &str,
        skill: &str,
        max: u64,
        timeout: Duration,
    ) -> Result<Skill, ServerctlError> {
        name("server", server)?;
        name("skill", skill)?;
        let started = std::time::Instant::now();
        let out = self.read(&["skills", "--json", server], timeout, MAX_ANSWER)?;
        let list: Skills = serde_json::from_slice(&out).map_err(|e| {
            ServerctlError::Failed(format!("serverctl skills --json is not a skill list: {e}"))
        })?;
        let info = list
            .skills
            .into_iter()
            .find(|s| s.name == skill)
            .ok_or_else(|| ServerctlError::NotFound(format!("skill {skill} on {server}")))?;
        if info.bytes > max {
            return Err(ServerctlError::Limit {
                path: info.path,
                bytes: info.bytes,
                max,
            });
        }
        let left = timeout.saturating_sub(started.elapsed());
        let text = match self.read(&["skill", server, skill], left, max) {
            Err(ServerctlError::Failed(w)) if w.contains("printed more than") => {
                return Err(ServerctlError::Limit {
                    path: info.path,
                    bytes: max + 1,
                    max,
                })
            }
            other => other?,
        };
        let text = String::from_utf8(text).map_err(|_| {
            ServerctlError::Failed(format!("the skill at {} is not UTF-8", info.path))
        })?;
        Ok(Skill {
            path: info.path,
            bytes: text.len() as u64,
            text,
        })
    }

    /// `serverctl exec --max-seconds S SERVER -- ARGV...`.
    pub fn exec(&self, server: &str, max_seconds: u64, argv: &[&str]) -> Command {
        let max = max_seconds.to_string();
        let mut args = vec!["exec", "--max-seconds", &max, server, "--"];
        args.extend_from_slice(argv);
        self.command(&args)
    }
}
