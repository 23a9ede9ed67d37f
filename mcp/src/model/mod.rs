//! Rho's model providers for its own agent: the `[model]` config table and the key, one client
//! over three wire APIs (Anthropic Messages, OpenAI Responses, Chat Completions for
//! OpenAI-compatible local servers) with SSE streaming, tool-use turns, stop reasons, usage per
//! request, bounded visible retries and cancel by dropping.

pub mod anthropic;
pub mod chat;
pub mod client;
pub mod config;
pub mod credentials;
pub mod error;
pub mod responses;
pub mod sse;
pub mod types;

pub use client::{ModelClient, ModelStream};
pub use config::{
    load_model_config, parse_model_config, Api, KeySource, ModelConfig, ModelSetupError,
};
pub use credentials::{resolve_key, store_key, ApiKey};
pub use error::ModelError;
pub use types::{
    Event, Message, Part, Request, Retry, StopReason, ToolCall, ToolDef, ToolResult, Usage,
};
