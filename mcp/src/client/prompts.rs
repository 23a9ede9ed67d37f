//! Prompts as slash commands `/mcp:<server>:<prompt>`: argument parsing (one argument takes
//! the whole text, several take `key=value` pairs) and `prompts/get` into one user turn.

use std::collections::BTreeMap;

use rmcp::model::{GetPromptRequestParams, Prompt};
use tokio_util::sync::CancellationToken;

use crate::client::errors::CallError;
use crate::client::mrtr::with_input_rounds;
use crate::client::render::{cap, render_block, ImageKeeper};
use crate::client::runtime::McpRuntime;

/// A prompt offered as a slash command.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptCommand {
    /// Server identity.
    pub server: String,
    /// The prompt's name.
    pub prompt: String,
    /// `/mcp:<server>:<prompt>`.
    pub command: String,
    /// Description, if any.
    pub description: Option<String>,
    /// Arguments: (name, required).
    pub arguments: Vec<(String, bool)>,
}

/// Why typed prompt arguments cannot be used (no turn starts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptArgError {
    /// A required argument is missing.
    #[error("missing required argument `{0}`")]
    Missing(String),
    /// A token is not `key=value`.
    #[error("expected key=value, got `{0}`")]
    NotAPair(String),
    /// A key the prompt does not take.
    #[error("unknown argument `{0}`")]
    Unknown(String),
}

/// Splits `/mcp:<server>:<prompt> rest` into its parts.
pub fn parse_command(input: &str) -> Option<(&str, &str, &str)> {
    let body = input.strip_prefix("/mcp:")?;
    let (head, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let (server, prompt) = head.rsplit_once(':')?;
    (!server.is_empty() && !prompt.is_empty()).then_some((server, prompt, rest.trim()))
}

/// Parses the text after the command for this prompt's arguments.
pub fn parse_arguments(
    args: &[(String, bool)],
    text: &str,
) -> Result<BTreeMap<String, String>, PromptArgError> {
    let mut out = BTreeMap::new();
    if let [(name, required)] = args {
        if !text.is_empty() {
            out.insert(name.clone(), text.to_owned());
        } else if *required {
            return Err(PromptArgError::Missing(name.clone()));
        }
        return Ok(out);
    }
    for token in text.split_whitespace() {
        let (k, v) = token
            .split_once('=')
            .ok_or_else(|| PromptArgError::NotAPair(token.to_owned()))?;
        if !args.iter().any(|(n, _)| n == k) {
            return Err(PromptArgError::Unknown(k.to_owned()));
        }
        out.insert(k.to_owned(), v.to_owned());
    }
    if let Some((name, _)) = args.iter().find(|(n, r)| *r && !out.contains_key(n)) {
        return Err(PromptArgError::Missing(name.clone()));
    }
    Ok(out)
}

fn command_of(server: &str, p: &Prompt) -> PromptCommand {
    PromptCommand {
        server: server.to_owned(),
        prompt: p.name.to_string(),
        command: format!("/mcp:{server}:{}", p.name),
        description: p.description.clone(),
        arguments: p
            .arguments
            .iter()
            .flatten()
            .map(|a| (a.name.to_string(), a.required == Some(true)))
            .collect(),
    }
}

impl McpRuntime {
    /// Every live server's prompts as commands (listed at connect, refreshed on changes).
    pub fn prompt_commands(&self) -> Vec<PromptCommand> {
        let mut out = Vec::new();
        for i in 0..self.slots().len() {
            if let Some(l) = self.live(i) {
                out.extend(
                    l.snapshot()
                        .prompts
                        .iter()
                        .map(|p| command_of(&l.config.id, p)),
                );
            }
        }
        out
    }

    /// Resolves a typed `/mcp:<server>:<prompt> ...` line into the one user turn it becomes:
    /// parses arguments (a missing required one starts nothing), then `prompts/get`.
    pub async fn run_prompt_command(
        &self,
        input: &str,
        cancel: CancellationToken,
    ) -> Result<String, PromptError> {
        let (server, prompt, rest) = parse_command(input).ok_or(PromptError::NotACommand)?;
        let cmd = self
            .prompt_commands()
            .into_iter()
            .find(|c| c.server == server && c.prompt == prompt)
            .ok_or_else(|| PromptError::Unknown(format!("/mcp:{server}:{prompt}")))?;
        let args = parse_arguments(&cmd.arguments, rest)?;
        Ok(self.get_prompt(server, prompt, args, cancel).await?)
    }

    /// `prompts/get`: the messages as one user turn, assistant messages labelled, capped.
    pub async fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        args: BTreeMap<String, String>,
        cancel: CancellationToken,
    ) -> Result<String, CallError> {
        let live = self.server(server).ok_or_else(|| CallError::NotOffered {
            server: server.to_owned(),
            what: format!("prompt `{prompt}` (server not running)"),
        })?;
        let mut params = GetPromptRequestParams::new(prompt.to_owned());
        params.arguments = Some(args.into_iter().map(|(k, v)| (k, v.into())).collect());
        let budget = crate::client::budget::Budget::new(self.options().call_budget);
        let work = with_input_rounds(live, params, None, &budget, &cancel);
        let result = tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(CallError::Cancelled),
            _ = budget.expired() => Err(CallError::Timeout(budget.total())),
            r = work => r,
        }?;
        Ok(render_prompt(&result, self.max_output_bytes()))
    }
}

/// Renders `prompts/get` messages as one user turn.
pub fn render_prompt(result: &serde_json::Value, max: usize) -> String {
    let mut images = ImageKeeper::default();
    let mut parts = Vec::new();
    for m in result["messages"].as_array().into_iter().flatten() {
        let body = render_block(&m["content"], &mut images);
        if m["role"] == "assistant" {
            parts.push(format!(
                "[assistant message from the prompt, prior context]\n{body}"
            ));
        } else {
            parts.push(body);
        }
    }
    cap(&parts.join("\n\n"), max)
}

/// Why a typed prompt command did not produce a turn.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// The text is not `/mcp:<server>:<prompt>`.
    #[error("not an MCP prompt command")]
    NotACommand,
    /// No such prompt.
    #[error("no MCP prompt {0}")]
    Unknown(String),
    /// Bad arguments (nothing was sent).
    #[error(transparent)]
    Args(#[from] PromptArgError),
    /// The request failed.
    #[error(transparent)]
    Request(#[from] CallError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: &str, r: bool) -> (String, bool) {
        (n.to_owned(), r)
    }

    #[test]
    fn commands_split() {
        assert_eq!(
            parse_command("/mcp:docs:search how do sessions resume"),
            Some(("docs", "search", "how do sessions resume"))
        );
        assert_eq!(
            parse_command("/mcp:plug/srv:p"),
            Some(("plug/srv", "p", ""))
        );
        assert_eq!(parse_command("/other"), None);
    }

    #[test]
    fn one_argument_takes_everything() {
        let m = parse_arguments(&[a("query", true)], "how do sessions resume").unwrap();
        assert_eq!(m["query"], "how do sessions resume");
        assert_eq!(
            parse_arguments(&[a("query", true)], ""),
            Err(PromptArgError::Missing("query".into()))
        );
    }

    #[test]
    fn several_arguments_take_pairs_and_name_the_missing_one() {
        let args = [a("id", true), a("severity", true), a("note", false)];
        let m = parse_arguments(&args, "id=4821 severity=high").unwrap();
        assert_eq!((m["id"].as_str(), m["severity"].as_str()), ("4821", "high"));
        assert_eq!(
            parse_arguments(&args, "id=4821"),
            Err(PromptArgError::Missing("severity".into()))
        );
        assert_eq!(
            parse_arguments(&args, "id=1 x"),
            Err(PromptArgError::NotAPair("x".into()))
        );
        assert_eq!(
            parse_arguments(&args, "id=1 severity=2 colour=red"),
            Err(PromptArgError::Unknown("colour".into()))
        );
    }

    #[test]
    fn assistant_messages_are_labelled() {
        let r = serde_json::json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Q"}},
            {"role": "assistant", "content": {"type": "text", "text": "A"}}
        ]});
        assert_eq!(
            render_prompt(&r, 1000),
            "Q\n\n[assistant message from the prompt, prior context]\nA"
        );
    }
}
