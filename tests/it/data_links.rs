//! What the browser links tables and charts by: `data.page`'s key-set filter and column choice, `selection.read`, and the keys `selection.changed` carries.

use crate::support::http::Events;
use crate::support::Env;
use serde_json::{json, Value};

fn keyed_table(e: &Env) -> Value {
    let mut csv = String::from("id,x,label\n");
    for i in 0..50 {
        csv.push_str(&format!(
            "k{i},{},{}\n",
            i * 2,
            if i % 5 == 0 { "NA" } else { "w" }
        ));
    }
    std::fs::write(e.dir.join("t.csv"), csv).unwrap();
    let r = e.ok(
        "resource.register",
        json!({"changeId": "t1", "path": "t.csv", "kind": "table", "format": "csv", "table": {
            "format": "csv", "key": {"column": "id", "namespace": "gene"}, "columns": [
            {"name": "id", "type": "string"}, {"name": "x", "type": "integer"},
            {"name": "label", "type": "string", "missing": ["NA"]}]}}),
    );
    json!({"id": r["id"], "version": r["version"]})
}

fn keys(page: &Value) -> Vec<String> {
    page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn data_page_filters_by_a_key_set_and_returns_chosen_columns() {
    let e = Env::data(None, None, "links");
    let r = keyed_table(&e);
    // Keys in any order, repeated or unknown: the rows of the known ones, sorted as asked.
    let page = e.ok(
        "data.page",
        json!({"resource": r, "offset": 0, "limit": 10,
        "filter": [{"column": "id", "op": "in", "value": ["k7", "k3", "nope", "k3", "k40"]}],
        "sort": [{"column": "x", "descending": true}], "columns": ["x", "id"]}),
    );
    assert_eq!(page["total"], 3);
    assert_eq!(keys(&page), ["k40", "k7", "k3"]);
    assert_eq!(page["rows"][0]["cells"], json!({"x": 80, "id": "k40"}));
    assert_eq!(
        page["rows"][2]["cells"],
        json!({"x": 6, "id": "k3"}),
        "only the columns asked, in every row"
    );
    assert_eq!(page["query"]["columns"], json!(["x", "id"]));
    // A key set combines with the other filters.
    let both = e.ok(
        "data.page",
        json!({"resource": r, "offset": 0, "limit": 10,
        "filter": [{"column": "id", "op": "in", "value": ["k5", "k6", "k10"]},
                   {"column": "label", "op": "missing"}]}),
    );
    assert_eq!(keys(&both), ["k5", "k10"]);
    // Without columns, every column, as before.
    let all = e.ok("data.page", json!({"resource": r, "offset": 0, "limit": 1}));
    assert_eq!(
        all["rows"][0]["cells"],
        json!({"id": "k0", "x": 0, "label": null})
    );
    assert!(all["query"].get("columns").is_none());

    // Refusals name what is wrong.
    let (status, err) = e.err(
        "data.page",
        json!({"resource": r, "offset": 0, "limit": 1, "columns": ["x", "nope"]}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        (
            err["details"]["field"].as_str(),
            err["details"]["index"].as_u64()
        ),
        (Some("columns"), Some(1))
    );
    assert!(err["message"].as_str().unwrap().contains("nope"), "{err}");
    let (status, err) = e.err(
        "data.page",
        json!({"resource": r, "offset": 0, "limit": 1,
        "filter": [{"column": "label", "op": "in", "value": ["w"]}]}),
    );
    assert_eq!(status, 400);
    assert!(
        err["message"].as_str().unwrap().contains("key column"),
        "{err}"
    );
    let (status, _) = e.err(
        "data.page",
        json!({"resource": r, "offset": 0, "limit": 1,
        "filter": [{"column": "id", "op": "in", "value": "k1"}]}),
    );
    assert_eq!(status, 400);
    let many: Vec<String> = (0..10_001).map(|i| format!("k{i}")).collect();
    let (status, err) = e.err(
        "data.page",
        json!({"resource": r, "offset": 0, "limit": 1,
        "filter": [{"column": "id", "op": "in", "value": many}]}),
    );
    assert_eq!(
        (status, err["details"]["limit"].as_str()),
        (429, Some("selection.maxKeys"))
    );
}

#[test]
fn selections_are_read_back_and_announced_with_their_keys() {
    let e = Env::data(None, None, "sel");
    let never = e.ok(
        "selection.read",
        json!({"scope": "shared", "namespace": "gene"}),
    );
    assert_eq!(
        (never["version"].as_u64(), never["keys"].clone()),
        (Some(0), json!([]))
    );
    assert!(never.get("principal").is_none());

    let port = e.service.port();
    let events = Events::open(port, &format!("?projectId={}", e.project), None);
    let listener = std::thread::spawn(move || events.of_kind("selection.changed", 2));
    e.ok(
        "selection.set",
        json!({"changeId": "s1", "scope": "view", "viewId": "v1", "namespace": "gene", "keys": ["b", "a"]}),
    );
    // Over the event's bound the keys are left out (null), and selection.read serves them.
    let big: Vec<String> = (0..2_000).map(|i| format!("key-{i:05}")).collect();
    e.ok(
        "selection.set",
        json!({"changeId": "s2", "scope": "shared", "namespace": "gene", "keys": big}),
    );
    let seen = listener.join().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (&seen[0]["scope"], &seen[0]["holder"], &seen[0]["keys"]),
        (&json!("view"), &json!("v1"), &json!(["b", "a"]))
    );
    assert_eq!(
        (&seen[1]["scope"], &seen[1]["keys"], &seen[1]["version"]),
        (&json!("shared"), &Value::Null, &json!(1))
    );

    let view = e.ok(
        "selection.read",
        json!({"scope": "view", "viewId": "v1", "namespace": "gene"}),
    );
    assert_eq!(
        (
            view["keys"].clone(),
            view["version"].as_u64(),
            view["holder"].as_str()
        ),
        (json!(["b", "a"]), Some(1), Some("v1"))
    );
    assert_eq!(view["principal"], "operator", "the test client's principal");
    let shared = e.ok(
        "selection.read",
        json!({"scope": "shared", "namespace": "gene"}),
    );
    assert_eq!(shared["keys"], json!(big));
    // Another namespace, or the caller's own scope, is a different selection.
    let other = e.ok(
        "selection.read",
        json!({"scope": "caller", "namespace": "gene"}),
    );
    assert_eq!(other["version"], 0);
    let (status, _) = e.err(
        "selection.read",
        json!({"scope": "view", "namespace": "gene"}),
    );
    assert_eq!(status, 400);
}
