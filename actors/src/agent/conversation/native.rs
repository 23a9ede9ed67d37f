//! Rho's own agent as a conversation's live session (backend `rho`, decision 0804): its events
//! folded into the same message record and turn events the ACP session produces, plus the facts
//! only it has: spend per purpose, retries, each call's card and its stored image (0813).

use super::card_image::{store_image, IMAGE_BYTES_STORED};
use super::ledger::{CallRecord, CardImage, SpendRecord};
use super::native_input::PendingInput;
use super::native_setup::project_tools;
pub use super::native_setup::{cmdline, NativeConfig};
use super::questions::{Questions, Reply};
use super::record::{MessageRecord, RecordLimits, Usage};
use super::session::{PermissionRequest, TurnEvent};
use super::surfaces_contract::QuestionView;
use crate::error::ActorError;
use rho_mcp::agent::{AgentEvent, NativeSession, NativeSetup, StepStart, DEFAULT_MAX_STEPS};
use serde_json::json;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A fact only Rho's own agent reports, for the turn to journal under its message.
#[derive(Debug)]
pub enum Note {
    /// One model request's spend (`true`: it belongs to the running message).
    Spent(SpendRecord, bool),
    /// A request is sent again: the line the message shows.
    Retried(String),
    /// A tool call ended: its card.
    Called(CallRecord),
    /// A call card's image was stored: its reference.
    Imaged(CardImage),
}

/// A running native session and the record of its current message.
pub struct NativeLive {
    session: Option<NativeSession>,
    pub session_id: String,
    pub message: MessageRecord,
    limits: RecordLimits,
    queue: VecDeque<TurnEvent>,
    started: HashMap<String, StepStart>,
    turn: Option<u64>,
    usage: (u64, u64),
    /// The MCP server groups as journaled (killed if the session is dropped unclosed).
    groups: Vec<i32>,
    /// The forms and sampling questions open in the running turn.
    questions: Questions,
    /// The project folder: call cards' images go to its content-addressed store.
    project: PathBuf,
    /// Image bytes the running message stored so far (at most [`IMAGE_BYTES_STORED`]).
    image_bytes: u64,
    /// The running message's input while it is read, before the model is asked.
    input: Option<PendingInput>,
}

impl NativeLive {
    /// Starts the session: the model, the MCP servers of the selected config, and the project
    /// tools of the conversation's grant (its connection file). The model not configured (or
    /// the config unreadable) is the reason it is unavailable.
    pub async fn start(
        config: &NativeConfig,
        grant_file: Option<&Path>,
        cwd: &Path,
        limits: RecordLimits,
    ) -> Result<NativeLive, String> {
        let model = config.model()?;
        let mcp = config.mcp()?;
        let project = match grant_file {
            Some(file) => Some(project_tools(file).await?),
            None => None,
        };
        let session = NativeSession::start(NativeSetup {
            model,
            mcp,
            start: config.start_options(cwd),
            project,
            // A conversation's messages come from the browser (local or a paired tab) and its
            // panel answers forms and sampling questions (decision 0808).
            can_ask: true,
            max_steps: DEFAULT_MAX_STEPS,
            system: None,
        })
        .await;
        Ok(NativeLive {
            session: Some(session),
            session_id: format!("rho-{}", uuid::Uuid::new_v4().simple()),
            message: MessageRecord::default(),
            limits,
            queue: VecDeque::new(),
            started: HashMap::new(),
            turn: None,
            usage: (0, 0),
            groups: Vec::new(),
            questions: Questions::default(),
            project: cwd.to_path_buf(),
            image_bytes: 0,
            input: None,
        })
    }

    /// The process groups of its stdio MCP servers, each with its command line as it runs now
    /// (journaled, so recovery kills exactly these after a kill -9 of Rho).
    pub async fn servers(&mut self) -> Vec<(i32, String)> {
        let Some(s) = self.session.as_ref() else {
            return Vec::new();
        };
        let groups: Vec<(i32, String)> = s
            .server_pgids()
            .await
            .into_iter()
            .filter_map(|pgid| cmdline(pgid).map(|c| (pgid, c)))
            .collect();
        self.groups = groups.iter().map(|(g, _)| *g).collect();
        groups
    }

    /// `/mcp`: every configured entry, live where this session started it.
    pub fn mcp_report(&self) -> Option<Vec<rho_mcp::report::ServerReport>> {
        self.session.as_ref().map(NativeSession::mcp_report)
    }

    /// The session's MCP runtime, for the panel's reads beside a turn (`None`: no servers).
    pub fn runtime(&self) -> Option<Arc<rho_mcp::runtime::McpRuntime>> {
        self.session.as_ref().and_then(NativeSession::mcp_runtime)
    }

    /// Starts a turn with the person's text: its input is read first (a slash prompt fetched,
    /// resources attached; the history summary first when the session is new) in a task of its
    /// own, which a stop cancels; nothing reaches the model when that fails or is cancelled.
    pub async fn prompt(
        &mut self,
        text: &str,
        history: Option<String>,
    ) -> Result<(), super::native_input::InputError> {
        self.message = MessageRecord::default();
        self.queue.clear();
        self.started.clear();
        self.usage = (0, 0);
        self.image_bytes = 0;
        let ended = || {
            (
                "agent_unavailable",
                "Rho's own agent session has ended".to_string(),
            )
        };
        self.session.as_ref().ok_or_else(ended)?;
        self.input = Some(PendingInput::spawn(
            self.runtime(),
            text.to_string(),
            history,
        ));
        Ok(())
    }

    /// Waits for the running message's input, then asks the model; the event that ends the
    /// message instead (cancelled, or the read failed: its error code and why).
    async fn asked(&mut self) -> Option<TurnEvent> {
        let input = self.input.as_mut()?;
        let got = input.wait().await;
        self.input = None;
        let (stop, notice) = match got {
            Ok(parts) => {
                let s = self.session.as_mut()?;
                match s.prompt(parts) {
                    Ok(n) => {
                        self.turn = Some(n);
                        return None;
                    }
                    Err(e) => ("error", Some(("agent_unavailable", e.to_string()))),
                }
            }
            Err(None) => ("cancelled", None),
            Err(Some(why)) => ("error", Some(why)),
        };
        self.message.stop_reason = Some(stop.to_string());
        self.message.notice = notice.map(|(code, why)| (code.to_string(), why));
        Some(TurnEvent::Finished(stop.to_string()))
    }

    /// The turn's next event.
    pub async fn next(&mut self) -> TurnEvent {
        loop {
            if let Some(e) = self.queue.pop_front() {
                return e;
            }
            if let Some(ended) = self.asked().await {
                return ended;
            }
            let Some(s) = self.session.as_mut() else {
                return TurnEvent::Lost;
            };
            let Some(event) = s.next().await else {
                return TurnEvent::Lost;
            };
            let stored = match &event {
                AgentEvent::ToolFinished { step, .. } => match step.image.as_ref() {
                    Some(image) => {
                        let room = IMAGE_BYTES_STORED.saturating_sub(self.image_bytes);
                        let stored = store_image(&self.project, &step.id, image, room).await;
                        self.image_bytes += stored.as_ref().map_or(0, |i| i.bytes);
                        stored
                    }
                    None => None,
                },
                _ => None,
            };
            if let Some(e) = self.fold(event, stored) {
                return e;
            }
        }
    }

    /// Folds one agent event into the record (`stored`: a finished call's image, stored); the
    /// turn event it makes, if any.
    fn fold(&mut self, event: AgentEvent, stored: Option<CardImage>) -> Option<TurnEvent> {
        let now = u64::try_from(rho_plumbing::time::now_ms()).unwrap_or_default();
        match event {
            AgentEvent::Text { text, .. } => {
                let update = json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}});
                self.message
                    .fold(&update, now, &self.limits)
                    .then_some(TurnEvent::Changed)
            }
            AgentEvent::Retrying { retry, .. } => Some(TurnEvent::Noted(Note::Retried(format!(
                "the model provider failed ({}); attempt {} of {} in {} ms",
                retry.reason, retry.attempt, retry.of, retry.wait_ms
            )))),
            AgentEvent::ToolStarted { step, .. } => {
                let update = json!({"sessionUpdate": "tool_call", "toolCallId": step.id, "title": step.title, "kind": "other", "status": "in_progress", "rawInput": step.input});
                self.started.insert(step.id.clone(), step);
                self.message
                    .fold(&update, now, &self.limits)
                    .then_some(TurnEvent::Changed)
            }
            AgentEvent::ToolProgress { .. } => None,
            AgentEvent::ToolFinished { step, .. } => {
                let status = if step.is_error || step.cancelled {
                    "failed"
                } else {
                    "completed"
                };
                let update = json!({"sessionUpdate": "tool_call_update", "toolCallId": step.id, "status": status});
                let changed = self.message.fold(&update, now, &self.limits);
                let call = CallRecord::of(&step, self.started.remove(&step.id));
                // The image is journaled before the card that shows it.
                let notes = stored
                    .map(Note::Imaged)
                    .into_iter()
                    .chain([Note::Called(call)])
                    .map(TurnEvent::Noted);
                self.queue.extend(notes);
                if changed {
                    Some(TurnEvent::Changed)
                } else {
                    self.queue.pop_front()
                }
            }
            AgentEvent::Form { message, ask } => {
                if message.is_some() && message == self.turn {
                    return Some(TurnEvent::Permission(self.questions.form(ask)));
                }
                // No turn of this conversation runs: nobody is shown it, so it is declined.
                if let Some(s) = self.session.as_ref() {
                    let _ = s.answer_form(ask.id, rho_mcp::policy::Answer::Declined);
                }
                None
            }
            AgentEvent::Sampling { message, ask } => {
                if message.is_some() && message == self.turn {
                    return Some(TurnEvent::Permission(self.questions.sampling(ask)));
                }
                if let Some(s) = self.session.as_ref() {
                    let _ = s.answer_sampling(ask.id, false);
                }
                None
            }
            AgentEvent::Spent { message, spend } => {
                let mine = message.is_some() && message == self.turn;
                if mine && spend.purpose == rho_mcp::agent::TURN {
                    self.usage.0 += spend.input_tokens;
                    self.usage.1 += spend.output_tokens;
                }
                Some(TurnEvent::Noted(Note::Spent(
                    SpendRecord {
                        purpose: spend.purpose.to_string(),
                        server: spend.server,
                        model: spend.model,
                        input_tokens: spend.input_tokens,
                        output_tokens: spend.output_tokens,
                    },
                    mine,
                )))
            }
            AgentEvent::Finished { message, end } => {
                if Some(message) != self.turn {
                    return None;
                }
                self.turn = None;
                self.questions.clear();
                let (i, o) = self.usage;
                self.message.usage = Some(Usage {
                    input_tokens: Some(i),
                    output_tokens: Some(o),
                    total_tokens: Some(i + o),
                });
                self.message.stop_reason = Some(end.stop.clone());
                if let Some(why) = end.error {
                    let code = if end.stop == "error" {
                        "model_error"
                    } else {
                        "limit"
                    };
                    self.message.notice = Some((code.to_string(), why));
                }
                Some(TurnEvent::Finished(end.stop))
            }
        }
    }

    /// The details of an open form or sampling question (`None`: not open).
    pub fn question(&self, request_id: &str, p: &PermissionRequest) -> Option<QuestionView> {
        self.questions.view(request_id, p)
    }

    /// The person's answer to a form or sampling question; answers whether it also ends the
    /// turn (a cancelled sampling question: the driver stops the turn; a dismissed form ends
    /// it in the session itself).
    pub fn reply(
        &mut self,
        p: &PermissionRequest,
        action: &str,
        content: &serde_json::Value,
    ) -> Result<bool, ActorError> {
        let gone = || ActorError::conflict("that question is no longer open");
        let s = self.session.as_ref().ok_or_else(gone)?;
        let (delivered, stop) = match self.questions.reply(p, action, content)? {
            Reply::Form(id, answer) => (s.answer_form(id, answer).is_ok(), false),
            Reply::Sampling(id, allow, stop) => (s.answer_sampling(id, allow).is_ok(), stop),
        };
        if !delivered {
            return Err(gone());
        }
        Ok(stop)
    }

    /// Cancels the running turn: its input read is stopped, the model request dropped, an MCP
    /// call cancelled.
    pub fn cancel(&mut self) {
        if let Some(input) = self.input.as_ref() {
            input.cancel();
        }
        if let Some(s) = self.session.as_ref() {
            s.cancel();
        }
    }

    /// Ends the session: every MCP server closes in order.
    pub async fn shutdown(&mut self) {
        self.input = None;
        if let Some(s) = self.session.take() {
            s.shutdown().await;
        }
        self.groups.clear();
    }
}

impl Drop for NativeLive {
    /// A session dropped without its orderly shutdown (the service is stopping, its driver task
    /// is gone): its MCP server groups are killed, so no grandchild outlives it.
    fn drop(&mut self) {
        for pgid in self.groups.drain(..) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}
