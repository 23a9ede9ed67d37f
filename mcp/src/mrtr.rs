//! Modern-era (2026-07-28) input rounds: answering the `input_required` requests a result
//! carries (roots; questions and sampling through the policy engines) and per-request
//! `_meta` such as the log level.

#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{InputRequest, InputRequests, InputResponses, LoggingLevel, RequestMetaObject};

use crate::budget::Budget;
use crate::call::CallError;
use crate::config::LogLevel;
use crate::elicit::{elicit, result_json, Outcome};
use crate::handler::roots_result;
use crate::runtime::LiveServer;
use crate::sampling::sample;

/// Input rounds per request before Rho gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// Answers every input request or refuses the whole round (a refusal is not retrying).
pub(crate) async fn fulfil_input_requests(
    live: &Arc<LiveServer>,
    requests: InputRequests,
    budget: &Budget,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<InputResponses, CallError> {
    let server = live.config.id.clone();
    let mut out = InputResponses::new();
    for (key, request) in requests {
        let value = match request {
            InputRequest::ListRoots(_) => {
                serde_json::to_value(roots_result(live.workspace.as_deref())).unwrap_or_default()
            }
            InputRequest::Elicitation(req) => {
                if live.policies.responder.is_none() {
                    return Err(CallError::InputRefused {
                        server,
                        reason: "the server asked a question and this run cannot put one in front of a person".to_owned(),
                    });
                }
                // Modern era: the question arrived inside this call's result, so the
                // association is exact.
                let params = serde_json::to_value(&req.params).unwrap_or_default();
                let outcome = elicit(&live.policies, &server, &params, Some(budget)).await;
                if outcome == Outcome::Cancel {
                    cancel.cancel();
                    return Err(CallError::Cancelled);
                }
                result_json(&outcome)
            }
            InputRequest::CreateMessage(req) => {
                let params = serde_json::to_value(&req.params).unwrap_or_default();
                sample(
                    &live.policies,
                    live.sampling_declared,
                    &server,
                    &params,
                    Some(budget),
                    Some(cancel),
                )
                .await
                .map_err(|e| CallError::InputRefused {
                    server: server.clone(),
                    reason: e.to_string(),
                })?
            }
            _ => {
                return Err(CallError::InputRefused {
                    server,
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
