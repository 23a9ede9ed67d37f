//! The service's own operations: each parses nothing (the table did), sends one message, maps the reply.

mod agent_facts;
mod bindings;
mod capability;
mod capability_index;
mod charts;
mod connect;
mod console;
mod context_list;
mod contexts;
mod conversation_more;
mod conversation_palette;
mod conversation_setup;
mod conversation_surfaces;
mod conversations;
mod data;
mod document_history;
mod documents;
mod export;
mod files;
mod kernel;
mod knowledge;
mod media;
mod media_context;
mod objects;
mod observation;
mod pairing;
mod projects;
mod protocol;
mod relay;
mod requirements;
mod resource_bytes;
mod runs;
mod runs_output;
mod servers;
mod services;
mod sessions;
mod tables;
#[cfg(feature = "test-owner")]
mod testing;

pub use agent_facts::ProjectActivity;
pub use services::Services;

use crate::ops::{DuplicateOperation, OpTable};
use std::sync::Arc;

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
    documents::register(table, &services)?;
    document_history::register(table, &services)?;
    contexts::register(table, &services)?;
    context_list::register(table, &services)?;
    files::register(table, &services)?;
    resource_bytes::register(table, &services);
    tables::register(table, &services)?;
    media::register(table, &services)?;
    charts::register(table, &services)?;
    objects::register(table, &services)?;
    requirements::register(table, &services)?;
    runs::register(table, &services)?;
    export::register(table, &services)?;
    sessions::register(table, &services)?;
    connect::register(table, &services)?;
    capability_index::register(table, &services)?;
    bindings::register(table, &services)?;
    console::register(table, &services)?;
    relay::register(table, &services)?;
    kernel::register(table, &services)?;
    conversations::register(table, &services)?;
    #[cfg(feature = "test-owner")]
    testing::register(table, &services)?;
    Ok(())
}
