//! Agent facts for the service: the activity sink that journals Agent calls in their project, and the `activity`/`agents` parts of `observation.snapshot`.

use super::services::Services;
use crate::activity::ActivitySink;
use actix::Addr;
use rho_actors::agent::access::ProjectGrants;
pub(crate) use rho_actors::agent::grants::rfc3339;
use rho_actors::agent::handlers::{ReadAgentFacts, RecordActivity};
use rho_actors::agent::Activity;
use rho_actors::service::{GetProject, ServiceActor};
use rho_actors::snapshot_contract::{agent_views, ActivityCursor, SnapshotReply};
use uuid::Uuid;

/// Journals Agent calls in their project's agent entity, off the reply path, in the order the
/// calls finished: one recorder task takes them from a queue and hands them to the project one
/// after another (each only until it has its seq; durability follows in the journal's group
/// commit).
pub struct ProjectActivity {
    queue: tokio::sync::mpsc::UnboundedSender<(Uuid, Activity)>,
}

impl ProjectActivity {
    /// Starts the recorder on the current actix runtime. `max_activities` is `maxActivities`.
    pub fn start(service: Addr<ServiceActor>, max_activities: u64) -> ProjectActivity {
        let (queue, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Uuid, Activity)>();
        actix::spawn(async move {
            while let Some((project, activity)) = rx.recv().await {
                let result = match service.send(GetProject { id: project }).await {
                    Ok(Ok(p)) => p
                        .send(RecordActivity {
                            activity,
                            max_activities,
                        })
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r.map(drop).map_err(|e| e.to_string())),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                if let Err(reason) = result {
                    tracing::warn!(project = %project, %reason, "an Agent call could not be recorded");
                }
            }
        });
        ProjectActivity { queue }
    }
}

impl ActivitySink for ProjectActivity {
    fn record(&self, project: Uuid, activity: Activity) {
        // The recorder stops only with the service; a record after that has nowhere to go.
        let _ = self.queue.send((project, activity));
    }
}

/// Fills `activity`, `activityCursor` and `agents` of a project snapshot.
pub(super) async fn fill<L, O>(s: &Services, project: Uuid, doc: &mut SnapshotReply<L, O>) {
    let Ok(Ok(addr)) = s.service.send(GetProject { id: project }).await else {
        return;
    };
    let Ok(Ok(facts)) = addr.send(ReadAgentFacts { session: None }).await else {
        return;
    };
    doc.activity = facts.activities.iter().map(Activity::view).collect();
    doc.activity_cursor = Some(ActivityCursor {
        evicted: facts.evicted,
        last_seq: facts.last_seq,
        max_activities: s.limits.max_activities,
        oldest_seq: facts.oldest_seq,
    });
    if let Some(agent) = &s.agent {
        if let Ok(grants) = agent.send(ProjectGrants { project }).await {
            doc.agents = agent_views(grants, &facts);
        }
    }
}
