//! The caller's catalog for `capability.index/resolve`: its operations, the catalog digest and cursors that pin caller, query and catalog.

use super::services::{mailbox, Services};
use super::sessions::{access, project_facts};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::Ctx;
use rho_actors::agent::access::AgentView;
use rho_actors::agent::catalog::{self, default_methods, published};
use rho_actors::agent::grants::BUSINESS_PROFILE;
use rho_actors::agent::skills;
use rho_actors::contract::{registry, OperationSpec};
use rho_actors::Principal;
use sha2::{Digest, Sha256};

/// Default knowledge reply budget (16 KiB) and its maximum (64 KiB).
pub(crate) const DEFAULT_BYTES: u64 = 16 * 1024;
pub(crate) const MAX_BYTES: u64 = 64 * 1024;

/// What one caller may see, rechecked on every page.
pub(crate) struct View {
    pub project_id: uuid::Uuid,
    pub project_name: String,
    pub session: Option<String>,
    pub profile: String,
    pub expires_ms: Option<i64>,
    pub method_count: usize,
    /// The granted methods (available or not).
    pub methods: std::collections::BTreeSet<String>,
    /// The granted, currently available operations, sorted by name.
    pub ops: Vec<OperationSpec>,
    /// Digest of the caller, its grant and every visible contract and skill.
    pub digest: String,
}

fn short(bytes: &[u8]) -> String {
    rho_plumbing::sha256_hex(bytes)[..24].to_string()
}

/// The caller's view of project `text` (an Agent sees its live grant).
pub(crate) async fn view(s: &Services, ctx: &Ctx, text: &str) -> Result<View, ApiError> {
    let project = super::services::project_id("projectId", text)?;
    if let Scope::Project(p) = &ctx.scope {
        if *p != project {
            return Err(ApiError::not_found("project"));
        }
    }
    let (project_name, session, profile, expires_ms, methods) = match &ctx.principal {
        Principal::Agent(session) => {
            let agent = match access(s) {
                Ok(agent) => agent,
                Err(e) => {
                    // An unknown project is `not_found` first, as with Agent access set up.
                    project_facts(s, project).await?;
                    return Err(e);
                }
            };
            let (project_name, grant) = agent
                .send(AgentView {
                    project,
                    session: session.clone(),
                })
                .await
                .map_err(mailbox)??;
            let rec = grant
                .ok_or_else(|| ApiError::unauthorized("the Agent grant was revoked or expired"))?;
            (
                project_name,
                Some(session.clone()),
                rec.profile,
                Some(rec.expires_ms),
                rec.methods,
            )
        }
        _ => (
            project_facts(s, project).await?.0,
            None,
            BUSINESS_PROFILE.to_string(),
            None,
            default_methods(&s.selection),
        ),
    };
    let ops: Vec<OperationSpec> = registry::all()
        .into_iter()
        .filter(|op| methods.contains(op.name) && catalog::available(op, &s.selection))
        .collect();
    let mut h = Sha256::new();
    h.update(ctx.principal.to_string());
    h.update([0]);
    h.update(&profile);
    h.update([0]);
    h.update(expires_ms.unwrap_or_default().to_le_bytes());
    for m in &methods {
        h.update(m);
        h.update([0]);
    }
    for op in &ops {
        h.update(&published(op).reference);
        h.update(&skills::for_operation(op).reference);
    }
    Ok(View {
        project_id: project,
        project_name,
        session,
        profile,
        expires_ms,
        method_count: methods.len(),
        methods,
        ops,
        digest: short(&h.finalize()),
    })
}

/// The digest of a query (what a cursor continues).
pub(crate) fn query_digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    short(&h.finalize())
}

/// A continuation: `<kind>1.<offset>.<query>.<catalog>`.
pub(crate) fn cursor(kind: &str, offset: usize, query: &str, view: &View) -> String {
    format!("{kind}1.{offset}.{query}.{}", view.digest)
}

/// The offset a cursor continues at: `invalid` for a malformed one or another query, `stale`
/// when the catalog or the grant changed since.
pub(crate) fn offset(kind: &str, text: &str, query: &str, view: &View) -> Result<usize, ApiError> {
    let bad = || ApiError::invalid(Some("cursor"), "not a cursor of this operation");
    let mut parts = text.split('.');
    let (Some(k), Some(at), Some(q), Some(c), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return Err(bad());
    };
    if k != format!("{kind}1") {
        return Err(bad());
    }
    let at: usize = at.parse().map_err(|_| bad())?;
    if q != query {
        return Err(ApiError::invalid(
            Some("cursor"),
            "the cursor continues another query; send the same owner/search/operations",
        ));
    }
    if c != view.digest {
        return Err(ApiError::stale(
            "the catalog or the grant changed since this cursor; start a fresh capability.index",
            serde_json::json!({"reason": "catalog or grant changed"}),
        ));
    }
    Ok(at)
}

/// The reply budget: default 16 KiB, at most 64 KiB.
pub(crate) fn budget(max_bytes: Option<u64>) -> Result<u64, ApiError> {
    match max_bytes {
        None => Ok(DEFAULT_BYTES),
        Some(n) if (1..=MAX_BYTES).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::invalid(
            Some("maxBytes"),
            "maxBytes is 1 to 65536 (64 KiB)",
        )),
    }
}
