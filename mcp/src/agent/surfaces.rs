//! What the panel reads from a native session besides turns: prompts as slash commands with
//! argument suggestions, resources for the `@` palette (reads become message parts), the `/mcp`
//! inventory and the `/doctor` rows (the provider reachable, the model, MCP health).

use tokio_util::sync::CancellationToken;

use crate::cli::report::{configured_report, live_report, ServerReport, Status};
use crate::client::config::EntryState;
use crate::client::prompts::{PromptCommand, PromptError};
use crate::client::resources::{Attachment, ResourceEntry};
use crate::client::runtime::McpRuntime;
use crate::model::Part;

use super::session::{AgentError, NativeSession};

/// The provider row of `/doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderHealth {
    /// `anthropic` or `openai`.
    pub provider: String,
    /// `anthropic`, `responses` or `chat`.
    pub api: String,
    /// The endpoint base.
    pub base_url: String,
    /// The model.
    pub model: String,
    /// Whether the provider answered its model list with the key.
    pub reachable: bool,
    /// Why not.
    pub error: Option<String>,
}

/// The MCP row of `/doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpHealth {
    /// Configured entries (enabled or not, plugins included).
    pub configured: usize,
    /// Live and discovered.
    pub connected: usize,
    /// `(server, reason)` of each failed or malformed entry.
    pub failed: Vec<(String, String)>,
}

/// `/doctor` as far as the session knows (R and Python are the service's to add).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doctor {
    /// The model provider.
    pub provider: ProviderHealth,
    /// MCP servers.
    pub mcp: McpHealth,
}

impl NativeSession {
    /// The session's MCP runtime, shared: the panel's reads (prompts, suggestions, resources)
    /// run on it beside a running turn. `None` without servers.
    pub fn mcp_runtime(&self) -> Option<std::sync::Arc<crate::client::runtime::McpRuntime>> {
        self.runtime.clone()
    }

    /// Every server's prompts as `/mcp:<server>:<prompt>` commands.
    pub fn prompt_commands(&self) -> Vec<PromptCommand> {
        self.runtime
            .as_ref()
            .map(|r| r.prompt_commands())
            .unwrap_or_default()
    }

    /// Suggestions for a prompt argument being typed (empty when the server offers none).
    pub async fn complete_prompt(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        others: &[(String, String)],
    ) -> Vec<String> {
        match &self.runtime {
            Some(r) => {
                r.complete_prompt_argument(server, prompt, argument, value, others)
                    .await
            }
            None => Vec::new(),
        }
    }

    /// Suggestions for a resource template placeholder being filled in.
    pub async fn complete_resource(
        &self,
        server: &str,
        uri_template: &str,
        argument: &str,
        value: &str,
        others: &[(String, String)],
    ) -> Vec<String> {
        match &self.runtime {
            Some(r) => {
                r.complete_resource_argument(server, uri_template, argument, value, others)
                    .await
            }
            None => Vec::new(),
        }
    }

    /// What a typed line becomes as the turn's input ([`resolve_line`] on this session's
    /// servers).
    pub async fn resolve(
        &self,
        line: &str,
        cancel: CancellationToken,
    ) -> Result<Vec<Part>, AgentError> {
        resolve_line(self.runtime.as_deref(), line, cancel).await
    }

    /// Changes after a server re-listed its tools, prompts or resources (the panel re-reads
    /// them then); `None` without servers.
    pub fn lists_changed(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.runtime.as_ref().map(|r| r.lists_changed())
    }

    /// Every server's resources, then its templates (no round trip).
    pub fn resources(&self) -> Vec<ResourceEntry> {
        self.runtime
            .as_ref()
            .map(|r| r.resource_entries())
            .unwrap_or_default()
    }

    /// Reads a resource into a message part ([`attach_resource`] on this session's servers).
    pub async fn attach(
        &self,
        server: &str,
        uri: &str,
        cancel: CancellationToken,
    ) -> Result<Part, AgentError> {
        attach_resource(self.runtime.as_deref(), server, uri, cancel).await
    }

    /// `/mcp`: every configured entry, live where this session started it.
    pub fn mcp_report(&self) -> Vec<ServerReport> {
        let Some(rt) = &self.runtime else {
            return self.mcp.entries.iter().map(configured_report).collect();
        };
        let mut slots = rt.slots().iter();
        self.mcp
            .entries
            .iter()
            .map(|entry| {
                let enabled = matches!(&entry.state, EntryState::Valid(c) if c.enabled);
                match (enabled, enabled.then(|| slots.next()).flatten()) {
                    (true, Some(slot)) => live_report(entry, slot, rt.registry()),
                    _ => configured_report(entry),
                }
            })
            .collect()
    }

    /// `/doctor`: the provider asked for its model list now; MCP from `/mcp`.
    pub async fn doctor(&self) -> Doctor {
        let cfg = self.client.config();
        let check = self.client.check().await;
        let reports = self.mcp_report();
        let failed = reports
            .iter()
            .filter(|r| matches!(r.status, Status::Failed | Status::Malformed))
            .map(|r| (r.id.clone(), r.error.clone().unwrap_or_default()))
            .collect();
        Doctor {
            provider: ProviderHealth {
                provider: cfg.provider.clone(),
                api: cfg.api.as_str().to_owned(),
                base_url: cfg.base_url.clone(),
                model: cfg.model.clone(),
                reachable: check.is_ok(),
                error: check.err().map(|e| e.to_string()),
            },
            mcp: McpHealth {
                configured: reports.len(),
                connected: reports
                    .iter()
                    .filter(|r| r.status == Status::Connected)
                    .count(),
                failed,
            },
        }
    }
}

/// What a typed line becomes as the turn's input: a `/mcp:<server>:<prompt> args` command is
/// parsed (a missing required argument is named and nothing is sent) and fetched with
/// `prompts/get` into one user message; any other text is itself. Cancel it with `cancel` (the
/// server is sent the era's cancellation). On a shared runtime, so it can run in its own task.
pub async fn resolve_line(
    rt: Option<&McpRuntime>,
    line: &str,
    cancel: CancellationToken,
) -> Result<Vec<Part>, AgentError> {
    if !line.starts_with("/mcp:") {
        return Ok(vec![Part::Text(line.to_owned())]);
    }
    let Some(rt) = rt else {
        return Err(AgentError::Prompt(
            "no MCP server is running in this session, so there are no /mcp: prompts".to_owned(),
        ));
    };
    match rt.run_prompt_command(line, cancel).await {
        Ok(text) => Ok(vec![Part::Text(text)]),
        Err(PromptError::Args(e)) => {
            let (_, prompt, _) =
                crate::client::prompts::parse_command(line).unwrap_or(("", "", ""));
            Err(AgentError::Prompt(format!("/mcp: prompt `{prompt}`: {e}")))
        }
        Err(e) => Err(AgentError::Prompt(e.to_string())),
    }
}

/// Reads a resource into a message part: text as `[resource <uri>]` and its body (capped by
/// `max_output_bytes`), a single image as an image for the model. Cancel it with `cancel`.
pub async fn attach_resource(
    rt: Option<&McpRuntime>,
    server: &str,
    uri: &str,
    cancel: CancellationToken,
) -> Result<Part, AgentError> {
    let rt = rt.ok_or(AgentError::NoServers)?;
    match rt.read_resource(server, uri, cancel).await {
        Ok(Attachment::Text(t)) => Ok(Part::Text(format!("[resource {uri}]\n{t}"))),
        Ok(Attachment::Image { mime_type, data }) => Ok(Part::Image { mime_type, data }),
        Err(e) => Err(AgentError::Resource(format!(
            "reading {uri} from {server} failed: {e}"
        ))),
    }
}
