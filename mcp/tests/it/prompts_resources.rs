//! Prompts, completions and resources against `server-everything`.

use std::time::Duration;

use rho_mcp::prompts::PromptError;
use rho_mcp::resources::Attachment;
use tokio_util::sync::CancellationToken;

use crate::tool_calls::start_everything;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_become_commands_and_turns() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let cmds = rt.prompt_commands();
    let args_prompt = cmds
        .iter()
        .find(|c| c.command == "/mcp:ev:args-prompt")
        .unwrap();
    assert!(args_prompt.arguments.contains(&("city".to_owned(), true)));
    let turn = rt
        .run_prompt_command("/mcp:ev:simple-prompt", CancellationToken::new())
        .await
        .unwrap();
    assert!(!turn.is_empty());
    let turn = rt
        .run_prompt_command(
            "/mcp:ev:args-prompt city=Oslo state=Viken",
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(turn.contains("Oslo"), "{turn}");
    let missing = rt
        .run_prompt_command("/mcp:ev:args-prompt state=Viken", CancellationToken::new())
        .await;
    assert!(
        matches!(&missing, Err(PromptError::Args(e)) if e.to_string().contains("`city`")),
        "{missing:?}"
    );
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_are_single_flight_and_reused() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let first = rt
        .complete_prompt_argument("ev", "completable-prompt", "department", "Eng", &[])
        .await;
    assert!(first.iter().any(|v| v == "Engineering"), "{first:?}");
    let again = rt
        .complete_prompt_argument("ev", "completable-prompt", "department", "Eng", &[])
        .await;
    assert_eq!(first, again);
    let live = rt.server("ev").unwrap();
    assert_eq!(live.completer.requests_sent(), 1, "the answer was reused");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_are_listed_and_read_per_the_table() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let entries = rt.resource_entries();
    let first_template = entries.iter().position(|e| e.template).unwrap();
    assert!(
        entries[..first_template].iter().all(|e| !e.template),
        "resources first"
    );
    let doc = entries
        .iter()
        .find(|e| e.uri.ends_with("architecture.md"))
        .unwrap();
    let a = rt
        .read_resource("ev", &doc.uri, CancellationToken::new())
        .await
        .unwrap();
    let Attachment::Text(t) = a else {
        panic!("text")
    };
    assert!(!t.is_empty());
    let blob = rt
        .read_resource(
            "ev",
            "demo://resource/dynamic/blob/1",
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let Attachment::Text(t) = blob else {
        panic!("blob described")
    };
    assert!(t.starts_with("[resource "), "{t}");
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert!(
        rt.read_resource("ev", &doc.uri, cancel).await.is_err(),
        "a cancelled read fails"
    );
    rt.shutdown().await;
}
