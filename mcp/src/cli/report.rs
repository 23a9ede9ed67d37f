//! The stable, documented per-server report that `rho mcp list|show` print (text or JSON).

use serde::Serialize;

use crate::client::config::{EntryState, McpConfig, ServerEntry};

/// One server as `list`/`show` report it. Field names are the documented JSON keys.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    /// Server identity.
    pub id: String,
    /// `config` or `plugin:<name>`.
    pub source: String,
    /// `stdio`, `streamable_http`, or what a malformed entry named (null if unreadable).
    pub transport: Option<String>,
    /// The entry's `enabled` (false for malformed entries).
    pub enabled: bool,
    /// `configured`, `disabled`, `malformed`, `connected`, `failed` or `not_loaded`.
    pub status: Status,
    /// `2026-07-28` or `2025-11-25` once connected, else null.
    pub era: Option<String>,
    /// Why the entry is malformed or the connection failed.
    pub error: Option<String>,
    /// Discovered tools (only with `--connect`).
    pub tools: Vec<ToolReport>,
    /// Tools that appeared after startup and need a restart to be exported.
    pub tools_needing_restart: Vec<String>,
    /// Discovered prompts (only with `--connect`).
    pub prompts: Vec<PromptReport>,
    /// Discovered resources and templates (only with `--connect`).
    pub resources: Vec<ResourceReport>,
    /// Last successful ping (legacy Streamable HTTP) as RFC 3339, or null.
    pub last_ping: Option<String>,
}

/// Server status.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Valid and enabled, not started (no `--connect`).
    Configured,
    /// `enabled = false`.
    Disabled,
    /// Unusable entry.
    Malformed,
    /// Live and discovered.
    Connected,
    /// Start, handshake or discovery failed (or the server died).
    Failed,
    /// A session driven by another runtime (Claude CLI, ACP, Codex) starts no MCP server.
    NotLoaded,
}

impl Status {
    /// The JSON/text spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Configured => "configured",
            Status::Disabled => "disabled",
            Status::Malformed => "malformed",
            Status::Connected => "connected",
            Status::Failed => "failed",
            Status::NotLoaded => "not_loaded",
        }
    }
}

/// One discovered tool.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolReport {
    /// The server's raw tool name.
    pub name: String,
    /// The exported name (after encoding and shortening), or null when allow/deny hides it.
    pub exported: Option<String>,
    /// The full `mcp__<server>__<tool>` name before shortening.
    pub full_name: String,
    /// `title`, when the server gave one.
    pub title: Option<String>,
    /// Hints the server declared (`readOnly`, `destructive`, `openWorld`).
    pub hints: Vec<String>,
}

/// One discovered prompt.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PromptReport {
    /// Prompt name.
    pub name: String,
    /// The slash command `/mcp:<server>:<prompt>`.
    pub command: String,
    /// Argument names (required ones first as the server listed them).
    pub arguments: Vec<String>,
}

/// One discovered resource or template.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceReport {
    /// URI or URI template.
    pub uri: String,
    /// The server's name for it.
    pub name: String,
    /// True for a resource template.
    pub template: bool,
}

/// The config-only report of one entry (nothing started).
pub fn configured_report(entry: &ServerEntry) -> ServerReport {
    let (transport, enabled, status, error) = match &entry.state {
        EntryState::Valid(cfg) => (
            Some(cfg.transport.name().to_owned()),
            cfg.enabled,
            if cfg.enabled {
                Status::Configured
            } else {
                Status::Disabled
            },
            None,
        ),
        EntryState::Malformed { transport, error } => (
            transport.clone(),
            false,
            Status::Malformed,
            Some(error.clone()),
        ),
    };
    ServerReport {
        id: entry.id.clone(),
        source: entry.source.label(),
        transport,
        enabled,
        status,
        era: None,
        error,
        tools: Vec::new(),
        tools_needing_restart: Vec::new(),
        prompts: Vec::new(),
        resources: Vec::new(),
        last_ping: None,
    }
}

/// `/mcp` in a session driven by Claude CLI, ACP or Codex: every configured entry is shown
/// as not loaded (Rho neither passes its config to them nor inherits theirs).
pub fn not_loaded_reports(config: &McpConfig) -> Vec<ServerReport> {
    config
        .entries
        .iter()
        .map(|e| {
            let mut r = configured_report(e);
            if r.status == Status::Configured {
                r.status = Status::NotLoaded;
            }
            r
        })
        .collect()
}

/// Config-only reports of every entry.
pub fn configured_reports(config: &McpConfig) -> Vec<ServerReport> {
    config.entries.iter().map(configured_report).collect()
}

/// The live report of an enabled entry after a runtime started it.
pub fn live_report(
    entry: &ServerEntry,
    slot: &crate::client::runtime::Slot,
    registry: &crate::client::registry::Registry,
) -> ServerReport {
    use crate::client::runtime::Slot;
    let mut r = configured_report(entry);
    match slot {
        Slot::Failed { error, .. } => {
            r.status = Status::Failed;
            r.error = Some(error.clone());
        }
        Slot::Live(live) => {
            let state = live.snapshot();
            r.status = if state.failed.is_some() {
                Status::Failed
            } else {
                Status::Connected
            };
            r.error = state.failed.clone().or(state.ping_error.clone());
            r.last_ping = state.last_ping.clone();
            r.era = Some(live.protocol_version.clone());
            let id = &live.config.id;
            r.tools = state
                .tools
                .iter()
                .map(|t| ToolReport {
                    name: t.name.to_string(),
                    exported: registry.exported_for(id, &t.name).map(str::to_owned),
                    full_name: crate::client::naming::full_name(id, &t.name),
                    title: crate::client::registry::title(t),
                    hints: crate::client::registry::hints(t),
                })
                .collect();
            r.tools_needing_restart = state.added.clone();
            r.prompts = state
                .prompts
                .iter()
                .map(|p| PromptReport {
                    name: p.name.to_string(),
                    command: format!("/mcp:{id}:{}", p.name),
                    arguments: p
                        .arguments
                        .iter()
                        .flatten()
                        .map(|a| a.name.to_string())
                        .collect(),
                })
                .collect();
            r.resources = state
                .resources
                .iter()
                .map(|res| ResourceReport {
                    uri: res.uri.to_string(),
                    name: res.name.to_string(),
                    template: false,
                })
                .chain(state.templates.iter().map(|t| ResourceReport {
                    uri: t.uri_template.to_string(),
                    name: t.name.to_string(),
                    template: true,
                }))
                .collect();
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::config::parse_config;

    #[test]
    fn other_runtimes_show_entries_as_not_loaded() {
        let cfg = parse_config(
            "[mcp.servers.a]\ntransport = \"stdio\"\ncommand = \"x\"\n[mcp.servers.b]\ntransport = \"stdio\"\ncommand = \"x\"\nenabled = false\n",
            "t".as_ref(),
        )
        .unwrap();
        let r = not_loaded_reports(&cfg);
        assert_eq!(r[0].status, Status::NotLoaded);
        assert_eq!(r[1].status, Status::Disabled);
        assert_eq!(serde_json::to_value(&r[0]).unwrap()["status"], "not_loaded");
    }
}
