//! Conversation benchmark (issue 17): the time from `conversation.send` to the first streamed
//! text on the event stream, and the latency of each streamed update, through Rho driving the
//! real Claude Code (claude-agent-acp), next to the same adapter driven directly by a minimal
//! ACP client in the same run, both against the scripted model endpoint. The direct session is
//! opened as Rho opens its own (the same initialize, the project folder, a grant's Rho MCP server,
//! the instructions), so the difference of the medians is what Rho adds.
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin conversation_bench`
//! (`RHO_BIN` names another `rho`; the CLIs and adapters come from `bash mcp/tests/setup.sh`,
//! `RHO_MCP_PEERS` another install; `RHO_BENCH_ROUNDS` the plain prompts per side, default 8).
//! Goals: at most 10 ms added to the first text, at most 1 ms per update.

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_actors::agent::conversation::driver::INSTRUCTIONS;
use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, scratch};
use rho_mock_model::isolation::{cli_env, installed, Cli};
use rho_mock_model::{script, MockModel};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A streamed text piece and when it arrived.
type Arrival = (Instant, String);

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Latency of each `[[slow]]` word: its arrival minus when the model wrote it.
fn word_latencies(arrivals: &[Arrival], emitted: &[(Instant, String)]) -> Vec<f64> {
    let mut out = Vec::new();
    for word in script::slow_words() {
        let sent = emitted
            .iter()
            .rev()
            .find(|(_, t)| *t == word)
            .map(|(at, _)| *at);
        let got = arrivals
            .iter()
            .find(|(_, t)| t.contains(word.trim()))
            .map(|(at, _)| *at);
        if let (Some(sent), Some(got)) = (sent, got) {
            out.push(ms(got.saturating_duration_since(sent)));
        }
    }
    out
}

/// A minimal ACP client over the adapter's pipes: requests by id, updates as they come.
struct Direct {
    stdin: ChildStdin,
    lines: mpsc::Receiver<(Instant, Value)>,
    next: u64,
    child: std::process::Child,
}

impl Direct {
    fn start(
        node: &std::path::Path,
        entry: &std::path::Path,
        cli: &std::path::Path,
        cwd: &std::path::Path,
        env: &[(String, String)],
    ) -> Direct {
        let mut child = Command::new(node)
            .arg(entry)
            .current_dir(cwd)
            .env_remove("IS_SANDBOX")
            .env("CLAUDE_CODE_EXECUTABLE", cli)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let at = Instant::now();
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if tx.send((at, v)).is_err() {
                        break;
                    }
                }
            }
        });
        Direct {
            stdin: child.stdin.take().unwrap(),
            lines,
            next: 1,
            child,
        }
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        id
    }

    /// Waits for the answer to `id`, collecting the text chunks meanwhile.
    fn answer(&mut self, id: u64, text: &mut Vec<Arrival>) -> Value {
        loop {
            let (at, v) = self.lines.recv_timeout(Duration::from_secs(120)).unwrap();
            if v["id"] == id && v.get("method").is_none() {
                assert!(v["error"].is_null(), "{v}");
                return v["result"].clone();
            }
            let u = &v["params"]["update"];
            if v["method"] == "session/update" && u["sessionUpdate"] == "agent_message_chunk" {
                if let Some(t) = u["content"]["text"].as_str() {
                    text.push((at, t.to_string()));
                }
            }
        }
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The direct side: `rounds` plain prompts (first text) and one `[[slow]]` (per update).
fn direct(
    mock: &MockModel,
    env: &[(String, String)],
    cwd: &std::path::Path,
    mcp: Value,
    rounds: usize,
) -> (Vec<f64>, Vec<f64>) {
    let i = installed();
    let entry = i
        .adapters
        .join("node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js");
    let mut d = Direct::start(&i.node, &entry, &i.claude, cwd, env);
    let mut none = Vec::new();
    // The same initialize as Rho's own client (acp.rs / session.rs).
    let init = d.send(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false, "_meta": {"terminal_output": true}}, "clientInfo": {"name": "rho-bench", "version": "0"}}),
    );
    d.answer(init, &mut none);
    // The session Rho would open: the project folder, the project's Rho tools, the instructions.
    let new = d.send(
        "session/new",
        json!({"cwd": cwd, "mcpServers": [mcp], "systemPrompt": {"mode": "append", "content": [{"type": "text", "text": INSTRUCTIONS}]}}),
    );
    let session = d.answer(new, &mut none)["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut firsts = Vec::new();
    for round in 0..=rounds {
        let mut text = Vec::new();
        let t = Instant::now();
        let id = d.send("session/prompt", json!({"sessionId": session, "prompt": [{"type": "text", "text": format!("Say hello {round}")}]}));
        d.answer(id, &mut text);
        let first = text.first().expect("a plain answer streams text").0;
        if round > 0 {
            firsts.push(ms(first - t)); // the first prompt of a session warms Claude Code up
        }
    }
    let mut text = Vec::new();
    let id = d.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "[[slow]]"}]}),
    );
    d.answer(id, &mut text);
    (firsts, word_latencies(&text, &mock.emitted()))
}

/// Reads the service's event stream on a thread: each `conversation.changed` text delta.
fn events(port: u16, project: &str) -> mpsc::Receiver<(Instant, Value)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_nodelay(true).unwrap();
    write!(s, "GET /api/v2/events?projectId={project} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n").unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(s).lines() {
            let Ok(line) = line else { break };
            let at = Instant::now();
            if let Some(data) = line.strip_prefix("data: ") {
                if let Ok(v) = serde_json::from_str::<Value>(data) {
                    if v["change"] == "text" && tx.send((at, v)).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// POSTs `op`; a keep-alive connection the service closed while idle is opened again and the
/// request resent (every write here carries a changeId, so a resend is answered, not redone).
fn post(c: &mut Conn, token: Option<&str>, op: &str, body: &Value) -> Value {
    let path = format!("/api/v2/{op}");
    let (status, bytes) = match c.post(&path, token, &body.to_string()) {
        Ok(r) => r,
        Err(_) => {
            *c = Conn::open(c.port()).unwrap();
            c.post(&path, token, &body.to_string()).unwrap()
        }
    };
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "{op}: {v}");
    v["value"].clone()
}

/// Text deltas of message `mid` until its answer holds `until`.
fn deltas(rx: &mpsc::Receiver<(Instant, Value)>, mid: &str, until: &str) -> Vec<Arrival> {
    let mut got: Vec<Arrival> = Vec::new();
    while !got
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<String>()
        .contains(until)
    {
        let (at, v) = rx.recv_timeout(Duration::from_secs(120)).unwrap();
        if v["messageId"] == mid {
            got.push((at, v["delta"].as_str().unwrap_or_default().to_string()));
        }
    }
    got
}

/// The Rho side: the same prompts through `conversation.start`/`send` and the event stream.
fn through_rho(mock: &MockModel, rho: &Rho, pid: &str, rounds: usize) -> (Vec<f64>, Vec<f64>) {
    let mut c = Conn::open(rho.port).unwrap();
    let pid = pid.to_string();
    let rx = events(rho.port, &pid);
    std::thread::sleep(Duration::from_millis(300)); // the subscription is open before the first send
    let started = post(
        &mut c,
        None,
        "conversation.start",
        &json!({"projectId": pid, "changeId": "b0", "text": "Say hello 0"}),
    );
    let conv = started["conversation"]["conversationId"]
        .as_str()
        .unwrap()
        .to_string();
    let mid = started["message"]["messageId"]
        .as_str()
        .unwrap()
        .to_string();
    deltas(&rx, &mid, script::PLAIN);
    let wait_idle = |c: &mut Conn| loop {
        let r = post(
            c,
            None,
            "conversation.read",
            &json!({"projectId": pid, "conversationId": conv, "limit": 100}),
        );
        if r["conversation"]["state"] == "idle" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    wait_idle(&mut c);
    let mut firsts = Vec::new();
    for round in 1..=rounds {
        let t = Instant::now();
        let sent = post(
            &mut c,
            None,
            "conversation.send",
            &json!({"projectId": pid, "conversationId": conv, "changeId": format!("b{round}"), "text": format!("Say hello {round}")}),
        );
        let mid = sent["message"]["messageId"].as_str().unwrap().to_string();
        let got = deltas(&rx, &mid, script::PLAIN);
        firsts.push(ms(got[0].0 - t));
        wait_idle(&mut c);
    }
    let sent = post(
        &mut c,
        None,
        "conversation.send",
        &json!({"projectId": pid, "conversationId": conv, "changeId": "slow", "text": "[[slow]]"}),
    );
    let mid = sent["message"]["messageId"].as_str().unwrap().to_string();
    let last = script::slow_words().last().unwrap().trim().to_string();
    let got = deltas(&rx, &mid, &last);
    (firsts, word_latencies(&got, &mock.emitted()))
}

fn main() {
    let i = installed();
    let entry = i
        .adapters
        .join("node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js");
    for p in [&i.node, &i.claude, &entry] {
        assert!(
            p.is_file(),
            "{} is missing; run bash mcp/tests/setup.sh",
            p.display()
        );
    }
    let rounds: usize = std::env::var("RHO_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let dir = scratch("conversation-bench-model");
    let mock = MockModel::start(&dir).unwrap();
    let env = cli_env(Cli::Claude, &mock, &dir, &i.node, 2).unwrap();
    let mut rho_env = env.clone();
    let d = |p: &std::path::Path| p.display().to_string();
    rho_env.extend([
        ("RHO_NODE".to_string(), d(&i.node)),
        ("RHO_ACP_ADAPTERS".to_string(), d(&i.adapters)),
        ("RHO_CLAUDE".to_string(), d(&i.claude)),
    ]);
    let rho = Rho::start_with_env(&scratch("conversation-bench"), &rho_env);
    let mut c = Conn::open(rho.port).unwrap();
    let project = post(
        &mut c,
        Some(&rho.token),
        "project.create",
        &json!({"name": "bench"}),
    );
    let pid = project["id"].as_str().unwrap().to_string();
    let cwd = std::path::PathBuf::from(project["path"].as_str().unwrap());
    // The direct client's session gets what Rho gives its own: a grant's Rho MCP server.
    let granted = post(
        &mut c,
        Some(&rho.token),
        "session.grant",
        &json!({"projectId": pid, "session": "bench-direct"}),
    );
    let m = &granted["mcp"];
    let mcp = json!({"name": m["name"], "command": m["command"], "args": m["args"], "env": []});
    let (direct_first, direct_words) = direct(&mock, &env, &cwd, mcp, rounds);
    let (rho_first, rho_words) = through_rho(&mock, &rho, &pid, rounds);
    println!("machine: {}", machine_line());
    let agent = mock
        .user_agents()
        .into_iter()
        .find(|u| u.starts_with("claude-cli/"))
        .unwrap_or_default();
    println!(
        "Claude Code ({agent}) through claude-agent-acp on the scripted model; {rounds} plain prompts and one [[slow]] ({} words, {} ms apart) per side; medians",
        script::SLOW_WORDS,
        script::SLOW_DELAY_MS
    );
    println!("| measure | direct ACP client | through Rho | Rho adds | goal |");
    println!("|---|---|---|---|---|");
    let (df, rf) = (median(direct_first), median(rho_first));
    println!(
        "| send to first text | {df:.1} ms | {rf:.1} ms | {:.1} ms | <= 10 ms |",
        rf - df
    );
    let (dw, rw) = (median(direct_words.clone()), median(rho_words.clone()));
    println!("| model wrote a word to it arriving ({} and {} words) | {dw:.2} ms | {rw:.2} ms | {:.2} ms | <= 1 ms |", direct_words.len(), rho_words.len(), rw - dw);
}
