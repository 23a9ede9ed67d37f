//! What the work panels need from the service (issue 14, gaps 5, 6, 7, 10): `run.output` as a log grows, `grant.changed`,
//! the snapshot's caller, `context.list` (also over an Agent grant), the media rectangle's origin, and `rho.media` rendered.

use crate::support::{http_raw, Env, Events, PDF_400X200};
use serde_json::{json, Value};

/// One call as the local browser (no credential): (status, envelope).
fn local(env: &Env, op: &str, mut body: Value) -> (u16, Value) {
    body["projectId"] = json!(env.project);
    let path = format!("/api/v2/{op}");
    let (status, _, bytes) = http_raw(
        env.service.port(),
        "POST",
        &path,
        None,
        &[],
        &body.to_string(),
    );
    (status, serde_json::from_slice(&bytes).unwrap_or_default())
}

#[test]
fn a_growing_log_is_announced_rate_bounded_and_without_its_bytes() {
    let e = Env::runs(&[], &[]);
    let port = e.service.port();
    let events = Events::open(port, &format!("?projectId={}", e.project), None);
    let listener = std::thread::spawn(move || {
        let mut out: Vec<(std::time::Instant, Value)> = Vec::new();
        let mut events = events;
        // Until 5 s pass without a frame (the stream's read timeout) after the run's last event.
        let end = std::time::Instant::now() + std::time::Duration::from_secs(40);
        while std::time::Instant::now() < end {
            let Some((_, kind, data)) = events.next_frame() else {
                break;
            };
            if kind == "run.output" {
                out.push((std::time::Instant::now(), data));
            }
        }
        out
    });
    let script = e.script(
        "grow.R",
        "for (i in 1:8) { cat(strrep('x', 100), '\\n'); flush(stdout()); Sys.sleep(0.3) }\nmessage('bye')\n",
    );
    e.ok(
        "action.submit",
        e.submit_body("grow-1", json!({"script": script})),
    );
    e.wait_end("grow-1", 60);
    let seen = listener.join().unwrap();
    let stdout: Vec<&(std::time::Instant, Value)> = seen
        .iter()
        .filter(|(_, d)| d["stream"] == "stdout")
        .collect();
    assert!(
        stdout.len() >= 3,
        "the log was announced as it grew: {seen:?}"
    );
    for (_, d) in &seen {
        assert_eq!(d["operationId"], "grow-1");
        assert_eq!(d["projectId"], e.project.as_str());
        assert!(d.get("bytes").is_none(), "no bytes in the event: {d}");
    }
    // Lengths only grow, and the last one is the whole log.
    let lengths: Vec<u64> = stdout
        .iter()
        .map(|(_, d)| d["length"].as_u64().unwrap())
        .collect();
    assert!(lengths.windows(2).all(|w| w[0] < w[1]), "{lengths:?}");
    let page = e.ok(
        "action.output",
        json!({"operationId": "grow-1", "stream": "stdout"}),
    );
    assert_eq!(lengths.last().copied(), page["size"].as_u64());
    // Rate bound: two announcements of one stream are at least ~250 ms apart.
    for w in stdout.windows(2) {
        let gap = w[1].0.duration_since(w[0].0);
        assert!(gap.as_millis() >= 150, "announced {gap:?} apart");
    }
    assert!(seen.iter().any(|(_, d)| d["stream"] == "stderr"));
}

#[test]
fn grant_changes_are_announced_and_the_snapshot_names_its_caller() {
    let env = Env::start(&[], None, "g");
    let port = env.service.port();
    let events = Events::open(port, &format!("?projectId={}", env.project), None);
    let listener = std::thread::spawn(move || events.of_kind("grant.changed", 2));
    env.grant("helper", None);
    let (status, v) = env.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "helper"}),
    );
    assert_eq!(status, 200, "{v}");
    let seen = listener.join().unwrap();
    let changes: Vec<(&str, &str)> = seen
        .iter()
        .map(|d| {
            (
                d["session"].as_str().unwrap(),
                d["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(changes, [("helper", "granted"), ("helper", "revoked")]);
    for d in &seen {
        assert_eq!(d["principal"], "agent:helper");
        let text = d.to_string();
        assert!(!text.contains("token") && !text.contains("rho_"), "{text}");
    }

    // The local browser and the operator: every project.
    let (status, snap) = local(&env, "observation.snapshot", json!({}));
    assert_eq!(status, 200, "{snap}");
    assert_eq!(
        snap["value"]["caller"],
        json!({"folder": null, "kind": "local", "principal": "local", "projectId": null})
    );
    assert_eq!(env.snapshot()["caller"]["kind"], "operator");
    // An Agent: its session and its one project.
    env.grant("reader", Some(&["project.entries", "observation.snapshot"]));
    let token = env.token("reader");
    let (status, v) = env.agent_call(&token, "observation.snapshot", json!({}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["caller"]["kind"], "agent");
    assert_eq!(v["value"]["caller"]["principal"], "agent:reader");
    assert_eq!(v["value"]["caller"]["projectId"], env.project.as_str());
}

#[test]
fn a_persons_contexts_are_listed_newest_first_and_found_by_the_agent() {
    let env = Env::start(&[], None, "c");
    let r = env.put("fig.pdf", PDF_400X200, json!({"media": {"format": "pdf"}}));
    let rect = |x: f64| json!({"x": x, "y": 0.0, "width": 10.0, "height": 20.0});
    for (i, x) in [0.0, 100.0, 395.0].iter().enumerate() {
        let body = json!({"changeId": format!("c{i}"), "media": {"resource": r, "page": 1, "units": "pt", "rect": rect(*x)}});
        let (status, v) = local(&env, "context.create", body);
        if *x == 395.0 {
            // Past the right edge of the 400 pt page (the origin is the top-left corner).
            assert_eq!(status, 400, "{v}");
        } else {
            assert_eq!(status, 200, "{v}");
        }
    }
    let (status, v) = local(
        &env,
        "context.create",
        json!({"changeId": "e1", "entities": {"namespace": "n", "keys": ["a"]}}),
    );
    assert_eq!(status, 200, "{v}");

    env.grant("finder", None);
    let token = env.token("finder");
    // The Agent's own context is not the person's.
    let (status, v) = env.agent_call(
        &token,
        "context.create",
        json!({"changeId": "a1", "entities": {"namespace": "n", "keys": ["b"]}}),
    );
    assert_eq!(status, 200, "{v}");

    // The default grant has it, and the Agent resolves its contract (what the MCP adapter serves as a tool).
    let (status, resolved) = env.agent_call(
        &token,
        "capability.resolve",
        json!({"operations": ["context.list"]}),
    );
    assert_eq!(status, 200, "{resolved}");
    let text = resolved.to_string();
    assert!(
        text.contains("newest first") && text.contains("principal"),
        "{text}"
    );
    // Through the Agent's grant: only what `local` pointed at.
    let (status, v) = env.agent_call(&token, "context.list", json!({"principal": "local"}));
    assert_eq!(status, 200, "{v}");
    let list = &v["value"];
    let contexts = list["contexts"].as_array().unwrap();
    assert_eq!(contexts.len(), 3, "{list}");
    assert!(contexts.iter().all(|c| c["createdBy"] == "local"));
    // Newest first: the entities context, then the rectangle at x 100, then at x 0.
    assert!(contexts[0]["entities"].is_object());
    assert_eq!(contexts[1]["media"]["rect"]["x"], 100.0);
    assert_eq!(contexts[2]["media"]["rect"]["x"], 0.0);
    assert_eq!(list["more"], false);
    // One whole context by id, as context.read gives it.
    let id = contexts[1]["contextId"].as_str().unwrap();
    let (_, read) = env.agent_call(&token, "context.read", json!({"contextId": id}));
    assert_eq!(read["value"], contexts[1]);

    // Everyone's, bounded by limit.
    let all = env.ok("context.list", json!({"limit": 2}));
    assert_eq!(all["contexts"].as_array().unwrap().len(), 2);
    assert_eq!(all["more"], true);
    assert_eq!(all["contexts"][0]["createdBy"], "agent:finder");
    for bad in [
        json!({"limit": 0}),
        json!({"limit": 101}),
        json!({"principal": ""}),
    ] {
        let (status, v) = env.call("context.list", bad);
        assert_eq!(status, 400, "{v}");
    }
}

#[test]
fn the_contract_states_the_rectangle_origin_and_media_is_rendered_in_the_browser() {
    let env = Env::start(&[], None, "m");
    let (status, v) = env
        .service
        .call("protocol.describe", json!({"operation": "context.create"}));
    assert_eq!(status, 200, "{v}");
    let text = v.to_string();
    assert!(text.contains("origin top-left, y down"), "{text}");
    assert!(text.contains("not PDF user space"), "{text}");
    let caps = env.caps();
    let entries = caps["entries"].as_array().cloned().unwrap_or_default();
    let media = entries.iter().find(|e| e["name"] == "rho.media");
    assert_eq!(
        media.map(|m| m["browserRenderer"].clone()),
        Some(Value::Bool(true)),
        "{caps}"
    );
}
