//! What a person's message becomes as the input of a turn of Rho's own agent (decision 0809):
//! a `/mcp:<server>:<prompt> args` line is fetched with `prompts/get` into one user turn, and
//! each `@mcp:<server>:<uri>` token reads that resource and attaches it (the token becomes
//! `[resource <uri>]` in the text). The check a send makes first (a missing required argument
//! named, nothing journaled) needs no round trip.

use rho_mcp::agent::NativeSession;
use rho_mcp::model::Part;
use rho_mcp::prompts::{parse_arguments, parse_command};
use rho_mcp::runtime::McpRuntime;
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
/// prompt's messages or the person's text, then each attached resource.
pub async fn resolve(
    session: &NativeSession,
    text: &str,
    history: Option<String>,
) -> Result<Vec<Part>, InputError> {
    let mut parts = Vec::new();
    if let Some(h) = history {
        parts.push(Part::Text(h));
    }
    if text.starts_with("/mcp:") {
        let fetched = session
            .resolve(text, CancellationToken::new())
            .await
            .map_err(|e| ("prompt_error", e.to_string()))?;
        parts.extend(fetched);
        return Ok(parts);
    }
    let tokens = resource_tokens(text);
    let mut said = text.to_string();
    let mut attached = Vec::new();
    for (token, server, uri) in tokens {
        let part = session
            .attach(server, uri, CancellationToken::new())
            .await
            .map_err(|e| ("resource_error", e.to_string()))?;
        said = said.replacen(token, &format!("[resource {uri}]"), 1);
        attached.push(part);
    }
    parts.push(Part::Text(said));
    parts.extend(attached);
    Ok(parts)
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
