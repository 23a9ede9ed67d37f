//! The Notebook owner `kernel` through the real `rho` (issue 15): its operations published,
//! validated before anything is journaled, its limits in `--limits`, its Agent grants. Live
//! sessions are `kernel_live`; places (issue 19) are `places`.

use crate::support::Env;
use serde_json::{json, Value};

const LOCAL: &[&str] = &[
    "kernel.run",
    "kernel.read",
    "kernel.inspect",
    "kernel.plot",
    "kernel.interrupt",
    "kernel.stop",
];
const REMOTE: &[&str] = &[
    "kernel.places",
    "kernel.place.set",
    "kernel.place.check",
    "kernel.place.list",
    "kernel.place.copy",
    "kernel.servers",
    "kernel.server.skill",
];

fn run_body(change: &str, code: &str) -> Value {
    json!({"language": "r", "code": code, "changeId": change, "waitMs": 1000})
}

#[test]
fn every_kernel_operation_is_published_and_places_answer_without_a_server() {
    let e = Env::data(None, None, "kernel");
    // Every page of the index (another owner's operations may push these past the first).
    let mut text = String::new();
    let mut body = json!({});
    loop {
        let (status, index) = e.service.call("protocol.describe", body.clone());
        assert_eq!(status, 200, "{index}");
        text.push_str(&index.to_string());
        match index["value"]["next"].as_str() {
            Some(next) => body = json!({"cursor": next}),
            None => break,
        }
    }
    for op in LOCAL.iter().chain(REMOTE) {
        assert!(text.contains(&format!("\"{op}\"")), "{op} is not published");
    }
    // This machine is always a place; a request without its fields is refused by name.
    let places = e.ok("kernel.places", json!({}));
    assert_eq!(places["places"][0]["name"], "local", "{places}");
    for op in REMOTE[1..].iter().filter(|op| **op != "kernel.servers") {
        let (status, err) = e.err(op, json!({}));
        assert_eq!(
            (status, err["code"].as_str()),
            (400, Some("invalid")),
            "{op}: {err}"
        );
    }
    // No serverctl on this service's PATH: the servers are unavailable, naming it.
    let (status, err) = e.err("kernel.servers", json!({}));
    assert_eq!(
        (status, err["code"].as_str()),
        (503, Some("unavailable")),
        "{err}"
    );
    assert!(
        err["message"].as_str().unwrap().contains("--serverctl"),
        "{err}"
    );
}

#[test]
fn kernel_requests_are_validated_before_anything_is_journaled_or_started() {
    let e = Env::data(Some(json!({"kernel": {"maxCodeBytes": 8}})), None, "kernel");
    let read = e.ok("kernel.read", json!({}));
    assert_eq!(
        read,
        json!({"sessions": [], "cells": [], "next": null, "interpreters": []})
    );
    let (_, err) = e.err("kernel.run", run_body("a", "123456789"));
    assert_eq!(err["code"], "invalid", "{err}");
    assert_eq!(err["details"]["field"], "code", "{err}");
    let (_, err) = e.err("kernel.run", run_body("", "1+1"));
    assert_eq!(err["details"]["field"], "changeId", "{err}");
    let mut outside = run_body("b", "1+1");
    outside["interpreter"] = json!("../python3");
    let (_, err) = e.err("kernel.run", outside);
    assert_eq!(err["details"]["field"], "interpreter", "{err}");
    // Nothing was journaled by a refused cell, and nothing started a session.
    assert_eq!(e.ok("kernel.read", json!({}))["cells"], json!([]));
    let inspect = e.ok(
        "kernel.inspect",
        json!({"language": "python", "path": "df"}),
    );
    assert_eq!(inspect["answer"], "none", "{inspect}");
    let (_, err) = e.err(
        "kernel.inspect",
        json!({"language": "r", "path": "df", "rows": 201}),
    );
    assert_eq!(err["details"]["field"], "rows", "{err}");
    let (_, err) = e.err("kernel.interrupt", json!({"cellId": "nope"}));
    assert_eq!(err["code"], "not_found", "{err}");
    let (_, err) = e.err("kernel.plot", json!({"cellId": "nope", "index": 0}));
    assert_eq!(err["code"], "not_found", "{err}");
    let (_, err) = e.err("kernel.read", json!({"cellId": "nope"}));
    assert_eq!(err["code"], "not_found", "{err}");
    // kernel.stop is the local browser's only: the operator is refused.
    let (status, err) = e.err("kernel.stop", json!({"sessionId": "s"}));
    assert_eq!(
        (status, err["code"].as_str()),
        (403, Some("forbidden")),
        "{err}"
    );
}

#[test]
fn a_limits_file_lowers_kernel_limits_and_the_snapshot_shows_every_one() {
    let e = Env::data(
        Some(json!({"kernel": {"maxQueued": 4, "maxEndedSessions": 3}})),
        None,
        "kernel",
    );
    let v = e.snapshot();
    let kernel = &v["limits"]["kernel"];
    assert_eq!(
        (
            kernel["maxQueued"].as_u64(),
            kernel["maxEndedSessions"].as_u64()
        ),
        (Some(4), Some(3)),
        "{v}"
    );
    for key in [
        "maxCodeBytes",
        "maxOutputBytes",
        "maxPlots",
        "maxPlotBytes",
        "maxCells",
        "maxVariables",
        "inspectRows",
        "inspectSortRows",
        "inspectTimeoutMs",
        "inspectGiveUpMs",
        "maxWaitMs",
        "startTimeoutMs",
        "stopGraceMs",
        "maxPlaces",
        "remoteStartTimeoutMs",
        "serverctlSessionS",
        "remoteCopyBytes",
        "maxCopies",
    ] {
        assert!(kernel[key].is_u64(), "{key} in {kernel}");
    }
}

#[test]
fn an_agent_grant_receives_run_read_inspect_plot_interrupt_and_never_stop_or_the_remote_ones() {
    let e = Env::data(None, None, "kernel");
    let v = e.grant("claude-code", None);
    let methods: Vec<&str> = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| m.starts_with("kernel."))
        .collect();
    assert_eq!(
        methods,
        [
            "kernel.inspect",
            "kernel.interrupt",
            "kernel.plot",
            "kernel.read",
            "kernel.run"
        ]
    );
    let token = e.token("claude-code");
    let (status, r) = e.agent_call(&token, "kernel.read", json!({}));
    assert_eq!(status, 200, "{r}");
    let (status, r) = e.agent_call(&token, "kernel.stop", json!({"sessionId": "s"}));
    assert_eq!(status, 403, "{r}");
}

#[test]
fn without_the_kernel_owner_new_cells_are_unavailable_naming_it_and_reads_keep_working() {
    let e = Env::data(None, Some("files"), "kernel");
    let (_, err) = e.err("kernel.run", run_body("a", "1+1"));
    assert_eq!(err["code"], "unavailable", "{err}");
    assert_eq!(err["details"]["missing"], json!(["kernel"]), "{err}");
    assert_eq!(e.ok("kernel.read", json!({}))["cells"], json!([]));
}
