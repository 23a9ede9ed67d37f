//! Elicitation and sampling policies against real servers: legacy `server-everything`
//! (standalone requests routed to the single in-flight call) and the modern Python server
//! (input rounds with exact association).

use std::time::Duration;

use rho_mcp::call::{CallContext, CallError};
use rho_mcp::config::parse_config;
use rho_mcp::connect::ConnectOptions;
use rho_mcp::policy::Policies;
use rho_mcp::runtime::{McpRuntime, StartOptions};

use crate::peers::{everything, fixture, python, q};
use crate::policies::{policies, Person};

async fn start(text: &str, policies: Policies) -> McpRuntime {
    let cfg = parse_config(text, "t".as_ref()).unwrap();
    let opts = StartOptions {
        connect: ConnectOptions {
            startup_budget: Duration::from_secs(60),
            shutdown_grace: Duration::from_millis(500),
            workspace: Some("/work/ws".into()),
            policies,
            ..ConnectOptions::default()
        },
        call_budget: Duration::from_secs(60),
        ..StartOptions::default()
    };
    McpRuntime::start(&cfg, opts).await.unwrap()
}

fn ev_config(extra: &str) -> String {
    format!(
        "[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {}\n{extra}\n",
        q(&everything())
    )
}

fn tool(rt: &McpRuntime, name: &str) -> String {
    rt.registry()
        .exported_for("ev", name)
        .unwrap_or_else(|| {
            panic!(
                "{name} not registered: {:?}",
                rt.server("ev").unwrap().snapshot().added
            )
        })
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_elicitation_accepts_with_typed_answers() {
    let (p, seen, _) = policies(Person::Agreeable, false);
    let rt = start(&ev_config(""), p).await;
    let t = tool(&rt, "trigger-elicitation-request");
    let out = rt.call(&t, None, CallContext::default()).await.unwrap();
    assert!(out.text.contains("accept"), "{}", out.text);
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.questions.len(), 1);
        assert_eq!(seen.questions[0].server, "ev");
    }
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dismissing_the_form_cancels_and_ends_the_turn() {
    let (p, _, _) = policies(Person::Dismissive, false);
    let rt = start(&ev_config(""), p).await;
    let t = tool(&rt, "trigger-elicitation-request");
    let ctx = CallContext::default();
    let cancel = ctx.cancel.clone();
    let r = rt.call(&t, None, ctx).await;
    assert!(cancel.is_cancelled(), "the turn was ended");
    assert!(matches!(r, Err(CallError::Cancelled)), "{r:?}");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sampling_needs_both_gates_and_is_recorded() {
    let (p, seen, ledger) = policies(Person::Agreeable, true);
    let rt = start(&ev_config("sampling = \"ask\""), p).await;
    let t = tool(&rt, "trigger-sampling-request");
    let out = rt
        .call(
            &t,
            serde_json::json!({"prompt": "hello", "maxTokens": 50})
                .as_object()
                .cloned(),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(out.text.contains("stand-in-model"), "{}", out.text);
    assert!(out.text.contains("stand-in reply"), "{}", out.text);
    assert_eq!(seen.lock().unwrap().sampling[0].max_tokens, 50);
    {
        let usage = ledger.0.lock().unwrap();
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0].purpose, "mcp_sampling");
        assert_eq!(usage[0].server, "ev");
    }
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_sampling_spends_nothing() {
    let (p, _, ledger) = policies(Person::Dismissive, true);
    let rt = start(&ev_config("sampling = \"ask\""), p).await;
    let t = tool(&rt, "trigger-sampling-request");
    let r = rt
        .call(
            &t,
            serde_json::json!({"prompt": "hello"}).as_object().cloned(),
            CallContext::default(),
        )
        .await;
    // The rejection reaches the server as a JSON-RPC error; it reports the failed tool call.
    let out = r.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.text.contains("the user declined the sampling request"),
        "{}",
        out.text
    );
    assert!(ledger.0.lock().unwrap().is_empty());
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_declared_without_a_person_or_a_model() {
    // No model: sampling stays undeclared even with sampling = "ask", so the server does not
    // even offer its sampling tool; no responder: no elicitation tool either.
    let rt = start(&ev_config("sampling = \"ask\""), Policies::default()).await;
    let live = rt.server("ev").unwrap();
    let names: Vec<String> = live
        .snapshot()
        .tools
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let added = live.snapshot().added;
    for n in ["trigger-sampling-request", "trigger-elicitation-request"] {
        assert!(
            !names.iter().any(|x| x == n) && !added.iter().any(|x| x == n),
            "{n} offered"
        );
    }
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_elicitation_is_answered_inside_the_call() {
    let (p, seen, _) = policies(Person::Agreeable, false);
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("modern_server.py")),
        q(&dir.path().join("events"))
    );
    let rt = start(&text, p).await;
    let out = rt
        .call("mcp__py__greet", None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(out.text.lines().last().unwrap(), "hello typed name (3)");
    assert_eq!(
        seen.lock().unwrap().questions[0].message,
        "What is your name?"
    );
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_question_with_two_calls_in_flight_is_declined_without_asking() {
    let (p, seen, _) = policies(Person::Agreeable, false);
    let rt = start(&ev_config(""), p).await;
    let long = tool(&rt, "trigger-long-running-operation");
    let ask = tool(&rt, "trigger-elicitation-request");
    let slow = rt.call(
        &long,
        serde_json::json!({"duration": 2, "steps": 2})
            .as_object()
            .cloned(),
        CallContext::default(),
    );
    let question = async {
        // Let the slow call get in flight first.
        tokio::time::sleep(Duration::from_millis(300)).await;
        rt.call(&ask, None, CallContext::default()).await
    };
    let (slow, question) = tokio::join!(slow, question);
    assert!(slow.is_ok(), "{slow:?}");
    let out = question.unwrap();
    assert!(out.text.contains("decline"), "{}", out.text);
    assert!(
        seen.lock().unwrap().questions.is_empty(),
        "nobody was asked"
    );
    rt.shutdown().await;
}
