//! Tool calls: progress token on every call, progress to the caller, cancellation and the
//! pausable two-minute budget (both send the era's cancellation), modern-era input rounds,
//! outputSchema contracts and result rendering.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client::budget::Budget;
pub use crate::client::errors::CallError;
use crate::client::handler::Progress;
use crate::client::live::LiveServer;
use crate::client::mrtr::with_input_rounds;
use crate::client::render::{render_result, ImageAsset};
use crate::client::runtime::McpRuntime;
use crate::client::schema::check_output;

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
