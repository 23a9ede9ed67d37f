//! The browser app live (issue 14): two tabs and an Agent (a real MCP client through `rho --mcp FILE` with a
//! real grant) edit one buffer and converge, an Agent edit shows in an open tab within 50 ms (p50),
//! history shows and restores the Agent's version, a restart mid-typing loses nothing, a paired tab sees
//! only its folder, another origin can neither read nor write, and the project view's first render budget.

use crate::support::{browser, mcp, Env};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const SCRIPT: &str = "# Fits response ~ dose.\nd <- read.csv(\"data.csv\")\nfit <- lm(response ~ dose, data = d) # \u{1F600}\nprint(summary(fit))\n";

#[test]
fn two_tabs_and_an_agent_converge_across_a_restart_with_history_pairing_and_origins() {
    let (node, ui) = browser::tools();
    let mut env = Env::start(&[], None, "p");
    std::fs::write(env.dir.join("analysis.R"), SCRIPT).unwrap();
    // The Agent's real grant: its connection file is what `rho --mcp FILE` (the Agent's MCP server) reads.
    let (grant, _) = mcp::grant_file(&env, "claude-code");
    let token = env.token("claude-code");
    let (status, other) = env
        .service
        .call("project.create", serde_json::json!({"name": "other"}));
    assert_eq!(status, 200, "{other}");
    let folder = env.dir.file_name().unwrap().to_str().unwrap().to_string();
    let link = browser::pair_link(&env);
    let artifacts = browser::artifacts("");
    let path = format!(
        "{}:{}",
        node.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let port = env.service.port();
    let mut child = Command::new(node.join("node"))
        .arg(ui.join("tests/e2e-live.mjs"))
        .current_dir(&ui)
        .env("PATH", path)
        .env("RHO_URL", format!("http://127.0.0.1:{port}"))
        .env("RHO_PROJECT_ID", &env.project)
        .env("RHO_MCP_PYTHON", mcp::python())
        .env("RHO_MCP_CLIENT", mcp::script())
        .env("RHO_BIN", env!("CARGO_BIN_EXE_rho"))
        .env("RHO_MCP_FILE", &grant)
        .env("RHO_FILE", "analysis.R")
        .env("RHO_PAIR_LINK", &link)
        .env("RHO_PAIR_FOLDER", &folder)
        .env("RHO_OTHER_PROJECT", other["value"]["id"].as_str().unwrap())
        .env("RHO_ARTIFACTS", &artifacts)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
        s
    });
    let mut last = String::new();
    let mut restarted = false;
    for line in BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
    {
        if line.trim() == "RESTART" {
            // Killed mid-typing, then started again on the same folders: the same port by memory.
            env.restart(&[]);
            assert_eq!(env.service.port(), port, "port memory keeps the address");
            restarted = true;
            writeln!(stdin, "RESTARTED {}", env.service.port()).unwrap();
            continue;
        }
        eprintln!("e2e-live: {line}");
        last = line;
    }
    let status = child.wait().unwrap();
    let stderr = errors.join().unwrap();
    eprintln!("screenshots in {}", artifacts.display());
    assert!(status.success(), "e2e-live failed: {last}\n{stderr}");
    assert!(restarted, "the service was restarted mid-typing");
    let facts: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(facts["ok"], true, "{facts}");
    assert_eq!(facts["facts"]["axe_history_1600"], 0);
    assert_eq!(facts["facts"]["axe_history_390"], 0);
    assert!(facts["facts"]["first_render_median_ms"].as_u64().unwrap() < 500);
    // An Agent edit through `rho --mcp` is visible in the open tab within 50 ms of its send (p50).
    let visible = &facts["facts"]["agent_visible"];
    assert!(visible["samples"].as_u64().unwrap() >= 10, "{visible}");
    assert!(visible["send_p50"].as_f64().unwrap() < 50.0, "{visible}");
    assert!(artifacts.join("history-390x844.png").exists());
    // The buffer after everything: every typed piece and the Agent's lines, as the service holds it.
    let (_, opened) = env.agent_call(
        &token,
        "document.open",
        serde_json::json!({"path": "analysis.R"}),
    );
    let id = opened["value"]["id"].as_str().unwrap().to_string();
    let (_, read) = env.agent_call(
        &token,
        "document.read",
        serde_json::json!({"documentId": id}),
    );
    let now = read["value"]["text"].as_str().unwrap();
    assert!(
        now.contains(" # typed across a restart \u{1F600} of the service"),
        "{now}"
    );
    // Line 1 is the restored Agent line, typed on across the restart.
    assert!(
        now.starts_with("# history mark # typed across a restart"),
        "{now}"
    );
}
