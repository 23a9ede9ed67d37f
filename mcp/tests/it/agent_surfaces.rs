//! The surfaces of a native session the panel uses, against `server-everything` and the
//! scripted model: a slash-command prompt with arguments (a missing one is named and nothing
//! is sent), suggestions, an `@` resource joining a message, forms answered, declined and
//! dismissed, sampling refused and confirmed, `/mcp` and `/doctor`.

use rho_mcp::agent::{AgentError, AgentEvent, MCP_SAMPLING};
use rho_mcp::model::{Api, Part};
use rho_mcp::policy::Answer;
use rho_mcp::report::Status;
use tokio_util::sync::CancellationToken;

use crate::agent_support::{ev_tool, everything_toml, mock, session, turn_requests, turn_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slash_prompt_with_arguments_becomes_the_turn_and_a_missing_one_sends_nothing() {
    let mock = mock();
    let mut s = session(Api::Anthropic, &mock, &everything_toml(""), false).await;
    assert!(s
        .prompt_commands()
        .iter()
        .any(|c| c.command == "/mcp:ev:args-prompt"));
    let suggestions = s
        .complete_prompt("ev", "completable-prompt", "department", "Eng", &[])
        .await;
    assert_eq!(suggestions, ["Engineering"]);
    let before = mock.requests().len();
    let missing = s
        .resolve("/mcp:ev:args-prompt state=Viken", CancellationToken::new())
        .await;
    let Err(AgentError::Prompt(why)) = &missing else {
        panic!("{missing:?}")
    };
    assert!(
        why.contains("`city`"),
        "the missing argument is named: {why}"
    );
    assert!(!s.running(), "no turn started");
    assert_eq!(mock.requests().len(), before, "no model call");
    let input = s
        .resolve(
            "/mcp:ev:args-prompt city=Oslo state=Viken",
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let t = turn_with(&mut s, input, |_, _| {}).await;
    assert_eq!(t.stop(), "end_turn");
    let sent = &turn_requests(&mock)[0];
    assert!(
        sent["messages"][0]["content"]
            .to_string()
            .contains("What's weather in Oslo, Viken?"),
        "{sent}"
    );
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_at_resource_joins_the_message_and_templates_get_suggestions() {
    let mock = mock();
    let mut s = session(Api::Responses, &mock, &everything_toml(""), false).await;
    let entries = s.resources();
    let doc = entries
        .iter()
        .find(|e| e.uri.ends_with("architecture.md"))
        .unwrap()
        .clone();
    let template = entries
        .iter()
        .find(|e| e.template && e.uri.contains("/text/"))
        .unwrap()
        .clone();
    assert_eq!(
        s.complete_resource("ev", &template.uri, "resourceId", "3", &[])
            .await,
        ["3"]
    );
    let part = s
        .attach("ev", &doc.uri, CancellationToken::new())
        .await
        .unwrap();
    let Part::Text(body) = &part else {
        panic!("{part:?}")
    };
    assert!(body.starts_with(&format!("[resource {}]\n", doc.uri)));
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert!(matches!(
        s.attach("ev", &doc.uri, cancel).await,
        Err(AgentError::Resource(_))
    ));
    let t = turn_with(
        &mut s,
        vec![Part::Text("summarize this".into()), part.clone()],
        |_, _| {},
    )
    .await;
    assert_eq!(t.stop(), "end_turn");
    let sent = &turn_requests(&mock)[0];
    let content = sent["input"][0]["content"].as_array().unwrap();
    assert_eq!(content[0]["text"], "summarize this");
    assert_eq!(content[1]["text"].as_str().unwrap(), body);
    s.shutdown().await;
}

/// Runs the elicitation tool with `answer` as the person's reply to the form.
async fn elicit(
    answer: fn(&rho_mcp::policy::Question) -> Answer,
) -> (crate::agent_support::Turn, Vec<Option<String>>) {
    let mock = mock();
    let mut s = session(Api::Anthropic, &mock, &everything_toml(""), true).await;
    let name = ev_tool(&s, "trigger-elicitation-request");
    let mut calls = Vec::new();
    let t = turn_with(
        &mut s,
        vec![Part::Text(format!("[[tool: {name}]]"))],
        |s, e| {
            if let AgentEvent::Form { ask, .. } = e {
                assert_eq!(ask.question.server, "ev");
                calls.push(ask.call.clone());
                s.answer_form(ask.id, answer(&ask.question)).unwrap();
            }
        },
    )
    .await;
    assert_eq!(s.open_forms(), 0);
    s.shutdown().await;
    (t, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_is_answered_declined_or_dismissed_through_the_session() {
    let (t, calls) = elicit(crate::policies::fill).await;
    assert_eq!(calls.len(), 1);
    assert!(
        calls[0].is_some(),
        "the form names the tool call it interrupts"
    );
    assert_eq!(t.stop(), "end_turn");
    assert!(t.text.contains("accept"), "{}", t.text);
    let (t, _) = elicit(|_| Answer::Declined).await;
    assert_eq!(t.stop(), "end_turn");
    assert!(t.text.contains("decline"), "{}", t.text);
    let (t, _) = elicit(|_| Answer::Dismissed).await;
    assert_eq!(t.stop(), "cancelled", "dismissing the form ends the turn");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_asks_the_person_and_only_a_yes_spends_the_model() {
    for allow in [false, true] {
        let mock = mock();
        let mut s = session(
            Api::Anthropic,
            &mock,
            &everything_toml("sampling = \"ask\""),
            true,
        )
        .await;
        let name = ev_tool(&s, "trigger-sampling-request");
        let mut asked = Vec::new();
        let t = turn_with(
            &mut s,
            vec![Part::Text(format!(
                "[[tool: {name}|{{\"prompt\": \"hello\", \"maxTokens\": 50}}]]"
            ))],
            |s, e| {
                if let AgentEvent::Sampling { ask, .. } = e {
                    asked.push(ask.clone());
                    s.answer_sampling(ask.id, allow).unwrap();
                }
            },
        )
        .await;
        assert_eq!(t.stop(), "end_turn", "{:?}", t.end);
        assert_eq!(asked.len(), 1);
        assert_eq!(
            (
                asked[0].server.as_str(),
                asked[0].max_tokens,
                asked[0].model.as_str()
            ),
            ("ev", 50, "mock-model")
        );
        let side = mock
            .requests()
            .iter()
            .filter(|r| r["body"]["tools"].as_array().is_none_or(|t| t.is_empty()))
            .count();
        let sampled = s.ledger().message(1).get(MCP_SAMPLING).copied();
        if allow {
            assert!(
                t.text.contains("Mock title") && t.text.contains("mock-model"),
                "the reply names the model: {}",
                t.text
            );
            assert_eq!(side, 1, "one sampling request reached the model");
            let sampled = sampled.expect("spend under mcp_sampling");
            assert_eq!((sampled.requests, sampled.input_tokens), (1, 10));
            assert!(t.events.iter().any(|e| matches!(e, AgentEvent::Spent { spend, .. } if spend.purpose == MCP_SAMPLING && spend.server.as_deref() == Some("ev"))));
        } else {
            assert!(t.text.contains("declined"), "{}", t.text);
            assert_eq!(side, 0, "no model call");
            assert_eq!(sampled, None);
        }
        s.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_and_doctor_describe_the_session() {
    let mock = mock();
    let text = format!(
        "{}\n[mcp.servers.off]\ntransport = \"stdio\"\ncommand = \"nothing-here\"\nenabled = false\n[mcp.servers.broken]\ntransport = \"stdio\"\ncommand = \"/nonexistent/rho-test-server\"\n",
        everything_toml("")
    );
    let s = session(Api::Anthropic, &mock, &text, false).await;
    let report = s.mcp_report();
    let by = |id: &str| report.iter().find(|r| r.id == id).unwrap().clone();
    assert_eq!(by("ev").status, Status::Connected);
    assert!(by("ev")
        .tools
        .iter()
        .any(|t| t.exported.as_deref() == Some("mcp__ev__echo")));
    assert!(!by("ev").prompts.is_empty() && !by("ev").resources.is_empty());
    assert_eq!(by("off").status, Status::Disabled);
    assert_eq!(by("broken").status, Status::Failed);
    let d = s.doctor().await;
    assert!(d.provider.reachable, "{:?}", d.provider.error);
    assert_eq!(
        (d.provider.model.as_str(), d.provider.api.as_str()),
        ("mock-model", "anthropic")
    );
    assert_eq!((d.mcp.configured, d.mcp.connected), (3, 1));
    assert_eq!(d.mcp.failed.len(), 1);
    assert_eq!(d.mcp.failed[0].0, "broken");
    s.shutdown().await;
}
