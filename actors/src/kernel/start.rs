//! Finding or starting the live session a cell runs in (the interpreter rule), under the project's start lock.

use super::bridge;
use super::contract::{Language, SessionEndReason};
use super::decide::{plan_session, KernelCommand, SessionPlan};
use super::entity::KernelEntity;
use super::events::KernelEvent;
use super::handlers::KernelHandle;
use super::live::{lock, program, rt_language, session_ended, shown, Live, Pump};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::limits::KernelLimits;
use rho_kernels::notebook::{self as rt, RuntimeLimits, SessionSpec};
use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};

fn small(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The runtime's limits from `kernel` in `--limits`.
pub(crate) fn runtime_limits(l: &KernelLimits) -> RuntimeLimits {
    RuntimeLimits {
        max_output_bytes: l.max_output_bytes,
        max_plots: small(l.max_plots),
        max_plot_bytes: l.max_plot_bytes,
        max_variables: small(l.max_variables),
        inspect_rows: small(l.inspect_rows),
        inspect_rows_max: super::ops::INSPECT_ROWS_MAX,
        inspect_columns: small(l.inspect_columns),
        inspect_children: small(l.inspect_children),
        inspect_cell_chars: small(l.inspect_cell_chars),
        inspect_text_bytes: small(l.inspect_text_bytes),
        inspect_sort_rows: l.inspect_sort_rows,
        inspect_timeout_ms: l.inspect_timeout_ms,
        inspect_give_up_ms: l.inspect_give_up_ms,
        start_timeout_ms: l.start_timeout_ms,
        stop_grace_ms: l.stop_grace_ms,
    }
}

/// The start attempts of one project's sessions, per language: a cell that came while an
/// attempt was under way and waited for it ends `not-run` with the same reason when it failed,
/// instead of trying a start of its own (startTimeoutMs: "waiting cells are not run").
#[derive(Debug, Default)]
pub(crate) struct StartBook {
    attempts: HashMap<Language, Attempt>,
}

#[derive(Debug, Default)]
struct Attempt {
    last: u64,
    under_way: bool,
    failed: Option<(u64, String)>,
}

impl StartBook {
    /// The attempt under way for `language`, if any.
    fn under_way(&self, language: Language) -> Option<u64> {
        self.attempts
            .get(&language)
            .filter(|a| a.under_way)
            .map(|a| a.last)
    }

    fn begin(&mut self, language: Language) -> u64 {
        let a = self.attempts.entry(language).or_default();
        a.last += 1;
        a.under_way = true;
        a.last
    }

    fn end(&mut self, language: Language, attempt: u64, failure: Option<String>) {
        let a = self.attempts.entry(language).or_default();
        if a.last == attempt {
            a.under_way = false;
        }
        if let Some(why) = failure {
            a.failed = Some((attempt, why));
        }
    }

    /// Why `attempt` failed, if it did.
    fn failed(&self, language: Language, attempt: u64) -> Option<String> {
        self.attempts
            .get(&language)
            .and_then(|a| a.failed.as_ref())
            .filter(|(n, _)| *n == attempt)
            .map(|(_, why)| why.clone())
    }
}

/// Journals Rho's own records through the handle and waits for them; a record that ended a
/// session may have evicted the oldest ended ones, whose folders go.
async fn record(h: &KernelHandle, events: Vec<KernelEvent>) -> Result<(), ActorError> {
    let ends = events
        .iter()
        .any(|e| matches!(e, KernelEvent::SessionEnded { .. }));
    h.command(
        KernelCommand::Record {
            events,
            max_ended_sessions: h.limits().max_ended_sessions,
        },
        CommandContext::now(crate::Principal::System),
    )
    .await?;
    if ends {
        super::store::sweep_sessions(h).await;
    }
    Ok(())
}

/// The live session of `language` the cell of `caller` runs in, started when none is live.
/// `Err` is why no session could start (already journaled as the session's end, if it began).
pub(crate) async fn session_for(
    h: &KernelHandle,
    language: Language,
    caller: &str,
    interpreter: Option<&str>,
) -> Result<Arc<Live>, String> {
    // A start under way when this cell came is one it waits for: when it fails, so does this.
    let awaited = lock(&h.live.starts).under_way(language);
    let _starting = h.live.starting.lock().await;
    if let Some(why) = awaited.and_then(|n| lock(&h.live.starts).failed(language, n)) {
        return Err(why);
    }
    let (who, wanted) = (caller.to_string(), interpreter.map(str::to_string));
    let plan = h
        .read(move |k: &KernelEntity| plan_session(k, language, &who, wanted.as_deref()))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let interpreter = match plan {
        SessionPlan::Join { session_id } => match h.live.get(language) {
            Some(l) if l.session_id == session_id => return Ok(l),
            // Recorded as live but with no process here: it ended unseen.
            _ => {
                record(
                    h,
                    vec![session_ended(
                        &session_id,
                        SessionEndReason::Exited,
                        None,
                        Some("no process".into()),
                    )],
                )
                .await
                .map_err(|e| e.to_string())?;
                let kept = h
                    .read(move |k: &KernelEntity| k.interpreter(language).map(str::to_string))
                    .await
                    .map_err(|e| e.to_string())?;
                kept
            }
        },
        SessionPlan::Restart {
            session_id,
            interpreter,
        } => {
            if let Some(l) = h.live.get(language).filter(|l| l.session_id == session_id) {
                lock(&l.pump).stop_by = Some(caller.to_string());
                l.session.stop();
                h.live.forget(language, &session_id);
            }
            Some(interpreter)
        }
        SessionPlan::Start { interpreter } => interpreter,
    };
    let attempt = lock(&h.live.starts).begin(language);
    let started = start(h, language, interpreter).await;
    let failure = started.as_ref().err().cloned();
    lock(&h.live.starts).end(language, attempt, failure);
    started
}

async fn start(
    h: &KernelHandle,
    language: Language,
    interpreter: Option<String>,
) -> Result<Arc<Live>, String> {
    let dir = h.dir().to_path_buf();
    let Some(program) = program(&h.runtime, &dir, language, interpreter.as_deref()) else {
        return Err(match language {
            Language::R => "no Rscript was found (--rscript or RHO_RSCRIPT, or Rscript on PATH)",
            Language::Python => "no Python was found (--python or RHO_PYTHON, or python3 on PATH)",
        }
        .to_string());
    };
    let Some(guard) = h.runtime.guard.clone() else {
        return Err("this service has no session guard (rho core guard) configured".into());
    };
    let session_id = uuid::Uuid::new_v4().to_string();
    let mut events = vec![KernelEvent::SessionStarting {
        session_id: session_id.clone(),
        language,
        program: shown(&program, &dir),
        interpreter: interpreter.clone(),
    }];
    let lang = language;
    let kept = h
        .read(move |k: &KernelEntity| k.interpreter(lang).map(str::to_string))
        .await
        .map_err(|e| e.to_string())?;
    if let Some(i) = interpreter.as_ref().filter(|i| kept.as_ref() != Some(*i)) {
        events.push(KernelEvent::InterpreterKept {
            language,
            program: i.clone(),
        });
    }
    record(h, events).await.map_err(|e| e.to_string())?;
    let spec = SessionSpec {
        language: rt_language(language),
        program,
        cwd: dir.clone(),
        state_dir: dir.join(".rho/plugins/kernel/sessions").join(&session_id),
        guard,
        limits: runtime_limits(h.limits()),
    };
    let (tx, rx) = mpsc::channel();
    let started = tokio::task::spawn_blocking(move || rt::start(spec, tx))
        .await
        .map_err(|e| e.to_string())?;
    let (session, facts) = match started {
        Ok(s) => s,
        Err(e) => {
            let printed = match &e {
                rt::StartError::Timeout { printed } | rt::StartError::Exited { printed, .. } => {
                    printed.clone()
                }
                rt::StartError::Io(_) => String::new(),
            };
            let detail = format!("{e}; printed: {printed}");
            record(
                h,
                vec![session_ended(
                    &session_id,
                    SessionEndReason::StartFailed,
                    None,
                    Some(detail.clone()),
                )],
            )
            .await
            .map_err(|e| e.to_string())?;
            return Err(detail);
        }
    };
    record(
        h,
        vec![KernelEvent::SessionStarted {
            session_id: session_id.clone(),
            pid: facts.pid,
            version: facts.program_version,
        }],
    )
    .await
    .map_err(|e| e.to_string())?;
    let live = Arc::new(Live {
        session_id,
        language,
        session,
        pump: Mutex::new(Pump::default()),
        recorder: h.recorder(),
    });
    lock(&h.live.map).insert(language, live.clone());
    let (l, sessions) = (live.clone(), h.live.clone());
    std::thread::Builder::new()
        .name("rho-kernel-bridge".into())
        .spawn(move || bridge::run(l, sessions, rx))
        .map_err(|e| format!("cannot start the session's reader: {e}"))?;
    Ok(live)
}
