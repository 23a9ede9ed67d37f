//! Agent grants as the edge sees them: the `GrantStore` the service implements, and the resolved grant.

use std::collections::BTreeSet;
use std::time::SystemTime;
use uuid::Uuid;

/// A project-scoped Agent grant, resolved from its bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentGrant {
    /// The session name; the principal is `agent:<session>`.
    pub session: String,
    /// The one project the grant reaches.
    pub project_id: Uuid,
    /// Operation names the grant includes.
    pub methods: BTreeSet<String>,
    /// After this the token is refused (`unauthorized`); `None` never expires.
    pub expires_at: Option<SystemTime>,
}

/// Looks Agent tokens up. Implementations compare by digest, never log the token.
pub trait GrantStore: Send + Sync {
    fn resolve(&self, token: &str) -> Option<AgentGrant>;
}

/// No grants at all (until grants land).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoGrants;

impl GrantStore for NoGrants {
    fn resolve(&self, _token: &str) -> Option<AgentGrant> {
        None
    }
}
