//! The relay's reporter thread: sends the facts to the running service in numbered batches,
//! keeps them while the service does not answer (a restart, a stop) and sends them once it does.
//! Forwarding never waits for it.

use crate::client::{call, CallError};
use crate::start::connection::Connection;
use rho_actors::agent::relay::contract::FactWire;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Facts kept while the service does not answer; beyond it the oldest are dropped (and counted).
const KEPT: usize = 10_000;
/// Facts sent in one call (the operation's own bound).
const BATCH: usize = 256;
/// How long to wait before asking a service that did not answer again.
const RETRY: Duration = Duration::from_millis(500);

/// What the reporter is told.
pub(crate) enum Note {
    Fact(FactWire),
    /// The relay is ending: send what is kept, for at most this long.
    Finish(Duration),
}

/// Who the relay is and where it reports.
pub(crate) struct Reporter {
    pub(crate) state: PathBuf,
    /// The project folder, canonical.
    pub(crate) project: PathBuf,
    pub(crate) relay_id: String,
    pub(crate) agent: String,
    pub(crate) pid: u32,
    pub(crate) proc_start: u64,
}

impl Reporter {
    fn project_id(&self, conn: &Connection) -> Result<String, CallError> {
        let listing = call(
            &conn.url,
            &conn.token,
            "project.list",
            &serde_json::json!({}),
        )?;
        listing["projects"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| {
                p["path"]
                    .as_str()
                    .and_then(|d| std::fs::canonicalize(d).ok())
                    .is_some_and(|d| d == self.project)
            })
            .and_then(|p| p["id"].as_str().map(str::to_string))
            .ok_or_else(|| {
                CallError::Refused(format!(
                    "no project of the service is in {}",
                    self.project.display()
                ))
            })
    }

    /// Sends up to one batch; answers the last fact number the service recorded.
    fn send(
        &self,
        kept: &VecDeque<FactWire>,
        project_id: &mut Option<String>,
    ) -> Result<u64, CallError> {
        let conn = Connection::read(&self.state.join("connection.json"))
            .map_err(|_| CallError::NotRunning(self.state.display().to_string()))?;
        let id = match project_id {
            Some(id) => id.clone(),
            None => project_id.insert(self.project_id(&conn)?).clone(),
        };
        let facts: Vec<&FactWire> = kept.iter().take(BATCH).collect();
        let body = serde_json::json!({
            "projectId": id,
            "relayId": self.relay_id,
            "agent": self.agent,
            "pid": self.pid,
            "procStart": self.proc_start,
            "facts": facts,
        });
        let reply = call(&conn.url, &conn.token, "agent.relay.record", &body)?;
        reply["recorded"]
            .as_u64()
            .ok_or_else(|| CallError::Protocol("no recorded count".into()))
    }

    /// Runs until told to finish (then sends what it can in the time given) or the relay is gone.
    pub(crate) fn run(self, notes: Receiver<Note>) {
        let mut kept: VecDeque<FactWire> = VecDeque::new();
        let mut dropped = 0u64;
        let mut project_id = None;
        let mut retry_at = Instant::now();
        let mut finish: Option<Instant> = None;
        let mut said_down = false;
        let mut last_error = String::new();
        loop {
            let wait = if kept.is_empty() || finish.is_some() {
                Duration::from_millis(50)
            } else {
                retry_at
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_millis(5))
            };
            match notes.recv_timeout(wait) {
                Ok(Note::Fact(f)) => {
                    kept.push_back(f);
                    if kept.len() > KEPT {
                        kept.pop_front();
                        dropped += 1;
                    }
                    continue;
                }
                Ok(Note::Finish(within)) => finish = Some(Instant::now() + within),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    finish.get_or_insert_with(|| Instant::now() + Duration::from_secs(2));
                }
            }
            if finish.is_some_and(|f| Instant::now() >= f) || (finish.is_some() && kept.is_empty())
            {
                break;
            }
            if kept.is_empty() || Instant::now() < retry_at {
                continue;
            }
            match self.send(&kept, &mut project_id) {
                Ok(recorded) => {
                    said_down = false;
                    while kept.front().is_some_and(|f| f.n() <= recorded) {
                        kept.pop_front();
                    }
                }
                Err(e) => {
                    last_error = e.to_string();
                    if !said_down {
                        tracing::warn!(error = %e, "the service did not record the relay's facts; they are kept and sent once it answers");
                        said_down = true;
                    }
                    match &e {
                        // Facts the service refuses as such are never recorded by sending them again.
                        CallError::Refused(m)
                            if ["invalid:", "conflict:", "limit:"]
                                .iter()
                                .any(|c| m.starts_with(c)) =>
                        {
                            tracing::warn!(error = %e, "the service refused relay facts; they are dropped");
                            kept.drain(..kept.len().min(BATCH));
                        }
                        // A project moved or a restarted service: find the project again.
                        CallError::Refused(_) => project_id = None,
                        _ => {}
                    }
                    retry_at = Instant::now() + RETRY;
                }
            }
        }
        if dropped > 0 || !kept.is_empty() {
            tracing::warn!(
                dropped,
                unsent = kept.len(),
                last_error,
                "some relay facts were not recorded"
            );
        }
    }
}
