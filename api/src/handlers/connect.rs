//! `session.connect`: grant a project to Claude Code or Codex and run that client's own `mcp add`, bounded in time and output.

use super::sessions::{grant, project_facts, revoke, setup};
use super::{project_id, spec, Services};
use crate::agent_grants::now_ms;
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::session_contract::{ConnectRequest, GrantRequest};
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Each client call: at most this long...
pub(crate) const CLIENT_TIMEOUT: Duration = Duration::from_secs(20);
/// ...and at most this much output (stdout and stderr together).
pub(crate) const CLIENT_OUTPUT: usize = 8 * 1024;

/// What one bounded client call did.
#[derive(Debug, Clone)]
pub(crate) struct ClientRun {
    pub exit_code: Option<i32>,
    pub output: String,
    pub timed_out: bool,
    pub truncated: bool,
}

impl ClientRun {
    fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.truncated
    }

    fn to_json(&self, program: &Path, args: &[String]) -> Value {
        json!({"command": program.display().to_string(), "args": args, "exitCode": self.exit_code,
            "output": self.output, "timedOut": self.timed_out, "truncated": self.truncated})
    }
}

fn pump(mut from: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut out = into.lock().unwrap_or_else(|p| p.into_inner());
            out.extend_from_slice(&buf[..n]);
            if out.len() > CLIENT_OUTPUT {
                break;
            }
        }
    });
}

/// Runs `program args` in `cwd`, stopped at the time or output bound with what it printed.
pub(crate) fn run_bounded(
    program: &Path,
    args: &[String],
    cwd: &Path,
) -> std::io::Result<ClientRun> {
    use std::os::unix::process::CommandExt;
    // Its own process group, so a stop reaches whatever the client started.
    let mut child = Command::new(program)
        .process_group(0)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let output = Arc::new(Mutex::new(Vec::new()));
    if let Some(o) = child.stdout.take() {
        pump(o, output.clone());
    }
    if let Some(e) = child.stderr.take() {
        pump(e, output.clone());
    }
    let started = Instant::now();
    let (mut timed_out, mut truncated) = (false, false);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if output.lock().unwrap_or_else(|p| p.into_inner()).len() > CLIENT_OUTPUT {
            truncated = true;
        } else if started.elapsed() >= CLIENT_TIMEOUT {
            timed_out = true;
        }
        if truncated || timed_out {
            let _ = Command::new("kill")
                .args(["-KILL", &format!("-{}", child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let the readers drain what is already in the pipes.
    std::thread::sleep(Duration::from_millis(30));
    let bytes = output.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let shown = &bytes[..bytes.len().min(CLIENT_OUTPUT)];
    Ok(ClientRun {
        exit_code: status.and_then(|s| s.code()),
        output: String::from_utf8_lossy(shown).into_owned(),
        timed_out,
        truncated: truncated || bytes.len() > CLIENT_OUTPUT,
    })
}

/// The client program and its `mcp add` arguments for an Agent kind.
fn client_call(
    agent: &str,
    claude: Option<&PathBuf>,
    codex: Option<&PathBuf>,
    exe: &Path,
    file: &Path,
) -> Result<(PathBuf, Vec<String>), ApiError> {
    let (program, mut args, flag) = match agent {
        "claude-code" => (
            claude,
            vec!["mcp", "add", "-s", "local", "rho", "--"],
            "--claude / RHO_CLAUDE",
        ),
        "codex" => (
            codex,
            vec!["mcp", "add", "rho", "--"],
            "--codex / RHO_CODEX",
        ),
        _ => {
            return Err(ApiError::invalid(
                Some("agent"),
                "agent is claude-code or codex",
            ))
        }
    };
    let program = program.cloned().ok_or_else(|| {
        ApiError::unavailable(
            &[],
            format!("the {agent} CLI was not found on PATH (select it with {flag})"),
        )
    })?;
    let exe = exe.display().to_string();
    let file = file.display().to_string();
    args.extend([exe.as_str(), "--mcp", file.as_str()]);
    Ok((program, args.into_iter().map(String::from).collect()))
}

/// Grants the project to `agent` and registers it with that client; a new grant the client refused is revoked.
pub async fn connect(s: &Services, project: uuid::Uuid, agent: &str) -> Result<Value, ApiError> {
    let setup = setup(s)?.clone();
    let (_, dir) = project_facts(s, project).await?;
    let file = setup.connection_file(project, agent);
    let (program, args) = client_call(
        agent,
        setup.claude.as_ref(),
        setup.codex.as_ref(),
        &setup.exe,
        &file,
    )?;
    let existed = setup
        .grants
        .get(project, agent)
        .is_some_and(|g| g.valid_at(now_ms()));
    let granted = grant(
        s,
        GrantRequest {
            project_id: Some(project.to_string()),
            folder: None,
            session: agent.to_string(),
            methods: None,
            profile: None,
            expires_at: None,
        },
    )
    .await?;
    let (p, a) = (program.clone(), args.clone());
    let run = actix_web::web::block(move || run_bounded(&p, &a, &dir))
        .await
        .map_err(ApiError::internal)?;
    let run = match run {
        Ok(r) => r,
        Err(e) => ClientRun {
            exit_code: None,
            output: format!("could not start {}: {e}", program.display()),
            timed_out: false,
            truncated: false,
        },
    };
    let client = run.to_json(&program, &args);
    if run.succeeded() {
        tracing::info!(project = %project, agent, "Agent client registered the project");
        return Ok(
            json!({"projectId": project.to_string(), "agent": agent, "session": agent,
            "grant": granted, "client": client, "connected": true}),
        );
    }
    let removed = !existed && revoke(s, project, agent).await?;
    tracing::warn!(project = %project, agent, exit = ?run.exit_code, timed_out = run.timed_out, removed, "the Agent client refused the connection");
    Err(ApiError::new(
        Code::Unavailable,
        format!(
            "{agent} mcp add did not succeed{}",
            if run.timed_out {
                " (stopped after 20 s)"
            } else if run.truncated {
                " (stopped after 8 KiB of output)"
            } else {
                ""
            }
        ),
        json!({"missing": [], "reason": "the client refused the connection", "client": client,
            "grantKept": !removed}),
    ))
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("session.connect"),
        move |_ctx: Ctx, req: ConnectRequest| {
            let s = s.clone();
            async move {
                let project = project_id("projectId", &req.project_id)?;
                connect(&s, project, &req.agent).await
            }
        },
    )?;
    Ok(())
}
