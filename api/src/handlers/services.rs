//! What every handler shares: the service's facts ([`Services`]), an operation's declared spec,
//! mailbox errors and project ids. A leaf of the handlers: it imports none of them.

use crate::envelope::ApiError;
use actix::Addr;
use rho_actors::agent::access::AgentAccess;
use rho_actors::contract::actions::Runtime;
use rho_actors::contract::registry;
use rho_actors::events::EventBus;
use rho_actors::limits::Limits;
use rho_actors::owners::Selection;
use rho_actors::service::ServiceActor;
use std::path::PathBuf;

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
    /// Agent access (grants, connection files, client CLIs); `None`: session.* is unavailable.
    pub agent: Option<Addr<AgentAccess>>,
    /// The runtimes found at start (Core, Rscript), for the actions that need them.
    pub runtimes: Vec<Runtime>,
    /// Conversations' adapters and defaults; `None`: conversation.* is unavailable.
    pub conversations: Option<rho_actors::agent::conversation::driver::ServiceSetup>,
    fixed: std::sync::OnceLock<Fixed>,
}

/// Facts fixed for a service run, rendered once: the limits and the owner catalog.
pub(crate) struct Fixed {
    pub(crate) limits: Box<serde_json::value::RawValue>,
    pub(crate) owners: Box<serde_json::value::RawValue>,
}

impl Services {
    /// Services of one run; `fixed` facts are rendered on first use.
    pub fn new(
        service: Addr<ServiceActor>,
        root: PathBuf,
        selection: Selection,
        limits: Limits,
        events: EventBus,
        url: String,
    ) -> Self {
        Services {
            service,
            root,
            selection,
            limits,
            events,
            url,
            agent: None,
            runtimes: Vec::new(),
            conversations: None,
            fixed: std::sync::OnceLock::new(),
        }
    }

    /// With Agent access set up (the actor of this service run).
    pub fn with_agent(mut self, agent: Addr<AgentAccess>) -> Self {
        self.agent = Some(agent);
        self
    }

    /// With conversations set up (the adapters and the default backend of this run).
    pub fn with_conversations(
        mut self,
        setup: rho_actors::agent::conversation::driver::ServiceSetup,
    ) -> Self {
        self.conversations = Some(setup);
        self
    }

    /// With the runtimes found at start.
    pub fn with_runtimes(mut self, runtimes: Vec<Runtime>) -> Self {
        self.runtimes = runtimes;
        self
    }

    pub(crate) fn fixed(&self) -> &Fixed {
        self.fixed.get_or_init(|| {
            let raw = |v: serde_json::Value| {
                serde_json::value::to_raw_value(&v)
                    .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned())
            };
            Fixed {
                limits: raw(serde_json::to_value(&self.limits).unwrap_or_default()),
                owners: raw(serde_json::to_value(
                    rho_actors::contract::capabilities::list(&self.selection, &self.runtimes)
                        .owners,
                )
                .unwrap_or_default()),
            }
        })
    }
}

pub(crate) fn spec(name: &str) -> rho_actors::contract::OperationSpec {
    // Every name below is declared in the contract; a missing one is a programming error caught
    // by the `every_declared_operation_is_served` test.
    registry::find(name).unwrap_or_else(|| panic!("operation {name} is not declared"))
}

/// A mailbox error talking to an actor: the service is stopping or an actor died.
pub(crate) fn mailbox(e: actix::MailboxError) -> ApiError {
    ApiError::internal(format!("actor mailbox: {e}"))
}

/// Parses a project id: malformed is `invalid`; a well-formed unknown id is `not_found` later.
pub(crate) fn project_id(field: &str, text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text)
        .map_err(|_| ApiError::invalid(Some(field), "not a project id (UUID)"))
}
