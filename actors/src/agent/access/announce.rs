//! `grant.changed`: a grant was minted, kept or revoked; the event names the session, never a credential.

use crate::events::EventBus;
use uuid::Uuid;

/// Announces that `session`'s grant on `project` changed (`granted`, `kept` or `revoked`).
pub(super) fn grant_changed(events: Option<&EventBus>, project: Uuid, session: &str, change: &str) {
    if let Some(bus) = events {
        bus.publish(
            "grant.changed",
            Some(project),
            serde_json::json!({"session": session, "principal": format!("agent:{session}"), "change": change}),
        );
    }
}
