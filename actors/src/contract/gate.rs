//! Owner gating declared once: which owners an operation's new work needs, read from its spec.
//!
//! An operation needs the owner its [`OperationSpec`] names (and, through
//! [`crate::owners::Selection::missing_for`], that owner's dependencies), except the few listed
//! here: reads and writes of retained facts that keep working whatever is selected (CONVENTIONS,
//! Owner selection), and operations served by one owner but needing others. Request-dependent
//! needs (a buffer script needs Documents) are added by the handler that sees the request.
//!
//! Where the gate is applied: reads before their handler (the edge's dispatch); writes after
//! their identity lookup, in the project's command path (see `docs/ARCHITECTURE.md`).

use super::OperationSpec;
use crate::owners::Owner;

/// Operations of an owner that work on retained facts whatever is selected.
const RETAINED: &[&str] = &[
    "document.read",
    "document.changes",
    "document.history",
    "document.revision",
    "document.close",
    "resource.list",
    "resource.read",
    "context.read",
    "binding.close",
    "binding.list",
    "binding.activity",
    "activity.report",
    "action.lookup",
    "action.observe",
    "action.list",
    "action.output",
    "action.retry",
    "action.cancel",
];

/// Operations whose needs are not (only) their serving owner.
const INSTEAD: &[(&str, &[Owner])] = &[
    // A run's export writes project files and resources: it needs Files, not R.
    ("action.export", &[Owner::Files]),
];

/// The owners new work of `spec` needs, in the order they are checked.
pub fn needs(spec: &OperationSpec) -> Vec<Owner> {
    if RETAINED.contains(&spec.name) {
        return Vec::new();
    }
    if let Some((_, owners)) = INSTEAD.iter().find(|(n, _)| *n == spec.name) {
        return owners.to_vec();
    }
    if let Some(action) = super::registry::action_submitted_by(spec.name) {
        return action.needs.to_vec();
    }
    spec.owner.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::registry;

    #[test]
    fn every_listed_operation_exists_and_needs_read_from_the_spec() {
        let names: Vec<&str> = registry::all().iter().map(|s| s.name).collect();
        for n in RETAINED.iter().chain(INSTEAD.iter().map(|(n, _)| n)) {
            assert!(names.contains(n), "{n} is not an operation");
        }
        let need = |n: &str| registry::find(n).map(|s| needs(&s)).unwrap();
        assert_eq!(need("document.edit"), [Owner::Documents]);
        assert_eq!(need("document.read"), []);
        assert_eq!(need("action.export"), [Owner::Files]);
        assert_eq!(need("action.submit"), [Owner::R, Owner::Requirements]);
        assert_eq!(need("project.create"), []);
    }
}
