//! Rho's own agent against the scripted model on each provider API: a streamed text answer
//! with its usage, an API error that ends the turn with the reason (the next one works),
//! retries announced before they happen, cancel while the answer streams, and a model that is
//! not configured or has no key naming what is missing.

use std::path::Path;
use std::time::{Duration, Instant};

use rho_mcp::agent::{AgentEvent, SYSTEM_PROMPT, TURN};
use rho_mcp::model::{
    load_model_config, parse_model_config, resolve_key, store_key, Api, ApiKey, ModelSetupError,
};
use rho_mock_model::script::{PLAIN, SLOW_WORDS};

use crate::agent_support::{everything_toml, mock, session, session_with, turn, turn_requests};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_answer_streams_on_each_provider_api_with_its_usage() {
    let mock = mock();
    for (api, path) in [
        (Api::Anthropic, "/v1/messages"),
        (Api::Responses, "/v1/responses"),
        (Api::Chat, "/v1/chat/completions"),
    ] {
        let before = mock.requests().len();
        let mut s = session(api, &mock, &everything_toml(""), false).await;
        let t = turn(&mut s, "hello there").await;
        assert_eq!(t.stop(), "end_turn", "{api:?}: {:?}", t.end);
        assert_eq!(t.text, PLAIN, "{api:?}");
        let m = s.ledger().message(1);
        assert_eq!(
            (
                m[TURN].input_tokens,
                m[TURN].output_tokens,
                m[TURN].requests
            ),
            (10, 5, 1),
            "{api:?}"
        );
        let reqs = mock.requests();
        assert_eq!(reqs.len(), before + 1, "{api:?}");
        let r = &reqs[before];
        assert_eq!(r["path"], path);
        assert_eq!(r["body"]["stream"], true);
        // The system prompt: Rho's text, then the server's instructions fenced as its documentation.
        let system = match api {
            Api::Anthropic => r["body"]["system"].as_str().unwrap().to_owned(),
            Api::Responses => r["body"]["instructions"].as_str().unwrap().to_owned(),
            Api::Chat => r["body"]["messages"][0]["content"]
                .as_str()
                .unwrap()
                .to_owned(),
        };
        assert!(system.starts_with(SYSTEM_PROMPT), "{api:?}");
        assert!(
            system.contains("<mcp-server-instructions server=\"ev\">"),
            "{api:?}: {system}"
        );
        assert!(
            r["headers"].get("authorization").is_none() && r["headers"].get("x-api-key").is_none(),
            "api_key = none sends no key"
        );
        s.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_error_ends_the_turn_with_its_reason_and_the_next_turn_works() {
    let mock = mock();
    let mut s = session_with(
        Api::Anthropic,
        &mock,
        &everything_toml(""),
        false,
        "max_retries = 1",
    )
    .await;
    let t = turn(&mut s, "[[error]]").await;
    assert_eq!(t.stop(), "error");
    let reason = t.end.as_ref().unwrap().error.clone().unwrap();
    assert!(
        reason.contains("HTTP 500") && reason.contains("scripted error from the mock model"),
        "{reason}"
    );
    let retries: Vec<_> = t
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Retrying { retry, .. } => Some(retry.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(retries.len(), 1, "the one retry is announced");
    assert_eq!((retries[0].attempt, retries[0].of), (1, 1));
    assert!(retries[0].reason.contains("HTTP 500"));
    assert_eq!(turn_requests(&mock).len(), 2, "one request and one retry");
    let t = turn(&mut s, "hello again").await;
    assert_eq!((t.stop(), t.text.as_str()), ("end_turn", PLAIN));
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overloaded_provider_is_retried_visibly_and_the_answer_arrives() {
    let mock = mock();
    for api in [Api::Responses, Api::Chat] {
        let mut s = session_with(api, &mock, &everything_toml(""), false, "max_retries = 2").await;
        let text = format!("[[flaky: 2]] {api:?}");
        let t = turn(&mut s, &text).await;
        assert_eq!((t.stop(), t.text.as_str()), ("end_turn", PLAIN), "{api:?}");
        let retries: Vec<(u32, u64)> = t
            .events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Retrying { retry, .. } => Some((retry.attempt, retry.wait_ms)),
                _ => None,
            })
            .collect();
        // The provider named its wait (retry-after-ms: 20): that is what was waited.
        assert_eq!(retries, vec![(1, 20), (2, 20)], "{api:?}");
        s.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_while_the_answer_streams_drops_the_request_and_the_next_turn_works() {
    let mock = mock();
    let mut s = session(Api::Anthropic, &mock, &everything_toml(""), false).await;
    let message = s
        .prompt(vec![rho_mcp::model::Part::Text("[[slow]]".into())])
        .unwrap();
    assert_eq!(
        s.prompt(vec![rho_mcp::model::Part::Text("meanwhile".into())]),
        Err(rho_mcp::agent::AgentError::Busy),
        "one turn at a time"
    );
    let started = Instant::now();
    let mut words = 0;
    let end = loop {
        match tokio::time::timeout(Duration::from_secs(30), s.next())
            .await
            .unwrap()
            .unwrap()
        {
            AgentEvent::Text { .. } => {
                words += 1;
                if words == 2 {
                    s.cancel();
                }
            }
            AgentEvent::Finished { message: m, end } if m == message => break end,
            _ => {}
        }
    };
    assert_eq!(end.stop, "cancelled");
    assert!(words < SLOW_WORDS, "the answer stopped streaming");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(!s.running());
    assert!(
        matches!(
            s.prompt(vec![rho_mcp::model::Part::Text("  ".into())]),
            Err(rho_mcp::agent::AgentError::Prompt(_))
        ),
        "an empty message starts no turn"
    );
    let t = turn(&mut s, "and now?").await;
    assert_eq!((t.stop(), t.text.as_str()), ("end_turn", PLAIN));
    s.shutdown().await;
}

#[test]
fn a_model_that_is_not_configured_or_has_no_key_names_what_is_missing() {
    let home = tempfile::tempdir().unwrap();
    let e = load_model_config(None, home.path()).unwrap_err();
    assert!(matches!(&e, ModelSetupError::Missing { .. }), "{e:?}");
    assert!(e.to_string().contains("missing a [model] table in"), "{e}");
    let cfg = parse_model_config(
        "[model]\nprovider = \"anthropic\"\nmodel = \"m\"\napi_key = \"env:RHO_TEST_SURELY_UNSET_KEY\"\n",
        Path::new("c.toml"),
    )
    .unwrap();
    let e = resolve_key(&cfg, home.path()).unwrap_err().to_string();
    assert!(
        e.contains("the environment variable RHO_TEST_SURELY_UNSET_KEY"),
        "{e}"
    );
    let cfg = parse_model_config(
        "[model]\nprovider = \"openai\"\nmodel = \"m\"\n",
        Path::new("c.toml"),
    )
    .unwrap();
    let e = resolve_key(&cfg, home.path()).unwrap_err().to_string();
    assert!(
        e.contains("an API key for openai in Rho's credential store"),
        "{e}"
    );
    store_key(home.path(), "openai", &ApiKey::new("sk-test-key")).unwrap();
    let key = resolve_key(&cfg, home.path()).unwrap().unwrap();
    assert_eq!(key.expose(), "sk-test-key");
    assert!(
        !format!("{key:?} {cfg:?}").contains("sk-test-key"),
        "the key never prints"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_goes_in_its_header_only() {
    let mock = mock();
    for (api, header, value) in [
        (Api::Anthropic, "x-api-key", "sk-ant-test"),
        (Api::Responses, "authorization", "Bearer sk-oai-test"),
    ] {
        let text = crate::agent_support::model_toml(api, &mock, "")
            .replace("api_key = \"none\"", "api_key = \"store\"");
        let cfg = parse_model_config(&text, Path::new("t.toml")).unwrap();
        let key = ApiKey::new(value.trim_start_matches("Bearer "));
        let client = rho_mcp::model::ModelClient::new(cfg, Some(key)).unwrap();
        let (text, usage) = client.complete(None, "hi".into()).await.unwrap();
        assert_eq!(
            text,
            rho_mock_model::script::TITLE,
            "a request without tools is a side request"
        );
        assert_eq!(usage.output_tokens, 5);
        let last = mock.requests().pop().unwrap();
        assert_eq!(last["headers"][header], value, "{api:?}");
        assert!(
            !last["body"]
                .to_string()
                .contains(value.trim_start_matches("Bearer ")),
            "the key is in no body"
        );
        if api == Api::Anthropic {
            assert_eq!(last["headers"]["anthropic-version"], "2023-06-01");
        }
    }
}
