//! The `claude-cli` driver: one `claude -p` per message with `--output-format stream-json`,
//! the session continued with `--resume`. Claude Code's native tools, configured MCP servers and
//! permission settings are kept (no mode is forced); Rho's own MCP tools are allowed by their
//! grant. It cannot answer a new permission prompt (`--permission-prompts none` denies it), and
//! the message says so. Its lines are folded into the same record as ACP updates.

use super::launch::{Adapter, LaunchError, Runtimes};
use super::record::{MessageRecord, RecordLimits, Usage};
use super::session::TurnEvent;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::ChildStdout;

/// What a `claude-cli` session needs for each message.
#[derive(Debug, Clone)]
pub struct CliSetup {
    pub runtimes: Runtimes,
    pub cwd: PathBuf,
    /// The conversation's `rho` MCP server entry (`{name, command, args, env}`).
    pub mcp: Vec<Value>,
    pub instructions: Option<String>,
    /// The mode the person chose (`--permission-mode`); unset, Claude Code's settings decide.
    pub mode: Option<String>,
    /// `conversations.maxAgentTurns` (`--max-turns`).
    pub max_turns: Option<u64>,
    pub limits: RecordLimits,
}

/// One conversation's Claude Code session, one process per message.
pub struct CliSession {
    setup: CliSetup,
    pub session_id: String,
    /// Whether the session exists on Claude Code's side (a message ran in it or it was loaded).
    started: bool,
    process: Option<Adapter>,
    lines: Option<Lines<BufReader<ChildStdout>>>,
    /// The record of the message running or last run.
    pub message: MessageRecord,
    seen_init: bool,
    cancelled: bool,
    streamed: HashSet<String>,
    current: Option<String>,
    open_tools: HashSet<String>,
}

/// The ACP category of a Claude Code tool.
fn kind(tool: &str) -> &'static str {
    match tool {
        "Bash" | "BashOutput" | "KillShell" | "KillBash" => "execute",
        "Read" | "NotebookRead" => "read",
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => "edit",
        "Grep" | "Glob" | "LS" => "search",
        "WebFetch" | "WebSearch" => "fetch",
        "TodoWrite" | "Task" | "Agent" | "ExitPlanMode" => "think",
        _ => "other",
    }
}

/// A step title as the ACP adapter would give it.
fn title(tool: &str, input: &Value) -> String {
    let s = |k: &str| input[k].as_str().unwrap_or_default();
    match tool {
        "Bash" => format!("`{}`", s("command")),
        "Read" | "Write" | "Edit" | "MultiEdit" => format!("{tool} {}", s("file_path")),
        "Grep" | "Glob" => format!("{tool} {}", s("pattern")),
        _ => tool.to_string(),
    }
}

/// The text of a tool result's content (a string or text blocks).
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The exit code of a failed command's result (`Exit code N` first line), else 0 on success.
fn exit_code(text: &str, failed: bool) -> Option<i64> {
    if !failed {
        return Some(0);
    }
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Exit code "))
        .and_then(|n| n.trim().parse().ok())
}

impl CliSession {
    /// A session to continue (`resume`, after a restart) or a new one with a fresh id.
    pub fn new(setup: CliSetup, resume: Option<&str>) -> CliSession {
        CliSession {
            setup,
            session_id: resume.map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string),
            started: resume.is_some(),
            process: None,
            lines: None,
            message: MessageRecord::default(),
            seen_init: false,
            cancelled: false,
            streamed: HashSet::new(),
            current: None,
            open_tools: HashSet::new(),
        }
    }

    fn args(&self) -> Vec<String> {
        let mut servers = serde_json::Map::new();
        for m in &self.setup.mcp {
            let name = m["name"].as_str().unwrap_or("rho").to_string();
            servers.insert(
                name,
                json!({"type": "stdio", "command": m["command"], "args": m["args"], "env": {}}),
            );
        }
        let mut args: Vec<String> = [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--permission-prompts",
            "none",
            "--allowedTools",
            "mcp__rho",
            "--mcp-config",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(json!({ "mcpServers": servers }).to_string());
        if let Some(text) = &self.setup.instructions {
            args.extend(["--append-system-prompt".to_string(), text.clone()]);
        }
        if let Some(mode) = &self.setup.mode {
            args.extend(["--permission-mode".to_string(), mode.clone()]);
        }
        if let Some(n) = self.setup.max_turns {
            args.extend(["--max-turns".to_string(), n.to_string()]);
        }
        let flag = if self.started {
            "--resume"
        } else {
            "--session-id"
        };
        args.extend([flag.to_string(), self.session_id.clone()]);
        args
    }

    /// Starts `claude -p` for one message; the prompt goes in on stdin.
    pub fn prompt(&mut self, text: &str) -> Result<(), LaunchError> {
        self.message = MessageRecord::default();
        self.seen_init = false;
        self.cancelled = false;
        self.streamed.clear();
        self.current = None;
        self.open_tools.clear();
        let mut process = self
            .setup
            .runtimes
            .spawn_cli(&self.setup.cwd, &self.args())?;
        let Some((mut stdin, stdout)) = process.take_stdio() else {
            return Err(LaunchError::Spawn {
                program: self.setup.runtimes.claude.display().to_string(),
                message: "stdio pipes missing".into(),
            });
        };
        let text = text.to_string();
        tokio::spawn(async move {
            let _ = stdin.write_all(text.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
        self.lines = Some(BufReader::new(stdout).lines());
        self.process = Some(process);
        Ok(())
    }

    /// The running process (for its process group).
    pub fn process(&self) -> Option<&Adapter> {
        self.process.as_ref()
    }

    /// The message's next event; after `result` the process is done.
    pub async fn next(&mut self) -> TurnEvent {
        loop {
            let Some(lines) = self.lines.as_mut() else {
                return TurnEvent::Lost;
            };
            let line = match lines.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) | Err(_) => return self.closed(),
            };
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if let Some(event) = self.fold(&v) {
                return event;
            }
        }
    }

    /// The process closed its output without a `result`.
    fn closed(&mut self) -> TurnEvent {
        self.lines = None;
        let tail = self
            .process
            .as_ref()
            .map(Adapter::stderr_tail)
            .unwrap_or_default();
        self.process = None;
        if self.cancelled {
            self.message.stop_reason = Some("cancelled".into());
            return TurnEvent::Finished("cancelled".into());
        }
        if self.started && !self.seen_init {
            return TurnEvent::Unresumable(format!(
                "claude --resume {} did not start: {tail}",
                self.session_id
            ));
        }
        TurnEvent::Lost
    }

    fn update(&mut self, update: Value) -> bool {
        self.message.fold(&update, now_ms(), &self.setup.limits)
    }

    /// Folds one stream-json line; answers an event when the turn has news.
    fn fold(&mut self, v: &Value) -> Option<TurnEvent> {
        if v["parent_tool_use_id"].is_string() {
            return None; // a subagent's own messages
        }
        match v["type"].as_str()? {
            "system" if v["subtype"] == "init" => {
                self.seen_init = true;
                self.started = true;
                if let Some(id) = v["session_id"].as_str() {
                    self.session_id = id.to_string();
                }
                None
            }
            "stream_event" => {
                let e = &v["event"];
                match e["type"].as_str()? {
                    "message_start" => {
                        self.current = e["message"]["id"].as_str().map(str::to_string);
                        None
                    }
                    "content_block_delta" if e["delta"]["type"] == "text_delta" => {
                        let text = e["delta"]["text"].as_str()?;
                        if let Some(id) = &self.current {
                            self.streamed.insert(id.clone());
                        }
                        let u = json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}});
                        self.update(u).then_some(TurnEvent::Changed)
                    }
                    _ => None,
                }
            }
            "assistant" => {
                let m = &v["message"];
                let streamed = m["id"]
                    .as_str()
                    .is_some_and(|id| self.streamed.contains(id));
                let mut changed = false;
                for block in m["content"].as_array()? {
                    match block["type"].as_str() {
                        Some("text") if !streamed => {
                            let u = json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": block["text"]}});
                            changed |= self.update(u);
                        }
                        Some("tool_use") => {
                            let id = block["id"].as_str().unwrap_or_default().to_string();
                            let tool = block["name"].as_str().unwrap_or_default();
                            let input = &block["input"];
                            let u = json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": title(tool, input), "kind": kind(tool), "status": "in_progress", "rawInput": input});
                            self.open_tools.insert(id);
                            changed |= self.update(u);
                        }
                        _ => {}
                    }
                }
                changed.then_some(TurnEvent::Changed)
            }
            "user" => {
                let mut changed = false;
                for block in v["message"]["content"].as_array()? {
                    if block["type"] != "tool_result" {
                        continue;
                    }
                    let id = block["tool_use_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string();
                    let failed = block["is_error"].as_bool().unwrap_or(false);
                    let text = result_text(&block["content"]);
                    let mut u = json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": if failed { "failed" } else { "completed" }, "content": [{"type": "content", "content": {"type": "text", "text": text}}]});
                    if let Some(code) = exit_code(&text, failed) {
                        u["rawOutput"] = json!({"exit_code": code});
                    }
                    self.open_tools.remove(&id);
                    changed |= self.update(u);
                }
                changed.then_some(TurnEvent::Changed)
            }
            "result" => Some(self.result(v)),
            _ => None,
        }
    }

    fn result(&mut self, v: &Value) -> TurnEvent {
        let u = &v["usage"];
        let usage = Usage {
            input_tokens: u["input_tokens"].as_u64(),
            output_tokens: u["output_tokens"].as_u64(),
            total_tokens: None,
        };
        self.message.usage = (usage != Usage::default()).then_some(usage);
        let denied: Vec<String> = v["permission_denials"]
            .as_array()
            .map(|all| {
                all.iter()
                    .map(|d| {
                        let tool = d["tool_name"].as_str().unwrap_or("a tool");
                        match super::record::identifying_input(&d["tool_input"]) {
                            Some(input) => format!("{tool} ({input})"),
                            None => tool.to_string(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !denied.is_empty() {
            self.message.notice = Some((
                "permission_unanswered".into(),
                format!(
                    "Claude Code asked for permission to use {}; the claude-cli driver cannot answer a new permission prompt, so it was not allowed. Use a Claude Code (ACP) conversation to choose, or allow it in Claude Code's own permission settings.",
                    denied.join(", ")
                ),
            ));
        }
        let stop = match v["subtype"].as_str() {
            _ if self.cancelled => "cancelled",
            Some("error_max_turns") => "max_turn_requests",
            Some("success") if v["is_error"] != true => {
                v["stop_reason"].as_str().unwrap_or("end_turn")
            }
            _ => "error",
        }
        .to_string();
        if stop == "error" {
            let why = v["result"]
                .as_str()
                .or(v["subtype"].as_str())
                .unwrap_or("Claude Code reported an error");
            self.message.notice = Some(("agent_error".into(), why.to_string()));
        }
        self.message.stop_reason = Some(stop.clone());
        TurnEvent::Finished(stop)
    }

    /// Stops the running message: its process group is ended; the message ends `cancelled`.
    pub fn cancel(&mut self) {
        self.cancelled = true;
        if let Some(pgid) = self.process.as_ref().and_then(Adapter::pgid) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }

    /// The CLI's stderr tail (for a lost message).
    pub fn stderr_tail(&self) -> String {
        self.process
            .as_ref()
            .map(Adapter::stderr_tail)
            .unwrap_or_default()
    }

    /// The folder the session runs in.
    pub fn cwd(&self) -> &Path {
        &self.setup.cwd
    }
}

fn now_ms() -> u64 {
    u64::try_from(rho_plumbing::time::now_ms()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> CliSession {
        CliSession::new(
            CliSetup {
                runtimes: Runtimes {
                    node: "node".into(),
                    adapters: "a".into(),
                    claude: "claude".into(),
                    codex: "codex".into(),
                    env: Vec::new(),
                },
                cwd: "/p".into(),
                mcp: vec![
                    json!({"name": "rho", "command": "rho", "args": ["--mcp", "f"], "env": []}),
                ],
                instructions: Some("be kind".into()),
                mode: None,
                max_turns: Some(3),
                limits: RecordLimits::default(),
            },
            None,
        )
    }

    #[test]
    fn stream_json_folds_into_the_record_and_denials_are_said() {
        let mut s = session();
        let args = s.args();
        assert!(args
            .windows(2)
            .any(|w| w == ["--session-id", s.session_id.as_str()]));
        assert!(args.windows(2).any(|w| w == ["--max-turns", "3"]));
        assert!(
            !args.iter().any(|a| a == "--permission-mode"),
            "the person's settings decide"
        );
        let lines = [
            json!({"type": "system", "subtype": "init", "session_id": "s-1"}),
            json!({"type": "stream_event", "event": {"type": "message_start", "message": {"id": "m1"}}}),
            json!({"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Hi "}}}),
            json!({"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Hi "}, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "exit 3", "description": "Fail"}}]}}),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": "Exit code 3\nboom"}]}}),
            json!({"type": "result", "subtype": "success", "is_error": false, "usage": {"input_tokens": 5, "output_tokens": 2}, "permission_denials": [{"tool_name": "Write", "tool_input": {"file_path": "/p/x"}}]}),
        ];
        let mut last = None;
        for l in &lines {
            last = s.fold(l);
        }
        assert_eq!(s.session_id, "s-1");
        assert_eq!(s.message.text, "Hi ", "streamed text is not added twice");
        let step = &s.message.steps[0];
        assert_eq!((step.kind.as_str(), step.exit_code), ("execute", Some(3)));
        assert_eq!(step.purpose.as_deref(), Some("Fail"));
        assert!(matches!(last, Some(TurnEvent::Finished(ref r)) if r == "end_turn"));
        let (code, said) = s.message.notice.clone().unwrap();
        assert_eq!(code, "permission_unanswered");
        assert!(
            said.contains("Write (/p/x)") && said.contains("cannot answer"),
            "{said}"
        );
        assert_eq!(s.message.usage.as_ref().unwrap().output_tokens, Some(2));
        s.started = true;
        assert!(s.args().windows(2).any(|w| w == ["--resume", "s-1"]));
    }
}
