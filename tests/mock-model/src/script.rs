//! The directives a test writes into its prompt and what the model does for each.
//!
//! `[[bash: CMD]]` runs a command (Claude's Bash, Codex's `exec_command`), `[[bash!: CMD]]` the
//! same asking Codex for escalation, `[[read: P]]`, `[[write: P|T]]`, `[[mcp: TOOL|TEXT]]` (TEXT
//! is the JSON arguments, or `{"text": TEXT}`), `[[tool: NAME|ARGS]]` calls the tool NAME as named
//! (no CLI's mapping: Rho's own agent; ARGS is the JSON arguments, `{}` when left out), `[[slow]]`
//! streams [`SLOW_WORDS`] words a quarter second apart, `[[error]]` answers HTTP 500,
//! `[[flaky: N]]` answers HTTP 503 the first N times the same text is asked and then [`PLAIN`];
//! anything else gets [`PLAIN`].

use serde_json::{json, Value};

/// The answer to a prompt without a directive.
pub const PLAIN: &str = "Hello from the scripted mock model.";
/// The answer to a request without tools (titles and other side requests).
pub const TITLE: &str = "Mock title";
/// How many words `[[slow]]` streams, one per [`SLOW_DELAY_MS`].
pub const SLOW_WORDS: usize = 24;
pub const SLOW_DELAY_MS: u64 = 250;

/// What the newest user text asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Directive {
    Bash { command: String, escalated: bool },
    Read(String),
    Write { path: String, text: String },
    Mcp { tool: String, arguments: Value },
    Tool { name: String, arguments: Value },
    Slow,
    Flaky(u32),
    Error,
    Plain,
}

/// The first directive in `text`.
pub fn parse(text: &str) -> Directive {
    let Some(start) = text.find("[[") else {
        return Directive::Plain;
    };
    let rest = &text[start + 2..];
    let Some(end) = rest.find("]]") else {
        return Directive::Plain;
    };
    let inner = &rest[..end];
    let (name, arg) = inner
        .split_once(':')
        .map_or((inner, ""), |(n, a)| (n, a.trim()));
    match name.trim() {
        "bash" => Directive::Bash {
            command: arg.to_string(),
            escalated: false,
        },
        "bash!" => Directive::Bash {
            command: arg.to_string(),
            escalated: true,
        },
        "read" => Directive::Read(arg.to_string()),
        "write" => {
            let (path, text) = arg.split_once('|').unwrap_or((arg, ""));
            Directive::Write {
                path: path.trim().to_string(),
                text: text.to_string(),
            }
        }
        "mcp" => {
            let (tool, text) = arg.split_once('|').unwrap_or((arg, ""));
            let arguments = serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({"text": text}));
            Directive::Mcp {
                tool: tool.trim().to_string(),
                arguments,
            }
        }
        "tool" => {
            let (name, text) = arg.split_once('|').unwrap_or((arg, ""));
            let arguments = serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            Directive::Tool {
                name: name.trim().to_string(),
                arguments,
            }
        }
        "slow" => Directive::Slow,
        "error" => Directive::Error,
        "flaky" => Directive::Flaky(arg.parse().unwrap_or(1)),
        _ => Directive::Plain,
    }
}

/// The words `[[slow]]` streams, each with its trailing space.
pub fn slow_words() -> Vec<String> {
    (1..=SLOW_WORDS).map(|i| format!("word{i} ")).collect()
}

/// The answer after a tool result.
pub fn final_text(output: &str) -> String {
    format!("FINAL: tool said: {}", output.trim())
}

/// Whether a user text block is one the CLI added rather than the person typed.
pub(crate) fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<system-reminder>")
        || t.starts_with("<environment_context>")
        || t.starts_with("<user_instructions>")
        || t.starts_with("<permissions")
        || t.starts_with("# AGENTS.md")
        || t.starts_with("<INSTRUCTIONS>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_parse() {
        assert_eq!(
            parse("please [[bash: touch f]] now"),
            Directive::Bash {
                command: "touch f".into(),
                escalated: false
            }
        );
        assert_eq!(
            parse("[[write: /a/b.txt|hi there]]"),
            Directive::Write {
                path: "/a/b.txt".into(),
                text: "hi there".into()
            }
        );
        assert_eq!(
            parse("[[mcp: rho_read|{\"uri\":\"x\"}]]"),
            Directive::Mcp {
                tool: "rho_read".into(),
                arguments: json!({"uri": "x"})
            }
        );
        assert_eq!(
            parse("[[tool: mcp__ev__echo|{\"message\":\"hi\"}]]"),
            Directive::Tool {
                name: "mcp__ev__echo".into(),
                arguments: json!({"message": "hi"})
            }
        );
        assert_eq!(
            parse("[[tool: rho_x]]"),
            Directive::Tool {
                name: "rho_x".into(),
                arguments: json!({})
            }
        );
        assert_eq!(parse("[[flaky: 2]]"), Directive::Flaky(2));
        assert_eq!(parse("[[slow]]"), Directive::Slow);
        assert_eq!(parse("[[error]]"), Directive::Error);
        assert_eq!(parse("just talk"), Directive::Plain);
        assert_eq!(parse("[[nonsense]]"), Directive::Plain);
    }
}
