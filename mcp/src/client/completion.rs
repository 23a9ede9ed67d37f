//! Argument suggestions (`completion/complete`) for prompt arguments and resource template
//! placeholders: only for servers declaring completions, one request in flight per server,
//! answers reused, failures and late replies are empty.

use std::sync::PoisonError;
use std::time::Duration;

use rmcp::model::{ArgumentInfo, CompleteRequestParams, CompletionContext, Reference};

pub use crate::client::live::Completer;
use crate::client::live::CompletionKey as Key;
use crate::client::runtime::McpRuntime;

/// How long a suggestion may take before the palette stays empty.
pub const COMPLETION_TIMEOUT: Duration = Duration::from_secs(5);

impl McpRuntime {
    /// Suggestions for `argument` of `prompt` on `server` given the typed `value` and the
    /// other arguments already typed. Never errors: anything but an answer is empty.
    pub async fn complete_prompt_argument(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        others: &[(String, String)],
    ) -> Vec<String> {
        self.complete(
            server,
            Reference::for_prompt(prompt),
            prompt.to_owned(),
            argument,
            value,
            others,
        )
        .await
    }

    /// Suggestions for the `{argument}` placeholder of resource template `uri_template` on
    /// `server` (the `@` palette). Never errors, like prompt arguments.
    pub async fn complete_resource_argument(
        &self,
        server: &str,
        uri_template: &str,
        argument: &str,
        value: &str,
        others: &[(String, String)],
    ) -> Vec<String> {
        self.complete(
            server,
            Reference::for_resource(uri_template),
            format!("resource:{uri_template}"),
            argument,
            value,
            others,
        )
        .await
    }

    async fn complete(
        &self,
        server: &str,
        reference: Reference,
        cache_name: String,
        argument: &str,
        value: &str,
        others: &[(String, String)],
    ) -> Vec<String> {
        let Some(live) = self.server(server) else {
            return Vec::new();
        };
        if live.capabilities.completions.is_none() {
            return Vec::new();
        }
        let mut ctx_args = others.to_vec();
        ctx_args.sort();
        let key: Key = (cache_name, argument.into(), value.into(), ctx_args.clone());
        let c = &live.completer;
        if let Some(hit) = c
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return hit.clone();
        }
        let Ok(_in_flight) = c.gate.try_lock() else {
            // One request at a time: the keystroke that finds one running gets nothing now.
            return Vec::new();
        };
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if !ctx_args.is_empty() {
            let mut context = CompletionContext::new();
            context.arguments = Some(ctx_args.into_iter().collect());
            params.context = Some(context);
        }
        c.sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let values =
            match tokio::time::timeout(COMPLETION_TIMEOUT, live.peer().complete(params)).await {
                Ok(Ok(r)) => r.completion.values,
                Ok(Err(e)) => {
                    tracing::debug!(target: "rho::mcp", server, error = %e, "completion failed");
                    return Vec::new();
                }
                Err(_) => return Vec::new(),
            };
        c.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, values.clone());
        values
    }
}
