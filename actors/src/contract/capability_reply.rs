//! `capability.list`'s typed reply (its published response schema).

use schemars::JsonSchema;
use serde::Serialize;

/// What this service run offers: owners, operations, actions and UI entries, and what is not
/// available with what is missing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityList {
    /// Every owner, selected or not.
    pub owners: Vec<OwnerFacts>,
    /// The service's own operations (no owner).
    pub service: Vec<String>,
    /// Registered actions whose owner, dependencies and runtimes are all available.
    pub actions: Vec<ActionFacts>,
    /// UI component entries of available owners.
    pub entries: Vec<EntryFacts>,
    /// Registered actions that cannot run now, each with what is missing.
    pub unavailable_actions: Vec<UnavailableAction>,
    /// Operations whose new work is refused now (`unavailable`), each with the missing owners.
    pub unavailable_operations: Vec<UnavailableOperation>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OwnerFacts {
    pub name: String,
    pub selected: bool,
    pub available: bool,
    /// What makes it unavailable: itself when unselected, else unavailable dependencies.
    pub missing: Vec<String>,
    pub requires: Vec<String>,
    /// Its operations, when available.
    pub operations: Vec<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionFacts {
    /// e.g. `r.execute`.
    pub name: String,
    pub version: String,
    pub owner: String,
    /// The operation that submits it (e.g. `action.submit`).
    pub submit: String,
    /// Owners it needs (a buffer script of `r.execute` also needs `documents`).
    pub needs: Vec<String>,
    /// Runtimes it needs (`core`, `rscript`).
    pub runtimes: Vec<String>,
    pub summary: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnavailableAction {
    pub name: String,
    pub version: String,
    pub owner: String,
    /// Missing owners (the provider or a dependency).
    pub missing: Vec<String>,
    /// Missing runtimes (`core`, `rscript`).
    pub runtimes: Vec<String>,
    /// What a person can act on.
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnavailableOperation {
    pub operation: String,
    pub missing: Vec<String>,
}

/// One UI component entry as listed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntryFacts {
    pub name: String,
    pub version: String,
    pub owner: String,
    pub summary: String,
    pub browser_renderer: bool,
    /// JSON Schema of its props.
    pub props: serde_json::Value,
}
