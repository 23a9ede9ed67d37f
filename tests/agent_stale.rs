//! The contract changed between resolve and call (issue 7), with the test-only owner (`--features test-owner`): the call is `stale` with the current hash and never dispatched.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_util;
mod util;

use agent_util::Env;
use serde_json::{json, Value};

fn ok(r: (u16, Value)) -> Value {
    assert_eq!(r.0, 200, "{}", r.1);
    r.1["value"].clone()
}

#[test]
fn a_contract_changed_after_resolve_is_stale_and_recorded() {
    let env = Env::start(&[], None, "stale");
    env.grant(
        "t",
        Some(&[
            "testing.echo",
            "testing.revise",
            "testing.large",
            "project.entries",
        ]),
    );
    let token = env.token("t");
    let resolved = ok(env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["testing.echo"]}),
    ));
    let r1 = resolved["objects"][1]["ref"].as_str().unwrap().to_string();
    let echoed =
        ok(env.agent_call_with_contract(&token, "testing.echo", &r1, json!({"text": "hi"})));
    assert_eq!(echoed["revision"], 1);
    // An index continuation taken before the change.
    let page = ok(env.agent_call(
        &token,
        "capability.index",
        json!({"search": "t", "maxBytes": 600}),
    ));
    let cursor = page["nextCursor"]
        .as_str()
        .expect("a small budget pages")
        .to_string();
    // The contract changes.
    assert_eq!(
        ok(env.agent_call(&token, "testing.revise", json!({})))["revision"],
        2
    );
    let (status, r) =
        env.agent_call_with_contract(&token, "testing.echo", &r1, json!({"text": "hi"}));
    assert_eq!(status, 409, "{r}");
    assert_eq!(r["error"]["code"], "stale");
    let current = r["error"]["details"]["currentRef"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(current, r1);
    // The continuation is stale too; a fresh resolve gives the current ref, which is accepted.
    let (status, _) = env.agent_call(
        &token,
        "capability.index",
        json!({"search": "t", "maxBytes": 600, "cursor": cursor}),
    );
    assert_eq!(status, 409);
    let again = ok(env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["testing.echo"]}),
    ));
    assert_eq!(again["objects"][1]["ref"], current.as_str());
    assert!(again["objects"][1]["body"]["request"]["description"]
        .as_str()
        .unwrap()
        .contains("revision 2"));
    assert_eq!(
        ok(env.agent_call_with_contract(&token, "testing.echo", &current, json!({})))["revision"],
        2
    );
    // The refusal is recorded.
    let snap = env.wait_activity(8);
    assert!(snap["activity"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["method"] == "testing.echo" && a["code"] == "stale"));
    // An object over 64 KiB is refused, never split.
    let (status, r) = env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["testing.large"]}),
    );
    assert_eq!(status, 429, "{r}");
    assert_eq!(r["error"]["details"]["limit"], "knowledgeResponseBytes");
}
