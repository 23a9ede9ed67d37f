//! The project actor's relay messages: record a relay's facts (journaled, then the
//! `.rho/agent/acp/<relayId>.json` projection and `work.changed`), and read the relays' records.

use super::entity::{RecordFacts, RelayEntity, RelayFact, RelayHeader, RelayRecord};
use crate::child::{Execute, Query};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::path::PathBuf;

/// Relay records kept per project (the oldest closed ones go first).
pub const RELAYS_KEPT: usize = 64;

/// Record what one relay reported; answers the last fact number recorded.
#[derive(Message)]
#[rtype(result = "Result<u64, ActorError>")]
pub struct RecordRelay {
    pub header: RelayHeader,
    pub facts: Vec<RelayFact>,
    pub ctx: CommandContext,
}

/// Where a relay's projection lives.
pub fn projection_path(project_dir: &std::path::Path, relay_id: &str) -> PathBuf {
    project_dir
        .join(".rho/agent/acp")
        .join(format!("{relay_id}.json"))
}

fn write_projection(path: PathBuf, record: RelayRecord) {
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, &path)
    };
    if let Err(e) = write() {
        // A projection is rebuilt from the journal at the next record; the facts are durable.
        tracing::warn!(path = %path.display(), error = %e, "the relay projection was not written");
    }
}

impl Handler<RecordRelay> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<u64, ActorError>>;

    fn handle(&mut self, msg: RecordRelay, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<RelayEntity>(pid);
        let relay_id = msg.header.relay_id.clone();
        let command = RecordFacts {
            header: msg.header,
            facts: msg.facts,
            keep: RELAYS_KEPT,
        };
        let reader = child.clone();
        Box::pin(
            self.dispatch(
                child,
                Execute::<RelayEntity> {
                    command,
                    ctx: msg.ctx,
                },
                true,
            )
            .map(move |res, act, actx| {
                let recorded = res?;
                let path = projection_path(act.dir(), &relay_id);
                let id = relay_id.clone();
                let read = Box::new(move |e: &RelayEntity| e.get(&id).cloned());
                actx.spawn(
                    async move {
                        reader
                            .send(Query::<RelayEntity, Option<RelayRecord>> { read })
                            .await
                    }
                    .into_actor(act)
                    .map(move |r, act, _| {
                        if let Ok(Ok(crate::child::Accepted {
                            reply: Some(record),
                            ..
                        })) = r
                        {
                            tokio::task::spawn_blocking(move || write_projection(path, record));
                        }
                        if let Some(bus) = act.events() {
                            bus.publish(
                                "work.changed",
                                Some(act.project_id()),
                                serde_json::json!({"relayId": relay_id, "recorded": recorded}),
                            );
                        }
                    }),
                );
                Ok(recorded)
            }),
        )
    }
}

/// Every kept relay record.
#[derive(Message)]
#[rtype(result = "Result<Vec<RelayRecord>, ActorError>")]
pub struct ReadRelays;

impl Handler<ReadRelays> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Vec<RelayRecord>, ActorError>>;

    fn handle(&mut self, _: ReadRelays, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<RelayEntity>(pid);
        let read = Box::new(|e: &RelayEntity| e.records().cloned().collect::<Vec<_>>());
        Box::pin(
            self.dispatch(
                child,
                Query::<RelayEntity, Vec<RelayRecord>> { read },
                false,
            )
            .map(|r, _, _| r),
        )
    }
}
