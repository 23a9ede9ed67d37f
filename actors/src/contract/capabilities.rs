//! `capability.list`'s typed reply and how it is computed from the selection and the runtimes found.

use super::actions::{self, ActionSpec, Runtime};
use super::{gate, registry};
use crate::owners::{Owner, Selection};
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

fn names(owners: &[Owner]) -> Vec<String> {
    owners.iter().map(|o| o.name().to_string()).collect()
}

/// The owners `needs` lacks under `selection`, each once, in order.
fn missing_of(selection: &Selection, needs: &[Owner]) -> Vec<Owner> {
    let mut missing = Vec::new();
    for n in needs {
        for m in selection.missing_for(*n) {
            if !missing.contains(&m) {
                missing.push(m);
            }
        }
    }
    missing
}

fn runtime_hint(r: Runtime) -> &'static str {
    match r {
        Runtime::Core => "no Core is selected (--core / RHO_CORE_BINARY)",
        Runtime::Rscript => {
            "no Rscript was found (install R, or select one with --rscript / RHO_RSCRIPT)"
        }
    }
}

/// How one action is listed.
enum Listed {
    Available(ActionFacts),
    Unavailable(UnavailableAction),
}

fn action(a: &ActionSpec, selection: &Selection, found: &[Runtime]) -> Listed {
    let missing = missing_of(selection, a.needs);
    let runtimes: Vec<Runtime> = a
        .runtimes
        .iter()
        .copied()
        .filter(|r| !found.contains(r))
        .collect();
    if missing.is_empty() && runtimes.is_empty() {
        return Listed::Available(ActionFacts {
            name: a.name.into(),
            version: a.version.into(),
            owner: a.owner.name().into(),
            submit: a.submit.into(),
            needs: names(a.needs),
            runtimes: a.runtimes.iter().map(|r| r.name().to_string()).collect(),
            summary: a.summary.into(),
        });
    }
    let mut reasons: Vec<String> = Vec::new();
    if !missing.is_empty() {
        reasons.push(format!("owner missing: {}", names(&missing).join(", ")));
    }
    reasons.extend(
        runtimes
            .iter()
            .map(|r| format!("runtime {} missing: {}", r.name(), runtime_hint(*r))),
    );
    Listed::Unavailable(UnavailableAction {
        name: a.name.into(),
        version: a.version.into(),
        owner: a.owner.name().into(),
        missing: names(&missing),
        runtimes: runtimes.iter().map(|r| r.name().to_string()).collect(),
        reason: reasons.join("; "),
    })
}

/// The catalog under `selection` with the runtimes `found` at start.
pub fn list(selection: &Selection, found: &[Runtime]) -> CapabilityList {
    let ops = registry::all();
    let owners = Owner::ALL
        .iter()
        .map(|o| {
            let missing = selection.missing_for(*o);
            let available = missing.is_empty();
            OwnerFacts {
                name: o.name().into(),
                selected: selection.is_selected(*o),
                available,
                missing: names(&missing),
                requires: names(o.requires()),
                operations: ops
                    .iter()
                    .filter(|op| op.owner == Some(*o) && available)
                    .map(|op| op.name.to_string())
                    .collect(),
            }
        })
        .collect();
    let (mut available, mut unavailable) = (Vec::new(), Vec::new());
    for a in actions::all() {
        match action(&a, selection, found) {
            Listed::Available(facts) => available.push(facts),
            Listed::Unavailable(missing) => unavailable.push(missing),
        }
    }
    CapabilityList {
        owners,
        service: ops
            .iter()
            .filter(|op| op.owner.is_none())
            .map(|op| op.name.to_string())
            .collect(),
        actions: available,
        entries: registry::entries()
            .iter()
            .filter(|e| selection.is_available(e.owner))
            .map(|e| EntryFacts {
                name: e.name.into(),
                version: e.version.into(),
                owner: e.owner.name().into(),
                summary: e.summary.into(),
                browser_renderer: e.browser_renderer,
                props: serde_json::to_value((e.props)()).unwrap_or_default(),
            })
            .collect(),
        unavailable_actions: unavailable,
        unavailable_operations: ops
            .iter()
            .filter_map(|op| {
                let missing = missing_of(selection, &gate::needs(op));
                (!missing.is_empty()).then(|| UnavailableOperation {
                    operation: op.name.into(),
                    missing: names(&missing),
                })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[Runtime] = &[Runtime::Core, Runtime::Rscript];

    #[test]
    fn r_execute_is_listed_only_with_its_owners_and_runtimes() {
        let all = list(&Selection::all(), ALL);
        assert_eq!(all.actions.len(), 1);
        assert_eq!(
            (
                all.actions[0].name.as_str(),
                all.actions[0].version.as_str()
            ),
            ("r.execute", "0.2.0")
        );
        assert!(all.unavailable_actions.is_empty());

        let files_r = list(&Selection::parse("files,r").unwrap(), ALL);
        assert!(files_r.actions.is_empty());
        assert_eq!(files_r.unavailable_actions[0].missing, ["requirements"]);
        assert!(files_r
            .unavailable_operations
            .iter()
            .all(|o| o.operation != "object.read"));

        let no_r = list(&Selection::all(), &[Runtime::Core]);
        assert_eq!(no_r.unavailable_actions[0].runtimes, ["rscript"]);
        assert!(no_r.unavailable_actions[0].reason.contains("Rscript"));
    }
}
