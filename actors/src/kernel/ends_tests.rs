//! The kernel entity's ends: maxEndedSessions evicts the oldest ended session, and who asked to interrupt is journaled when asked and survives a restart.

use super::contract::{CellState, Outcome, SessionEndReason};
use super::decide::{KernelCommand, KernelReply};
use super::entity::KernelEntity;
use super::events::KernelEvent;
use super::live::session_ended;
use super::model_tests::{ctx, meta, queue, record, run, start_session, started, LIMITS};
use crate::entity::{Entity, EventMeta};
use crate::Principal;

/// Starts and ends session `sid` at `at_ms`, with at most `max` ended sessions kept.
fn start_and_end(s: &mut KernelEntity, sid: &str, at_ms: i64, max: u64) -> Vec<KernelEvent> {
    start_session(s, sid);
    let mut ended = session_ended(sid, SessionEndReason::Exited, None, None);
    if let KernelEvent::SessionEnded { end, .. } = &mut ended {
        end.at_ms = at_ms;
    }
    let command = KernelCommand::Record {
        events: vec![ended],
        max_ended_sessions: max,
    };
    let d = s.decide(&command, &ctx(Principal::System)).unwrap();
    for e in &d.events {
        s.apply(e, &meta());
    }
    d.events
}

#[test]
fn past_max_ended_sessions_the_session_that_ended_first_is_evicted() {
    let mut s = KernelEntity::default();
    assert_eq!(start_and_end(&mut s, "s1", 100, 2).len(), 1);
    assert_eq!(start_and_end(&mut s, "s2", 200, 2).len(), 1);
    // A live session never counts and is never evicted.
    start_session(&mut s, "live");
    let events = start_and_end(&mut s, "s3", 300, 2);
    assert_eq!(
        events.last(),
        Some(&KernelEvent::SessionEvicted {
            session_id: "s1".into()
        })
    );
    let ids: Vec<&str> = s.sessions().iter().map(|x| x.session_id.as_str()).collect();
    assert_eq!(ids, ["s2", "live", "s3"]);
    // Records with no session end evict nothing, even over the limit.
    let d = s
        .decide(
            &KernelCommand::Record {
                events: Vec::new(),
                max_ended_sessions: 0,
            },
            &ctx(Principal::System),
        )
        .unwrap();
    assert!(d.events.is_empty());
}

/// A running cell `c1` in session `s1`, asked to interrupt by `asker`.
fn asked(asker: Principal) -> KernelEntity {
    let mut s = KernelEntity::default();
    run(
        &mut s,
        queue("c1", "a", "Sys.sleep(30)", LIMITS),
        Principal::Local,
    )
    .unwrap();
    started(&mut s, "c1", "s1");
    let interrupt = KernelCommand::Interrupt {
        cell_id: "c1".into(),
    };
    let d = s.decide(&interrupt, &ctx(asker.clone())).unwrap();
    assert_eq!(
        d.events,
        vec![KernelEvent::InterruptAsked {
            cell_id: "c1".into(),
            by: asker.to_string()
        }]
    );
    let at = EventMeta {
        time_ms: 1500,
        ..meta()
    };
    for e in &d.events {
        s.apply(e, &at);
    }
    // Asked again: the signal again, nothing journaled (the first asker is kept).
    let again = s.decide(&interrupt, &ctx(Principal::Local)).unwrap();
    assert!(again.events.is_empty());
    assert!(matches!(again.reply, KernelReply::Signal(c) if c.state == CellState::Running));
    s
}

#[test]
fn who_asked_to_interrupt_is_journaled_at_the_ask_and_names_the_interrupted_end() {
    let mut s = asked(Principal::Agent("codex".into()));
    assert_eq!(
        s.interrupt_asked("c1"),
        Some(&("agent:codex".to_string(), 1500))
    );
    // The session reports the end without knowing who asked: the journal does.
    record(
        &mut s,
        vec![super::bridge::ended("c1", Outcome::Interrupted, None, None)],
    );
    let end = s.cell("c1").unwrap().end.clone().unwrap();
    assert_eq!(
        (end.outcome, end.by.as_deref()),
        (Outcome::Interrupted, Some("agent:codex"))
    );
    assert_eq!(s.interrupt_asked("c1"), None);
}

#[test]
fn a_restart_between_the_ask_and_the_end_still_knows_who_asked() {
    let s = asked(Principal::Agent("codex".into()));
    // A restart: the state comes back from a snapshot (the journal's own codec).
    let bytes = crate::codec::encode(&s).unwrap();
    let mut s: KernelEntity = crate::codec::decode(crate::codec::CODEC_BINCODE_V1, &bytes).unwrap();
    for e in s.reconcile(5000) {
        s.apply(&e, &meta());
    }
    let end = s.cell("c1").unwrap().end.clone().unwrap();
    assert_eq!(
        (end.outcome, end.by.as_deref()),
        (Outcome::Unknown, Some("agent:codex"))
    );
    let reason = end.reason.unwrap_or_default();
    assert!(
        reason.contains("agent:codex had asked to interrupt it at 1500 ms"),
        "{reason}"
    );
}
