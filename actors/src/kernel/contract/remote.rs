//! The Notebook's remote operations (places and servers): published, and answering `unavailable` until their issue lands.

use crate::contract::{reply, schema, Effect, Needs, OperationSpec, PERSON_OR_OPERATOR};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why every remote operation is unavailable in this build.
pub const REMOTE_REASON: &str = "remote places and servers (--ssh, --serverctl) are a later issue: this build runs sessions only in the project folder on this machine";

/// The request of a remote operation in this build: the project only (its issue adds the
/// operation's own fields).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoteRequest {
    pub project_id: String,
}

/// What a remote operation would answer; never sent in this build, which answers `unavailable`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteReply {
    pub reason: String,
}

const fn remote(name: &'static str, effect: Effect, summary: &'static str) -> OperationSpec {
    OperationSpec {
        name,
        version: "0.0.0",
        owner: Some(Owner::Kernel),
        needs: Needs::Owner,
        effect,
        // Not grantable to an Agent until their issue says what an Agent may do there.
        callers: PERSON_OR_OPERATOR,
        project_scoped: true,
        summary,
        request: schema::<RemoteRequest>,
        response: reply::<RemoteReply>,
        errors: &["unavailable"],
        events: &[],
    }
}

pub const REMOTE_OPERATIONS: &[OperationSpec] = &[
    remote("kernel.places", Effect::Read, "The project's places (where each language runs). Answers unavailable in this build: remote places are a later issue."),
    remote("kernel.place.set", Effect::Write, "Name a place or choose where a language runs. Answers unavailable in this build: remote places are a later issue."),
    remote("kernel.place.check", Effect::Read, "Check a place over ssh or serverctl. Answers unavailable in this build: remote places are a later issue."),
    remote("kernel.place.list", Effect::Read, "List a place's files. Answers unavailable in this build: remote places are a later issue."),
    remote("kernel.place.copy", Effect::Write, "Copy a file from a place into the project. Answers unavailable in this build: remote places are a later issue."),
    remote("kernel.servers", Effect::Read, "The servers serverctl manages. Answers unavailable in this build: remote servers are a later issue."),
    remote("kernel.server.skill", Effect::Read, "A skill bound to a server. Answers unavailable in this build: remote servers are a later issue."),
];
