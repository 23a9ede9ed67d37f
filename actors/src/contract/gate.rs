//! Owner gating declared once: which owners an operation's new work needs, read from its spec.
//!
//! An operation needs the owner its [`OperationSpec`] names (and, through
//! [`crate::owners::Selection::missing_for`], that owner's dependencies), or the needs of the
//! action it submits, unless its spec's `needs` says otherwise where it is declared: `Retained`
//! for reads and writes of retained facts that keep working whatever is selected (CONVENTIONS,
//! Owner selection), `Only` for operations served by one owner but needing others.
//! Request-dependent needs (a buffer script needs Documents) are added by the handler that sees
//! the request.
//!
//! Where the gate is applied: reads before their handler (the edge's dispatch); writes after
//! their identity lookup, in the project's command path (see `docs/ARCHITECTURE.md`).

use super::{Needs, OperationSpec};
use crate::owners::Owner;

/// The owners new work of `spec` needs, in the order they are checked.
pub fn needs(spec: &OperationSpec) -> Vec<Owner> {
    match spec.needs {
        Needs::Retained => Vec::new(),
        Needs::Only(owners) => owners.to_vec(),
        Needs::Owner => match super::registry::action_submitted_by(spec.name) {
            Some(action) => action.needs.to_vec(),
            None => spec.owner.into_iter().collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::registry;

    #[test]
    fn needs_read_from_the_spec() {
        let need = |n: &str| registry::find(n).map(|s| needs(&s)).unwrap();
        assert_eq!(need("document.edit"), [Owner::Documents]);
        assert_eq!(need("document.read"), []);
        assert_eq!(need("action.export"), [Owner::Files]);
        assert_eq!(need("action.submit"), [Owner::R, Owner::Requirements]);
        assert_eq!(need("project.create"), []);
    }

    #[test]
    fn the_retained_operations_are_the_ones_declared_so() {
        let mut retained: Vec<&str> = registry::all()
            .iter()
            .filter(|s| s.needs == Needs::Retained)
            .map(|s| s.name)
            .collect();
        retained.sort_unstable();
        assert_eq!(
            retained,
            [
                "action.cancel",
                "action.list",
                "action.lookup",
                "action.observe",
                "action.output",
                "action.retry",
                "activity.report",
                "binding.activity",
                "binding.close",
                "binding.list",
                "console.list",
                "console.output",
                "console.stop",
                "context.list",
                "context.read",
                "conversation.answer",
                "conversation.list",
                "conversation.permission",
                "conversation.read",
                "conversation.stop",
                "document.changes",
                "document.close",
                "document.history",
                "document.read",
                "document.revision",
                "kernel.interrupt",
                "kernel.plot",
                "kernel.read",
                "kernel.stop",
                "project.work.read",
                "resource.list",
                "resource.read",
            ]
        );
    }
}
