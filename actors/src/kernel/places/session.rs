//! Starting a language's session at the place chosen for it: on an ssh place over the person's
//! ssh, or in a Slurm allocation of its own; the session and its cells record the place.

use super::book::PlaceEvent;
use crate::kernel::contract::{Language, PlaceDefinition, SshAt};
use crate::kernel::entity::KernelEntity;
use crate::kernel::events::KernelEvent;
use crate::kernel::handlers::KernelHandle;
use crate::kernel::live::{rt_language, Live};
use crate::kernel::start::{launch, record, runtime_limits};
use rho_kernels::remote::{self, RemoteSpec, Route};
use std::sync::Arc;
use std::time::Duration;

/// A place a session starts at, as read from the journal.
#[derive(Debug, Clone)]
pub(crate) struct At {
    pub name: String,
    pub definition: PlaceDefinition,
    /// A Slurm place's login node (its `via`).
    pub login: Option<SshAt>,
}

/// The place `language`'s next session starts at, when it is not this machine.
pub(crate) async fn chosen(h: &KernelHandle, language: Language) -> Result<Option<At>, String> {
    h.read(move |k: &KernelEntity| {
        k.places.chosen(language).map(|(name, p)| {
            let login = p
                .definition
                .slurm
                .as_ref()
                .and_then(|s| s.via.as_ref())
                .and_then(|v| k.places.place(v))
                .and_then(|v| v.definition.ssh.clone());
            At {
                name: name.to_string(),
                definition: p.definition.clone(),
                login,
            }
        })
    })
    .await
    .map_err(|e| e.to_string())
}

/// Starts `language`'s session at `at` (its start and place journaled first).
pub(crate) async fn start_at(
    h: &KernelHandle,
    language: Language,
    interpreter: Option<String>,
    at: At,
) -> Result<Arc<Live>, String> {
    if let Some(i) = interpreter {
        return Err(format!(
            "{i} is a program of the project on this machine, and {} sessions start at place {} (kernel.place.set it to local first)",
            language.name(),
            at.name
        ));
    }
    let d = &at.definition;
    let program = match language {
        Language::R => d.rscript.clone().unwrap_or_else(|| "Rscript".into()),
        Language::Python => d.python.clone().unwrap_or_else(|| "python3".into()),
    };
    let session_id = uuid::Uuid::new_v4().to_string();
    let runtime = &h.runtime.remote;
    let route = if let Some(ssh) = &d.ssh {
        Route::Ssh(runtime.ssh_place(ssh).map_err(|e| e.to_string())?)
    } else if let Some(slurm) = &d.slurm {
        let login = match &at.login {
            Some(l) => Some(runtime.ssh_place(l).map_err(|e| e.to_string())?),
            None => None,
        };
        Route::Srun {
            login,
            slurm: super::runtime::slurm_client(slurm),
            job_name: format!("rho-session-{session_id}"),
        }
    } else if let Some(server) = &d.server {
        Route::Serverctl {
            serverctl: runtime.serverctl(),
            server: server.clone(),
            max_seconds: h.limits().serverctl_session_s,
        }
    } else {
        return Err(format!("place {} names no ssh, slurm or server", at.name));
    };
    record(
        h,
        vec![
            KernelEvent::SessionStarting {
                session_id: session_id.clone(),
                language,
                program: program.clone(),
                interpreter: None,
            },
            KernelEvent::Place(PlaceEvent::SessionAt {
                session_id: session_id.clone(),
                place: at.name.clone(),
            }),
        ],
    )
    .await
    .map_err(|e| e.to_string())?;
    let l = h.limits();
    let mut limits = runtime_limits(l);
    limits.start_timeout_ms = l.remote_start_timeout_ms;
    let spec = RemoteSpec {
        language: rt_language(language),
        program,
        folder: d.folder.clone(),
        route,
        local_dir: h
            .dir()
            .join(".rho/plugins/kernel/sessions")
            .join(&session_id),
        limits,
        signal_timeout: Duration::from_millis(l.remote_signal_timeout_ms),
        fetch_timeout: Duration::from_millis(l.remote_copy_timeout_ms),
    };
    launch(h, session_id, language, move |tx| {
        remote::start_session(spec, tx)
    })
    .await
}
