//! The operation contract: every operation declared once (name, version, owner, effect, callers, schemas, errors, events).
//!
//! Owners declare their operations in their own `contract` modules; [`registry`] collects them.
//! `protocol.describe`, `protocol/index.json`, the HTTP edge and the MCP adapter all read this
//! one registry.

pub mod actions;
pub mod capabilities;
pub mod capability_reply;
pub mod entry;
pub mod gate;
pub mod registry;
pub mod resources;

use crate::owners::Owner;
use serde::Serialize;

/// Whether an operation changes state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    Read,
    Write,
}

/// The kinds of principal an operation may be called by (CONVENTIONS, Principals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CallerKind {
    /// The browser of the same OS user on this machine.
    Local,
    /// The holder of the operator token in `connection.json`.
    Operator,
    /// An Agent grant (only for methods it was granted).
    Agent,
    /// A tab opened through a `--pair` link.
    Paired,
}

/// Every caller kind.
pub const ANY: &[CallerKind] = &[
    CallerKind::Local,
    CallerKind::Operator,
    CallerKind::Agent,
    CallerKind::Paired,
];
/// The person and the operator, never an Agent.
pub const PERSON_OR_OPERATOR: &[CallerKind] =
    &[CallerKind::Local, CallerKind::Operator, CallerKind::Paired];
/// Only the browser on this machine.
pub const LOCAL_ONLY: &[CallerKind] = &[CallerKind::Local];

/// One operation's declaration.
#[derive(Debug, Clone, Copy)]
pub struct OperationSpec {
    /// Wire name, e.g. `project.create`.
    pub name: &'static str,
    /// Contract version of this operation.
    pub version: &'static str,
    /// The owner that provides it; `None` for the service's own operations.
    pub owner: Option<Owner>,
    /// Which owners its new work needs: the owner gate ([`gate::needs`]).
    pub needs: Needs,
    pub effect: Effect,
    /// Who may call it. An Agent may call it only if `Agent` is listed and the grant includes it.
    pub callers: &'static [CallerKind],
    /// Whether the request carries `projectId` (the MCP adapter injects it).
    pub project_scoped: bool,
    pub summary: &'static str,
    /// JSON Schema of the request body.
    pub request: fn() -> schemars::Schema,
    /// JSON Schema of the reply's `value`.
    pub response: fn() -> schemars::Schema,
    /// Error codes it may answer with (beyond `unauthorized`, `forbidden`, `internal`).
    pub errors: &'static [&'static str],
    /// Event kinds it may emit.
    pub events: &'static [&'static str],
}

/// Which owners an operation's new work needs (CONVENTIONS, Owner selection), declared with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Its owner (with that owner's dependencies), or the needs of the action it submits;
    /// nothing for the service's own operations.
    Owner,
    /// Nothing: it reads or writes retained facts, which keep working whatever is selected.
    Retained,
    /// These owners instead of its own (in the order they are checked).
    Only(&'static [Owner]),
}

impl OperationSpec {
    /// The same operation working on retained facts ([`Needs::Retained`]).
    pub const fn retained(mut self) -> Self {
        self.needs = Needs::Retained;
        self
    }

    pub fn allows(&self, caller: CallerKind) -> bool {
        self.callers.contains(&caller)
    }

    /// Grantable to an Agent iff its contract allows the agent principal.
    pub fn grantable(&self) -> bool {
        self.allows(CallerKind::Agent)
    }
}

/// A JSON Schema for `T`.
pub fn schema<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::schema_for!(T)
}

/// A JSON Schema of what `T` serializes to, for a reply: a field that is always written (even
/// as `null`) is required; one skipped when empty is not.
pub fn reply<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// `serialize_with` for a field whose reply bytes were a sorted JSON map: writes `v` through
/// `serde_json::Value` (keys sorted at every depth) whatever the order of its type's fields.
pub fn sorted<T: serde::Serialize, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::Error;
    serde_json::to_value(v)
        .map_err(S::Error::custom)?
        .serialize(s)
}
