//! Rho's own agent (issue 18) calling the project's granted operations against the real
//! service: its tools are the grant's operations with their published request schemas, and the
//! scripted model's `document.edit` of a buffer the person has open lands in that buffer and in
//! activity under the grant's principal, exactly as an external Agent's call through
//! `rho --mcp` would.

use std::sync::Arc;
use std::time::Duration;

use rho_mcp::agent::{
    AgentEvent, GrantTools, NativeSession, NativeSetup, ProjectTools, ToolSource,
};
use rho_mcp::config::McpConfig;
use rho_mcp::model::{parse_model_config, ModelClient, Part};
use rho_mcp::runtime::StartOptions;
use serde_json::json;

use crate::support::Env;

#[test]
fn the_native_agent_edits_an_open_buffer_through_its_grant() {
    let env = Env::start(&[], None, "native");
    std::fs::write(env.dir.join("notes.txt"), "hello\n").unwrap();
    let doc = env.ok("document.open", json!({"path": "notes.txt"}));
    let id = doc["id"].as_str().unwrap().to_owned();
    let version = doc["version"].as_u64().unwrap();
    env.grant("native", None);
    let file = env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("native.json");
    let dir = tempfile::tempdir().unwrap();
    let mock = rho_mock_model::MockModel::start(dir.path()).unwrap();
    let cfg = parse_model_config(
        &format!(
            "[model]\nprovider = \"anthropic\"\nbase_url = \"{}\"\nmodel = \"mock-model\"\napi_key = \"none\"\n",
            mock.base_url()
        ),
        "t.toml".as_ref(),
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (events, tools) = rt.block_on(async {
        let adapter = rho_mcp::adapter::open(&file, rho_mcp::adapter::limits::Limits::default()).unwrap();
        let tools = GrantTools::load(Arc::new(adapter), 64 * 1024).await.unwrap();
        let defs = tools.tools();
        let mut s = NativeSession::start(NativeSetup {
            model: ModelClient::new(cfg, None).unwrap(),
            mcp: McpConfig::default(),
            start: StartOptions::default(),
            project: Some(Arc::new(tools)),
            can_ask: false,
            max_steps: 8,
            system: None,
        })
        .await;
        let args = json!({"documentId": id, "expectedVersion": version, "changeId": "native-1", "edits": [{"start": 5, "end": 5, "text": " world"}]});
        let message = s
            .prompt(vec![Part::Text(format!("[[tool: rho_document_edit|{args}]]"))])
            .unwrap();
        let mut events = Vec::new();
        loop {
            let e = tokio::time::timeout(Duration::from_secs(60), s.next())
                .await
                .unwrap()
                .unwrap();
            let done = matches!(&e, AgentEvent::Finished { message: m, .. } if *m == message);
            events.push(e);
            if done {
                break;
            }
        }
        s.shutdown().await;
        (events, defs)
    });
    // One tool per granted operation, its schema the published request schema (no projectId).
    let edit = tools
        .iter()
        .find(|t| t.name == "rho_document_edit")
        .unwrap();
    assert!(edit.description.contains("`document.edit`"));
    let props = edit.input_schema["properties"].as_object().unwrap();
    assert!(props.contains_key("documentId") && props.contains_key("edits"));
    assert!(!props.contains_key("projectId"));
    assert!(tools.iter().any(|t| t.name == "rho_document_read"));
    let started = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolStarted { step, .. } => Some(step.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        started.source,
        ToolSource::Project {
            operation: "document.edit".into()
        }
    );
    let end = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolFinished { step, .. } => Some(step.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!end.is_error, "{}", end.text);
    assert!(
        matches!(events.last(), Some(AgentEvent::Finished { end, .. }) if end.stop == "end_turn")
    );
    // The person's buffer shows the edit.
    let read = env.ok("document.read", json!({"documentId": id}));
    assert_eq!(read["text"], "hello world\n");
    assert_eq!(read["version"].as_u64().unwrap(), version + 1);
    // Activity records the call under the grant's principal.
    let snap = env.wait_activity(1);
    let acts = snap["activity"].as_array().unwrap();
    assert!(
        acts.iter().any(|a| a["method"] == "document.edit"
            && a["outcome"] == "ok"
            && a["principal"] == "agent:native"),
        "{acts:?}"
    );
}
