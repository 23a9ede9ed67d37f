//! `rho --acp` as an external ACP client's Agent executable: a minimal ACP client driven by the
//! test talks to the real Claude Code (claude-agent-acp) or Codex (codex-acp) through the relay,
//! against the scripted model; the project's `project.work.read` shows what the relay recorded,
//! across a restart of the service, and never a prompt's text. Run serially (`scripts/test`).

use crate::support::agents::runtimes_or_skip;
use crate::support::env::Env;
use crate::support::service::rho;
use rho_actors::agent::conversation::Backend;
use rho_mock_model::isolation::{cli_env, installed, Cli};
use rho_mock_model::MockModel;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A minimal ACP client over the relay's stdio.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next: u64,
    /// Every line the relay forwarded to the client.
    seen: Vec<String>,
}

impl Client {
    fn start(env: &Env, agent: &str, vars: &[(String, String)]) -> Client {
        let i = installed();
        let mut child = rho()
            .args(["--acp", env.dir.to_str().unwrap(), "--acp-agent", agent])
            .args(["--state-dir", env.state.path().to_str().unwrap()])
            .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("RHO_NODE", &i.node)
            .env("RHO_ACP_ADAPTERS", &i.adapters)
            .env("RHO_CLAUDE", &i.claude)
            .env("RHO_CODEX", &i.codex)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            next: 0,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, v: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and answers the Agent's own requests (permission: allow once) until the
    /// response comes; returns it.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let line = match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {method}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the relay closed while {method} waited")
                }
            };
            self.seen.push(line.clone());
            let msg: Value =
                serde_json::from_str(&line).expect("the relay forwards whole JSON lines");
            if msg["id"] == id && msg.get("method").is_none() {
                return msg;
            }
            if msg["method"] == "session/request_permission" {
                let option = msg["params"]["options"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|o| o["kind"] == "allow_once")
                    .map(|o| o["optionId"].clone())
                    .unwrap();
                self.send(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"outcome": {"outcome": "selected", "optionId": option}}}));
            } else if msg.get("method").is_some() && msg.get("id").is_some() {
                self.send(&json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "not offered"}}));
            }
        }
    }

    /// Closes the relay's input and waits for it to exit.
    fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the relay did not exit after its input closed"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn work_until(env: &Env, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = env.ok("project.work.read", json!({}));
        if ok(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One prompt that runs a command: the steps and stop reason are recorded, the text is not.
fn prompt_runs_a_command(client: &mut Client, session: &str, word: &str) -> Value {
    client.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": format!("[[bash: echo {word}]]")}]}),
    )
}

#[test]
fn claude_through_the_relay_is_recorded_across_a_service_restart_and_never_its_prompts() {
    if runtimes_or_skip("relay-claude", Backend::ClaudeAgentAcp).is_none() {
        return;
    }
    let mut env = Env::start(&[], None, "relay-claude");
    let mock = MockModel::start(env.work.path()).unwrap();
    let vars = cli_env(Cli::Claude, &mock, env.work.path(), &installed().node, 2).unwrap();
    let mut client = Client::start(&env, "claude", &vars);
    let init = client.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let new = client.request("session/new", json!({"cwd": env.dir, "mcpServers": []}));
    let session = new["result"]["sessionId"].as_str().unwrap().to_string();
    // Auto mode's safety check needs a real classifier: the default mode asks instead.
    client.request(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "default"}),
    );
    let answer = prompt_runs_a_command(&mut client, &session, "relay-one");
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");

    let work = work_until(&env, "the first prompt recorded", |v| {
        v["external"][0]["lastPrompt"]["stopReason"] == "end_turn"
    });
    let ext = &work["external"][0];
    assert_eq!(ext["agent"], "claude");
    assert_eq!(ext["connected"], true, "{ext}");
    assert_eq!(ext["sessions"], json!([session]));
    assert_eq!(ext["prompts"], 1);
    let steps = ext["steps"].as_array().unwrap();
    assert!(
        steps.iter().any(|s| s["category"] == "execute"
            && s["input"]
                .as_str()
                .is_some_and(|i| i.contains("echo relay-one"))),
        "{steps:?}"
    );
    assert_eq!(work["omitted"], 0);
    let relay_id = ext["relayId"].as_str().unwrap().to_string();
    let projection = env.dir.join(format!(".rho/agent/acp/{relay_id}.json"));
    assert!(projection.is_file(), "{}", projection.display());

    // The service restarts while the client keeps talking: forwarding goes on, and what the
    // relay saw meanwhile is recorded once the service answers again.
    env.service.child.kill().unwrap();
    env.service.child.wait().unwrap();
    let answer = prompt_runs_a_command(&mut client, &session, "relay-two");
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    env.restart(&[]);
    let work = work_until(&env, "the prompt made while the service was down", |v| {
        v["external"][0]["prompts"] == 2
            && v["external"][0]["lastPrompt"]["stopReason"] == "end_turn"
    });
    let steps = work["external"][0]["steps"].to_string();
    assert!(steps.contains("echo relay-two"), "{steps}");

    // Closing the client ends the relay and its adapter; the record says so.
    let status = client.close();
    assert!(status.success(), "{status:?}");
    let work = work_until(&env, "the relay closed", |v| {
        v["external"][0]["connected"] == false
    });
    assert!(work["external"][0]["closedAt"].is_string(), "{work}");

    // Prompts and their text stay in the client: not in the journal, not in the projection.
    let mut all = Vec::new();
    for entry in walk(&env.dir.join(".rho")) {
        all.extend(std::fs::read(entry).unwrap_or_default());
    }
    assert!(!all.is_empty());
    let all = String::from_utf8_lossy(&all);
    assert!(
        !all.contains("[[bash:"),
        "a prompt's text reached the project's files"
    );
    assert_eq!(mock.connect_attempts(), Vec::<String>::new());
}

#[test]
fn codex_through_the_relay_records_its_session_and_stop_reason() {
    if runtimes_or_skip("relay-codex", Backend::CodexAcp).is_none() {
        return;
    }
    let env = Env::start(&[], None, "relay-codex");
    let mock = MockModel::start(env.work.path()).unwrap();
    let vars = cli_env(Cli::Codex, &mock, env.work.path(), &installed().node, 2).unwrap();
    let mut client = Client::start(&env, "codex", &vars);
    client.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let new = client.request("session/new", json!({"cwd": env.dir, "mcpServers": []}));
    let session = new["result"]["sessionId"].as_str().unwrap().to_string();
    let answer = client.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "hello there"}]}),
    );
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let work = work_until(&env, "the codex prompt recorded", |v| {
        v["external"][0]["lastPrompt"]["stopReason"] == "end_turn"
    });
    assert_eq!(work["external"][0]["agent"], "codex");
    assert_eq!(work["external"][0]["sessions"], json!([session]));
    assert!(client
        .seen
        .iter()
        .all(|l| serde_json::from_str::<Value>(l).is_ok()));
    assert!(client.close().success());
}

#[test]
fn the_relay_refuses_a_relative_project_and_an_unknown_agent() {
    let out = rho()
        .args(["--acp", "relative/dir", "--acp-agent", "claude"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("absolute path"));
    let out = rho()
        .args(["--acp", "/tmp", "--acp-agent", "gemini"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
