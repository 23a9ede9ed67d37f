//! `capability.list`: selected owners with availability, their operations, actions and UI entries.

use super::{spec, Services};
use crate::ops::{DuplicateOperation, OpTable};
use rho_actors::contract::registry;
use rho_actors::owners::Owner;
use rho_actors::service_contract::Empty;
use serde_json::{json, Value};
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("capability.list"), move |_ctx, _req: Empty| {
        let s = s.clone();
        async move { Ok(list(&s)) }
    })?;
    Ok(())
}

/// The capability catalog of this run.
pub(super) fn list(s: &Services) -> Value {
    let ops = registry::all();
    let owners: Vec<Value> = Owner::ALL
        .iter()
        .map(|o| {
            let missing: Vec<&str> = s
                .selection
                .missing_for(*o)
                .iter()
                .map(|m| m.name())
                .collect();
            let available = missing.is_empty();
            let operations: Vec<&str> = ops
                .iter()
                .filter(|op| op.owner == Some(*o) && available)
                .map(|op| op.name)
                .collect();
            json!({
                "name": o.name(),
                "selected": s.selection.is_selected(*o),
                "available": available,
                "missing": missing,
                "requires": o.requires().iter().map(|r| r.name()).collect::<Vec<_>>(),
                "operations": operations,
            })
        })
        .collect();
    let unavailable: Vec<Value> = ops
        .iter()
        .filter_map(|op| {
            let owner = op.owner?;
            let missing = s.selection.missing_for(owner);
            (!missing.is_empty()).then(|| {
                json!({"operation": op.name, "missing": missing.iter().map(|m| m.name()).collect::<Vec<_>>()})
            })
        })
        .collect();
    json!({
        "owners": owners,
        "service": ops.iter().filter(|op| op.owner.is_none()).map(|op| op.name).collect::<Vec<_>>(),
        // Managed actions (r.execute) register with their owners.
        "actions": [],
        // UI component entries of available owners, declared next to each owner's contract.
        "entries": registry::entries()
            .iter()
            .filter(|e| s.selection.is_available(e.owner))
            .map(|e| e.to_json())
            .collect::<Vec<_>>(),
        "unavailableActions": [],
        "unavailableOperations": unavailable,
    })
}
