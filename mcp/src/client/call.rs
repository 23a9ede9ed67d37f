//! Tool calls: progress token on every call, progress to the caller, cancellation and the
//! pausable two-minute budget (both send the era's cancellation), modern-era input rounds,
//! outputSchema contracts and result rendering.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, JsonObject, ServerResult};
use rmcp::service::PeerRequestOptions;
use rmcp::ServiceError;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client::budget::Budget;
use crate::client::handler::Progress;
use crate::client::mrtr::{with_input_rounds, MAX_INPUT_ROUNDS};
use crate::client::render::{render_result, ImageAsset};
use crate::client::runtime::{mark_failed, LiveServer, McpRuntime};
use crate::client::schema::{check_output, OutputContractError};

/// What the caller supplies with a call.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// Cancelling the turn cancels the call.
    pub cancel: CancellationToken,
    /// Where progress goes (the tool card).
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
}

/// A finished call as the model and the card see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub text: String,
    /// The server reported a tool error (`isError`): a tool failure, not a crash.
    pub is_error: bool,
    /// The card's image.
    pub image: Option<ImageAsset>,
}

/// Why a call failed without a result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No exported name matches.
    #[error("no MCP tool is exported as `{0}`")]
    UnknownTool(String),
    /// The server withdrew the tool mid-session.
    #[error("tool `{tool}` was withdrawn by MCP server `{server}` during this session")]
    Withdrawn {
        /// Server identity.
        server: String,
        /// Raw tool name.
        tool: String,
    },
    /// The server is not running (failed to start, died, or its session ended).
    #[error("MCP server `{server}` is not available: {reason}")]
    Unavailable {
        /// Server identity.
        server: String,
        /// Why.
        reason: String,
    },
    /// The caller cancelled.
    #[error("the call was cancelled")]
    Cancelled,
    /// The budget ran out (time spent waiting on a person does not count).
    #[error("the call did not finish within {}s", .0.as_secs())]
    Timeout(std::time::Duration),
    /// The server answered with a JSON-RPC error.
    #[error("MCP server `{server}` returned an error: {message}")]
    Rpc {
        /// Server identity.
        server: String,
        /// The error message.
        message: String,
    },
    /// The result broke the tool's outputSchema.
    #[error(transparent)]
    Contract(#[from] OutputContractError),
    /// A modern-era server needed input Rho did not give.
    #[error("MCP server `{server}` needed input Rho did not give: {reason}")]
    InputRefused {
        /// Server identity.
        server: String,
        /// Why it was not given.
        reason: String,
    },
    /// The server does not offer this prompt or resource, or is not a live server.
    #[error("MCP server `{server}` does not offer {what}")]
    NotOffered {
        /// Server identity.
        server: String,
        /// What was asked for.
        what: String,
    },
    /// The server answered 401/403 with a challenge (OAuth servers may step up and retry).
    #[error("MCP server `{server}` refused the request for lack of authorization")]
    AuthChallenge {
        /// Server identity.
        server: String,
        /// The `WWW-Authenticate` value.
        challenge: String,
    },
    /// The server kept asking for input.
    #[error("MCP server `{server}` asked for input more than {MAX_INPUT_ROUNDS} times")]
    TooManyInputRounds {
        /// Server identity.
        server: String,
    },
}

impl McpRuntime {
    /// Calls a tool by its exported name. An OAuth server that answers with a scope
    /// challenge is stepped up (when this run may authorize) and the call retried, a bounded
    /// number of times.
    pub async fn call(
        &self,
        exported: &str,
        arguments: Option<JsonObject>,
        ctx: CallContext,
    ) -> Result<ToolOutput, CallError> {
        let mut rounds = 0;
        loop {
            match self
                .call_once(exported, arguments.clone(), ctx.clone())
                .await
            {
                Err(CallError::AuthChallenge { server, challenge })
                    if rounds < crate::client::oauth::MAX_AUTH_ROUNDS =>
                {
                    rounds += 1;
                    self.step_up(&server, &challenge).await?;
                }
                other => return other,
            }
        }
    }

    async fn step_up(&self, server: &str, challenge: &str) -> Result<(), CallError> {
        let unavailable = |reason: String| CallError::Unavailable {
            server: server.to_owned(),
            reason,
        };
        let live = self
            .server(server)
            .ok_or_else(|| unavailable("it is not running".to_owned()))?;
        let crate::client::config::TransportConfig::StreamableHttp(http) = &live.config.transport
        else {
            return Err(unavailable(
                "it asked for authorization over stdio".to_owned(),
            ));
        };
        if !crate::client::http::uses_oauth(http) {
            return Err(unavailable(
                "it refused the configured credentials".to_owned(),
            ));
        }
        let oauth_cfg = http.oauth.clone().unwrap_or_default();
        let opts = &self.options().connect;
        crate::client::oauth::step_up(http, &oauth_cfg, server, &opts.oauth, challenge)
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        let session = crate::client::connect::connect_shared(
            &live.config,
            opts,
            live.progress.clone(),
            live.inflight.clone(),
        )
        .await
        .map_err(|e| unavailable(e.to_string()))?;
        crate::client::runtime::replace_session(live, session).await;
        Ok(())
    }

    async fn call_once(
        &self,
        exported: &str,
        arguments: Option<JsonObject>,
        ctx: CallContext,
    ) -> Result<ToolOutput, CallError> {
        let r = self
            .registry()
            .get(exported)
            .ok_or_else(|| CallError::UnknownTool(exported.to_owned()))?;
        let live = self.live(r.server).ok_or_else(|| CallError::Unavailable {
            server: r.server_id.clone(),
            reason: "it did not start".to_owned(),
        })?;
        let state = live.snapshot();
        if let Some(reason) = state.failed {
            return Err(CallError::Unavailable {
                server: r.server_id.clone(),
                reason,
            });
        }
        let tool = state
            .tools
            .iter()
            .find(|t| t.name == r.tool)
            .cloned()
            .ok_or_else(|| CallError::Withdrawn {
                server: r.server_id.clone(),
                tool: r.tool.clone(),
            })?;
        let budget = Budget::new(self.options().call_budget);
        let _inflight = live.inflight.enter(budget.clone(), ctx.cancel.clone());
        let result = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => Err(CallError::Cancelled),
            _ = budget.expired() => Err(CallError::Timeout(budget.total())),
            r = call_rounds(live, &r.tool, arguments, ctx.progress.clone(), &budget, &ctx.cancel) => r,
        }?;
        finish(live, &tool, result, self.max_output_bytes())
    }
}

/// Sends `tools/call` (retrying modern-era input rounds); when the enclosing future is
/// dropped (cancel or budget), the in-flight request gets the era's cancellation.
async fn call_rounds(
    live: &Arc<LiveServer>,
    tool: &str,
    arguments: Option<JsonObject>,
    progress: Option<mpsc::UnboundedSender<Progress>>,
    budget: &Budget,
    cancel: &CancellationToken,
) -> Result<CallToolResult, CallError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = arguments;
    with_input_rounds(live, params, progress, budget, cancel).await
}

/// Cancels the request on drop unless disarmed.
struct CancelOnDrop {
    live: Arc<LiveServer>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            let peer = self.live.peer();
            let server = self.live.config.id.clone();
            tokio::spawn(async move {
                let p = rmcp::model::CancelledNotificationParam::new(
                    Some(id),
                    Some("cancelled by Rho (turn cancelled or call budget exceeded)".into()),
                );
                if let Err(e) = peer.notify_cancelled(p).await {
                    tracing::debug!(target: "rho::mcp", server = %server, error = %e, "could not send cancellation");
                }
            });
        }
    }
}

/// Sends one request (with a progress token and, on modern servers, the `_meta` log level)
/// and awaits its response; dropping the future sends the era's cancellation.
pub(crate) async fn send_once(
    live: &Arc<LiveServer>,
    request: ClientRequest,
    progress: Option<mpsc::UnboundedSender<Progress>>,
) -> Result<ServerResult, CallError> {
    let mut opts = PeerRequestOptions::no_options();
    opts.meta = crate::client::mrtr::request_meta(live);
    let handle = live
        .peer()
        .send_request_with_option(request, opts)
        .await
        .map_err(|e| service_error(live, e))?;
    let token = handle.progress_token.clone();
    if let Some(sink) = progress {
        live.progress.add(token.clone(), sink);
    }
    let mut guard = CancelOnDrop {
        live: Arc::clone(live),
        id: Some(handle.id.clone()),
    };
    let result = handle.await_response().await;
    guard.id = None;
    // rmcp handles each notification on its own task, so a progress notification sent just
    // before the response may be delivered just after it: keep the route open briefly.
    let routes = live.progress.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        routes.remove(&token);
    });
    result.map_err(|e| service_error(live, e))
}

/// Maps an rmcp error; a closed transport marks the server failed.
pub(crate) fn service_error(live: &LiveServer, e: ServiceError) -> CallError {
    if let Some(challenge) = e.auth_challenge() {
        return CallError::AuthChallenge {
            server: live.config.id.clone(),
            challenge: challenge.to_owned(),
        };
    }
    match e {
        ServiceError::McpError(err) => CallError::Rpc {
            server: live.config.id.clone(),
            message: err.message.to_string(),
        },
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            let reason = "its session ended (the server exited or the connection closed)";
            mark_failed(live, reason.to_owned());
            CallError::Unavailable {
                server: live.config.id.clone(),
                reason: reason.to_owned(),
            }
        }
        other => CallError::Rpc {
            server: live.config.id.clone(),
            message: other.to_string(),
        },
    }
}

/// Validates a non-error result against the tool's outputSchema (before any rewriting of
/// binary fields), then renders it.
fn finish(
    live: &LiveServer,
    tool: &rmcp::model::Tool,
    result: CallToolResult,
    max: usize,
) -> Result<ToolOutput, CallError> {
    let is_error = result.is_error == Some(true);
    if let (false, Some(schema)) = (is_error, &tool.output_schema) {
        check_output(
            &serde_json::Value::Object((**schema).clone()),
            result.structured_content.as_ref(),
        )?;
    }
    let content: Vec<serde_json::Value> = result
        .content
        .iter()
        .filter_map(|c| serde_json::to_value(c).ok())
        .collect();
    let rendered = render_result(&content, result.structured_content.as_ref(), max);
    let _ = live;
    Ok(ToolOutput {
        text: rendered.text,
        is_error,
        image: rendered.image,
    })
}
