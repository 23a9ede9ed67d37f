//! The messages of [`super::AgentAccess`], each a named type with a typed result, and their replies.

use super::client_run::ClientRun;
use super::error::AccessError;
use crate::agent::contract::session::McpEntry;
use crate::agent::grants::GrantRecord;
use actix::Message;
use std::path::PathBuf;
use uuid::Uuid;

/// Which project a grant names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectRef {
    Id(Uuid),
    /// A registered project's folder relative to the service root (already checked: relative, no `..`).
    Folder(String),
}

/// `session.grant`: grant (or keep) access of a session to a project and write its connection file.
#[derive(Debug, Clone)]
pub struct GrantAccess {
    pub project: ProjectRef,
    /// A valid session name (checked by the caller).
    pub session: String,
    /// The named methods; `None`: the default grant.
    pub methods: Option<Vec<String>>,
    pub profile: Option<String>,
    /// RFC 3339 text; `None`: keep the current expiry, or 30 days.
    pub expires_at: Option<String>,
}

/// What a grant did (no token).
#[derive(Debug, Clone)]
pub struct Granted {
    pub project_id: Uuid,
    pub project_name: String,
    pub record: GrantRecord,
    /// The same valid grant existed and its credential was kept.
    pub reused: bool,
    pub connection_file: PathBuf,
    pub mcp: McpEntry,
}

impl Message for GrantAccess {
    type Result = Result<Granted, AccessError>;
}

/// `session.revoke`: end a grant at once and remove its connection file; `false` when there was none.
#[derive(Debug, Clone)]
pub struct RevokeAccess {
    pub project: Uuid,
    pub session: String,
}

impl Message for RevokeAccess {
    type Result = Result<bool, AccessError>;
}

/// `session.instructions`: what to paste into any Agent's configuration.
#[derive(Debug, Clone)]
pub struct ReadInstructions {
    pub project: Uuid,
    pub session: String,
}

/// The reply of [`ReadInstructions`] (no credential).
#[derive(Debug, Clone)]
pub struct Instructions {
    pub project_name: String,
    pub session: String,
    pub mcp: McpEntry,
    /// Whether that session holds a valid grant now.
    pub granted: bool,
    /// `rho --grant <connection.json> --project-id <id> --session <name>`.
    pub grant_command: String,
}

impl Message for ReadInstructions {
    type Result = Result<Instructions, AccessError>;
}

/// `session.connect`: grant the project to `claude-code` or `codex` and run that client's own
/// `mcp add`; a new grant the client refused is revoked.
#[derive(Debug, Clone)]
pub struct ConnectAgent {
    pub project: Uuid,
    pub agent: String,
}

/// The reply of [`ConnectAgent`] when the client accepted.
#[derive(Debug, Clone)]
pub struct Connected {
    pub project: Uuid,
    pub agent: String,
    pub grant: Granted,
    pub client: ClientRun,
}

impl Message for ConnectAgent {
    type Result = Result<Connected, AccessError>;
}

/// An Agent caller's view of a project: its name and the session's grant, when valid now.
#[derive(Debug, Clone)]
pub struct AgentView {
    pub project: Uuid,
    pub session: String,
}

impl Message for AgentView {
    type Result = Result<(String, Option<GrantRecord>), AccessError>;
}

/// The valid grants of one project, by session (the snapshot's `agents`).
#[derive(Debug, Clone)]
pub struct ProjectGrants {
    pub project: Uuid,
}

impl Message for ProjectGrants {
    type Result = Vec<GrantRecord>;
}
