//! rho-api: the HTTP edge — access checks, the `/api/v2` envelope and operations, events over SSE, the browser app, the status page and pairing.
//!
//! Module map: [`server`] builds the actix-web server and the gate every request passes;
//! [`access`] checks Host/Origin and resolves the caller (with [`peer`] for the OS user behind a
//! loopback connection, [`grants`] and [`pairing`] for credentials, [`secret`] for digests);
//! [`ops`] is the operation table and `POST /api/v2/{operation}` ([`json`] parses bodies);
//! [`sse`] serves `GET /api/v2/events`; [`ui`] serves the browser app (`GET /`, `/p/*`,
//! `/assets/*`); [`status`] is `GET /status`; [`pair`] is `GET /pair/{token}`;
//! [`envelope`] is the one error type and the wire envelope; [`state`] is what handlers share.
//!
//! Handlers parse, authenticate, send one message and map the reply; this crate never touches a
//! journal.

pub mod access;
pub mod activity;
pub mod agent_grants;
pub mod bytes;
pub mod calls;
pub mod envelope;
pub mod grants;
pub mod handlers;
pub mod json;
pub mod ops;
pub mod pair;
pub mod pairing;
pub mod peer;
pub mod secret;
pub mod server;
pub mod sse;
pub mod state;
pub mod status;
pub mod ui;

pub use access::{Caller, Scope};
pub use envelope::{ApiError, Code};
pub use grants::{AgentGrant, GrantStore, NoGrants};
pub use ops::{Ctx, OpTable};
pub use pairing::{MemoryPairing, PairError, PairLink, PairedSession, PairingStore};
pub use server::serve;
pub use state::{AppConfig, AppState};
