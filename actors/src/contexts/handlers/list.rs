//! `context.list` for the project actor: a project's retained contexts, newest first, optionally only one principal's.

use crate::child::Query;
use crate::contexts::entity::{ContextRecord, ContextsEntity};
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;

/// The newest `limit` records of `principal` (or everyone), and whether older ones matched.
pub(super) fn newest(
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
