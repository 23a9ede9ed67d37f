//! A failed journal write in `requirements.prepare` and `action.export` makes the project rebuild
//! from disk like every other write: the caller is told `unavailable`, and once the disk works
//! again the same project takes writes without being reopened.
//!
//! Needs `--features failpoints` (`journal::write_error` fails a write as ENOSPC would). Fail
//! points are process-global, so each test runs alone in a child process of this binary (the same
//! test, selected with `--exact`, told by `RHO_WRITE_FAILED_CHILD`).

use crate::support::{self, ctx_with, until, Env};

use actix::Addr;
use rho_actors::error::ActorError;
use rho_actors::identity::input_digest;
use rho_actors::project_actor::{Health, ProjectActor, Status};
use rho_actors::requirements::handlers::PrepareRequirements;
use rho_actors::runs::config::RConfig;
use rho_actors::runs::entity::{Observation, RunEvent};
use rho_actors::runs::handlers::export::ExportRun;
use rho_actors::runs::handlers::state::{AcceptRun, LearnRun};
use rho_actors::runs::model::*;
use rho_actors::service::CloseAll;
use serde_json::json;
use std::process::Command;
use std::sync::Arc;

const CHILD: &str = "RHO_WRITE_FAILED_CHILD";

/// In the child: true (run the body). In the parent: runs `name` in a child and asserts it passed.
fn alone(name: &str) -> bool {
    if std::env::var_os(CHILD).is_some_and(|v| v == name) {
        return true;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1"])
        .env(CHILD, name)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace("test result:", "child result:")
        + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name} in its child:\n{text}");
    assert!(text.contains("child result: ok. 1 passed"), "{text}");
    false
}

/// A service whose projects find Rscript on PATH, and one new project in it.
async fn project(env: &Env) -> (Addr<rho_actors::service::ServiceActor>, Addr<ProjectActor>) {
    let mut cfg = support::config();
    cfg.r = Arc::new(RConfig {
        rscript: Some("Rscript".into()),
        ..RConfig::default()
    });
    let service = support::service_at(env.root.path(), env.state.path(), cfg);
    let (_, p) = support::created(&service, "p").await;
    (service, p)
}

/// Fails every journal write while `f` runs: `f`'s write must answer `unavailable`.
async fn with_failing_writes<T: std::fmt::Debug>(
    f: impl std::future::Future<Output = Result<T, ActorError>>,
) {
    fail::cfg("journal::write_error", "return").unwrap();
    let res = f.await;
    fail::remove("journal::write_error");
    assert!(
        matches!(&res, Err(ActorError::Unavailable { .. })),
        "{res:?}"
    );
}

/// The project rebuilt and is ready again, with the journal taking writes.
async fn ready_again(p: &Addr<ProjectActor>) {
    until("the project rebuilds and is ready", async || {
        p.send(Status).await.unwrap().health == Health::Ready
    })
    .await;
}

fn prepare(change_id: &str) -> PrepareRequirements {
    let input = json!({"requirements": [], "changeId": change_id});
    PrepareRequirements {
        requirements: vec![],
        change_id: change_id.into(),
        digest: input_digest(&input, "changeId"),
        ctx: ctx_with(change_id, &input),
    }
}

#[test]
fn a_failed_write_of_requirements_prepare_rebuilds_the_project() {
    if !alone("write_failed::a_failed_write_of_requirements_prepare_rebuilds_the_project") {
        return;
    }
    let _scenario = fail::FailScenario::setup();
    actix::System::new().block_on(async {
        let env = Env::new();
        let (service, p) = project(&env).await;
        with_failing_writes(async { p.send(prepare("prep-1")).await.unwrap() }).await;
        ready_again(&p).await;
        // Nothing of the failed preparation stayed in memory: the same changeId runs afresh, and
        // the project's writes go on without a reopen.
        let done = p.send(prepare("prep-1")).await.unwrap().unwrap();
        assert_eq!(done.attempted, Vec::<String>::new());
        p.send(prepare("prep-2")).await.unwrap().unwrap();
        service.send(CloseAll).await.unwrap();
    });
}

fn export(export_id: &str) -> ExportRun {
    let input = json!({"operationId": "run-1", "exportId": export_id});
    ExportRun {
        operation_id: "run-1".into(),
        export_id: export_id.into(),
        digest: input_digest(&input, "exportId"),
        folder: format!("exports/{export_id}"),
        unsaved: None,
        ctx: ctx_with(export_id, &input),
    }
}

#[test]
fn a_failed_write_of_action_export_rebuilds_the_project() {
    if !alone("write_failed::a_failed_write_of_action_export_rebuilds_the_project") {
        return;
    }
    let _scenario = fail::FailScenario::setup();
    actix::System::new().block_on(async {
        let env = Env::new();
        let (service, p) = project(&env).await;
        p.send(AcceptRun {
            record: Box::new(support::run_record("run-1")),
            ctx: ctx_with("run-1", &json!({"op": 1})),
        })
        .await
        .unwrap()
        .unwrap();
        let exited = ExitFacts {
            exit_code: Some(0),
            signal: None,
            spawn_error: None,
            ended_at_ms: Some(1_700_000_000_500),
        };
        p.send(LearnRun {
            event: RunEvent::Observed {
                operation_id: "run-1".into(),
                observation: Observation {
                    execution: Execution::Exited,
                    exit: Some(exited),
                    stop: None,
                    stdout: LogFacts::default(),
                    stderr: LogFacts::default(),
                    inventory: Some(vec![]),
                },
            },
        })
        .await
        .unwrap()
        .unwrap();
        with_failing_writes(async { p.send(export("exp-1")).await.unwrap() }).await;
        ready_again(&p).await;
        // The failed export's identity was not kept in memory, and writes go on without a reopen.
        let second = p.send(export("exp-2")).await.unwrap().unwrap();
        assert_eq!(second.export_id, "exp-2", "{second:?}");
        let again = p.send(export("exp-2")).await.unwrap().unwrap();
        assert_eq!(again, second);
        service.send(CloseAll).await.unwrap();
    });
}
