//! OAuth 2.1 for Streamable HTTP servers (seed § OAuth) on rmcp's authorization manager:
//! the 401 challenge -> protected resource metadata -> authorization server metadata chain,
//! registration (pre-registered, CIMD, then dynamic), PKCE S256, resource indicator, `iss`
//! checks, the credential store, and the three ways a run may authorize (never, browser,
//! headless for the conformance mode only); DPoP where the authorization server asks for it.
//! This file only declares the modules and names what the rest of the client uses.

mod authorize;
mod dpop;
mod dpop_http;
mod dpop_keys;
mod error;
mod login;
mod machine;
mod manager;
mod options;
pub(crate) mod store;
mod token;
mod transport;
mod workload;

pub(crate) use authorize::{authorize, step_up};
pub use dpop_keys::DpopKeys;
pub use error::{OAuthError, DISCOVERY_BOUND, LOGIN_BOUND, MAX_AUTH_ROUNDS};
pub use options::{Authorizer, MemoryStores, OAuthOptions};
pub use store::FileCredentialStore;
pub(crate) use transport::{transport, OAuthTransport};
