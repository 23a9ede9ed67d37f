//! `capability.list`: selected owners with availability, their operations, actions and UI entries.

use super::services::{spec, Services};
use crate::ops::{DuplicateOperation, OpTable};
use rho_actors::contract::capabilities::{self, CapabilityList};
use rho_actors::service_contract::Empty;
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
pub(super) fn list(s: &Services) -> CapabilityList {
    capabilities::list(&s.selection, &s.runtimes)
}
