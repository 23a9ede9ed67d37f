//! `context.list`: a project's retained contexts, newest first, optionally only one principal's (so an Agent finds what the person pointed at).

use super::contract::ContextView;
use super::entity::{ContextRecord, ContextsEntity};
use crate::child::Query;
use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY};
use crate::error::ActorError;
use crate::owners::Owner;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The default page of `context.list`.
pub const DEFAULT_LIMIT: u64 = 20;
/// The largest page of `context.list`.
pub const MAX_LIMIT: u64 = 100;

/// `context.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
    /// Only the contexts this principal created (`local`, `paired:<id>`, `agent:<session>`);
    /// default: everyone's.
    #[serde(default)]
    pub principal: Option<String>,
    /// Contexts per reply, newest first (default 20, at most 100).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `context.list` reply: newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListReply {
    pub contexts: Vec<ContextView>,
    /// More contexts matched than `limit` returned (older ones).
    pub more: bool,
}

pub const OPERATIONS: &[OperationSpec] = &[OperationSpec {
    name: "context.list",
    version: "1.0.0",
    owner: Some(Owner::Agent),
    // Like `context.read`: a read of retained facts, served whatever is selected.
    needs: Needs::Retained,
    effect: Effect::Read,
    callers: ANY,
    project_scoped: true,
    summary: "The project's retained contexts, newest first, optionally only those one principal created (e.g. `local`: what the person pointed at); read one whole with context.read.",
    request: schema::<ListRequest>,
    response: reply::<ListReply>,
    errors: &["invalid", "not_found"],
    events: &[],
}];

/// The newest `limit` records of `principal` (or everyone), and whether older ones matched.
pub fn newest(
    all: &ContextsEntity,
    principal: Option<&str>,
    limit: usize,
) -> (Vec<ContextRecord>, bool) {
    let mut hits: Vec<&ContextRecord> = all
        .contexts
        .values()
        .filter(|c| principal.is_none_or(|p| c.principal == p))
        .collect();
    hits.sort_by(|a, b| b.time_ms.cmp(&a.time_ms).then(b.id.cmp(&a.id)));
    let more = hits.len() > limit;
    (hits.into_iter().take(limit).cloned().collect(), more)
}

/// `context.list` for the project actor.
pub struct ListContexts {
    pub principal: Option<String>,
    pub limit: usize,
}

impl Message for ListContexts {
    type Result = Result<(Vec<ContextRecord>, bool), ActorError>;
}

impl Handler<ListContexts> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(Vec<ContextRecord>, bool), ActorError>>;

    fn handle(&mut self, msg: ListContexts, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<ContextsEntity>(pid);
        let read =
            Box::new(move |c: &ContextsEntity| newest(c, msg.principal.as_deref(), msg.limit));
        Box::pin(
            self.dispatch(
                child,
                Query::<ContextsEntity, (Vec<ContextRecord>, bool)> { read },
                false,
            )
            .map(|r, _, _| r),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contexts::Frozen;
    use uuid::Uuid;

    fn record(principal: &str, time_ms: i64) -> ContextRecord {
        ContextRecord {
            id: Uuid::new_v4(),
            frozen: Frozen::Entities {
                namespace: "n".into(),
                keys: vec![format!("{time_ms}")],
            },
            principal: principal.into(),
            time_ms,
        }
    }

    #[test]
    fn newest_first_one_principal_and_whether_more_matched() {
        let mut all = ContextsEntity::default();
        for r in [
            record("local", 1),
            record("agent:a", 2),
            record("local", 3),
            record("local", 4),
        ] {
            all.contexts.insert(r.id, r);
        }
        let (hits, more) = newest(&all, Some("local"), 2);
        assert_eq!(hits.iter().map(|r| r.time_ms).collect::<Vec<_>>(), [4, 3]);
        assert!(more);
        let (hits, more) = newest(&all, None, 10);
        assert_eq!(
            hits.iter().map(|r| r.time_ms).collect::<Vec<_>>(),
            [4, 3, 2, 1]
        );
        assert!(!more);
        assert!(newest(&all, Some("paired:x"), 5).0.is_empty());
    }
}
