//! The Notebook's place operations (`kernel.places`, `kernel.place.set/check/list/copy`) and
//! server operations (`kernel.servers`, `kernel.server.skill`): requests, replies and records.

use super::Language;
use crate::contract::{reply, schema, Effect, Needs, OperationSpec, PERSON_OR_OPERATOR};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An ssh host as the person's own ssh reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SshAt {
    /// `host`, `user@host` or an alias of the person's ssh config.
    pub destination: String,
    /// ssh options before the destination (`-p`, `2222`); never a password or key.
    #[serde(default)]
    pub args: Vec<String>,
}

/// A Slurm cluster: its commands on this machine, or on an ssh place (a login node).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SlurmAt {
    /// The ssh place whose login node has the cluster's commands (none: this machine).
    #[serde(default)]
    pub via: Option<String>,
    /// The folder of `sbatch`, `srun`, `squeue`, `scontrol`, `scancel`, `sacct` (none: PATH).
    #[serde(default)]
    pub bin: Option<String>,
    /// `SLURM_CONF` for those commands (none: the cluster's default).
    #[serde(default)]
    pub conf: Option<String>,
    /// The partition (none: the cluster's default).
    #[serde(default)]
    pub partition: Option<String>,
}

/// What a place is: exactly one of `ssh`, `slurm`, `server` (a server serverctl manages);
/// interpreters by their path there (none: its PATH), and the folder sessions work in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaceDefinition {
    #[serde(default)]
    pub ssh: Option<SshAt>,
    #[serde(default)]
    pub slurm: Option<SlurmAt>,
    /// A server's name in serverctl's registry.
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub rscript: Option<String>,
    #[serde(default)]
    pub python: Option<String>,
    /// The folder sessions work in there (none: the login's folder).
    #[serde(default)]
    pub folder: Option<String>,
}

impl PlaceDefinition {
    /// `ssh`, `slurm` or `server`.
    pub fn kind(&self) -> &'static str {
        match (&self.ssh, &self.slurm) {
            (Some(_), _) => "ssh",
            (None, Some(_)) => "slurm",
            (None, None) => "server",
        }
    }
}

/// One interpreter a check found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FoundView {
    pub path: String,
    pub version: String,
}

/// What `kernel.place.check` found (kept as the place's last check).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckView {
    pub place: String,
    pub at_ms: i64,
    pub by: String,
    /// Whether it connected and ran; `error` says why not.
    pub ok: bool,
    /// `connect`, `timeout`, `remote`, `unavailable` when not ok.
    pub error_kind: Option<String>,
    pub error: Option<String>,
    pub cwd: Option<String>,
    pub r: Option<FoundView>,
    /// Whether R has jsonlite (the runner's one package); none without R.
    pub jsonlite: Option<bool>,
    pub python: Option<FoundView>,
    pub free_bytes: Option<u64>,
    /// Slurm places: the cluster's version (`sinfo --version`) where the check ran.
    pub slurm: Option<String>,
    pub elapsed_ms: u64,
}

/// One place as `kernel.places` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaceView {
    pub name: String,
    /// `local` (this machine, always), `ssh`, `slurm` or `server`.
    pub kind: String,
    /// None for this machine.
    pub definition: Option<PlaceDefinition>,
    pub defined_by: Option<String>,
    pub defined_at_ms: Option<i64>,
    pub last_check: Option<CheckView>,
    /// The languages whose next session starts here.
    pub languages: Vec<Language>,
}

/// A live session that stays where it runs after its language's place changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaysView {
    pub language: Language,
    pub session_id: String,
    /// Where it runs (`local`: this machine).
    pub place: String,
    pub note: String,
}

/// `kernel.places` (and `kernel.place.set`'s answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacesReply {
    /// This machine (`local`) first, then the defined places by name.
    pub places: Vec<PlaceView>,
    /// `kernel.maxPlaces`: defined places (this machine not counted).
    pub max_places: u64,
    /// Live sessions left where they run by this change (`kernel.place.set` only).
    pub stays: Vec<StaysView>,
}

/// `kernel.places`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlacesRequest {
    pub project_id: String,
}

/// `kernel.place.set`: define (or redefine) a place, remove one, and/or choose where a
/// language's next session starts (`local` is this machine).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaceSetRequest {
    pub project_id: String,
    /// The place's name (lowercase letters, digits, `-`; 1 to 40), or `local`.
    pub place: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub define: Option<PlaceDefinition>,
    /// This language's next session starts at `place`; a live one stays where it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// Forget the place (refused while a language or a Slurm place uses it).
    #[serde(default)]
    pub remove: bool,
}

/// `kernel.place.check`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaceCheckRequest {
    pub project_id: String,
    pub place: String,
}

/// `kernel.place.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaceListRequest {
    pub project_id: String,
    pub place: String,
    /// A folder there: absolute, or relative to the login's folder.
    pub path: String,
}

/// One entry of a listed folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntryView {
    pub name: String,
    /// `file`, `dir`, `link` or `other`.
    pub kind: String,
    pub size: u64,
    pub modified_s: i64,
}

/// `kernel.place.list`: at most `remoteEntries` read from at most `remoteListBytes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListingView {
    pub place: String,
    /// The folder as the place resolved it.
    pub path: String,
    pub entries: Vec<EntryView>,
    /// Entries not listed.
    pub omitted: u64,
    /// Set when not every entry is listed.
    pub cut: bool,
}

/// `kernel.place.copy`: one file of a place into the project.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaceCopyRequest {
    pub project_id: String,
    pub place: String,
    /// The file there.
    pub path: String,
    /// The caller's identity of this copy: the same one returns the same record.
    pub change_id: String,
    /// Where in the project (project-relative; default: the file's name at the top). An
    /// existing file is never replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// One copy, as recorded (at most `maxCopies`; the oldest go).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CopyRecord {
    pub copy_id: String,
    pub place: String,
    /// The file on the place.
    pub source: String,
    /// The project-relative file it became.
    pub to: String,
    pub bytes: u64,
    /// `sha256:<hex>` of the bytes written.
    pub digest: String,
    /// The source's modification time there (seconds).
    pub modified_s: i64,
    /// Who asked.
    pub by: String,
    pub change_id: String,
    pub at_ms: i64,
}

/// `kernel.servers`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServersRequest {
    pub project_id: String,
}

/// One server serverctl manages, as its registry says (docs/serverctl.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerView {
    pub name: String,
    pub host: Option<String>,
    pub state: Option<String>,
    /// The skills bound to it, by name.
    pub skills: Vec<String>,
}

/// `kernel.servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServersReply {
    /// The serverctl that answered.
    pub program: String,
    pub servers: Vec<ServerView>,
}

/// `kernel.server.skill`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillRequest {
    pub project_id: String,
    pub server: String,
    pub skill: String,
}

/// A server's skill as serverctl reads it (at most `serverSkillBytes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillReply {
    pub server: String,
    pub skill: String,
    /// Where serverctl keeps it.
    pub path: String,
    pub text: String,
    pub bytes: u64,
}

const fn remote(
    name: &'static str,
    effect: Effect,
    summary: &'static str,
    request: fn() -> schemars::Schema,
    response: fn() -> schemars::Schema,
    errors: &'static [&'static str],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "0.1.0",
        owner: Some(Owner::Kernel),
        needs: Needs::Owner,
        effect,
        // Not in an Agent's grant (the seed grants run, read, inspect, plot and interrupt).
        callers: PERSON_OR_OPERATOR,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: &[],
    }
}

pub const REMOTE_OPERATIONS: &[OperationSpec] = &[
    remote("kernel.places", Effect::Read,
        "The project's places: this machine (local) always, then ssh hosts, Slurm clusters and serverctl servers, with their last check and the languages whose next session starts there.",
        schema::<PlacesRequest>, reply::<PlacesReply>, &["invalid"]),
    remote("kernel.place.set", Effect::Write,
        "Define, redefine or remove a place (at most kernel.maxPlaces), and/or choose where a language's next session starts; a live session is never moved: the answer names it in stays.",
        schema::<PlaceSetRequest>, reply::<PlacesReply>, &["invalid", "not_found", "conflict", "limit"]),
    remote("kernel.place.check", Effect::Write,
        "Connect to a place within kernel.remoteCheckTimeoutMs and report where it works, R (with jsonlite) and Python with their versions and the free space, or exactly why not; kept as its last check.",
        schema::<PlaceCheckRequest>, reply::<CheckView>, &["invalid", "not_found", "unavailable"]),
    remote("kernel.place.list", Effect::Read,
        "One folder of a place: at most kernel.remoteEntries entries from kernel.remoteListBytes, the rest counted (omitted), a cut listing marked.",
        schema::<PlaceListRequest>, reply::<ListingView>, &["invalid", "not_found", "unavailable"]),
    remote("kernel.place.copy", Effect::Write,
        "Copy one file of a place into the project (changeId per caller): refused over kernel.remoteCopyBytes before anything is sent and when it changed while copied; recorded with its digest, source and who asked (at most kernel.maxCopies records).",
        schema::<PlaceCopyRequest>, reply::<CopyRecord>, &["invalid", "not_found", "conflict", "limit", "unavailable"]),
    remote("kernel.servers", Effect::Read,
        "The servers serverctl manages, read from its registry within kernel.serverctlReadMs; unavailable naming serverctl when it is absent.",
        schema::<ServersRequest>, reply::<ServersReply>, &["invalid", "unavailable"]),
    remote("kernel.server.skill", Effect::Read,
        "One skill bound to a server, read through serverctl (at most kernel.serverSkillBytes, else limit with its path).",
        schema::<SkillRequest>, reply::<SkillReply>, &["invalid", "not_found", "limit", "unavailable"]),
];
