//! The edge's view of the registry-backed grant store: `GrantStore` for `GrantRegistry` (lookups by token digest).

use crate::grants::{AgentGrant, GrantStore};
use rho_actors::agent::grants::GrantRegistry;
use std::time::{Duration, UNIX_EPOCH};

impl GrantStore for GrantRegistry {
    fn resolve(&self, token: &str) -> Option<AgentGrant> {
        let rec = GrantRegistry::resolve(self, token)?;
        Some(AgentGrant {
            session: rec.session,
            project_id: rec.project_id,
            methods: rec.methods,
            expires_at: Some(UNIX_EPOCH + Duration::from_millis(rec.expires_ms.max(0) as u64)),
        })
    }
}
