//! Modern-era (2026-07-28) input rounds: answering the `input_required` requests a result
//! carries (roots; questions and sampling through the policy engines) until the request's own
//! result arrives.

#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, GetPromptRequest,
    GetPromptRequestParams, InputRequest, InputRequests, InputResponses, ReadResourceRequest,
    ReadResourceRequestParams, ServerResult,
};
use tokio::sync::mpsc;

use crate::client::budget::Budget;
use crate::client::elicit::{elicit, result_json, Outcome};
use crate::client::errors::CallError;
pub use crate::client::errors::MAX_INPUT_ROUNDS;
use crate::client::handler::{roots_result, Progress};
use crate::client::live::LiveServer;
use crate::client::request::send_once;
pub use crate::client::request::wire_level;
use crate::client::sampling::sample;

/// A request the modern era may answer with `input_required`: it is sent again with the
/// round's answers and the server's request state, until it gets its own result.
pub(crate) trait InputRounds: Clone {
    /// The method, for errors.
    const METHOD: &'static str;
    /// The request's own result.
    type Output;
    fn request(&self) -> ClientRequest;
    fn answer(&mut self, responses: InputResponses, request_state: Option<String>);
    /// The result when `result` is this request's own, else `None`.
    fn finished(result: ServerResult) -> Option<Self::Output>;
}

/// Sends `params`, answering input rounds (at most [`MAX_INPUT_ROUNDS`]) until its result.
pub(crate) async fn with_input_rounds<P: InputRounds>(
    live: &Arc<LiveServer>,
    mut params: P,
    progress: Option<mpsc::UnboundedSender<Progress>>,
    budget: &Budget,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<P::Output, CallError> {
    for _round in 0..=MAX_INPUT_ROUNDS {
        match send_once(live, params.request(), progress.clone()).await? {
            ServerResult::InputRequiredResult(ir) => {
                let responses = fulfil_input_requests(
                    live,
                    ir.input_requests.unwrap_or_default(),
                    budget,
                    cancel,
                )
                .await?;
                params.answer(responses, ir.request_state);
            }
            other => {
                return P::finished(other).ok_or_else(|| CallError::Rpc {
                    server: live.config.id.clone(),
                    message: format!("unexpected response to {}", P::METHOD),
                })
            }
        }
    }
    Err(CallError::TooManyInputRounds {
        server: live.config.id.clone(),
    })
}

fn round_answers(responses: InputResponses) -> Option<InputResponses> {
    (!responses.is_empty()).then_some(responses)
}

impl InputRounds for CallToolRequestParams {
    const METHOD: &'static str = "tools/call";
    type Output = CallToolResult;
    fn request(&self) -> ClientRequest {
        ClientRequest::CallToolRequest(CallToolRequest::new(self.clone()))
    }
    fn answer(&mut self, responses: InputResponses, request_state: Option<String>) {
        self.input_responses = round_answers(responses);
        self.request_state = request_state;
    }
    fn finished(result: ServerResult) -> Option<CallToolResult> {
        match result {
            ServerResult::CallToolResult(r) => Some(r),
            _ => None,
        }
    }
}

impl InputRounds for GetPromptRequestParams {
    const METHOD: &'static str = "prompts/get";
    type Output = serde_json::Value;
    fn request(&self) -> ClientRequest {
        ClientRequest::GetPromptRequest(GetPromptRequest::new(self.clone()))
    }
    fn answer(&mut self, responses: InputResponses, request_state: Option<String>) {
        self.input_responses = round_answers(responses);
        self.request_state = request_state;
    }
    fn finished(result: ServerResult) -> Option<serde_json::Value> {
        match result {
            ServerResult::GetPromptResult(r) => Some(serde_json::to_value(r).unwrap_or_default()),
            _ => None,
        }
    }
}

impl InputRounds for ReadResourceRequestParams {
    const METHOD: &'static str = "resources/read";
    type Output = serde_json::Value;
    fn request(&self) -> ClientRequest {
        ClientRequest::ReadResourceRequest(ReadResourceRequest::new(self.clone()))
    }
    fn answer(&mut self, responses: InputResponses, request_state: Option<String>) {
        self.input_responses = round_answers(responses);
        self.request_state = request_state;
    }
    fn finished(result: ServerResult) -> Option<serde_json::Value> {
        match result {
            ServerResult::ReadResourceResult(r) => {
                Some(serde_json::to_value(r).unwrap_or_default())
            }
            _ => None,
        }
    }
}

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
                let (params, order) = crate::client::elicit::wire_params(&req.params);
                let outcome =
                    elicit(&live.policies, &server, (&params, &order), Some(budget)).await;
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
