//! The kernel entity's decisions and fold: identity per caller, limits, interrupting a waiting cell, recovery, the interpreter rule.

use super::contract::{
    CellEnd, CellState, Language, Outcome, OutputChunk, SessionEndReason, SessionState, Stream,
    Variable,
};
use super::decide::{plan_session, KernelCommand, KernelReply, QueueLimits, SessionPlan};
use super::entity::KernelEntity;
use super::events::KernelEvent;
use crate::entity::{CommandContext, Entity, EventMeta};
use crate::error::ActorError;
use crate::Principal;

pub(super) const LIMITS: QueueLimits = QueueLimits {
    max_queued: 16,
    max_code_bytes: 64 * 1024,
    max_cells: 500,
};

pub(super) fn ctx(p: Principal) -> CommandContext {
    CommandContext {
        principal: p,
        time_ms: 1000,
        identity: None,
        needs: Vec::new(),
    }
}

pub(super) fn meta() -> EventMeta {
    EventMeta {
        seq: 1,
        entity_seq: 1,
        time_ms: 1000,
        principal: "system".into(),
    }
}

/// Decides and applies `command`, as the child actor does.
pub(super) fn run(
    s: &mut KernelEntity,
    command: KernelCommand,
    p: Principal,
) -> Result<KernelReply, ActorError> {
    let d = s.decide(&command, &ctx(p))?;
    for e in &d.events {
        s.apply(e, &meta());
    }
    Ok(d.reply)
}

pub(super) fn queue(id: &str, change: &str, code: &str, limits: QueueLimits) -> KernelCommand {
    KernelCommand::Queue {
        cell_id: id.into(),
        language: Language::R,
        code: code.into(),
        change_id: change.into(),
        digest: crate::identity::input_digest(&code, "changeId"),
        purpose: Some("look".into()),
        limits,
        start_in: None,
    }
}

pub(super) fn record(s: &mut KernelEntity, events: Vec<KernelEvent>) {
    run(
        s,
        KernelCommand::Record {
            events,
            max_ended_sessions: 20,
        },
        Principal::System,
    )
    .unwrap();
}

pub(super) fn start_session(s: &mut KernelEntity, sid: &str) {
    record(
        s,
        vec![
            KernelEvent::SessionStarting {
                session_id: sid.into(),
                language: Language::R,
                program: "Rscript".into(),
                interpreter: None,
            },
            KernelEvent::SessionStarted {
                session_id: sid.into(),
                pid: 42,
                version: "R 4.4.1".into(),
            },
        ],
    );
}

/// Starts session `sid` and cell `cell` in it.
pub(super) fn started(s: &mut KernelEntity, cell: &str, sid: &str) {
    start_session(s, sid);
    record(
        s,
        vec![KernelEvent::CellStarted {
            cell_id: cell.into(),
            session_id: sid.into(),
        }],
    );
}

pub(super) fn end(outcome: Outcome) -> CellEnd {
    CellEnd {
        outcome,
        by: None,
        at_ms: 2000,
        reason: None,
    }
}

#[test]
fn the_same_identity_is_the_same_cell_per_caller_and_a_different_body_conflicts() {
    let mut s = KernelEntity::default();
    let KernelReply::Cell(a) =
        run(&mut s, queue("c1", "x", "1+1", LIMITS), Principal::Local).unwrap()
    else {
        panic!("a cell")
    };
    assert_eq!(
        (a.no, a.state, a.by.as_str()),
        (1, CellState::Waiting, "local")
    );
    // Retried: the same cell, nothing journaled.
    let d = s
        .decide(&queue("c2", "x", "1+1", LIMITS), &ctx(Principal::Local))
        .unwrap();
    assert!(d.events.is_empty());
    assert_eq!(d.reply, KernelReply::Cell(a.clone()));
    // Another caller's `x` is its own cell.
    let KernelReply::Cell(b) = run(
        &mut s,
        queue("c3", "x", "1+1", LIMITS),
        Principal::Agent("claude".into()),
    )
    .unwrap() else {
        panic!("a cell")
    };
    assert_eq!((b.cell_id.as_str(), b.by.as_str()), ("c3", "agent:claude"));
    // A different body under the same identity is a conflict.
    let e = run(&mut s, queue("c4", "x", "2+2", LIMITS), Principal::Local).unwrap_err();
    assert_eq!(e.code(), "conflict");
}

#[test]
fn code_over_max_code_bytes_is_invalid_and_the_queue_limit_is_named() {
    let mut s = KernelEntity::default();
    let small = QueueLimits {
        max_queued: 2,
        max_code_bytes: 4,
        max_cells: 500,
    };
    let e = run(&mut s, queue("c0", "big", "12345", small), Principal::Local).unwrap_err();
    assert_eq!(e.code(), "invalid");
    run(&mut s, queue("c1", "a", "1", small), Principal::Local).unwrap();
    run(&mut s, queue("c2", "b", "2", small), Principal::Local).unwrap();
    let e = run(&mut s, queue("c3", "c", "3", small), Principal::Local).unwrap_err();
    assert_eq!(
        e,
        ActorError::Limit {
            limit: "kernel.maxQueued".into(),
            value: 2
        }
    );
}

#[test]
fn max_cells_evicts_the_oldest_ended_cell_and_its_identity_never_runs_again() {
    let mut s = KernelEntity::default();
    let two = QueueLimits {
        max_queued: 16,
        max_code_bytes: 100,
        max_cells: 2,
    };
    run(&mut s, queue("c1", "a", "1", two), Principal::Local).unwrap();
    run(&mut s, queue("c2", "b", "2", two), Principal::Local).unwrap();
    // Nothing ended: no room.
    let e = run(&mut s, queue("c3", "c", "3", two), Principal::Local).unwrap_err();
    assert_eq!(e.code(), "limit");
    start_session(&mut s, "s1");
    record(
        &mut s,
        vec![
            KernelEvent::CellStarted {
                cell_id: "c1".into(),
                session_id: "s1".into(),
            },
            KernelEvent::CellEnded {
                cell_id: "c1".into(),
                end: end(Outcome::Done),
                defined: vec![],
                removed: Some(vec![]),
                variables: None,
            },
        ],
    );
    run(&mut s, queue("c3", "c", "3", two), Principal::Local).unwrap();
    let ids: Vec<&str> = s.cells().map(|c| c.cell_id.as_str()).collect();
    assert_eq!(ids, ["c2", "c3"]);
    // The evicted cell's identity is still known: it is not queued again.
    let e = run(&mut s, queue("c9", "a", "1", two), Principal::Local).unwrap_err();
    assert_eq!(e.code(), "not_found");
    assert_eq!(s.cells().count(), 2);
}

#[test]
fn output_is_coalesced_in_printed_order_and_variables_link_to_their_cell() {
    let mut s = KernelEntity::default();
    run(&mut s, queue("c1", "a", "x <- 1", LIMITS), Principal::Local).unwrap();
    start_session(&mut s, "s1");
    let chunk = |stream, text: &str| OutputChunk {
        stream,
        text: text.into(),
    };
    record(
        &mut s,
        vec![
            KernelEvent::CellStarted {
                cell_id: "c1".into(),
                session_id: "s1".into(),
            },
            KernelEvent::CellOutput {
                cell_id: "c1".into(),
                chunks: vec![chunk(Stream::Stdout, "a"), chunk(Stream::Warning, "w")],
            },
            KernelEvent::CellOutput {
                cell_id: "c1".into(),
                chunks: vec![chunk(Stream::Warning, "w2"), chunk(Stream::Stdout, "b")],
            },
            KernelEvent::CellCut {
                cell_id: "c1".into(),
                omitted_bytes: 7,
            },
            KernelEvent::CellEnded {
                cell_id: "c1".into(),
                end: end(Outcome::Done),
                defined: vec!["x".into()],
                removed: Some(vec![]),
                variables: Some((
                    vec![Variable {
                        name: "x".into(),
                        kind: "double".into(),
                        size: "1".into(),
                        summary: "1".into(),
                        cell_id: None,
                    }],
                    3,
                )),
            },
        ],
    );
    let c = s.cell("c1").unwrap();
    assert_eq!(
        c.output,
        vec![
            chunk(Stream::Stdout, "a"),
            chunk(Stream::Warning, "ww2"),
            chunk(Stream::Stdout, "b")
        ]
    );
    assert!(c.cut && c.omitted_bytes == 7);
    assert_eq!(
        (c.program.as_deref(), c.version.as_deref()),
        (Some("Rscript"), Some("R 4.4.1"))
    );
    let session = s.session("s1").unwrap();
    assert_eq!(session.variables[0].cell_id.as_deref(), Some("c1"));
    assert_eq!(session.variables_omitted, 3);
    assert_eq!(session.runners, ["local"]);
}

#[test]
fn interrupt_ends_a_waiting_cell_not_run_signals_a_running_one_and_returns_an_ended_one() {
    let mut s = KernelEntity::default();
    run(
        &mut s,
        queue("c1", "a", "Sys.sleep(30)", LIMITS),
        Principal::Local,
    )
    .unwrap();
    run(&mut s, queue("c2", "b", "2", LIMITS), Principal::Local).unwrap();
    started(&mut s, "c1", "s1");
    let agent = Principal::Agent("codex".into());
    let r = run(
        &mut s,
        KernelCommand::Interrupt {
            cell_id: "c1".into(),
        },
        agent.clone(),
    )
    .unwrap();
    assert!(matches!(r, KernelReply::Signal(c) if c.state == CellState::Running));
    let KernelReply::Cell(c2) = run(
        &mut s,
        KernelCommand::Interrupt {
            cell_id: "c2".into(),
        },
        agent.clone(),
    )
    .unwrap() else {
        panic!("a cell")
    };
    let e = c2.end.clone().unwrap();
    assert_eq!(
        (e.outcome, e.by.as_deref()),
        (Outcome::NotRun, Some("agent:codex"))
    );
    let d = s
        .decide(
            &KernelCommand::Interrupt {
                cell_id: "c2".into(),
            },
            &ctx(agent),
        )
        .unwrap();
    assert!(d.events.is_empty());
    assert_eq!(d.reply, KernelReply::Cell(c2));
    let e = run(
        &mut s,
        KernelCommand::Interrupt {
            cell_id: "nope".into(),
        },
        Principal::Local,
    )
    .unwrap_err();
    assert_eq!(e.code(), "not_found");
}

#[test]
fn recovery_closes_sessions_running_cells_are_unknown_and_waiting_ones_not_run() {
    let mut s = KernelEntity::default();
    run(
        &mut s,
        queue("c1", "a", "Sys.sleep(30)", LIMITS),
        Principal::Local,
    )
    .unwrap();
    run(&mut s, queue("c2", "b", "2", LIMITS), Principal::Local).unwrap();
    started(&mut s, "c1", "s1");
    let events = s.reconcile(5000);
    for e in &events {
        s.apply(e, &meta());
    }
    let outcome = |id| s.cell(id).unwrap().end.as_ref().unwrap().outcome;
    assert_eq!(outcome("c1"), Outcome::Unknown);
    assert_eq!(outcome("c2"), Outcome::NotRun);
    let session = s.session("s1").unwrap();
    assert_eq!(session.state, SessionState::Ended);
    assert_eq!(
        session.end.as_ref().unwrap().reason,
        SessionEndReason::RhoClosed
    );
    // A second recovery has nothing left to settle: nothing runs again.
    assert!(s.reconcile(6000).is_empty());
}

#[test]
fn the_interpreter_rule_restarts_only_a_session_the_caller_alone_used() {
    let mut s = KernelEntity::default();
    assert_eq!(
        plan_session(&s, Language::R, "local", None).unwrap(),
        SessionPlan::Start { interpreter: None }
    );
    run(&mut s, queue("c1", "a", "1", LIMITS), Principal::Local).unwrap();
    started(&mut s, "c1", "s1");
    assert_eq!(
        plan_session(&s, Language::R, "local", None).unwrap(),
        SessionPlan::Join {
            session_id: "s1".into()
        }
    );
    assert_eq!(
        plan_session(&s, Language::R, "local", Some("renv/bin/Rscript")).unwrap(),
        SessionPlan::Restart {
            session_id: "s1".into(),
            interpreter: "renv/bin/Rscript".into()
        }
    );
    let e = plan_session(&s, Language::R, "agent:claude", Some("renv/bin/Rscript")).unwrap_err();
    assert_eq!(e.code(), "conflict");
    // A kept interpreter starts the language's next session.
    record(
        &mut s,
        vec![KernelEvent::InterpreterKept {
            language: Language::Python,
            program: ".venv/bin/python".into(),
        }],
    );
    assert_eq!(
        plan_session(&s, Language::Python, "agent:claude", None).unwrap(),
        SessionPlan::Start {
            interpreter: Some(".venv/bin/python".into())
        }
    );
}
