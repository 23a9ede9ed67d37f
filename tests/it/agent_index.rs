//! Capability discovery (issue 7): `capability.index` pages 20 at a time with refs, `capability.resolve` pages whole objects within a byte budget, knownRefs, limits, stale continuations.

use crate::support::sha256_hex;
use crate::support::Env;
use serde_json::{json, Value};

fn ok(r: (u16, Value)) -> Value {
    assert_eq!(r.0, 200, "{}", r.1);
    r.1["value"].clone()
}

#[test]
fn index_states_the_scope_then_pages_operations_twenty_at_a_time() {
    let env = Env::start(&[], None, "idx");
    let g = env.grant("reader", None);
    let token = env.token("reader");
    let first = ok(env.agent_call(&token, "capability.index", json!({})));
    let scope = &first["scope"];
    assert_eq!(scope["projectId"], env.project.as_str());
    assert_eq!(scope["projectName"], "idx");
    assert_eq!(scope["session"], "reader");
    assert_eq!(scope["profile"], "layered-business");
    assert_eq!(scope["expiresAt"], g["expiresAt"]);
    let count = g["methods"].as_array().unwrap().len();
    assert_eq!(scope["methodCount"], count);
    assert!(first["nextCursor"].is_null());
    let owners = first["owners"].as_array().unwrap();
    let total: u64 = owners
        .iter()
        .map(|o| o["operations"].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, count);
    let docs = owners.iter().find(|o| o["owner"] == "documents").unwrap();
    assert!(docs["skill"]["ref"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    // One owner's operations.
    let page = ok(env.agent_call(&token, "capability.index", json!({"owner": "documents"})));
    let ops = page["operations"].as_array().unwrap();
    assert!(ops
        .iter()
        .any(|o| o["name"] == "document.edit" && o["effect"] == "write"));
    assert!(ops
        .iter()
        .all(|o| o["skill"]["ref"] == docs["skill"]["ref"]));
    // A search over everything: 20 a page.
    assert!(count > 20, "{count}");
    let p1 = ok(env.agent_call(&token, "capability.index", json!({"search": "."})));
    assert_eq!(p1["operations"].as_array().unwrap().len(), 20);
    assert!(p1["scope"].is_object());
    let cursor = p1["nextCursor"].as_str().unwrap().to_string();
    let p2 = ok(env.agent_call(
        &token,
        "capability.index",
        json!({"search": ".", "cursor": cursor}),
    ));
    assert!(
        p2.get("scope").is_none(),
        "the scope is on the first page only"
    );
    assert_eq!(
        p2["operations"].as_array().unwrap().len(),
        (count - 20).min(20)
    );
    assert_eq!(p2["nextCursor"].is_null(), count <= 40);
    // A cursor continues only its own query.
    let (status, r) = env.agent_call(
        &token,
        "capability.index",
        json!({"search": "doc", "cursor": cursor}),
    );
    assert_eq!(status, 400, "{r}");
    // A changed grant makes the continuation stale.
    let fewer: Vec<&str> = g["methods"]
        .as_array()
        .unwrap()
        .iter()
        .take(22)
        .map(|m| m.as_str().unwrap())
        .collect();
    env.grant("reader", Some(&fewer));
    let t2 = env.token("reader");
    let (status, r) = env.agent_call(
        &t2,
        "capability.index",
        json!({"search": ".", "cursor": cursor}),
    );
    assert_eq!(status, 409, "{r}");
    assert_eq!(r["error"]["code"], "stale");
    // An unknown owner.
    assert_eq!(
        env.agent_call(&t2, "capability.index", json!({"owner": "nope"}))
            .0,
        404
    );
}

#[test]
fn resolve_pages_whole_objects_with_known_refs_and_limits() {
    let env = Env::start(&[], None, "res");
    env.grant(
        "r",
        Some(&[
            "document.open",
            "document.edit",
            "document.read",
            "project.entries",
        ]),
    );
    let token = env.token("r");
    let index = ok(env.agent_call(&token, "capability.index", json!({"owner": "documents"})));
    let refs: Vec<(String, String)> = index["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap().to_string(),
                o["contract"]["ref"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let all = ok(env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["document.open", "document.edit"]}),
    ));
    assert_eq!(all["complete"], true);
    assert!(all["nextCursor"].is_null());
    let objs = all["objects"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = objs
        .iter()
        .map(|o| (o["kind"].as_str().unwrap(), o["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("skill", "documents"),
            ("contract", "document.open"),
            ("contract", "document.edit")
        ]
    );
    // Refs are the SHA-256 of the exact bodies, and the index names the same contracts.
    let skill = objs[0]["body"].as_str().unwrap();
    assert!(skill.contains("expectedVersion"));
    assert_eq!(
        objs[0]["ref"],
        format!("sha256:{}", sha256_hex(skill.as_bytes()))
    );
    for o in &objs[1..] {
        let body = &o["body"];
        assert_eq!(
            o["ref"],
            format!("sha256:{}", sha256_hex(body.to_string().as_bytes()))
        );
        let indexed = refs.iter().find(|(n, _)| o["name"] == n.as_str()).unwrap();
        assert_eq!(o["ref"], indexed.1.as_str());
        let req = &body["request"];
        assert!(req["properties"].get("projectId").is_none());
        assert!(!req["required"]
            .as_array()
            .unwrap()
            .contains(&json!("projectId")));
        assert!(
            req["properties"].get("documentId").is_some()
                || req["properties"].get("path").is_some()
        );
    }
    // The contract ref works as the Rho-Contract precondition.
    std::fs::write(env.dir.join("a.txt"), "x").unwrap();
    let open_ref = objs[1]["ref"].as_str().unwrap();
    let (status, r) =
        env.agent_call_with_contract(&token, "document.open", open_ref, json!({"path": "a.txt"}));
    assert_eq!(status, 200, "{r}");
    // knownRefs: the body is omitted.
    let known = ok(env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["document.open"], "knownRefs": [objs[0]["ref"]]}),
    ));
    let k = &known["objects"][0];
    assert_eq!(
        (k["known"].clone(), k.get("body").is_none()),
        (json!(true), true)
    );
    assert!(known["objects"][1]["body"].is_object());
    // A first object that does not fit: requiredBytes, complete false, and its cursor continues.
    let small = ok(env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["document.edit"], "maxBytes": 300}),
    ));
    assert_eq!(small["complete"], false);
    assert_eq!(small["objects"], json!([]));
    let need = small["requiredBytes"].as_u64().unwrap();
    assert!(need > 300);
    let cur = small["nextCursor"].as_str().unwrap();
    let fit = ok(env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["document.edit"], "maxBytes": need, "cursor": cur}),
    ));
    assert_eq!(fit["objects"][0]["kind"], "skill");
    // One object a page: continuing with knownRefs naming bodies earlier pages gave is the same continuation.
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    let mut held: Vec<String> = Vec::new();
    loop {
        let mut body = json!({"operations": ["document.open", "document.edit", "document.read"], "maxBytes": 2500, "knownRefs": held});
        if let Some(c) = &cursor {
            body["cursor"] = json!(c);
        }
        let page = ok(env.agent_call(&token, "capability.resolve", body));
        for o in page["objects"].as_array().unwrap() {
            seen.push(o["name"].as_str().unwrap().to_string());
            held.push(o["ref"].as_str().unwrap().to_string());
        }
        if page["complete"] == true {
            break;
        }
        assert!(page["objects"].as_array().unwrap().len() <= 2, "{page}");
        cursor = Some(
            page["nextCursor"]
                .as_str()
                .expect("a continuation")
                .to_string(),
        );
    }
    assert_eq!(
        seen,
        [
            "documents",
            "document.open",
            "document.edit",
            "document.read"
        ]
    );
    // Limits: 16 operations, 128 known refs, 64 KiB budget; outside the grant; unknown.
    let many: Vec<String> = (0..17).map(|i| format!("op{i}")).collect();
    let (status, r) = env.agent_call(&token, "capability.resolve", json!({"operations": many}));
    assert_eq!(
        (status, r["error"]["details"]["limit"].clone()),
        (429, json!("layeredGrantLimits.maxEntries"))
    );
    let refs: Vec<String> = (0..129).map(|i| format!("sha256:{i}")).collect();
    let (status, r) = env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["document.open"], "knownRefs": refs}),
    );
    assert_eq!(
        (status, r["error"]["details"]["limit"].clone()),
        (429, json!("layeredGrantLimits.maxKnownRefs"))
    );
    assert_eq!(
        env.agent_call(
            &token,
            "capability.resolve",
            json!({"operations": ["document.open"], "maxBytes": 70000})
        )
        .0,
        400
    );
    assert_eq!(
        env.agent_call(
            &token,
            "capability.resolve",
            json!({"operations": ["document.save"]})
        )
        .0,
        403
    );
    assert_eq!(
        env.agent_call(
            &token,
            "capability.resolve",
            json!({"operations": ["no.such"]})
        )
        .0,
        404
    );
    // index/resolve/report are implicit: never listed in the grant.
    let snap = env.snapshot();
    assert_eq!(snap["agents"][0]["methods"].as_array().unwrap().len(), 4);
}

#[test]
fn the_default_grant_follows_the_selected_owners() {
    let env = Env::start(&["--plugins", "documents"], None, "sel");
    let g = env.grant("d", None);
    let methods: Vec<&str> = g["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(methods.contains(&"document.open") && methods.contains(&"project.entries"));
    assert!(
        methods
            .iter()
            .all(|m| m.starts_with("document.") || *m == "project.entries"),
        "{methods:?}"
    );
    // An unselected owner's operation cannot be granted.
    let (status, r) = env.service.call(
        "session.grant",
        json!({"projectId": env.project, "session": "x", "methods": ["resource.list"]}),
    );
    assert_eq!(status, 503, "{r}");
    assert_eq!(r["error"]["details"]["missing"], json!(["files"]));
    let token = env.token("d");
    let owners = ok(env.agent_call(&token, "capability.index", json!({})))["owners"].clone();
    let names: Vec<&str> = owners
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["owner"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["documents", "service"]);
}
