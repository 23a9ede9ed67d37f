//! What a person's message becomes as the input of a turn of Rho's own agent (decision 0809):
//! a `/mcp:<server>:<prompt> args` line is fetched with `prompts/get` into one user turn, and
//! each `@mcp:<server>:<uri>` token reads that resource and attaches it (the token becomes
//! `[resource <uri>]` in the text). The check a send makes first (a missing required argument
//! named, nothing journaled) needs no round trip.

use rho_mcp::agent::{attach_resource, resolve_line};
use rho_mcp::model::Part;
use rho_mcp::prompts::{parse_arguments, parse_command};
use rho_mcp::runtime::McpRuntime;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The prefix of a resource token in a message (`@mcp:<server>:<uri>`).
pub const RESOURCE_TOKEN: &str = "@mcp:";

/// Why a message could not become a turn: the error code its message ends with, and why.
pub type InputError = (&'static str, String);

/// The `@mcp:<server>:<uri>` tokens of a text, in order: `(token, server, uri)`.
pub fn resource_tokens(text: &str) -> Vec<(&str, &str, &str)> {
    text.split_whitespace()
        .filter_map(|token| {
            let body = token.strip_prefix(RESOURCE_TOKEN)?;
            let (server, uri) = body.split_once(':')?;
            (!server.is_empty() && !uri.is_empty()).then_some((token, server, uri))
        })
        .collect()
}

/// Checks a `/mcp:` line against the prompts the session lists (no round trip): an unknown
/// prompt, a missing required argument or a malformed one is named. Any other text passes.
pub fn check_prompt(rt: &McpRuntime, line: &str) -> Result<(), String> {
    if !line.starts_with("/mcp:") {
        return Ok(());
    }
    let (server, prompt, rest) = parse_command(line)
        .ok_or_else(|| format!("`{line}` is not /mcp:<server>:<prompt> [arguments]"))?;
    let cmd = rt
        .prompt_commands()
        .into_iter()
        .find(|c| c.server == server && c.prompt == prompt)
        .ok_or_else(|| format!("the MCP server {server} offers no prompt `{prompt}`"))?;
    parse_arguments(&cmd.arguments, rest)
        .map(|_| ())
        .map_err(|e| format!("/mcp:{server}:{prompt}: {e}"))
}

/// The turn's input: the history summary first (a new session after a restart), then the
/// prompt's messages or the person's text, then each attached resource. Runs on the session's
/// shared runtime (in a task of its own) and stops at `cancel` (the person stopped the message).
pub async fn resolve(
    rt: Option<Arc<McpRuntime>>,
    text: String,
    history: Option<String>,
    cancel: CancellationToken,
) -> Result<Vec<Part>, InputError> {
    let mut parts = Vec::new();
    if let Some(h) = history {
        parts.push(Part::Text(h));
    }
    if text.starts_with("/mcp:") {
        let fetched = resolve_line(rt.as_deref(), &text, cancel)
            .await
            .map_err(|e| ("prompt_error", e.to_string()))?;
        parts.extend(fetched);
        return Ok(parts);
    }
    let tokens = resource_tokens(&text);
    let mut said = text.clone();
    let mut attached = Vec::new();
    for (token, server, uri) in tokens {
        let part = attach_resource(rt.as_deref(), server, uri, cancel.clone())
            .await
            .map_err(|e| ("resource_error", e.to_string()))?;
        said = said.replacen(token, &format!("[resource {uri}]"), 1);
        attached.push(part);
    }
    parts.push(Part::Text(said));
    parts.extend(attached);
    Ok(parts)
}

/// A turn's input being read (a prompt fetched, resources read) in a task of its own, so the
/// driver meanwhile answers the palettes and a stop, which cancels the read (the server is sent
/// the era's cancellation).
pub struct PendingInput {
    task: tokio::task::JoinHandle<Result<Vec<Part>, InputError>>,
    cancel: CancellationToken,
}

impl PendingInput {
    /// Starts reading the input of `text` on the session's runtime.
    pub fn spawn(rt: Option<Arc<McpRuntime>>, text: String, history: Option<String>) -> Self {
        let cancel = CancellationToken::new();
        let task = tokio::spawn(resolve(rt, text, history, cancel.clone()));
        PendingInput { task, cancel }
    }

    /// Stops the read.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// The input's parts; `Err(None)` once cancelled, `Err(Some(why))` when reading failed.
    /// Cancel-safe: dropping this future leaves the read running.
    pub async fn wait(&mut self) -> Result<Vec<Part>, Option<InputError>> {
        let got = (&mut self.task).await;
        if self.cancel.is_cancelled() {
            return Err(None);
        }
        match got {
            Ok(read) => read.map_err(Some),
            Err(e) => Err(Some(("agent_unavailable", e.to_string()))),
        }
    }
}

impl Drop for PendingInput {
    /// A read nobody waits for any more (the session ended) is cancelled.
    fn drop(&mut self) {
        self.cancel.cancel();
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_tokens_name_their_server_and_uri() {
        assert_eq!(
            resource_tokens("sum @mcp:ev:demo://resource/static/document/a.md and @x @mcp:bad"),
            [(
                "@mcp:ev:demo://resource/static/document/a.md",
                "ev",
                "demo://resource/static/document/a.md"
            )]
        );
    }
}
