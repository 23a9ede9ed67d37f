//! Owner gating after the identity (CONVENTIONS, Owner selection; issue 12): a write accepted
//! under one `--plugins` selection and retried after a restart with its owner unselected returns
//! its original reply; the same write under a new identity is `unavailable` naming the owner.

use crate::support::Env;
use serde_json::{json, Value};

/// One accepted write: its operation, body and reply, and the owner a new identity needs.
struct Accepted {
    op: &'static str,
    body: Value,
    reply: Value,
    identity: &'static str,
    owner: &'static str,
}

fn accept(
    e: &Env,
    op: &'static str,
    body: Value,
    identity: &'static str,
    owner: &'static str,
) -> Accepted {
    let reply = e.ok(op, body.clone());
    Accepted {
        op,
        body,
        reply,
        identity,
        owner,
    }
}

#[test]
fn a_retry_after_its_owner_is_unselected_returns_the_original_and_new_work_is_unavailable() {
    let mut e = Env::runs(&[], &[]);
    std::fs::write(e.dir.join("notes.txt"), "hello").unwrap();
    std::fs::write(e.dir.join("data.csv"), "k,v\n1,2\n").unwrap();
    let doc = e.ok("document.open", json!({"path": "notes.txt"}));
    let script = e.script("a.R", "cat('ok\\n')\n");
    let submit = e.submit_body("run-1", json!({"script": script}));
    let mut accepted = vec![
        accept(
            &e,
            "document.edit",
            json!({"documentId": doc["id"], "expectedVersion": doc["version"],
            "edits": [{"start": 5, "end": 5, "text": "!"}], "changeId": "edit-1"}),
            "changeId",
            "documents",
        ),
        accept(
            &e,
            "resource.register",
            json!({"path": "data.csv", "kind": "table", "format": "csv",
            "changeId": "reg-1"}),
            "changeId",
            "files",
        ),
        accept(
            &e,
            "selection.set",
            json!({"scope": "shared", "namespace": "genes", "keys": ["a", "b"],
            "changeId": "sel-1"}),
            "changeId",
            "tables",
        ),
        accept(
            &e,
            "binding.open",
            json!({"label": "my agent", "client": "mcp", "session": "s-1",
            "changeId": "bind-1"}),
            "changeId",
            "agent",
        ),
        accept(&e, "action.submit", submit, "operationId", "r"),
    ];
    assert_eq!(e.wait_end("run-1", 60)["exit"]["exitCode"], 0);
    accepted.push(accept(
        &e,
        "action.export",
        json!({"operationId": "run-1", "exportId": "exp-1"}),
        "exportId",
        "files",
    ));

    e.restart(&["--plugins", ""]);
    for a in &accepted {
        let retried = e.ok(a.op, a.body.clone());
        // A run is answered as it stands now; every other retry is its reply byte for byte.
        if a.op == "action.submit" {
            assert_eq!(retried["operationId"], "run-1", "{retried}");
        } else {
            assert_eq!(retried, a.reply, "{} retried", a.op);
        }
        let mut fresh = a.body.clone();
        fresh[a.identity] = json!(format!("{}-new", a.body[a.identity].as_str().unwrap()));
        let (status, err) = e.err(a.op, fresh);
        assert_eq!(
            (
                status,
                err["code"].as_str(),
                err["details"]["missing"].clone()
            ),
            (503, Some("unavailable"), json!([a.owner])),
            "{}: {err}",
            a.op
        );
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains(&format!("owner {} is not available", a.owner)),
            "{err}"
        );
    }
    // Reads of an unselected owner are refused before their handler.
    let (status, err) = e.err("data.page", json!({"resource": {"id": accepted[1].reply["id"], "version": 1}, "offset": 0, "limit": 10}));
    assert_eq!(
        (status, err["details"]["missing"].clone()),
        (503, json!(["tables"])),
        "{err}"
    );
}
