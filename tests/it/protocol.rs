//! The published contract: `protocol/index.json` and one hashed file per operation must match the code.
//!
//! Regenerate with `RHO_UPDATE_PROTOCOL=1 cargo test -p rho --test it protocol::`.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).

use rho_actors::contract::registry;
use std::collections::BTreeSet;
use std::path::Path;

fn expected() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut index = Vec::new();
    for op in registry::all() {
        let contract = registry::contract_json(&op);
        let hash = registry::contract_hash(&op);
        let file = format!("operations/{}.{}.json", op.name, &hash[..16]);
        files.push((
            file.clone(),
            serde_json::to_string_pretty(&contract).unwrap() + "\n",
        ));
        index.push(serde_json::json!({
            "name": op.name,
            "version": op.version,
            "owner": op.owner.map_or("service", |o| o.name()),
            "effect": op.effect,
            "hash": format!("sha256:{hash}"),
            "file": file,
        }));
    }
    let doc = serde_json::json!({"apiVersion": "2.0", "operations": index});
    files.push((
        "index.json".to_string(),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    ));
    files
}

#[test]
fn protocol_files_match_the_declared_contracts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol");
    let want = expected();
    if std::env::var_os("RHO_UPDATE_PROTOCOL").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("operations")).unwrap();
        for (name, text) in &want {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut stale = Vec::new();
    for (name, text) in &want {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(have) if &have == text => {}
            _ => stale.push(name.clone()),
        }
    }
    let wanted: BTreeSet<String> = want.iter().map(|(n, _)| n.clone()).collect();
    let extra: Vec<String> = std::fs::read_dir(dir.join("operations"))
        .map(|d| {
            d.flatten()
                .map(|e| format!("operations/{}", e.file_name().to_string_lossy()))
                .filter(|n| !wanted.contains(n))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "protocol/ is stale (missing or different: {stale:?}; no longer declared: {extra:?}); \
         regenerate with RHO_UPDATE_PROTOCOL=1 cargo test -p rho --test it protocol::"
    );
}

#[test]
fn every_declared_operation_has_a_unique_name_and_a_closed_request_schema() {
    let ops = registry::all();
    let names: BTreeSet<&str> = ops.iter().map(|o| o.name).collect();
    assert_eq!(names.len(), ops.len());
    for op in ops {
        let schema = (op.request)();
        let v = serde_json::to_value(&schema).unwrap();
        if v["type"] == "object" {
            assert_eq!(
                v["additionalProperties"], false,
                "{} accepts unknown fields",
                op.name
            );
        }
    }
}

/// A schema that accepts any JSON: no type, shape, reference, combination or value named.
fn accepts_anything(schema: &serde_json::Value) -> bool {
    match schema {
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Object(m) => m
            .keys()
            .all(|k| matches!(k.as_str(), "$schema" | "title" | "description" | "$defs")),
        _ => false,
    }
}

#[test]
fn every_declared_operation_publishes_a_real_response_schema() {
    // No operation publishes its reply as any JSON.
    const UNTYPED: &[&str] = &[];
    assert!(accepts_anything(&serde_json::json!({"title": "AnyValue"})));
    assert!(!accepts_anything(&serde_json::json!({"type": "object"})));
    let mut untyped = Vec::new();
    for op in registry::all() {
        let schema = serde_json::to_value((op.response)()).unwrap();
        if accepts_anything(&schema) {
            untyped.push(op.name);
        }
    }
    assert_eq!(
        untyped, UNTYPED,
        "these operations publish their reply as any JSON: give them a reply type"
    );
}

#[test]
fn the_reply_check_of_the_test_client_refuses_a_reply_its_schema_does_not_describe() {
    use crate::support::contract::check_reply;
    let good = br#"{"apiVersion":"2.0","ok":true,"value":{"accepted":true}}"#;
    check_reply("POST", "/api/v2/activity.report", 200, good);
    let wrong_type = br#"{"apiVersion":"2.0","ok":true,"value":{"accepted":"yes"}}"#;
    let missing = br#"{"apiVersion":"2.0","ok":true,"value":{"records":[]}}"#;
    for bad in [&wrong_type[..], &missing[..]] {
        let r =
            std::panic::catch_unwind(|| check_reply("POST", "/api/v2/binding.activity", 200, bad));
        assert!(r.is_err(), "accepted {}", String::from_utf8_lossy(bad));
    }
    let r = std::panic::catch_unwind(|| {
        check_reply("POST", "/api/v2/activity.report", 200, wrong_type)
    });
    assert!(r.is_err());
    // A formerly untyped reply must keep sorted keys.
    let unsorted = br#"{"apiVersion":"2.0","ok":true,"value":{"session":"s","bindingId":"b","evicted":0,"nextCursor":null,"oldestSeq":1,"records":[]}}"#;
    let r =
        std::panic::catch_unwind(|| check_reply("POST", "/api/v2/binding.activity", 200, unsorted));
    assert!(r.is_err());
    let sorted = br#"{"apiVersion":"2.0","ok":true,"value":{"bindingId":"b","evicted":0,"nextCursor":null,"oldestSeq":1,"records":[],"session":"s"}}"#;
    check_reply("POST", "/api/v2/binding.activity", 200, sorted);
}
