//! The conversation entity's rules: start once, one running message, facts about an ended
//! message dropped, a crash leaves the running message `unknown`, parts keep the Agent's order,
//! a card keeps one stored image.

use super::entity::*;
use super::launch::Backend;
use super::record::ToolStep;
use crate::entity::{CommandContext, Entity, EventMeta};

fn meta() -> EventMeta {
    EventMeta {
        seq: 1,
        entity_seq: 1,
        time_ms: 5,
        principal: String::new(),
    }
}

fn original(id: &str) -> Original {
    Original {
        message_id: id.into(),
        change_id: format!("c-{id}"),
        text: "hi".into(),
        contexts: Vec::new(),
        backend: Backend::ClaudeAgentAcp,
        sent_ms: 1,
        sent_by: "local".into(),
    }
}

fn run(
    e: &mut ConversationEntity,
    command: ConversationCommand,
) -> Result<usize, crate::error::ActorError> {
    let d = e.decide(&command, &CommandContext::now(crate::Principal::System))?;
    for ev in &d.events {
        e.apply(ev, &meta());
    }
    Ok(d.events.len())
}

fn started() -> ConversationEntity {
    let mut e = ConversationEntity::default();
    let info = Info {
        conversation_id: uuid::Uuid::nil(),
        backend: Backend::ClaudeAgentAcp,
        title: "hi".into(),
        started_ms: 1,
        started_by: "local".into(),
        mode: None,
        agent_session_id: None,
        note: None,
        needs_choice: false,
        pgid: None,
    };
    let start = ConversationCommand::Start {
        info: Box::new(info),
        original: original("m1"),
    };
    assert_eq!(run(&mut e, start.clone()).unwrap(), 2);
    assert!(run(&mut e, start).is_err(), "a conversation starts once");
    e
}

#[test]
fn one_message_runs_at_a_time_and_late_facts_are_dropped() {
    let mut e = started();
    assert_eq!(e.state(), "running");
    let send = ConversationCommand::Send {
        original: original("m2"),
        max_messages: 1000,
        fresh: false,
    };
    let refused = run(&mut e, send.clone()).unwrap_err();
    assert_eq!(refused.to_string(), "a message is running");
    let step = ToolStep {
        id: "t".into(),
        status: "completed".into(),
        ..ToolStep::default()
    };
    let learn = |events| ConversationCommand::Learn { events };
    let facts = vec![
        ConversationEvent::Text {
            message_id: "m1".into(),
            text: "a".into(),
        },
        ConversationEvent::Step {
            message_id: "m1".into(),
            step: step.clone(),
        },
        ConversationEvent::Text {
            message_id: "m1".into(),
            text: "b".into(),
        },
        ConversationEvent::Text {
            message_id: "m1".into(),
            text: "c".into(),
        },
        ConversationEvent::Ended {
            message_id: "m1".into(),
            stop_reason: Some("end_turn".into()),
            usage: None,
            error: None,
            cut: Cut::default(),
        },
    ];
    assert_eq!(run(&mut e, learn(facts)).unwrap(), 5);
    let m = e.message("m1").unwrap();
    assert_eq!(
        m.parts,
        vec![
            Part::Text("a".into()),
            Part::Step("t".into()),
            Part::Text("bc".into())
        ]
    );
    assert_eq!(m.state, MessageState::Ended);
    let late = vec![ConversationEvent::Text {
        message_id: "m1".into(),
        text: "late".into(),
    }];
    assert_eq!(
        run(&mut e, learn(late)).unwrap(),
        0,
        "a fact about an ended message is dropped"
    );
    assert_eq!(run(&mut e, send).unwrap(), 1);
    assert!(
        e.reconcile(0).len() == 1,
        "a running message at a crash is settled"
    );
}

#[test]
fn a_crash_leaves_the_running_message_unknown_with_its_permission_cancelled() {
    let mut e = started();
    let permission = Permission {
        request_id: "m1-1".into(),
        step_id: None,
        title: "touch".into(),
        options: vec![("allow".into(), "Allow".into(), "allow_once".into())],
        outcome: None,
        chosen_by: None,
        asked_ms: 2,
    };
    let asked = ConversationCommand::Learn {
        events: vec![ConversationEvent::Asked {
            message_id: "m1".into(),
            permission,
        }],
    };
    run(&mut e, asked).unwrap();
    assert_eq!(e.state(), "waiting");
    for ev in e.reconcile(0) {
        e.apply(&ev, &meta());
    }
    let m = e.message("m1").unwrap();
    assert_eq!(m.state, MessageState::Unknown);
    assert_eq!(m.permissions[0].outcome, Some(None));
    assert_eq!(e.state(), "idle");
    assert!(e.reconcile(0).is_empty(), "nothing is settled twice");
    let choice = ConversationCommand::Learn {
        events: vec![ConversationEvent::NeedsChoice {
            note: "gone".into(),
        }],
    };
    run(&mut e, choice).unwrap();
    assert_eq!(e.state(), "needs-choice");
    let send = |fresh| ConversationCommand::Send {
        original: original("m2"),
        max_messages: 1000,
        fresh,
    };
    assert!(run(&mut e, send(false)).is_err(), "no silent fresh context");
    assert_eq!(run(&mut e, send(true)).unwrap(), 2, "the person's choice");
    let info = e.info.as_ref().unwrap();
    assert!(!info.needs_choice && info.agent_session_id.is_none());
    assert!(info
        .note
        .as_deref()
        .unwrap()
        .contains("fresh Agent session"));
    assert_eq!(e.state(), "running");
}

fn end(e: &mut ConversationEntity, id: &str) {
    let ended = ConversationEvent::Ended {
        message_id: id.into(),
        stop_reason: Some("end_turn".into()),
        usage: None,
        error: None,
        cut: Cut::default(),
    };
    let kept = ConversationEvent::Kept {
        message_id: id.into(),
        files: vec![KeptFile {
            path: "a.txt".into(),
            digest: "ab".into(),
            bytes: 2,
            resource: None,
        }],
        omitted: vec![("b.bin".into(), "resources.maxFileBytes".into())],
    };
    let events = vec![kept, ended];
    run(e, ConversationCommand::Learn { events }).unwrap();
}

fn decision(id: &str, supersedes: Option<&str>) -> ConversationCommand {
    ConversationCommand::Decide {
        message_id: "m1".into(),
        decision: DecisionRecord {
            decision_id: id.into(),
            change_id: format!("c-{id}"),
            decision: "accepted".into(),
            note: None,
            at_ms: 3,
            by: "local".into(),
            supersedes: supersedes.map(str::to_string),
            files: Vec::new(),
        },
    }
}

#[test]
fn decisions_are_on_ended_messages_and_each_names_the_one_it_supersedes() {
    let mut e = started();
    let early = run(&mut e, decision("d1", None)).unwrap_err();
    assert_eq!(early.code(), "conflict", "{early}");
    end(&mut e, "m1");
    assert_eq!(run(&mut e, decision("d1", None)).unwrap(), 1);
    let m = e.message("m1").unwrap();
    assert_eq!(
        m.decisions[0].files, m.kept,
        "the versions the message kept"
    );
    let unnamed = run(&mut e, decision("d2", None)).unwrap_err();
    assert_eq!(unnamed.code(), "conflict", "{unnamed}");
    let unknown = run(&mut e, decision("d2", Some("nope"))).unwrap_err();
    assert_eq!(unknown.code(), "not_found", "{unknown}");
    assert_eq!(run(&mut e, decision("d2", Some("d1"))).unwrap(), 1);
    let stale = run(&mut e, decision("d3", Some("d1"))).unwrap_err();
    assert_eq!(stale.code(), "conflict", "{stale}");
    let m = e.message("m1").unwrap();
    assert_eq!(m.decisions.len(), 2, "every earlier decision is kept");
    let missing = ConversationCommand::Decide {
        message_id: "m9".into(),
        decision: DecisionRecord {
            decision_id: "d9".into(),
            change_id: "c".into(),
            decision: "accepted".into(),
            note: None,
            at_ms: 3,
            by: "local".into(),
            supersedes: None,
            files: Vec::new(),
        },
    };
    assert_eq!(run(&mut e, missing).unwrap_err().code(), "not_found");
}

#[test]
fn the_oldest_messages_go_to_keep_max_messages_and_a_removed_conversation_expires() {
    let mut e = started();
    end(&mut e, "m1");
    for id in ["m2", "m3"] {
        let send = ConversationCommand::Send {
            original: original(id),
            max_messages: 2,
            fresh: false,
        };
        run(&mut e, send).unwrap();
        end(&mut e, id);
    }
    let ids: Vec<&str> = e
        .messages
        .iter()
        .map(|m| m.original.message_id.as_str())
        .collect();
    assert_eq!(ids, ["m2", "m3"]);
    assert_eq!(
        (e.dropped, e.dropped_by.as_deref()),
        (1, Some("conversations.maxMessages"))
    );
    let remove = ConversationCommand::Remove {
        limit: "conversations.maxConversations".into(),
    };
    run(&mut e, remove).unwrap();
    assert!(e.messages.is_empty());
    let send = ConversationCommand::Send {
        original: original("m4"),
        max_messages: 2,
        fresh: false,
    };
    let expired = run(&mut e, send).unwrap_err();
    assert_eq!(expired.code(), "expired", "{expired}");
    assert!(
        expired.to_string().contains("maxConversations"),
        "{expired}"
    );
}

#[test]
fn a_cards_stored_image_is_kept_once_per_step_on_its_running_message() {
    let mut e = started();
    let image = |sha: &str| ConversationEvent::Imaged {
        message_id: "m1".into(),
        image: super::ledger::CardImage {
            step_id: "t".into(),
            mime_type: "image/png".into(),
            sha256: sha.into(),
            bytes: 3,
        },
    };
    let learn = |events| ConversationCommand::Learn { events };
    assert_eq!(
        run(&mut e, learn(vec![image("aa"), image("bb")])).unwrap(),
        2
    );
    let m = e.message("m1").unwrap();
    assert_eq!(m.images.len(), 1, "one image per step, the last one kept");
    assert_eq!(m.images[0].sha256, "bb");
    end(&mut e, "m1");
    assert_eq!(
        run(&mut e, learn(vec![image("cc")])).unwrap(),
        0,
        "an image of an ended message is dropped"
    );
    assert_eq!(e.message("m1").unwrap().images[0].sha256, "bb");
}
