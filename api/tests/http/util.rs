//! Test harness: a real edge on 127.0.0.1:0 with toy operations, toy grants and a clock for pairing.

#![allow(dead_code, unreachable_pub)]

use rho_actors::contract::{schema, Effect, Needs, OperationSpec, ANY, PERSON_OR_OPERATOR};
use rho_actors::events::{BusConfig, EventBus};
use rho_actors::limits::Limits;
use rho_actors::service_contract::Empty;
use rho_actors::ActorError;
use rho_api::pairing::Clock;
use rho_api::{AgentGrant, ApiError, AppConfig, AppState, Ctx, GrantStore, MemoryPairing, OpTable};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};
use uuid::Uuid;

pub const OPERATOR: &str = "operator-token-0123456789";
pub const AGENT: &str = "agent-token-abcdef";

pub fn own_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").expect("/proc/self").uid()
}

const fn spec(
    name: &'static str,
    project_scoped: bool,
    callers: &'static [rho_actors::contract::CallerKind],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "1",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers,
        project_scoped,
        summary: "toy",
        request: schema::<Empty>,
        response: schema::<Empty>,
        errors: &[],
        events: &[],
    }
}
pub const ECHO: OperationSpec = spec("toy.echo", false, ANY);
pub const PROJECT: OperationSpec = spec("toy.project", true, ANY);
pub const FAIL: OperationSpec = spec("toy.fail", false, ANY);
pub const PERSON: OperationSpec = spec("toy.person", false, PERSON_OR_OPERATOR);

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EchoRequest {
    pub name: String,
    pub count: Option<u32>,
    pub items: Option<Vec<u32>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EchoReply {
    pub name: String,
    pub count: Option<u32>,
    pub principal: String,
    pub request_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectRequest {
    pub project_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailRequest {
    pub kind: String,
}

fn toy_ops() -> OpTable {
    let mut t = OpTable::new();
    t.register(ECHO, |ctx: Ctx, r: EchoRequest| async move {
        Ok(EchoReply {
            name: r.name,
            count: r.count,
            principal: ctx.principal.to_string(),
            request_id: ctx.request_id,
        })
    })
    .unwrap()
    .register(PROJECT, |_ctx: Ctx, r: ProjectRequest| async move {
        Ok(json!({"projectId": r.project_id}))
    })
    .unwrap()
    .register(FAIL, |_ctx: Ctx, r: FailRequest| async move {
        let e = match r.kind.as_str() {
            "internal" => ActorError::internal("disk /secret/place failed: EIO"),
            "stale" => ActorError::Stale { current_version: 4 },
            _ => ActorError::Limit {
                limit: "maxQueue".into(),
                value: 32,
            },
        };
        Err::<Value, ApiError>(e.into())
    })
    .unwrap()
    .register(PERSON, |_ctx: Ctx, _r: Empty| async move { Ok(json!({})) })
    .unwrap();
    t
}

struct Grants(HashMap<String, AgentGrant>);
impl GrantStore for Grants {
    fn resolve(&self, token: &str) -> Option<AgentGrant> {
        self.0.get(token).cloned()
    }
}

/// A running edge. Dropping it stops the server.
pub struct Service {
    pub port: u16,
    pub state: AppState,
    pub agent_project: Uuid,
    pub pairing: Arc<MemoryPairing>,
    /// Seconds added to the pairing clock.
    pub clock_offset: Arc<AtomicU64>,
    handle: actix_web::dev::ServerHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

pub fn start() -> Service {
    start_with(|_| {})
}

pub fn start_with(tweak: impl FnOnce(&mut AppConfig)) -> Service {
    let agent_project = Uuid::new_v4();
    let limits = Limits::default();
    let events = EventBus::new(BusConfig::from_limits(&limits));
    let mut config = AppConfig::new("0.1.0-test", OPERATOR, Some(own_uid()), limits, events);
    let mut grants = HashMap::new();
    grants.insert(
        AGENT.to_string(),
        AgentGrant {
            session: "claude-1".into(),
            project_id: agent_project,
            methods: BTreeSet::from([
                "toy.echo".to_string(),
                "toy.project".to_string(),
                "toy.person".to_string(),
            ]),
            expires_at: None,
        },
    );
    grants.insert(
        "expired-agent".to_string(),
        AgentGrant {
            session: "old".into(),
            project_id: agent_project,
            methods: BTreeSet::from(["toy.echo".to_string()]),
            expires_at: Some(SystemTime::now() - Duration::from_secs(1)),
        },
    );
    config.grants = Arc::new(Grants(grants));
    let clock_offset = Arc::new(AtomicU64::new(0));
    let offset = clock_offset.clone();
    let clock: Clock =
        Arc::new(move || SystemTime::now() + Duration::from_secs(offset.load(Ordering::SeqCst)));
    let pairing = Arc::new(MemoryPairing::with_clock(
        rho_api::pairing::LINK_TTL,
        Duration::from_secs(3600),
        clock,
    ));
    config.pairing = pairing.clone();
    config.status = Arc::new(|| json!({"projects": [{"name": "example"}], "owners": ["files"]}));
    tweak(&mut config);
    let state = AppState::new(config);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    let served = state.clone();
    let thread = std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = rho_api::serve(listener, served, toy_ops()).unwrap();
            tx.send(server.handle()).unwrap();
            let _ = server.await;
        })
    });
    let handle = rx.recv().unwrap();
    Service {
        port,
        state,
        agent_project,
        pairing,
        clock_offset,
        handle,
        thread: Some(thread),
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let stop = self.handle.stop(false);
        drop(stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Publishes a toy event with `{"n": kind}` as data.
pub fn publish(s: &Service, kind: &str, project: Option<uuid::Uuid>) -> String {
    s.state.events.publish(kind, project, json!({"n": kind}))
}
