//! The service's own operations: each parses nothing (the table did), sends one message, maps the reply.

mod capability;
mod observation;
mod pairing;
mod projects;
mod protocol;

use crate::envelope::ApiError;
use crate::ops::{DuplicateOperation, OpTable};
use actix::Addr;
use rho_actors::contract::registry;
use rho_actors::events::EventBus;
use rho_actors::limits::Limits;
use rho_actors::owners::Selection;
use rho_actors::service::ServiceActor;
use std::path::PathBuf;
use std::sync::Arc;

/// What the service's handlers reach: the service actor and the facts of this run.
pub struct Services {
    pub service: Addr<ServiceActor>,
    /// Canonical projects folder.
    pub root: PathBuf,
    pub selection: Selection,
    pub limits: Limits,
    pub events: EventBus,
    /// The service's own URL (`http://127.0.0.1:PORT`), for links it mints.
    pub url: String,
}

fn spec(name: &str) -> rho_actors::contract::OperationSpec {
    // Every name below is declared in the contract; a missing one is a programming error caught
    // by the `every_declared_operation_is_served` test.
    registry::find(name).unwrap_or_else(|| panic!("operation {name} is not declared"))
}

/// A mailbox error talking to an actor: the service is stopping or an actor died.
pub(crate) fn mailbox(e: actix::MailboxError) -> ApiError {
    ApiError::internal(format!("actor mailbox: {e}"))
}

/// Registers every operation of the service itself.
pub fn register_service_operations(
    table: &mut OpTable,
    services: Arc<Services>,
) -> Result<(), DuplicateOperation> {
    protocol::register(table)?;
    projects::register(table, &services)?;
    capability::register(table, &services)?;
    observation::register(table, &services)?;
    pairing::register(table, &services)?;
    Ok(())
}

/// Parses a project id: malformed is `invalid`; a well-formed unknown id is `not_found` later.
pub(crate) fn project_id(field: &str, text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text)
        .map_err(|_| ApiError::invalid(Some(field), "not a project id (UUID)"))
}
