//! The one support module of the actors' test binary: configs, contexts, services over temp folders, waiting with a deadline.

#![allow(dead_code, unreachable_pub)]

pub mod agents;

use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use rho_actors::open::ProjectConfig;
use rho_actors::Principal;
use std::path::Path;
use std::time::{Duration, Instant};

pub fn config() -> ProjectConfig {
    ProjectConfig {
        holder: format!("pid {} (test)", std::process::id()),
        ..ProjectConfig::default()
    }
}

pub fn ctx(principal: Principal) -> CommandContext {
    CommandContext {
        principal,
        time_ms: 1_700_000_000_000,
        identity: None,
        needs: Vec::new(),
    }
}

pub fn ctx_with(change_id: &str, input: &serde_json::Value) -> CommandContext {
    CommandContext {
        principal: Principal::Operator,
        time_ms: 1_700_000_000_000,
        identity: Some((change_id.to_string(), input_digest(input, "changeId"))),
        needs: Vec::new(),
    }
}

/// A projects root and a state folder for one test.
pub struct Env {
    pub root: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

impl Env {
    pub fn new() -> Env {
        Env {
            root: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// Starts a service over this root with the registry in this state (call inside a System).
    pub fn service(&self) -> actix::Addr<rho_actors::service::ServiceActor> {
        service_at(self.root.path(), self.state.path(), config())
    }

    /// Starts a service again after this test dropped the previous one: waits, yielding to the
    /// actors, until the old service has let go of the registry (sled's lock).
    pub async fn reopen(&self) -> actix::Addr<rho_actors::service::ServiceActor> {
        use actix::Actor;
        let state = self.state.path();
        let mut opened = None;
        until("the previous service lets go of the registry", async || {
            opened = rho_actors::registry::Registry::open(state).ok();
            opened.is_some()
        })
        .await;
        let (registry, _) = opened.unwrap();
        rho_actors::service::ServiceActor::new(
            config(),
            registry,
            self.root.path().canonicalize().unwrap(),
        )
        .unwrap()
        .start()
    }
}

pub fn service_at(
    root: &std::path::Path,
    state: &std::path::Path,
    cfg: ProjectConfig,
) -> actix::Addr<rho_actors::service::ServiceActor> {
    use actix::Actor;
    // A service this process just dropped lets go of the registry (sled's lock) a moment later.
    // (Inside an actix test, use `Env::reopen`: this blocking wait would stall the actors.)
    let deadline = Instant::now() + WAIT;
    let registry = loop {
        match rho_actors::registry::Registry::open(state) {
            Ok((registry, _)) => break registry,
            Err(_) if Instant::now() < deadline => std::thread::sleep(POLL),
            Err(e) => panic!("the registry in {} never opened: {e}", state.display()),
        }
    };
    rho_actors::service::ServiceActor::new(cfg, registry, root.canonicalize().unwrap())
        .unwrap()
        .start()
}

/// How long a test waits for something that should happen promptly.
pub const WAIT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(10);

/// Polls `cond` until it holds (yielding to the actors in between); panics after [`WAIT`].
pub async fn until(what: &str, mut cond: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !cond().await {
        assert!(Instant::now() < deadline, "{what}: not within {WAIT:?}");
        actix::clock::sleep(POLL).await;
    }
}

/// Waits until the closed projects in `dirs` are released: their actors dropped, leases free.
pub async fn released(dirs: &[&Path]) {
    for dir in dirs {
        let lease = rho_actors::open::lease_path(dir);
        until("the project's lease is released", async || {
            !rho_journal::WriterLease::is_held(&lease)
        })
        .await;
    }
}

/// Creates the project `name` as the local person; panics if the service refuses.
pub async fn create(
    service: &actix::Addr<rho_actors::service::ServiceActor>,
    name: &str,
) -> rho_actors::service::ProjectInfo {
    service
        .send(rho_actors::service::CreateProject {
            name: name.into(),
            principal: Principal::Local,
        })
        .await
        .unwrap()
        .unwrap()
}

/// The actor of the open project `id`.
pub async fn project(
    service: &actix::Addr<rho_actors::service::ServiceActor>,
    id: uuid::Uuid,
) -> actix::Addr<rho_actors::project_actor::ProjectActor> {
    service
        .send(rho_actors::service::GetProject { id })
        .await
        .unwrap()
        .unwrap()
}

/// Creates the project `name` and returns it with its actor.
pub async fn created(
    service: &actix::Addr<rho_actors::service::ServiceActor>,
    name: &str,
) -> (
    rho_actors::service::ProjectInfo,
    actix::Addr<rho_actors::project_actor::ProjectActor>,
) {
    let info = create(service, name).await;
    let project = project(service, info.id).await;
    (info, project)
}

/// Sends one write to the project entity (the mailbox must answer).
pub async fn write(
    project: &actix::Addr<rho_actors::project_actor::ProjectActor>,
    command: rho_actors::project::ProjectCommand,
    ctx: CommandContext,
) -> Result<rho_actors::project::ProjectReply, rho_actors::error::ActorError> {
    project
        .send(rho_actors::project_actor::ProjectWrite { command, ctx })
        .await
        .unwrap()
}

/// A frozen run record of `op` as acceptance journals it (not yet delivered), for tests that
/// write runs events without R or a Host.
pub fn run_record(op: &str) -> rho_actors::runs::model::RunRecord {
    use rho_actors::runs::model::*;
    RunRecord {
        operation_id: op.into(),
        submitter: "operator".into(),
        repair_of: None,
        plan: RunPlan {
            run_directory: format!("runs/{op}"),
            output_directory: format!("runs/{op}/artifacts"),
            completion: None,
            script: ScriptRef::Disk {
                path: "analysis.R".into(),
            },
            script_name: "analysis.R".into(),
            code: "Sys.sleep(60)\n".into(),
            script_digest: "0".repeat(64),
            args: vec![ResolvedArg::Literal("a".into())],
            requirements: vec![rho_actors::requirements::Requirement::cran(
                "jsonlite", None,
            )],
            artifacts: vec![],
            core: CoreIdentity {
                path: "/opt/rho".into(),
                sha256: "1".repeat(64),
                version: "rho 0.1.0".into(),
            },
            rscript: "/usr/bin/Rscript".into(),
            request_digest: "2".repeat(64),
        },
        delivery: Delivery::NotSent,
        execution: Execution::Pending,
        exit: None,
        stop: None,
        stdout: LogFacts::default(),
        stderr: LogFacts::default(),
        inventory: None,
        delivery_note: None,
        accepted_at_ms: 1_700_000_000_000,
        sent_at_ms: None,
        updated_at_ms: 1_700_000_000_000,
    }
}
