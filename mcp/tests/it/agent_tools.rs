//! Rho's own agent calling MCP tools of real servers through the scripted model: a rendered
//! result read back by the model, an image that reaches it only as a descriptor, tool calls on
//! Chat Completions, a revised and an added tool mid-session, cancel during a long call (the
//! server receives `notifications/cancelled`), and server-filesystem within its allow list.

use std::time::{Duration, Instant};

use rho_mcp::agent::{AgentEvent, StepEnd, ToolSource, TURN};
use rho_mcp::model::{Api, Message, Part};

use crate::agent_support::{
    ev_tool, everything_toml, mock, session, turn, turn_requests, turn_with,
};
use crate::peers::{fixture, python, q};

fn finished(events: &[AgentEvent]) -> Vec<StepEnd> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { step, .. } => Some(step.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_calls_an_mcp_tool_and_reads_its_rendered_result() {
    let mock = mock();
    let mut s = session(Api::Anthropic, &mock, &everything_toml(""), false).await;
    let t = turn(
        &mut s,
        "[[tool: mcp__ev__echo|{\"message\": \"hi there\"}]]",
    )
    .await;
    assert_eq!(t.stop(), "end_turn", "{:?}", t.end);
    assert_eq!(t.text, "FINAL: tool said: Echo: hi there");
    let started = t
        .events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolStarted { step, .. } => Some(step.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        started.source,
        ToolSource::Mcp {
            server: "ev".into(),
            tool: "echo".into()
        }
    );
    assert_eq!(started.input["message"], "hi there");
    let ends = finished(&t.events);
    assert_eq!(ends.len(), 1);
    assert_eq!(
        (ends[0].text.as_str(), ends[0].is_error),
        ("Echo: hi there", false)
    );
    // The result went back as a tool_result for the call the model made.
    let second = &turn_requests(&mock)[1];
    let last = second["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["content"], "Echo: hi there");
    assert_eq!(
        s.ledger().message(1)[TURN].requests,
        2,
        "two model requests in the turn"
    );
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_result_reaches_the_model_as_a_descriptor_and_the_card_keeps_it() {
    let mock = mock();
    let mut s = session(Api::Responses, &mock, &everything_toml(""), false).await;
    let name = ev_tool(&s, "get-tiny-image");
    let t = turn(&mut s, &format!("[[tool: {name}]]")).await;
    assert_eq!(t.stop(), "end_turn", "{:?}", t.end);
    let end = finished(&t.events).pop().unwrap();
    let image = end.image.clone().expect("the card keeps the image");
    assert_eq!(image.mime_type, "image/png");
    assert!(end.text.contains("[image image/png, "), "{}", end.text);
    let second = &turn_requests(&mock)[1];
    let input = second["input"].as_array().unwrap();
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("the result went back");
    assert!(output["output"]
        .as_str()
        .unwrap()
        .contains("[image image/png, "));
    assert!(
        !second.to_string().contains(&image.data[..40]),
        "no base64 reaches the model"
    );
    assert!(t.text.starts_with("FINAL: tool said: "), "{}", t.text);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_completions_tool_calls_round_trip() {
    let mock = mock();
    let mut s = session(Api::Chat, &mock, &everything_toml(""), false).await;
    let name = ev_tool(&s, "get-sum");
    let t = turn(&mut s, &format!("[[tool: {name}|{{\"a\": 2, \"b\": 3}}]]")).await;
    assert_eq!(t.stop(), "end_turn", "{:?}", t.end);
    assert!(t.text.contains('5'), "{}", t.text);
    let second = &turn_requests(&mock)[1];
    let msgs = second["messages"].as_array().unwrap();
    let call = msgs.iter().find(|m| m["role"] == "assistant").unwrap();
    let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(call["tool_calls"][0]["id"], tool["tool_call_id"]);
    s.shutdown().await;
}

fn modern_toml(events: &std::path::Path) -> String {
    format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("modern_server.py")),
        q(events)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revised_tool_reaches_the_next_turn_and_an_added_one_waits_for_a_restart() {
    let mock = mock();
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(
        Api::Anthropic,
        &mock,
        &modern_toml(&dir.path().join("events")),
        false,
    )
    .await;
    let mut changes = s.lists_changed().unwrap();
    let t = turn(&mut s, "[[tool: mcp__py__reshape]]").await;
    // The server mirrors its string result as structuredContent, which the model reads first.
    assert!(
        t.text.starts_with("FINAL: tool said: ") && t.text.ends_with("reshaped"),
        "{}",
        t.text
    );
    let rt = s.runtime().unwrap().clone();
    let mut revised = false;
    for _ in 0..50 {
        if rt
            .tools()
            .iter()
            .any(|t| t.name == "mcp__py__echo" && t.description.contains("Revised echo."))
        {
            revised = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(revised, "the server's list change arrived");
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("the change is announced")
        .unwrap();
    let t = turn(&mut s, "[[tool: mcp__py__echo|{\"text\": \"x\"}]]").await;
    assert!(t.text.contains("echo2: x"), "{}", t.text);
    let offered = &turn_requests(&mock)[2];
    let tools = offered["tools"].as_array().unwrap();
    let echo = tools.iter().find(|t| t["name"] == "mcp__py__echo").unwrap();
    assert!(
        echo["description"]
            .as_str()
            .unwrap()
            .contains("Revised echo."),
        "the revision reached the model"
    );
    assert!(
        !tools
            .iter()
            .any(|t| t["name"].as_str().unwrap().contains("added_tool")),
        "an added tool is not offered"
    );
    let report = s.mcp_report();
    assert_eq!(report[0].tools_needing_restart, ["added_tool"]);
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_during_a_long_tool_call_tells_the_server_and_the_next_turn_works() {
    let mock = mock();
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events");
    let mut s = session(Api::Anthropic, &mock, &modern_toml(&events), false).await;
    let started = Instant::now();
    let t = turn_with(
        &mut s,
        vec![Part::Text(
            "[[tool: mcp__py__slow|{\"seconds\": 30}]]".into(),
        )],
        |s, e| {
            if let AgentEvent::ToolProgress { .. } = e {
                s.cancel();
            }
        },
    )
    .await;
    assert_eq!(t.stop(), "cancelled");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let end = finished(&t.events).pop().unwrap();
    assert!(end.cancelled && end.is_error, "{end:?}");
    let mut told = false;
    for _ in 0..50 {
        if std::fs::read_to_string(&events)
            .unwrap_or_default()
            .contains("cancelled")
        {
            told = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(told, "the server saw notifications/cancelled");
    // The transcript stays valid: the call has its (cancelled) result.
    let transcript = s.transcript().await;
    assert!(matches!(transcript.last(), Some(Message::Tool(r)) if r[0].is_error));
    let t = turn(&mut s, "still there?").await;
    assert_eq!(t.stop(), "end_turn");
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filesystem_server_reads_a_file_for_the_model_within_its_allow_list() {
    let mock = mock();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("notes.txt"), "the answer is 42\n").unwrap();
    let text = format!(
        "[mcp.servers.fs]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\n[mcp.servers.fs.tools]\nallow = [\"read_text_file\", \"list_directory\"]\n",
        q(&crate::peers::filesystem()),
        q(&root)
    );
    let mut s = session(Api::Chat, &mock, &text, false).await;
    let path = root.join("notes.txt");
    let t = turn(
        &mut s,
        &format!(
            "[[tool: mcp__fs__read_text_file|{}]]",
            serde_json::json!({"path": path})
        ),
    )
    .await;
    assert_eq!(t.stop(), "end_turn", "{:?}", t.end);
    assert!(t.text.contains("the answer is 42"), "{}", t.text);
    let title = t
        .events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolStarted { step, .. } => Some(step.title.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(title, "Read Text File", "the server's title is the card's");
    let mut offered: Vec<String> = turn_requests(&mock)[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    offered.sort();
    assert_eq!(
        offered,
        ["mcp__fs__list_directory", "mcp__fs__read_text_file"],
        "only the allowed tools"
    );
    s.shutdown().await;
}
