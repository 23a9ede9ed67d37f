//! `kernel.servers` and `kernel.server.skill`: the person's serverctl read within
//! `serverctlReadMs`, a skill at most `serverSkillBytes` (docs/serverctl.md).

use crate::error::ActorError;
use crate::kernel::contract::{ServerView, ServersReply, SkillReply, SkillRequest};
use crate::kernel::handlers::KernelHandle;
use rho_kernels::remote::ServerctlError;
use std::time::Duration;

/// Why a skill was not read: over its bound (with its path), or any other refusal.
#[derive(Debug)]
pub enum SkillRefused {
    Limit { path: String, bytes: u64, max: u64 },
    Other(ActorError),
}

impl From<ActorError> for SkillRefused {
    fn from(e: ActorError) -> Self {
        SkillRefused::Other(e)
    }
}

fn wire(e: ServerctlError) -> ActorError {
    match e {
        ServerctlError::NotFound(w) => ActorError::NotFound { what: w },
        other => ActorError::unavailable(other.to_string()),
    }
}

/// `kernel.servers`.
pub async fn servers(h: &KernelHandle) -> Result<ServersReply, ActorError> {
    let serverctl = h.runtime.remote.serverctl();
    let program = serverctl.program.display().to_string();
    let timeout = Duration::from_millis(h.limits().serverctl_read_ms);
    let list = tokio::task::spawn_blocking(move || serverctl.servers(timeout))
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
        .map_err(wire)?;
    Ok(ServersReply {
        program,
        servers: list
            .into_iter()
            .map(|s| ServerView {
                name: s.name,
                host: s.host,
                state: s.state,
                skills: s.skills,
            })
            .collect(),
    })
}

/// `kernel.server.skill`.
pub async fn skill(h: &KernelHandle, req: &SkillRequest) -> Result<SkillReply, SkillRefused> {
    let serverctl = h.runtime.remote.serverctl();
    let (max, timeout) = (
        h.limits().server_skill_bytes,
        Duration::from_millis(h.limits().serverctl_read_ms),
    );
    let (server, name) = (req.server.clone(), req.skill.clone());
    let got = tokio::task::spawn_blocking(move || serverctl.skill(&server, &name, max, timeout))
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?;
    match got {
        Ok(s) => Ok(SkillReply {
            server: req.server.clone(),
            skill: req.skill.clone(),
            path: s.path,
            text: s.text,
            bytes: s.bytes,
        }),
        Err(ServerctlError::Limit { path, bytes, max }) => {
            Err(SkillRefused::Limit { path, bytes, max })
        }
        Err(e) => Err(SkillRefused::Other(wire(e))),
    }
}
