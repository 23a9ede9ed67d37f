//! Agent facts for the service: the activity sink that journals Agent calls in their project, and the `activity`/`agents` parts of `observation.snapshot`.

use super::Services;
use crate::activity::ActivitySink;
use actix::Addr;
use rho_actors::agent::grants::GrantRegistry;
use rho_actors::agent::handlers::{AgentFacts, ReadAgentFacts, RecordActivity};
use rho_actors::agent::Activity;
use rho_actors::service::{GetProject, ServiceActor};
use serde_json::{json, Value};
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

/// RFC 3339 (milliseconds, UTC) of Unix milliseconds.
pub(crate) use rho_plumbing::time::rfc3339_ms as rfc3339;

/// One activity record on the wire (no inputs, no token).
pub(crate) fn render_activity(a: &Activity) -> Value {
    json!({
        "seq": a.seq,
        "time": rfc3339(a.time_ms),
        "principal": format!("agent:{}", a.session),
        "method": a.method,
        "outcome": a.outcome,
        "code": a.code,
        "source": a.source,
        "ids": a.ids,
    })
}

/// The sessions with access to a project (valid grants), with their latest recorded call.
pub(crate) fn agents(grants: &GrantRegistry, project: Uuid, facts: &AgentFacts) -> Vec<Value> {
    let now = crate::agent_grants::now_ms();
    grants
        .of_project(project)
        .into_iter()
        .filter(|g| g.valid_at(now))
        .map(|g| {
            let latest = facts.latest.get(&g.session).map(|l| {
                json!({"seq": l.seq, "time": rfc3339(l.time_ms), "method": l.method,
                    "outcome": l.outcome, "code": l.code})
            });
            json!({
                "session": g.session,
                "label": g.session,
                "principal": format!("agent:{}", g.session),
                "profile": g.profile,
                "methods": g.methods,
                "expiresAt": rfc3339(g.expires_ms),
                "createdAt": rfc3339(g.created_ms),
                "latestCall": latest,
            })
        })
        .collect()
}

/// Fills `activity`, `activityCursor` and `agents` of a project snapshot.
pub(super) async fn fill(s: &Services, project: Uuid, doc: &mut Value) {
    let Ok(Ok(addr)) = s.service.send(GetProject { id: project }).await else {
        return;
    };
    let Ok(Ok(facts)) = addr.send(ReadAgentFacts { session: None }).await else {
        return;
    };
    doc["activity"] = facts.activities.iter().map(render_activity).collect();
    doc["activityCursor"] = json!({
        "evicted": facts.evicted,
        "oldestSeq": facts.oldest_seq,
        "lastSeq": facts.last_seq,
        "maxActivities": s.limits.max_activities,
    });
    if let Some(setup) = &s.agent {
        doc["agents"] = Value::Array(agents(&setup.grants, project, &facts));
    }
}
