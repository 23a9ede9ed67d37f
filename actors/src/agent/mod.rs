//! The agent owner's Agent access: grants and the `AgentAccess` actor (grant lifecycle, connection files, client CLIs), the bounded activity record, external bindings, the knowledge catalog and shipped skills.

pub mod access;
pub mod catalog;
pub mod contract;
pub mod conversation;
pub mod entity;
pub mod grants;
pub mod handlers;
pub mod skills;

pub use entity::{Activity, AgentEntity};

use crate::owner_table::{per_project, summary, EntityKind, OwnerSpec};
use crate::owners::Owner;

/// The agent owner in the owner table: its activity entity and the frozen contexts of
/// `contexts/`. `contract::session` declares the service-level Agent access operations
/// (no owner) beside its own.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Agent,
    requires: &[],
    operations: &[
        contract::OPERATIONS,
        contract::session::OPERATIONS,
        conversation::contract::OPERATIONS,
        crate::contexts::contract::OPERATIONS,
        crate::contexts::contract::list::OPERATIONS,
    ],
    entries: &[],
    actions: &[],
    kinds: &[
        per_project!(crate::contexts::ContextsEntity, contexts),
        per_project!(AgentEntity, agent),
        EntityKind {
            kind: <conversation::ConversationEntity as crate::entity::Entity>::KIND,
            fold: |s, rec| {
                crate::entity::fold_record(s.conversations.entry(rec.entity.id).or_default(), rec)
            },
            describe: summary::<conversation::ConversationEntity>,
            start: |s, c, _| {
                for (id, e) in std::mem::take(&mut s.conversations) {
                    drop(c.insert(id, e));
                }
            },
            json: |s, id| {
                s.conversations
                    .get(id)
                    .and_then(|e| serde_json::to_value(e).ok())
            },
        },
    ],
    recover: Some(conversation::live::recover),
};
