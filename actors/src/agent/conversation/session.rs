//! One Agent session over ACP: initialize, `session/new` (or `session/load`), modes, and a
//! prompt's turn (updates folded into its record, permission requests, cancel confirmed by the
//! prompt's own response, a lost transport reported as such and never retried).

use super::acp::{AcpConnection, AcpError, Incoming};
use super::launch::{Adapter, Backend, LaunchError, Runtimes};
use super::record::{MessageRecord, RecordLimits, Usage};
use serde_json::{json, Value};
use std::path::Path;
use tokio::sync::{mpsc, oneshot};

/// Why a session could not start or a turn could not run.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Acp(#[from] AcpError),
    /// The CLI refused to start as root with skipped permissions (a truthy `IS_SANDBOX`).
    #[error("the Agent refused to start: as root Claude Code rejects --allow-dangerously-skip-permissions (IS_SANDBOX was set); unset IS_SANDBOX or run Rho as another user")]
    BypassRoot,
    #[error("the adapter answered {0} without a sessionId")]
    NoSession(&'static str),
}

/// A permission the Agent asks for, with only the options it offered.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// The JSON-RPC id of the agent's request.
    pub request: Value,
    pub tool_call_id: Option<String>,
    pub title: Option<String>,
    /// `(optionId, kind, name)` as offered.
    pub options: Vec<(String, String, String)>,
}

impl PermissionRequest {
    /// The offered option of `kind` (`allow_once`, `allow_always`, `reject_once`, `reject_always`).
    pub fn option(&self, kind: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(_, k, _)| k == kind)
            .map(|(id, _, _)| id.as_str())
    }
}

/// What a turn reports while it runs.
#[derive(Debug)]
pub enum TurnEvent {
    /// The record changed (new text or a step).
    Changed,
    /// The Agent asks for a permission; answer it with [`AgentSession::answer`].
    Permission(PermissionRequest),
    /// The prompt answered: its stop reason.
    Finished(String),
    /// The prompt failed with an error the Agent reported.
    Failed(AcpError),
    /// The adapter's connection closed mid-turn: the outcome is unknown.
    Lost,
    /// The Agent session to continue could not be loaded (the `claude-cli` driver learns it
    /// only when a message runs): the conversation needs the person's choice.
    Unresumable(String),
}

/// A started Agent session and its adapter.
pub struct AgentSession {
    adapter: Adapter,
    conn: AcpConnection,
    incoming: mpsc::UnboundedReceiver<Incoming>,
    pub backend: Backend,
    pub session_id: String,
    /// `initialize`'s `agentInfo`.
    pub agent_info: Value,
    /// Whether the adapter offers `session/load`.
    pub load_session: bool,
    /// `session/new`'s `modes`.
    pub modes: Value,
    limits: RecordLimits,
    /// The record of the turn running or last run.
    pub message: MessageRecord,
    prompt: Option<oneshot::Receiver<Result<Value, AcpError>>>,
    pending: Vec<Value>,
}

fn now_ms() -> u64 {
    u64::try_from(rho_plumbing::time::now_ms()).unwrap_or_default()
}

impl AgentSession {
    /// Starts the adapter in `cwd` and opens a new session (or loads `resume`) with `mcp_servers`
    /// (`[{"name","command","args","env":[]}]`).
    pub async fn start(
        runtimes: &Runtimes,
        backend: Backend,
        cwd: &Path,
        mcp_servers: Vec<Value>,
        resume: Option<&str>,
        limits: RecordLimits,
    ) -> Result<AgentSession, SessionError> {
        Self::start_with(runtimes, backend, cwd, mcp_servers, resume, limits, None).await
    }

    /// [`AgentSession::start`] with `instructions` appended to the Agent's system prompt (ACP's
    /// `systemPrompt`, mode `append`; both pinned adapters take it on `session/new` and
    /// `session/load`).
    pub async fn start_with(
        runtimes: &Runtimes,
        backend: Backend,
        cwd: &Path,
        mcp_servers: Vec<Value>,
        resume: Option<&str>,
        limits: RecordLimits,
        instructions: Option<&str>,
    ) -> Result<AgentSession, SessionError> {
        let mut adapter = runtimes.spawn(backend, cwd)?;
        let Some((stdin, stdout)) = adapter.take_stdio() else {
            return Err(AcpError::Transport {
                method: "initialize".into(),
            }
            .into());
        };
        let (conn, mut incoming) = AcpConnection::connect(stdin, stdout);
        let init = conn
            .request(
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false, "_meta": {"terminal_output": true}}, "clientInfo": {"name": "rho", "version": env!("CARGO_PKG_VERSION")}}),
            )
            .await?;
        let load_session = init["agentCapabilities"]["loadSession"]
            .as_bool()
            .unwrap_or(false);
        let mut params = json!({"cwd": cwd, "mcpServers": mcp_servers});
        if let Some(text) = instructions {
            params["systemPrompt"] =
                json!({"mode": "append", "content": [{"type": "text", "text": text}]});
        }
        let (session_id, modes) = match resume {
            Some(id) => {
                let mut p = params;
                p["sessionId"] = json!(id);
                let r = conn.request("session/load", p).await.map_err(startup)?;
                drain_history(&conn, &mut incoming);
                (id.to_string(), r["modes"].clone())
            }
            None => {
                let r = conn.request("session/new", params).await.map_err(startup)?;
                let id = r["sessionId"]
                    .as_str()
                    .ok_or(SessionError::NoSession("session/new"))?;
                (id.to_string(), r["modes"].clone())
            }
        };
        Ok(AgentSession {
            adapter,
            conn,
            incoming,
            backend,
            session_id,
            agent_info: init["agentInfo"].clone(),
            load_session,
            modes,
            limits,
            message: MessageRecord::default(),
            prompt: None,
            pending: Vec::new(),
        })
    }

    /// The adapter process.
    pub fn adapter(&mut self) -> &mut Adapter {
        &mut self.adapter
    }

    /// Sets the session's mode (`session/set_mode`).
    pub async fn set_mode(&self, mode: &str) -> Result<(), SessionError> {
        self.conn
            .request(
                "session/set_mode",
                json!({"sessionId": self.session_id, "modeId": mode}),
            )
            .await?;
        Ok(())
    }

    /// Sends a prompt; follow it with [`AgentSession::next`] until it finishes.
    pub fn prompt(&mut self, text: &str) {
        self.message = MessageRecord::default();
        self.prompt = Some(self.conn.start_request(
            "session/prompt",
            json!({"sessionId": self.session_id, "prompt": [{"type": "text", "text": text}]}),
        ));
    }

    /// The turn's next event (after it finished: the updates that follow, until none is queued).
    pub async fn next(&mut self) -> TurnEvent {
        loop {
            let event = match self.prompt.as_mut() {
                Some(response) => tokio::select! {
                    biased;
                    incoming = self.incoming.recv() => Err(incoming),
                    answer = response => Ok(answer),
                },
                None => Err(self.incoming.recv().await),
            };
            match event {
                Ok(answer) => {
                    self.prompt = None;
                    self.pending.clear();
                    return match answer {
                        Ok(Ok(result)) => {
                            self.message.usage = usage(&result["usage"]);
                            let stop = result["stopReason"]
                                .as_str()
                                .unwrap_or("unknown")
                                .to_string();
                            self.message.stop_reason = Some(stop.clone());
                            TurnEvent::Finished(stop)
                        }
                        Ok(Err(AcpError::Transport { .. })) | Err(_) => TurnEvent::Lost,
                        Ok(Err(e)) => TurnEvent::Failed(e),
                    };
                }
                Err(None) | Err(Some(Incoming::Closed)) => {
                    self.prompt = None;
                    return TurnEvent::Lost;
                }
                Err(Some(Incoming::Update { session_id, update })) => {
                    if session_id == self.session_id
                        && self.message.fold(&update, now_ms(), &self.limits)
                    {
                        return TurnEvent::Changed;
                    }
                }
                Err(Some(Incoming::Permission {
                    request,
                    session_id,
                    params,
                })) => {
                    if session_id != self.session_id {
                        self.conn
                            .respond(&request, json!({"outcome": {"outcome": "cancelled"}}));
                        continue;
                    }
                    self.message.fold(
                        &{
                            let mut u = params["toolCall"].clone();
                            u["sessionUpdate"] = json!("tool_call_update");
                            u
                        },
                        now_ms(),
                        &self.limits,
                    );
                    self.pending.push(request.clone());
                    return TurnEvent::Permission(permission(request, &params));
                }
            }
        }
    }

    /// Answers a pending permission request with one of its offered options; a request that is
    /// not pending (stale or foreign) is refused and nothing is sent.
    pub fn answer(&mut self, request: &PermissionRequest, option_id: &str) -> bool {
        let Some(i) = self.pending.iter().position(|r| *r == request.request) else {
            return false;
        };
        if !request.options.iter().any(|(id, _, _)| id == option_id) {
            return false;
        }
        self.pending.remove(i);
        self.conn.respond(
            &request.request,
            json!({"outcome": {"outcome": "selected", "optionId": option_id}}),
        );
        true
    }

    /// Cancels the running turn: `session/cancel`, and every pending permission answered
    /// `cancelled`. The turn ends when the prompt answers (its stop reason confirms it).
    pub fn cancel(&mut self) {
        self.conn
            .notify("session/cancel", json!({"sessionId": self.session_id}));
        for request in self.pending.drain(..) {
            self.conn
                .respond(&request, json!({"outcome": {"outcome": "cancelled"}}));
        }
    }
}

/// Drops the history `session/load` replayed before it answered: it belongs to earlier
/// messages, which Rho already keeps. A permission asked meanwhile is answered `cancelled`.
fn drain_history(conn: &AcpConnection, incoming: &mut mpsc::UnboundedReceiver<Incoming>) {
    while let Ok(event) = incoming.try_recv() {
        if let Incoming::Permission { request, .. } = event {
            conn.respond(&request, json!({"outcome": {"outcome": "cancelled"}}));
        }
    }
}

fn startup(e: AcpError) -> SessionError {
    match &e {
        AcpError::Rpc { data, .. } if data["startupFailureReason"] == "bypass_root" => {
            SessionError::BypassRoot
        }
        _ => SessionError::Acp(e),
    }
}

fn usage(u: &Value) -> Option<Usage> {
    let n = |k: &str| u[k].as_u64();
    let usage = Usage {
        input_tokens: n("inputTokens"),
        output_tokens: n("outputTokens"),
        total_tokens: n("totalTokens"),
    };
    (usage != Usage::default()).then_some(usage)
}

fn permission(request: Value, params: &Value) -> PermissionRequest {
    let tool = &params["toolCall"];
    PermissionRequest {
        request,
        tool_call_id: tool["toolCallId"].as_str().map(str::to_string),
        title: tool["title"].as_str().map(str::to_string),
        options: params["options"]
            .as_array()
            .map(|opts| {
                opts.iter()
                    .map(|o| {
                        let s = |k: &str| o[k].as_str().unwrap_or_default().to_string();
                        (s("optionId"), s("kind"), s("name"))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bypass_root_reads_as_its_own_error_and_others_pass_through() {
        let rpc = |data: Value| AcpError::Rpc {
            method: "session/new".into(),
            code: -32603,
            message: "Internal error".into(),
            data,
        };
        let e = startup(rpc(json!({"startupFailureReason": "bypass_root"})));
        assert!(matches!(e, SessionError::BypassRoot));
        assert!(e.to_string().contains("IS_SANDBOX"), "{e}");
        let other = startup(rpc(json!({"startupFailureReason": "proxy_invalid"})));
        assert!(matches!(other, SessionError::Acp(AcpError::Rpc { .. })));
    }

    #[test]
    fn usage_and_permission_options_are_read_as_offered() {
        assert_eq!(usage(&json!({})), None);
        let u = usage(&json!({"inputTokens": 3, "outputTokens": 4, "totalTokens": 7})).unwrap();
        assert_eq!(u.total_tokens, Some(7));
        let p = permission(
            json!(5),
            &json!({"toolCall": {"toolCallId": "t", "title": "touch f"}, "options": [
                {"optionId": "allow", "kind": "allow_once", "name": "Allow"},
                {"optionId": "reject", "kind": "reject_once", "name": "Reject"}]}),
        );
        assert_eq!(p.option("reject_once"), Some("reject"));
        assert_eq!(p.option("allow_always"), None);
        assert_eq!(p.tool_call_id.as_deref(), Some("t"));
    }
}
