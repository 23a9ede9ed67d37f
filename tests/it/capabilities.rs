//! `capability.list` names the actions (issue 13, seed 003 line 14): `r.execute` 0.2.0 when its
//! owner, Requirements, a Core and an Rscript are available; otherwise it is listed in
//! `unavailableActions` with what is missing.

use crate::support::Env;
use serde_json::{json, Value};

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect()
}

fn unavailable_action(caps: &Value, name: &str) -> Value {
    caps["unavailableActions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} is not listed unavailable: {caps}"))
}

#[test]
fn with_every_owner_r_and_a_core_r_execute_is_listed_with_its_version() {
    let e = Env::runs(&[], &[]);
    let caps = e.caps();
    let r = &caps["actions"][0];
    assert_eq!(names(&caps["actions"]), ["r.execute"], "{caps}");
    assert_eq!(
        (&r["version"], &r["owner"], &r["submit"]),
        (&json!("0.2.0"), &json!("r"), &json!("action.submit"))
    );
    assert_eq!(r["needs"], json!(["r", "requirements"]));
    assert_eq!(caps["unavailableActions"], json!([]));
}

#[test]
fn files_and_r_keep_object_reads_and_r_execute_lacks_requirements() {
    let e = Env::runs(&["--plugins", "files,r"], &[]);
    let caps = e.caps();
    assert_eq!(caps["actions"], json!([]), "{caps}");
    let r = unavailable_action(&caps, "r.execute");
    assert_eq!(
        (&r["version"], &r["missing"]),
        (&json!("0.2.0"), &json!(["requirements"]))
    );
    assert_eq!(r["runtimes"], json!([]));
    let unavailable: Vec<&str> = caps["unavailableOperations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["operation"].as_str().unwrap())
        .collect();
    assert!(!unavailable.contains(&"object.read"), "{unavailable:?}");
    assert!(unavailable.contains(&"action.submit"), "{unavailable:?}");
    let r_owner = caps["owners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "r")
        .unwrap();
    assert!(r_owner["operations"]
        .as_array()
        .unwrap()
        .contains(&json!("object.read")));
}

#[test]
fn without_rscript_r_execute_is_unavailable_naming_the_runtime() {
    let e = Env::runs(&[], &[("PATH", "/nonexistent-bin")]);
    let caps = e.caps();
    assert_eq!(caps["actions"], json!([]), "{caps}");
    let r = unavailable_action(&caps, "r.execute");
    assert_eq!(
        (&r["missing"], &r["runtimes"]),
        (&json!([]), &json!(["rscript"]))
    );
    assert!(r["reason"].as_str().unwrap().contains("Rscript"), "{r}");
}
