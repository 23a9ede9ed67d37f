//! `capability.list`: its reply computed from the selection and the runtimes found at start.

use super::actions::{ActionSpec, Runtime};
pub use super::capability_reply::*;
use super::{gate, registry};
use crate::owners::{Owner, Selection};

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
    for a in registry::actions() {
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
