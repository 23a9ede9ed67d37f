//! Modern-era (2026-07-28) input rounds: answering the `input_required` requests a result
//! carries (roots; questions and sampling through the policy engines) and per-request
//! `_meta` such as the log level.

#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{InputRequest, InputRequests, InputResponses, LoggingLevel, RequestMetaObject};

use crate::budget::Budget;
use crate::call::CallError;
use crate::config::LogLevel;
use crate::handler::roots_result;
use crate::runtime::LiveServer;

/// Input rounds per request before Rho gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// Answers every input request or refuses the whole round (a refusal is not retrying).
pub(crate) async fn fulfil_input_requests(
    live: &Arc<LiveServer>,
    requests: InputRequests,
    _budget: &Budget,
) -> Result<InputResponses, CallError> {
    let mut out = InputResponses::new();
    for (key, request) in requests {
        let value = match request {
            InputRequest::ListRoots(_) => {
                serde_json::to_value(roots_result(live.workspace.as_deref())).unwrap_or_default()
            }
            InputRequest::Elicitation(_) => return Err(CallError::InputRefused {
                server: live.config.id.clone(),
                reason:
                    "the server asked a question and this run cannot put one in front of a person"
                        .to_owned(),
            }),
            InputRequest::CreateMessage(_) => {
                return Err(CallError::InputRefused {
                    server: live.config.id.clone(),
                    reason:
                        "the server asked for sampling, which is not enabled for it in this run"
                            .to_owned(),
                })
            }
            _ => {
                return Err(CallError::InputRefused {
                    server: live.config.id.clone(),
                    reason: "the server asked for an input kind Rho does not know".to_owned(),
                })
            }
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// Per-request `_meta`: on modern servers the configured log level rides on each request.
pub(crate) fn request_meta(live: &LiveServer) -> Option<RequestMetaObject> {
    let level = live.config.log_level?;
    if !live.is_modern() {
        return None;
    }
    let mut meta = RequestMetaObject::default();
    meta.set_log_level(wire_level(level));
    Some(meta)
}

/// Config level -> rmcp level.
pub fn wire_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}
