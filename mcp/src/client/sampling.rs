//! Completions for a server (`sampling/createMessage`) behind both gates: the config opt-in
//! with a bound model, and the person's confirmation of each request. The conversation is
//! flattened to labelled text; modelPreferences are ignored; spend goes to the ledger.

use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::client::budget::Budget;
use crate::client::policy::{Policies, SamplingAsk, Usage};

/// A sampling request is bounded at three minutes.
pub const SAMPLING_BOUND: Duration = Duration::from_secs(180);

/// Why a sampling request was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SamplingError {
    /// Gate one is closed (no `sampling = "ask"`, a plugin server, or no model in this run).
    #[error("sampling is not enabled for this server in this run")]
    NotEnabled,
    /// No single in-flight call to attribute it to.
    #[error("sampling is only answered while exactly one call is running on the server")]
    NotRouted,
    /// The person said no.
    #[error("the user declined the sampling request")]
    Refused,
    /// The model failed.
    #[error("the model failed: {0}")]
    Model(String),
    /// Over three minutes.
    #[error("the sampling request did not finish within {}s", SAMPLING_BOUND.as_secs())]
    TimedOut,
    /// The turn was cancelled.
    #[error("the turn was cancelled")]
    Cancelled,
}

/// Flattens the conversation into one labelled user turn; non-text blocks are named only.
pub fn flatten(messages: &[Value]) -> String {
    let mut out = Vec::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or("user");
        let blocks: Vec<&Value> = match &m["content"] {
            Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        let body: Vec<String> = blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().unwrap_or("").to_owned(),
                Some(kind) => match b["mimeType"].as_str() {
                    Some(mime) => format!("[{kind} {mime} not sent]"),
                    None => format!("[{kind} not sent]"),
                },
                None => "[unknown block not sent]".to_owned(),
            })
            .collect();
        out.push(format!("[{role}]\n{}", body.join("\n")));
    }
    out.join("\n\n")
}

/// Runs one sampling request through both gates. `allowed` is gate one's config half.
pub async fn sample(
    policies: &Policies,
    allowed: bool,
    server: &str,
    params: &Value,
    budget: Option<&Budget>,
    cancel: Option<&CancellationToken>,
) -> Result<Value, SamplingError> {
    let (Some(model), Some(responder), true) = (&policies.model, &policies.responder, allowed)
    else {
        return Err(SamplingError::NotEnabled);
    };
    let messages: Vec<Value> = params["messages"].as_array().cloned().unwrap_or_default();
    let ask = SamplingAsk {
        server: server.to_owned(),
        messages: messages.len(),
        max_tokens: params["maxTokens"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
    };
    let approved = {
        let _paused = budget.map(Budget::pause);
        responder.confirm_sampling(ask).await
    };
    if !approved {
        return Err(SamplingError::Refused);
    }
    let system = params["systemPrompt"].as_str().map(str::to_owned);
    let user = flatten(&messages);
    let never = CancellationToken::new();
    let cancel = cancel.unwrap_or(&never);
    let completion = tokio::select! {
        _ = cancel.cancelled() => return Err(SamplingError::Cancelled),
        r = tokio::time::timeout(SAMPLING_BOUND, model.complete(system, user)) => match r {
            Err(_) => return Err(SamplingError::TimedOut),
            Ok(Err(e)) => return Err(SamplingError::Model(e)),
            Ok(Ok(c)) => c,
        },
    };
    let name = model.name();
    if let Some(ledger) = &policies.ledger {
        ledger.record(Usage {
            purpose: "mcp_sampling",
            server: server.to_owned(),
            model: name.clone(),
            input_tokens: completion.input_tokens,
            output_tokens: completion.output_tokens,
        });
    }
    Ok(serde_json::json!({
        "role": "assistant",
        "content": {"type": "text", "text": completion.text},
        "model": name,
        "stopReason": "endTurn"
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conversation_is_flattened_and_binaries_named() {
        let m = vec![
            json!({"role": "user", "content": {"type": "text", "text": "Hi"}}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Yes"}, {"type": "image", "mimeType": "image/png", "data": "x"}]}),
        ];
        assert_eq!(
            flatten(&m),
            "[user]\nHi\n\n[assistant]\nYes\n[image image/png not sent]"
        );
    }
}
