//! The Agent's edits reach the open buffers (Claude Code writes files with its own tools,
//! outside Rho's buffers): a clean buffer takes the file's new text as one edit by the
//! conversation's Agent, announced on the event stream; a buffer with unsaved changes is left
//! and marked changed on disk, and saving it is then the conflict it always was.

use crate::support::conversations::conv_env;
use crate::support::http::Events;
use crate::support::poll::until;
use serde_json::json;
use std::time::Duration;

#[test]
fn the_agents_writes_reload_clean_buffers_and_mark_dirty_ones() {
    let Some(c) = conv_env("conv-edits", 2) else {
        return;
    };
    let clean = c.env.dir.join("notes.txt");
    let dirty = c.env.dir.join("draft.txt");
    std::fs::write(&clean, "before\n").unwrap();
    std::fs::write(&dirty, "draft\n").unwrap();
    let open = |path: &str| {
        let (status, v) = c.env.local("document.open", json!({"path": path}));
        assert_eq!(status, 200, "{v}");
        v["value"]["id"].as_str().unwrap().to_string()
    };
    let (notes, draft) = (open("notes.txt"), open("draft.txt"));
    let read =
        |id: &str| c.env.local("document.read", json!({"documentId": id})).1["value"].clone();
    let edit = json!({"documentId": draft, "expectedVersion": read(&draft)["version"], "changeId": "mine",
        "edits": [{"start": 0, "end": 0, "text": "my "}]});
    assert_eq!(c.env.local("document.edit", edit).0, 200);
    let events = Events::open(
        c.env.service.port(),
        &format!("?projectId={}", c.env.project),
        None,
    );

    let (conv, m) = c.converse(
        "w1",
        &format!("[[write: {}|after, by the Agent]]", clean.display()),
        json!({"mode": "acceptEdits"}),
    );
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let agent = format!("agent:conversation-{}", &conv.replace('-', "")[..12]);
    let mut doc = read(&notes);
    until(
        "the buffer follows the file",
        Duration::from_secs(10),
        || {
            doc = read(&notes);
            doc["text"] == "after, by the Agent"
        },
    );
    assert_eq!(doc["dirty"], false, "{doc}");
    assert_eq!(doc["changedOnDisk"], json!(null), "{doc}");
    let authors = doc["authors"].as_array().unwrap();
    assert_eq!(
        authors.last().unwrap()["principal"],
        agent.as_str(),
        "{doc}"
    );
    let reloads: Vec<_> = events
        .of_kind("document.changed", 8)
        .into_iter()
        .filter(|d| d["documentId"] == notes.as_str() && d["kind"] == "reload")
        .collect();
    let shown = reloads
        .first()
        .unwrap_or_else(|| panic!("a reload is announced"));
    assert_eq!(shown["author"], agent.as_str(), "{shown}");
    assert!(shown["edits"].is_array(), "it carries its edits: {shown}");
    // Undo takes the Agent's change back like any other edit.
    let (status, v) = c.env.local(
        "document.undo",
        json!({"documentId": notes, "expectedVersion": doc["version"], "changeId": "u1"}),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(read(&notes)["text"], "before\n");

    // A buffer with unsaved changes is left as it is, marked changed on disk.
    let next = c.send(
        &conv,
        "w2",
        &format!("[[write: {}|the Agent's draft]]", dirty.display()),
    );
    let n = c.wait_end(&conv, next["messageId"].as_str().unwrap());
    assert_eq!(n["stopReason"], "end_turn", "{n}");
    let mut d = read(&draft);
    until("the buffer is marked", Duration::from_secs(10), || {
        d = read(&draft);
        d["changedOnDisk"].is_string()
    });
    assert_eq!(d["text"], "my draft\n", "unsaved changes are kept");
    assert_eq!(d["dirty"], true);
    let (status, e) = c.env.local(
        "document.save",
        json!({"documentId": draft, "expectedVersion": d["version"], "changeId": "s1"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "saving over the Agent's file is the person's choice: {e}"
    );
    assert_eq!(
        std::fs::read_to_string(&dirty).unwrap(),
        "the Agent's draft"
    );
}
