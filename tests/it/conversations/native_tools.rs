//! Rho's own agent's tools through the real service: a project tool through the conversation's
//! own grant (`document.edit` of a buffer the person has open, in the buffer and in activity
//! under the conversation's principal, with its call card), and an MCP server of the selected
//! config started with the session: after a kill -9 of Rho mid-call the message is `unknown`,
//! nothing is sent again, and no server process is left.

use crate::support::conversations::{ids, native_env, steps, text};
use crate::support::mcp::python;
use crate::support::poll::until;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// Process ids whose command line contains `needle`.
pub(super) fn running(needle: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            out.push(pid);
        }
    }
    out
}

#[test]
fn rho_edits_an_open_buffer_through_the_conversations_grant() {
    let c = native_env("native-edit", "", &[]);
    std::fs::write(c.env.dir.join("notes.txt"), "hello\n").unwrap();
    let doc = c.env.ok("document.open", json!({"path": "notes.txt"}));
    let id = doc["id"].as_str().unwrap();
    let version = doc["version"].as_u64().unwrap();
    let args = json!({"documentId": id, "expectedVersion": version, "changeId": "native-edit-1", "edits": [{"start": 5, "end": 5, "text": " world"}]});
    let (conv, mid) = ids(&c.start(
        "t1",
        &format!("[[tool: rho_document_edit|{args}]]"),
        json!({}),
    ));
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(text(&m).contains("tool said"), "{m}");
    // The person's buffer shows the edit.
    let read = c.env.ok("document.read", json!({"documentId": id}));
    assert_eq!(read["text"], "hello world\n");
    assert_eq!(read["version"].as_u64().unwrap(), version + 1);
    // Its card: the operation, completed, with the raw input and output.
    let step = steps(&m).first().cloned().expect("the call is a step");
    assert_eq!(step["status"], "completed", "{step}");
    let call = &step["call"];
    assert_eq!(call["name"], "rho_document_edit", "{step}");
    assert_eq!(call["operation"], "document.edit", "{step}");
    assert_eq!(call["isError"], false, "{step}");
    assert!(
        call["rawInput"].as_str().unwrap().contains("native-edit-1"),
        "{step}"
    );
    assert!(!call["rawOutput"].as_str().unwrap().is_empty(), "{step}");
    // Activity records it under the conversation's own principal.
    let principal = format!("agent:conversation-{}", &conv.replace('-', "")[..12]);
    let snap = c.env.wait_activity(1);
    let acts = snap["activity"].as_array().unwrap();
    assert!(
        acts.iter().any(|a| a["method"] == "document.edit"
            && a["outcome"] == "ok"
            && a["principal"] == principal.as_str()),
        "{principal}: {acts:?}"
    );
}

#[test]
fn killing_rho_mid_call_leaves_the_message_unknown_and_no_mcp_server() {
    let scratch = tempfile::tempdir().unwrap();
    // A copy of the Python SDK test server at a path only this test uses.
    let server = scratch.path().join("native_kill_server.py");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/modern_server.py"),
        &server,
    )
    .unwrap();
    let events = scratch.path().join("events");
    // Started through a wrapper that leaves a grandchild in the server's group which ignores the
    // closed pipes (like an npx tree): only the recovery's kill of the group ends it.
    let orphan = scratch.path().join("orphan.pid");
    let wrapper =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/wrap-with-orphan.sh");
    let table = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = \"sh\"\nargs = [{:?}, {:?}, {:?}]\nenv = {{ RHO_TEST_EVENTS = {:?}, RHO_TEST_PIDFILE = {:?} }}\n",
        wrapper.display().to_string(),
        python().display().to_string(),
        server.display().to_string(),
        events.display().to_string(),
        orphan.display().to_string()
    );
    let needle = server.display().to_string();
    let mut c = native_env("native-kill", &table, &[]);
    let (conv, mid) = ids(&c.start("k1", "[[tool: mcp__py__slow|{\"seconds\": 60}]]", json!({})));
    let m = c.wait(&conv, &mid, "the slow call runs", |m| {
        m["state"] != "running" || !steps(m).is_empty()
    });
    assert_eq!(m["state"], "running", "{m}");
    let step = &steps(&m)[0];
    assert_eq!(step["status"], "in_progress", "{step}");
    assert!(!running(&needle).is_empty(), "the MCP server runs");
    let grandchild: i32 = std::fs::read_to_string(&orphan)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split(' ').nth(2).is_some_and(|state| state != "Z"))
    };
    assert!(alive(grandchild));
    let asked = c.mock.requests().len();
    c.restart();
    let m = c.message(&conv, &mid);
    assert_eq!(m["state"], "unknown", "{m}");
    until(
        "the MCP server and its grandchild are gone",
        Duration::from_secs(15),
        || running(&needle).is_empty() && !alive(grandchild),
    );
    // Nothing was sent again; the conversation goes on in a new session.
    assert_eq!(c.mock.requests().len(), asked, "nothing replayed");
    let next = c.send(&conv, "k2", "Say hello");
    let nid = next["messageId"].as_str().unwrap().to_string();
    assert_eq!(c.wait_end(&conv, &nid)["stopReason"], "end_turn");
    assert!(
        !running(&needle).is_empty(),
        "the new session started the server"
    );
    // A graceful stop of Rho ends the new session's server group, grandchild included.
    let second: i32 = std::fs::read_to_string(&orphan)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(second != grandchild && alive(second));
    let pid = c.env.service.child.id().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    until("Rho stops on SIGTERM", Duration::from_secs(30), || {
        matches!(c.env.service.child.try_wait(), Ok(Some(_)))
    });
    until(
        "the second server and its grandchild are gone",
        Duration::from_secs(15),
        || running(&needle).is_empty() && !alive(second),
    );
}

#[test]
fn mcp_and_doctor_report_the_live_session() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/modern_server.py");
    let table = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {:?}\nargs = [{:?}]\n\n[mcp.servers.off]\ntransport = \"stdio\"\ncommand = \"true\"\nenabled = false\n",
        python().display().to_string(),
        server.display().to_string()
    );
    let c = native_env("native-surfaces", &table, &[]);
    let (conv, m) = c.converse("d1", "Say hello", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let (status, v) = c
        .env
        .local("conversation.mcp", json!({"conversationId": conv}));
    assert_eq!(status, 200, "{v}");
    let r = &v["value"];
    assert_eq!(r["live"], true, "{r}");
    let servers = r["servers"].as_array().unwrap();
    let py = servers.iter().find(|s| s["id"] == "py").unwrap();
    assert_eq!(py["status"], "connected", "{py}");
    assert_eq!(py["transport"], "stdio", "{py}");
    assert!(py["era"].is_string(), "{py}");
    assert!(
        py["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["exported"] == "mcp__py__echo"),
        "{py}"
    );
    let off = servers.iter().find(|s| s["id"] == "off").unwrap();
    assert_eq!(off["status"], "disabled", "{off}");
    let (status, v) = c
        .env
        .local("conversation.doctor", json!({"conversationId": conv}));
    assert_eq!(status, 200, "{v}");
    let rows = v["value"]["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["check"] == name).cloned().unwrap();
    let provider = row("provider");
    assert_eq!(provider["ok"], true, "{provider}");
    assert!(
        provider["detail"].as_str().unwrap().contains("mock-model"),
        "{provider}"
    );
    let mcp = row("mcp");
    assert_eq!(mcp["ok"], true, "{mcp}");
    assert!(
        mcp["detail"].as_str().unwrap().contains("1 connected"),
        "{mcp}"
    );
    assert!(row("r")["detail"].is_string() && row("python")["detail"].is_string());
    // An unknown conversation is not found.
    let (_, e) = c.env.local(
        "conversation.mcp",
        json!({"conversationId": "00000000-0000-0000-0000-000000000000"}),
    );
    assert_eq!(e["error"]["code"], "not_found", "{e}");
}

#[test]
fn mcp_for_a_claude_code_conversation_lists_the_configured_entries_as_not_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[mcp.servers.docs]\ntransport = \"stdio\"\ncommand = \"docs-mcp\"\n\n[mcp.servers.off]\ntransport = \"stdio\"\ncommand = \"true\"\nenabled = false\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let Some(c) = crate::support::conversations::conv_env_with(
        "conv-mcp-not-loaded",
        2,
        None,
        &["--config", &config],
    ) else {
        return;
    };
    let (conv, m) = c.converse("n1", "Say hello", json!({"backend": "claude"}));
    assert_eq!(m["state"], "ended", "{m}");
    let (status, v) = c
        .env
        .local("conversation.mcp", json!({"conversationId": conv}));
    assert_eq!(status, 200, "{v}");
    let r = &v["value"];
    assert_eq!(r["live"], false, "{r}");
    let servers = r["servers"].as_array().unwrap();
    let by = |id: &str| {
        servers
            .iter()
            .find(|s| s["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} is listed: {r}"))
    };
    let docs = by("docs");
    assert_eq!(
        docs["status"], "not_loaded",
        "Claude Code starts no MCP server: {docs}"
    );
    assert_eq!(docs["transport"], "stdio", "{docs}");
    assert!(docs["tools"].as_array().unwrap().is_empty(), "{docs}");
    assert_eq!(by("off")["status"], "disabled", "{r}");
}
