//! Runs events written by an older shape keep opening and folding as before (the migration test of
//! `docs/decisions/0320-a-lost-run-stays-unknown-and-frees-its-slot.md`).
//!
//! `tests/golden/v5-runs/` holds a project journal of runs events written through the actors by
//! the code of issue 12 (before a lost run became its own execution state): a run that was
//! running and then reported lost by a new Host (journaled then as `exited` with a null exit
//! code), an unknown run, a not-sent one and an uncertain one. `runs.txt` is the folded runs
//! entity (`{:#?}`), `state.sha256` the hash of the whole folded state (`state.v6.sha256` in
//! state format 6, which added the kernel owner's field). Regenerate (only into a
//! new folder, never over this one) with
//! `RHO_GOLDEN_WRITE=1 cargo test -p rho-actors --test it -- runs_journal::`.

use crate::support::{self, ctx_with, Env};

use rho_actors::open::journal_dir;
use rho_actors::runs::entity::{Observation, RunEvent};
use rho_actors::runs::handlers::state::{AcceptRun, LearnRun};
use rho_actors::runs::model::*;
use rho_actors::service::CloseAll;
use rho_actors::state::ProjectState;
use rho_journal::inspect::scan;
use serde_json::json;
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v5-runs")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Scans `journal` read-only (no problem, every record decodes) and folds it.
fn fold(journal: &Path) -> ProjectState {
    let s = scan(journal, false).unwrap();
    assert_eq!(s.problem, None, "the journal verifies");
    let mut state = ProjectState::default();
    for rec in &s.records {
        rho_actors::state::describe_record(rec).unwrap();
        state.apply_record(rec).unwrap();
    }
    state
}

fn observed(op: &str, execution: Execution, exit: Option<ExitFacts>) -> RunEvent {
    RunEvent::Observed {
        operation_id: op.into(),
        observation: Observation {
            execution,
            exit,
            stop: None,
            stdout: LogFacts {
                bytes: 6,
                truncated: false,
            },
            stderr: LogFacts::default(),
            inventory: None,
        },
    }
}

/// Writes the runs events of the fixture through the actors and closes cleanly.
async fn generate(env: &Env) -> PathBuf {
    let service = env.service();
    let (info, p) = support::created(&service, "runs").await;
    let learn = async |event: RunEvent| p.send(LearnRun { event }).await.unwrap().unwrap();
    for op in ["lost-1", "unknown-1", "not-sent-1", "uncertain-1"] {
        p.send(AcceptRun {
            record: Box::new(support::run_record(op)),
            ctx: ctx_with(op, &json!({"op": op})),
        })
        .await
        .unwrap()
        .unwrap();
        match op {
            "lost-1" => {
                learn(observed(op, Execution::Running, None)).await;
                // How a run lost with its Host was journaled: exited, nothing known of its end.
                let unknown_end = ExitFacts {
                    exit_code: None,
                    signal: None,
                    spawn_error: None,
                    ended_at_ms: None,
                };
                learn(observed(op, Execution::Exited, Some(unknown_end))).await;
            }
            "unknown-1" => {
                learn(observed(op, Execution::Running, None)).await;
                learn(RunEvent::ExecutionUnknown {
                    operation_id: op.into(),
                })
                .await;
            }
            "not-sent-1" => {
                learn(RunEvent::NotSent {
                    operation_id: op.into(),
                    reason: "no Host".into(),
                })
                .await;
            }
            _ => {
                learn(RunEvent::Uncertain {
                    operation_id: op.into(),
                })
                .await;
            }
        }
    }
    for (_, res) in service.send(CloseAll).await.unwrap() {
        res.unwrap();
    }
    info.dir
}

/// The old journal folds to the recorded runs and state: every old event keeps its meaning (a
/// run journaled `exited` stays exited; nothing is reinterpreted).
#[test]
fn an_old_runs_journal_opens_and_folds_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let journal = journal_dir(&tmp.path().join("p"));
    copy_tree(&fixture_dir().join("journal"), &journal);
    let state = fold(&journal);
    let text = std::fs::read_to_string(fixture_dir().join("runs.txt")).unwrap();
    assert_eq!(
        format!("{:#?}\n", state.runs),
        text,
        "the folded runs changed"
    );
    // The hash of the whole folded state in today's encoding: `state.sha256` was written at
    // state format 5; a later format (a new owner field) records its own beside it.
    let name = match rho_actors::state::STATE_FORMAT {
        5 => "state.sha256".to_string(),
        f => format!("state.v{f}.sha256"),
    };
    let hash = std::fs::read_to_string(fixture_dir().join(name)).unwrap();
    assert_eq!(state.hash(), hash.trim(), "the canonical encoding changed");
    // The facts the old shape recorded, read through today's code.
    let lost = &state.runs.runs["lost-1"];
    assert_eq!(lost.execution, Execution::Exited);
    assert_eq!(lost.exit.as_ref().unwrap().exit_code, None);
    assert_eq!(state.runs.runs["unknown-1"].execution, Execution::Unknown);
    assert_eq!(state.runs.runs["not-sent-1"].delivery, Delivery::NotSent);
    assert_eq!(state.runs.runs["uncertain-1"].delivery, Delivery::Uncertain);
    // The journal also opens and replays (from its segments) to the same state.
    let (j, _) =
        rho_journal::Journal::open(&journal, rho_journal::JournalConfig::default()).unwrap();
    let (mut replayed, _) = rho_actors::replay::replay(&j, true).unwrap();
    replayed.last_seq -= 1;
    assert_eq!(replayed, state);
}

/// The generator runs on today's code; with `RHO_GOLDEN_WRITE=1` it writes the fixture folder
/// (only when it does not exist: an existing fixture is never regenerated).
#[actix::test]
async fn the_runs_generator_writes_every_old_event_shape() {
    let env = Env::new();
    let project = generate(&env).await;
    support::released(&[&project]).await;
    let journal = journal_dir(&project);
    let state = fold(&journal);
    assert_eq!(state.runs.runs.len(), 4);
    if std::env::var_os("RHO_GOLDEN_WRITE").is_some_and(|v| v == "1") && !fixture_dir().exists() {
        let dir = fixture_dir();
        copy_tree(&journal, &dir.join("journal"));
        std::fs::write(dir.join("runs.txt"), format!("{:#?}\n", state.runs)).unwrap();
        std::fs::write(dir.join("state.sha256"), format!("{}\n", state.hash())).unwrap();
    }
}

/// Today's shape: a run a later Host reports lost is journaled `LostWithHost` (read `unknown`,
/// `lostWithHost: true`, no exit facts) and frees its slot, while an unknown run keeps its slot;
/// the journal folds back to the same facts.
#[actix::test]
async fn a_run_lost_with_its_host_frees_its_slot_and_an_unknown_one_keeps_it() {
    let env = Env::new();
    let service = env.service();
    let (info, p) = support::created(&service, "lost").await;
    let accept = async |op: &str| {
        p.send(AcceptRun {
            record: Box::new(support::run_record(op)),
            ctx: ctx_with(op, &json!({"op": op})),
        })
        .await
        .unwrap()
    };
    let learn = async |event: RunEvent| p.send(LearnRun { event }).await.unwrap().unwrap();
    // Two unknown runs fill the default two slots.
    for op in ["u-1", "u-2"] {
        accept(op).await.unwrap();
        learn(observed(op, Execution::Running, None)).await;
        learn(RunEvent::ExecutionUnknown {
            operation_id: op.into(),
        })
        .await;
    }
    let refused = accept("u-3").await.unwrap_err();
    assert!(
        matches!(&refused, rho_actors::error::ActorError::Limit { limit, .. } if limit == "maxConcurrentActions"),
        "{refused:?}"
    );
    // A Host reports u-1 lost: it stays unknown, with the lostWithHost fact, and frees its slot.
    let lost = learn(observed("u-1", Execution::LostWithHost, None)).await;
    assert_eq!(lost.execution, Execution::LostWithHost);
    assert_eq!(lost.exit, None);
    let wire = serde_json::to_value(rho_actors::runs::render::record(&lost, false)).unwrap();
    assert_eq!(wire["execution"], "unknown", "{wire}");
    assert_eq!(wire["lostWithHost"], true, "{wire}");
    assert!(lost.repairable());
    let u2 = serde_json::to_value(rho_actors::runs::render::record(
        &learn(observed("u-2", Execution::Unknown, None)).await,
        false,
    ))
    .unwrap();
    assert_eq!(u2["lostWithHost"], false, "{u2}");
    accept("u-3").await.unwrap();
    // u-2 (unknown) and u-3 (sending) hold both slots.
    let refused = accept("u-4").await.unwrap_err();
    assert!(
        matches!(&refused, rho_actors::error::ActorError::Limit { .. }),
        "{refused:?}"
    );
    for (_, res) in service.send(CloseAll).await.unwrap() {
        res.unwrap();
    }
    support::released(&[&info.dir]).await;
    let state = fold(&journal_dir(&info.dir));
    assert_eq!(state.runs.runs["u-1"].execution, Execution::LostWithHost);
    assert_eq!(state.runs.runs["u-2"].execution, Execution::Unknown);
}
