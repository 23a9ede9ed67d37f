//! Wire types of `observation.snapshot`: the service's and one project's current facts, and how the owners' facts render into them.
//!
//! Fields are declared in the order of the bytes the reply had as a sorted JSON map with the
//! fixed facts (`limits`, `owners`) spliced in last.

use crate::agent::contract::ActivityView;
use crate::agent::grants::GrantRecord;
use crate::agent::handlers::AgentFacts;
use crate::observe::ProjectSnapshot;
use crate::runs::contract::RunView;
use crate::tables::entity::{Selection, SelectionScope};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a project's activity stands: evicted records and the retained seqs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivityCursor {
    pub evicted: u64,
    pub last_seq: u64,
    pub max_activities: u64,
    pub oldest_seq: u64,
}

/// The latest recorded call of one Agent session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LatestCall {
    pub code: Option<String>,
    pub method: String,
    pub outcome: String,
    pub seq: u64,
    pub time: String,
}

/// A session with access to the project (a valid grant), with its latest recorded call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentView {
    pub created_at: String,
    pub expires_at: String,
    pub label: String,
    pub latest_call: Option<LatestCall>,
    pub methods: Vec<String>,
    /// `agent:<session>`.
    pub principal: String,
    pub profile: String,
    pub session: String,
}

/// One document of the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentView {
    pub dirty: bool,
    pub disk_digest: Option<String>,
    pub id: String,
    /// UTF-16 code units.
    pub length: u64,
    pub open: bool,
    pub path: String,
    pub version: u64,
}

/// Who a selection belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SelectionScopeView {
    Caller,
    View,
    Shared,
}

/// One selection's current keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionView {
    /// The caller or view holding it; `null` for the shared selection.
    pub holder: Option<String>,
    pub keys: Vec<String>,
    pub namespace: String,
    pub principal: String,
    pub scope: SelectionScopeView,
    pub version: u64,
}

/// The requested project. Available: `documents`, `settings`, `version` present; unavailable:
/// `reason` present and `runs` empty. `selections` when they could be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectView {
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<DocumentView>>,
    pub id: String,
    pub name: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub runs: Vec<RunView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selections: Option<Vec<SelectionView>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
}

/// The caller of a snapshot: its principal, its kind and its scope (a paired tab's one folder,
/// an Agent's one project, or every project).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallerView {
    /// The folder below the service root a paired tab may reach; `null` otherwise.
    pub folder: Option<String>,
    /// `local`, `operator`, `agent` or `paired`.
    pub kind: String,
    /// `local`, `operator`, `agent:<session>` or `paired:<id>`.
    pub principal: String,
    /// The one project an Agent grant reaches; `null` otherwise.
    pub project_id: Option<String>,
}

/// One registered project the caller may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRowView {
    pub available: bool,
    pub id: String,
    pub name: String,
    pub path: String,
    pub reason: Option<String>,
}

/// `observation.snapshot`: current facts with the event cursor they correspond to. `project`
/// when one was requested, else `projects`. `limits` and `owners` are the service's fixed
/// facts (the edge splices them in pre-rendered: `L` and `O` are then raw JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "SnapshotReply")]
pub struct SnapshotReply<L = crate::limits::Limits, O = Vec<serde_json::Value>> {
    pub activity: Vec<ActivityView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_cursor: Option<ActivityCursor>,
    pub agents: Vec<AgentView>,
    /// Who asked: the principal and what it may reach.
    pub caller: CallerView,
    pub cursor: String,
    /// The project's conversations (`conversation.list`), for the browser only (a local or
    /// paired caller); absent for operators and Agent grants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversations: Option<Vec<crate::agent::conversation::contract::ConversationView>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<ProjectView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projects: Option<Vec<ProjectRowView>>,
    pub limits: L,
    /// The selected owners, as `capability.list` gives them.
    pub owners: O,
}

/// The project's part of a snapshot (without the agent owner's facts).
pub fn project_view(id: uuid::Uuid, p: &ProjectSnapshot) -> ProjectView {
    let path = p.listing.dir.display().to_string();
    let mut v = match &p.facts {
        Ok(f) => ProjectView {
            available: true,
            documents: Some(
                f.documents
                    .iter()
                    .map(|d| DocumentView {
                        dirty: d.dirty,
                        disk_digest: d.disk_digest.clone(),
                        id: d.id.to_string(),
                        length: d.length,
                        open: d.open,
                        path: d.path.clone(),
                        version: d.version,
                    })
                    .collect(),
            ),
            id: id.to_string(),
            name: f.entity.name.clone(),
            path,
            reason: None,
            runs: f
                .runs
                .iter()
                .map(|r| crate::runs::render::record(r, false))
                .collect(),
            selections: None,
            settings: Some(f.entity.settings.clone()),
            version: Some(f.entity.version),
        },
        Err(e) => ProjectView {
            available: false,
            documents: None,
            id: id.to_string(),
            name: p.listing.name.clone(),
            path,
            reason: Some(e.to_string()),
            runs: Vec::new(),
            selections: None,
            settings: None,
            version: None,
        },
    };
    v.selections = p
        .selections
        .as_ref()
        .map(|sel| sel.iter().map(selection_view).collect());
    v
}

fn selection_view(x: &Selection) -> SelectionView {
    let (scope, holder) = match &x.scope {
        SelectionScope::Caller(c) => (SelectionScopeView::Caller, Some(c.clone())),
        SelectionScope::View(v) => (SelectionScopeView::View, Some(v.clone())),
        SelectionScope::Shared => (SelectionScopeView::Shared, None),
    };
    SelectionView {
        holder,
        keys: x.keys.clone(),
        namespace: x.namespace.clone(),
        principal: x.principal.clone(),
        scope,
        version: x.version,
    }
}

/// The sessions with access to a project (its valid grants), with their latest recorded call.
pub fn agent_views(grants: Vec<GrantRecord>, facts: &AgentFacts) -> Vec<AgentView> {
    let time = rho_plumbing::time::rfc3339_ms;
    grants
        .into_iter()
        .map(|g| AgentView {
            created_at: time(g.created_ms),
            expires_at: time(g.expires_ms),
            label: g.session.clone(),
            latest_call: facts.latest.get(&g.session).map(|l| LatestCall {
                code: l.code.clone(),
                method: l.method.clone(),
                outcome: l.outcome.clone(),
                seq: l.seq,
                time: time(l.time_ms),
            }),
            methods: g.methods.into_iter().collect(),
            principal: format!("agent:{}", g.session),
            profile: g.profile,
            session: g.session,
        })
        .collect()
}
