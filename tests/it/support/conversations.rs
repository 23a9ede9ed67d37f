//! Conversations as the local browser drives them, against the real adapters and CLIs on the
//! scripted model endpoint (`rho_mock_model::isolation`); `None` (after `SKIP`) when missing.

use super::env::Env;
use super::poll::until;
use rho_mock_model::isolation::{cli_env, installed, Cli};
use rho_mock_model::MockModel;
use serde_json::{json, Value};
use std::time::Duration;

/// A service whose conversations reach the scripted model.
pub struct ConvEnv {
    pub env: Env,
    pub mock: MockModel,
    /// The service's environment (for a restart).
    pub vars: Vec<(String, String)>,
    /// The CLIs' HOME (Claude Code keeps its sessions under `.claude/projects/` there).
    pub home: std::path::PathBuf,
    /// The service's arguments (for a restart).
    pub args: Vec<String>,
    _dir: tempfile::TempDir,
}

/// Starts the service for `test` with both CLIs pointed at a fresh scripted model, or `None`
/// (after printing `SKIP`) when a runtime is missing and `RHO_REQUIRE_AGENTS` is unset.
pub fn conv_env(test: &str, retries: u32) -> Option<ConvEnv> {
    conv_env_with(test, retries, None, &[])
}

/// [`conv_env`] with a `--limits` file and more arguments.
pub fn conv_env_with(
    test: &str,
    retries: u32,
    limits: Option<Value>,
    args: &[&str],
) -> Option<ConvEnv> {
    let i = installed();
    let entry = |p: &str| {
        i.adapters
            .join("node_modules/@agentclientprotocol")
            .join(p)
            .join("dist/index.js")
    };
    let missing: Vec<String> = [
        i.node.clone(),
        i.claude.clone(),
        i.codex.clone(),
        entry("claude-agent-acp"),
        entry("codex-acp"),
    ]
    .iter()
    .filter(|p| !p.is_file())
    .map(|p| p.display().to_string())
    .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("RHO_REQUIRE_AGENTS").is_none(),
            "missing {missing:?}; run bash mcp/tests/setup.sh"
        );
        eprintln!("SKIP {test}: missing {missing:?}; run bash mcp/tests/setup.sh");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mock = MockModel::start(dir.path()).unwrap();
    let mut vars = cli_env(Cli::Claude, &mock, dir.path(), &i.node, retries).unwrap();
    for (k, v) in cli_env(Cli::Codex, &mock, dir.path(), &i.node, retries).unwrap() {
        if !vars.iter().any(|(have, _)| *have == k) {
            vars.push((k, v));
        }
    }
    let d = |p: &std::path::Path| p.display().to_string();
    vars.extend([
        ("RHO_NODE".to_string(), d(&i.node)),
        ("RHO_ACP_ADAPTERS".to_string(), d(&i.adapters)),
        ("RHO_CLAUDE".to_string(), d(&i.claude)),
        ("RHO_CODEX".to_string(), d(&i.codex)),
    ]);
    let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let env = Env::start_with_env(args, &refs, limits, test);
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let limits_file = env.work.path().join("limits.json");
    if limits_file.exists() {
        args.extend(["--limits".to_string(), limits_file.display().to_string()]);
    }
    Some(ConvEnv {
        env,
        mock,
        vars,
        home: dir.path().join("home"),
        args,
        _dir: dir,
    })
}

/// Starts the service for `test` with Rho's own agent as the default backend (`--agent-backend
/// rho`), its `--config` file's `[model]` on a fresh scripted model (no key; one quick retry)
/// followed by `more` (an `[mcp]` table), and `RHO_HOME` in a scratch folder. No CLI is needed.
pub fn native_env(test: &str, more: &str, args: &[&str]) -> ConvEnv {
    let dir = tempfile::tempdir().unwrap();
    let mock = MockModel::start(dir.path()).unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[model]\nprovider = \"anthropic\"\nbase_url = \"{}\"\nmodel = \"mock-model\"\napi_key = \"none\"\nmax_retries = 1\nretry_base_ms = 10\n\n{more}",
            mock.base_url()
        ),
    )
    .unwrap();
    let home = dir.path().join("rho-home");
    std::fs::create_dir_all(&home).unwrap();
    let vars = vec![("RHO_HOME".to_string(), home.display().to_string())];
    let mut all: Vec<String> = vec![
        "--config".into(),
        config.display().to_string(),
        "--agent-backend".into(),
        "rho".into(),
    ];
    all.extend(args.iter().map(|a| a.to_string()));
    let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let arg_refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let env = Env::start_with_env(&arg_refs, &refs, None, test);
    ConvEnv {
        env,
        mock,
        vars,
        home,
        args: all,
        _dir: dir,
    }
}

impl ConvEnv {
    /// `conversation.start` as the local browser; asserts success and answers the reply.
    pub fn start(&self, change_id: &str, text: &str, extra: Value) -> Value {
        let mut body = json!({"changeId": change_id, "text": text});
        for (k, v) in extra.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        let (status, v) = self.env.local("conversation.start", body);
        assert_eq!(status, 200, "conversation.start: {v}");
        v["value"].clone()
    }

    /// `conversation.send` as the local browser; asserts success and answers the message.
    pub fn send(&self, conversation: &str, change_id: &str, text: &str) -> Value {
        let (status, v) = self.env.local(
            "conversation.send",
            json!({"conversationId": conversation, "changeId": change_id, "text": text}),
        );
        assert_eq!(status, 200, "conversation.send: {v}");
        v["value"]["message"].clone()
    }

    /// The whole conversation (`conversation.read`, first page).
    pub fn read(&self, conversation: &str) -> Value {
        let (status, v) = self
            .env
            .local("conversation.read", json!({"conversationId": conversation}));
        assert_eq!(status, 200, "conversation.read: {v}");
        v["value"].clone()
    }

    /// Message `message` as `conversation.read` shows it.
    pub fn message(&self, conversation: &str, message: &str) -> Value {
        self.read(conversation)["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["messageId"] == message)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Waits until `cond` holds for the message; answers it.
    pub fn wait(
        &self,
        conversation: &str,
        message: &str,
        what: &str,
        cond: impl Fn(&Value) -> bool,
    ) -> Value {
        let mut m = Value::Null;
        until(what, Duration::from_secs(120), || {
            m = self.message(conversation, message);
            cond(&m)
        });
        m
    }

    /// Waits until the message is no longer running; answers it.
    pub fn wait_end(&self, conversation: &str, message: &str) -> Value {
        self.wait(conversation, message, "the message ends", |m| {
            m["state"] != "running"
        })
    }
}

/// The message's text parts joined.
pub fn text(m: &Value) -> String {
    m["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "text")
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// The message's steps.
pub fn steps(m: &Value) -> Vec<Value> {
    m["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "step")
        .map(|p| p["step"].clone())
        .collect()
}

impl ConvEnv {
    /// Waits for the message's pending permission; answers it.
    pub fn pending(&self, conversation: &str, message: &str) -> Value {
        let m = self.wait(conversation, message, "a permission is pending", |m| {
            m["state"] != "running" || pending(m).is_some()
        });
        pending(&m).unwrap_or_else(|| panic!("no permission was asked: {m}"))
    }

    /// `conversation.permission` as the local browser: (status, body).
    pub fn answer(&self, conversation: &str, request: &str, option: &str) -> (u16, Value) {
        self.env.local(
            "conversation.permission",
            json!({"conversationId": conversation, "requestId": request, "optionId": option}),
        )
    }

    /// `conversation.stop` as the local browser; asserts success and answers the message.
    pub fn stop(&self, conversation: &str) -> Value {
        let (status, v) = self
            .env
            .local("conversation.stop", json!({"conversationId": conversation}));
        assert_eq!(status, 200, "conversation.stop: {v}");
        v["value"]["message"].clone()
    }

    /// Restarts the service on the same folders with the same environment (a kill -9 first).
    pub fn restart(&mut self) {
        let refs: Vec<(&str, &str)> = self
            .vars
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        self.env.restart_with_env(&args, &refs);
    }

    /// The ids of a new conversation started with `text` (and `extra` fields), after it ended.
    pub fn converse(&self, change_id: &str, text: &str, extra: Value) -> (String, Value) {
        let (conv, mid) = ids(&self.start(change_id, text, extra));
        let m = self.wait_end(&conv, &mid);
        (conv, m)
    }

    /// Every model request so far as one string (to find what the Agent was given).
    pub fn model_saw(&self) -> String {
        self.mock
            .requests()
            .iter()
            .map(|r| r["body"].to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Calls `op` as a tab paired to this project's folder (`rho --pair --project`).
    pub fn paired(&self, op: &str, mut body: Value) -> (u16, Value) {
        let link = super::browser::pair_link(&self.env);
        let port = self.env.service.port();
        let path = link.trim_start_matches(&format!("http://127.0.0.1:{port}"));
        let (_, head, _) = super::http::http_raw(port, "GET", path, None, &[], "");
        let cookie = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.eq_ignore_ascii_case("set-cookie"))
                    .then(|| v.trim().split(';').next().unwrap_or_default().to_string())
            })
            .unwrap_or_else(|| panic!("no pairing cookie: {head}"));
        body["projectId"] = json!(self.env.project);
        super::http::http(
            port,
            "POST",
            &format!("/api/v2/{op}"),
            None,
            &[("Cookie", cookie.as_str())],
            &body.to_string(),
        )
    }

    /// Process ids of the ACP adapters running in this project's folder.
    pub fn adapters(&self) -> Vec<i32> {
        let project = self.env.dir.canonicalize().unwrap();
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
                String::from_utf8_lossy(&cmd).contains("@agentclientprotocol")
                    && cwd.as_deref() == Some(project.as_path())
            })
            .collect()
    }
}

/// The message's pending permission, if any.
pub fn pending(m: &Value) -> Option<Value> {
    m["permissions"]
        .as_array()?
        .iter()
        .find(|p| p["state"] == "pending")
        .cloned()
}

/// The offered option of `kind`.
pub fn option(p: &Value, kind: &str) -> String {
    p["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == kind)
        .and_then(|o| o["optionId"].as_str())
        .unwrap_or_else(|| panic!("{kind} was not offered: {p}"))
        .to_string()
}

/// The ids of a start's reply: (conversationId, messageId).
pub fn ids(started: &Value) -> (String, String) {
    (
        started["conversation"]["conversationId"]
            .as_str()
            .unwrap()
            .to_string(),
        started["message"]["messageId"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

/// Whether process `pid` is gone (or a zombie).
pub fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// A conversation of Rho's own agent whose session runs the real `server-everything` as `ev`
/// (`sampling = "ask"`), opened with a first message; and the tools `/mcp` lists for it.
pub fn everything_env(test: &str) -> (ConvEnv, String, Vec<Value>) {
    let bin = super::mcp::peers().join("node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "{} is missing: run bash mcp/tests/setup.sh",
        bin.display()
    );
    let table = format!(
        "[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {:?}\nsampling = \"ask\"\n",
        bin.display().to_string()
    );
    let c = native_env(test, &table, &[]);
    let (conv, m) = c.converse("q0", "Say hello", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let (status, v) = c
        .env
        .local("conversation.mcp", json!({"conversationId": conv}));
    assert_eq!(status, 200, "{v}");
    let tools = v["value"]["servers"][0]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{v}"));
    (c, conv, tools)
}

/// The name the model sees for server tool `name` (from `/mcp`'s tools).
pub fn exported(tools: &[Value], name: &str) -> String {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .and_then(|t| t["exported"].as_str())
        .unwrap_or_else(|| panic!("{name} is offered: {tools:?}"))
        .to_string()
}

/// Sends "Say hello again" to a conversation whose first message was "Say hello" and whose
/// session was opened anew (restart, idle close): the model is given that earlier message first.
pub fn sends_given_the_history(c: &ConvEnv, conversation: &str, change_id: &str) {
    let sent = c.send(conversation, change_id, "Say hello again");
    let m = c.wait_end(conversation, sent["messageId"].as_str().unwrap());
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let last = c.mock.requests().last().cloned().unwrap();
    assert!(
        last["body"]
            .to_string()
            .contains("The person wrote: Say hello\\n"),
        "the summary of the earlier messages came first: {last}"
    );
}
