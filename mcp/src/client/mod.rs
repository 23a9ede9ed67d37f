//! Rho as an MCP client: configuration, transports, both protocol eras, OAuth, discovery,
//! tool calls, prompts, resources, and the policy engines for questions and sampling.

pub mod budget;
pub mod call;
pub mod completion;
pub mod config;
pub mod connect;
pub mod elicit;
pub mod env;
pub mod eras;
pub mod errors;
pub mod form;
pub mod handler;
pub(crate) mod handshake;
pub mod http;
pub mod inflight;
pub mod live;
pub mod mrtr;
pub mod naming;
pub mod oauth;
pub mod policy;
pub mod prompts;
pub mod refresh;
pub mod registry;
pub mod render;
pub(crate) mod request;
pub mod resources;
pub mod runtime;
pub mod sampling;
pub mod schema;
pub mod session;
pub mod stdio;
