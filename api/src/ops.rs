//! `POST /api/v2/{operation}`: the table of registered operations and the one path every call takes.
//!
//! Order of checks: caller (unauthorized), operation (not_found), caller kind and grant
//! (forbidden), `Rho-Contract` (stale), body size (limit, 413), body shape (invalid), an Agent's
//! project (not_found), the `Rho-Contract` precondition again against the live contract right
//! before dispatch, the owner gate of a read (unavailable; a write's is applied by the project
//! after its identity lookup), then the handler. Each handler parses nothing itself: it receives the typed
//! request and a [`Ctx`], sends one message and maps the reply. Every call by an `agent:`
//! principal, refused or not, is handed to the activity sink afterwards (off the reply path).

use crate::access::{self, Scope};
use crate::envelope::{json_response, new_request_id, ok_bytes, ApiError};
use crate::json;
use crate::state::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use rho_actors::agent::catalog::{self, IMPLICIT};
use rho_actors::contract::{gate, registry, CallerKind, Effect, OperationSpec};
use rho_actors::owners::Owner;
use rho_actors::Principal;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The header carrying the contract precondition (`sha256:<hex>` of the operation's contract).
pub const CONTRACT_HEADER: &str = "rho-contract";

/// What a handler knows about its request besides the typed body.
#[derive(Clone)]
pub struct Ctx {
    pub principal: Principal,
    pub caller: CallerKind,
    /// The project of an Agent grant, the folder of a scoped paired tab, or everything.
    pub scope: Scope,
    pub request_id: String,
    pub state: Arc<AppState>,
    /// The owners new work of this operation needs ([`gate::needs`] of its spec): reads were
    /// checked against them before the handler; a write's command carries them to the project,
    /// which checks them after the identity lookup.
    pub needs: Vec<Owner>,
}

impl Ctx {
    /// The context of one admitted request of `caller`.
    fn of(
        caller: access::Caller,
        request_id: &str,
        state: Arc<AppState>,
        needs: Vec<Owner>,
    ) -> Ctx {
        Ctx {
            principal: caller.principal,
            caller: caller.kind,
            scope: caller.scope,
            request_id: request_id.to_string(),
            state,
            needs,
        }
    }
}

type Reply = Pin<Box<dyn Future<Output = Result<Vec<u8>, ApiError>>>>;
type Prepared = Box<dyn FnOnce(Ctx) -> Reply>;
type Parse = Box<dyn Fn(&[u8]) -> Result<Prepared, ApiError> + Send + Sync>;

struct Entry {
    spec: OperationSpec,
    parse: Parse,
}

/// An operation registered twice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("operation {0} is registered twice")]
pub struct DuplicateOperation(pub &'static str);

/// Every operation the edge serves, by name.
#[derive(Default)]
pub struct OpTable {
    entries: HashMap<&'static str, Entry>,
    bytes: Option<ReadBytes>,
}

impl OpTable {
    pub fn new() -> Self {
        OpTable::default()
    }

    /// Registers `handler` for `spec.name`. `Req` is parsed strictly from the body; `Resp` is
    /// the reply's `value`. Handlers run on the worker's thread (their futures need not be Send).
    pub fn register<Req, Resp, F, Fut>(
        &mut self,
        spec: OperationSpec,
        handler: F,
    ) -> Result<&mut Self, DuplicateOperation>
    where
        Req: DeserializeOwned + 'static,
        Resp: Serialize + 'static,
        F: Fn(Ctx, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, ApiError>> + 'static,
    {
        if self.entries.contains_key(spec.name) {
            return Err(DuplicateOperation(spec.name));
        }
        let handler = Arc::new(handler);
        let parse: Parse = Box::new(move |body: &[u8]| {
            let request: Req = json::parse(body)?;
            let handler = Arc::clone(&handler);
            let prepared: Prepared = Box::new(move |ctx: Ctx| {
                Box::pin(async move {
                    let value = handler(ctx, request).await?;
                    let bytes = serde_json::to_vec(&value).map_err(ApiError::internal)?;
                    Ok(ok_bytes(&bytes))
                })
            });
            Ok(prepared)
        });
        self.entries.insert(spec.name, Entry { spec, parse });
        Ok(self)
    }

    /// The declared operations (of `registry::all()`) that have no handler yet.
    pub fn missing(&self) -> Vec<&'static str> {
        registry::all()
            .into_iter()
            .map(|s| s.name)
            .filter(|n| !self.entries.contains_key(n))
            .collect()
    }

    pub fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.entries.keys().copied().collect();
        names.sort_unstable();
        names
    }
}

/// The route handler for `POST /api/v2/{operation}`.
pub(crate) async fn call(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    ops: web::Data<OpTable>,
) -> HttpResponse {
    let request_id = new_request_id();
    let name = req
        .match_info()
        .get("operation")
        .unwrap_or_default()
        .to_string();
    let started = std::time::Instant::now();
    let state = state.into_inner();
    let mut recording = None;
    let result = run(
        &req,
        &name,
        payload,
        state.clone(),
        &ops,
        &request_id,
        &mut recording,
    )
    .await;
    if let Some(r) = recording {
        record(&state, r, &name, &result);
    }
    let response = match result {
        Ok(body) => json_response(StatusCode::OK, body),
        Err(e) => {
            let mut response = e.to_response(&request_id);
            if response.status() == StatusCode::PAYLOAD_TOO_LARGE {
                // The unread rest of the body makes the connection useless: close it.
                response
                    .head_mut()
                    .set_connection_type(actix_web::http::ConnectionType::Close);
            }
            response
        }
    };
    tracing::debug!(
        op = %name,
        request_id,
        status = response.status().as_u16(),
        micros = started.elapsed().as_micros() as u64,
        "operation"
    );
    response
}

/// An Agent call to record once it has an outcome.
pub(crate) struct Recording {
    project: uuid::Uuid,
    session: String,
    body: Option<web::Bytes>,
}

/// Hands one Agent call to the activity sink: method, time, outcome, refusal code and ids.
pub(crate) fn record(
    state: &AppState,
    r: Recording,
    name: &str,
    result: &Result<Vec<u8>, ApiError>,
) {
    // activity.report records what it reports itself; its own success is not a second record.
    if name == "activity.report" && result.is_ok() {
        return;
    }
    let reply = result.as_ref().ok().map(Vec::as_slice);
    let activity = rho_actors::agent::Activity {
        seq: 0,
        time_ms: rho_plumbing::time::now_ms(),
        session: r.session,
        method: crate::activity::method_name(name),
        outcome: if result.is_ok() { "ok" } else { "refused" }.into(),
        code: result.as_ref().err().map(|e| e.code.as_str().to_string()),
        source: "service".into(),
        ids: crate::activity::ids_of(r.body.as_deref(), reply),
    };
    state.activity.record(r.project, activity);
}

/// Where a call's body and `Rho-Contract` value come from: the HTTP request, or a message of the
/// calls socket ([`crate::calls`]).
pub(crate) enum Body<'a> {
    Http(web::Payload),
    Message {
        bytes: web::Bytes,
        contract: Option<&'a [u8]>,
    },
}

async fn run(
    req: &HttpRequest,
    name: &str,
    payload: web::Payload,
    state: Arc<AppState>,
    ops: &OpTable,
    request_id: &str,
    recording: &mut Option<Recording>,
) -> Result<Vec<u8>, ApiError> {
    let body = Body::Http(payload);
    run_call(req, name, body, state, ops, request_id, recording).await
}

/// One call through every check, in the order the module names; `req` says who calls (its
/// credential, cookie or connection) whatever carries the body.
pub(crate) async fn run_call(
    req: &HttpRequest,
    name: &str,
    body: Body<'_>,
    state: Arc<AppState>,
    ops: &OpTable,
    request_id: &str,
    recording: &mut Option<Recording>,
) -> Result<Vec<u8>, ApiError> {
    let caller = access::resolve(req, &state)?;
    if let (Principal::Agent(session), Scope::Project(project)) = (&caller.principal, &caller.scope)
    {
        *recording = Some(Recording {
            project: *project,
            session: session.clone(),
            body: None,
        });
    }
    let entry = ops
        .entries
        .get(name)
        .ok_or_else(|| ApiError::not_found(format!("operation {name:?}")))?;
    let spec = &entry.spec;
    if !spec.allows(caller.kind) {
        return Err(ApiError::forbidden(format!(
            "{} may not call {name}",
            caller.principal
        )));
    }
    if let Some(methods) = &caller.methods {
        if !methods.contains(name) && !IMPLICIT.contains(&name) {
            return Err(ApiError::forbidden(format!(
                "the Agent grant does not include {name}"
            )));
        }
    }
    let max = state.limits.max_request_bytes;
    let (body, contract) = match body {
        Body::Http(payload) => {
            let contract = req.headers().get(CONTRACT_HEADER).map(|v| v.as_bytes());
            check_contract(contract, spec)?;
            (read_body(req, payload, max).await?, contract)
        }
        Body::Message { bytes, contract } => {
            check_contract(contract, spec)?;
            if bytes.len() as u64 > max {
                return Err(ApiError::body_too_large(max));
            }
            (bytes, contract)
        }
    };
    if let Some(r) = recording.as_mut() {
        r.body = Some(body.clone());
    }
    let prepared = (entry.parse)(&body)?;
    if let Scope::Project(granted) = &caller.scope {
        if spec.project_scoped {
            let asked = json::project_id(&body).and_then(|p| p.parse::<uuid::Uuid>().ok());
            if asked.as_ref() != Some(granted) {
                return Err(ApiError::not_found("project"));
            }
        }
    }
    // The precondition again, against the live contract, right before dispatch.
    check_contract(contract, spec)?;
    let needs = gate::needs(spec);
    if spec.effect == Effect::Read {
        state.selection.admit(&needs).map_err(owner_unavailable)?;
    }
    prepared(Ctx::of(caller, request_id, state, needs)).await
}

/// The owner gate's refusal, worded as before the gate moved here.
pub(crate) fn owner_unavailable(e: rho_actors::owners::OwnerUnavailable) -> ApiError {
    let names: Vec<&str> = e.missing.iter().map(|m| m.name()).collect();
    ApiError::unavailable(&names, e.to_string())
}

/// The `Rho-Contract` precondition: the sent value must name the operation's current contract,
/// either its protocol hash or its Agent contract ref (`capability.index/resolve`).
fn check_contract(sent: Option<&[u8]>, spec: &OperationSpec) -> Result<(), ApiError> {
    let Some(sent) = sent else {
        return Ok(());
    };
    let current = catalog::published(spec);
    if current.matches(sent) {
        return Ok(());
    }
    Err(ApiError::stale(
        "the operation's contract has changed; resolve it again (capability.resolve or protocol.describe)",
        serde_json::json!({"currentHash": current.protocol_hash, "currentRef": current.reference}),
    ))
}

async fn read_body(
    req: &HttpRequest,
    payload: web::Payload,
    max: u64,
) -> Result<web::Bytes, ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max) {
        return Err(ApiError::body_too_large(max));
    }
    let limit = usize::try_from(max).unwrap_or(usize::MAX);
    match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(ApiError::invalid(
            None,
            format!("the request body could not be read: {e}"),
        )),
        Err(_) => Err(ApiError::body_too_large(max)),
    }
}

/// One resource version's bytes, for `GET .../resources/{id}/{version}` ([`crate::bytes`]).
pub struct RawBytes {
    pub bytes: Vec<u8>,
    /// The declared format (`png`, `pdf`, `csv`, ...).
    pub format: String,
    /// Lowercase hex SHA-256 of the bytes (the reply's ETag).
    pub sha256: String,
}

type BytesReply = Pin<Box<dyn Future<Output = Result<RawBytes, ApiError>>>>;
/// The Files owner's byte reader: (ctx, projectId, resourceId, version).
pub type ReadBytes = Arc<dyn Fn(Ctx, String, String, u64) -> BytesReply + Send + Sync>;

impl OpTable {
    /// Registers the reader behind `GET .../resources/{id}/{version}` (once).
    pub fn register_bytes<F, Fut>(&mut self, reader: F)
    where
        F: Fn(Ctx, String, String, u64) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<RawBytes, ApiError>> + 'static,
    {
        self.bytes = Some(Arc::new(move |c, p, r, v| Box::pin(reader(c, p, r, v))));
    }

    /// The checks of a byte read, as `resource.read` would make them for a person's tab: the
    /// caller, its kind (an Agent reads with `resource.read`, which records the call), an Agent's
    /// or paired tab's scope is the project's own check; then the reader and its [`Ctx`].
    pub(crate) fn admit_bytes(
        &self,
        req: &HttpRequest,
        state: Arc<AppState>,
        project: &str,
        request_id: &str,
    ) -> Result<(Ctx, ReadBytes), ApiError> {
        let caller = access::resolve(req, &state)?;
        let entry = self
            .entries
            .get("resource.read")
            .ok_or_else(|| ApiError::not_found("operation \"resource.read\""))?;
        if caller.kind == CallerKind::Agent || !entry.spec.allows(caller.kind) {
            return Err(ApiError::forbidden(format!(
                "{} reads resource bytes with resource.read",
                caller.principal
            )));
        }
        let read = self
            .bytes
            .clone()
            .ok_or_else(|| ApiError::not_found("route"))?;
        if project.parse::<uuid::Uuid>().is_err() {
            return Err(ApiError::not_found("project"));
        }
        let needs = gate::needs(&entry.spec);
        state.selection.admit(&needs).map_err(owner_unavailable)?;
        Ok((Ctx::of(caller, request_id, state, needs), read))
    }
}
