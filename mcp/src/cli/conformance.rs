//! The hidden conformance-client mode driven by `@modelcontextprotocol/conformance`: the real
//! client code against the suite's server (URL as the last argument, scenario from
//! `MCP_CONFORMANCE_SCENARIO`). It answers forms by accepting the schema's defaults.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::client::call::CallContext;
use crate::client::config::{
    EnterpriseIdp, EntryState, HttpConfig, McpConfig, OAuthConfig, OAuthGrant, SamplingPolicy,
    ServerConfig, ServerEntry, Source, ToolFilter, TransportConfig,
};
use crate::client::oauth::{Authorizer, OAuthOptions};
use crate::client::policy::{
    Answer, AnswerValue, BoxFuture, FieldKind, Policies, Question, Responder, SamplingAsk,
};
use crate::client::runtime::{McpRuntime, Slot, StartOptions};

/// The client metadata URL the conformance suite's authorization server expects.
const CONFORMANCE_CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Accepts every form with its defaults (typed placeholders where there is none).
struct AcceptDefaults;

impl Responder for AcceptDefaults {
    fn ask(&self, q: Question) -> BoxFuture<'_, Answer> {
        let mut out = BTreeMap::new();
        for f in &q.fields {
            let v = match (&f.default, &f.kind) {
                (Some(Value::String(s)), _) => AnswerValue::One(s.clone()),
                (Some(Value::Bool(b)), _) => AnswerValue::One(if *b { "yes" } else { "no" }.into()),
                (Some(Value::Number(n)), _) => AnswerValue::One(n.to_string()),
                (Some(Value::Array(a)), _) => AnswerValue::Many(
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect(),
                ),
                (_, _) if !f.required => continue,
                (_, FieldKind::Text) => AnswerValue::One("conformance".into()),
                (_, FieldKind::Confirm) => AnswerValue::One("yes".into()),
                (_, FieldKind::Number { .. }) => AnswerValue::One("1".into()),
                (_, FieldKind::Choice { options, multi }) => {
                    let first = options.first().map(|o| o.0.clone()).unwrap_or_default();
                    if *multi {
                        AnswerValue::Many(vec![first])
                    } else {
                        AnswerValue::One(first)
                    }
                }
            };
            out.insert(f.name.clone(), v);
        }
        Box::pin(async move { Answer::Submitted(out) })
    }

    fn confirm_sampling(&self, _ask: SamplingAsk) -> BoxFuture<'_, bool> {
        Box::pin(async { false })
    }
}

/// Arguments synthesized from an input schema: each required property gets a value of its
/// type (optional ones are left out).
fn synth_args(schema: &Value) -> Map<String, Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut out = Map::new();
    for (name, p) in schema["properties"].as_object().into_iter().flatten() {
        if !required.contains(&name.as_str()) {
            continue;
        }
        let v = if let Some(first) = p["enum"].as_array().and_then(|e| e.first()) {
            first.clone()
        } else {
            match p["type"].as_str() {
                Some("number") | Some("integer") => json!(1),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("conformance"),
            }
        };
        out.insert(name.clone(), v);
    }
    out
}

/// `http-custom-headers`: values that exercise header mirroring and its encodings (the
/// encoding itself is rmcp's, the client code under test).
fn custom_header_args(tool: &str) -> Map<String, Value> {
    let v = if tool.ends_with("test_custom_headers") {
        json!({
            "region": "us-west1", "priority": 42, "verbose": false, "debug": true,
            "empty_val": "", "method_val": "test-method", "float_val": 2.5,
            "non_ascii_val": "Hello, \u{4e16}\u{754c}", "whitespace_val": " padded ",
            "leading_space_val": " us-west1", "trailing_space_val": "us-west1 ",
            "internal_space_val": "us west 1", "control_char_val": "line1\u{0001}line2",
            "crlf_val": "line1\r\nline2", "tab_val": "\tindented", "query": "q"
        })
    } else if tool.ends_with("test_custom_headers_null") {
        json!({"region": "us-west1", "priority": 42, "verbose": null, "query": "q"})
    } else {
        json!({})
    };
    v.as_object().cloned().unwrap_or_default()
}

/// Runs the mode; `err` receives diagnostics (stdout stays unused).
pub(super) fn run(url: &str, err: &mut dyn Write) -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    // Scenario data the suite hands over (e.g. a pre-registered client for auth scenarios).
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    // The suite's machine-grant scenarios (SEP-1046 client credentials, SEP-990 enterprise
    // managed, SEP-1933 workload identity) stand for configuration a person would write: `grant = ...` and the IdP table.
    let enterprise = text("idp_id_token").map(|_| EnterpriseIdp {
        issuer: text("idp_issuer").unwrap_or_default(),
        token_endpoint: text("idp_token_endpoint").unwrap_or_default(),
        client_id: text("idp_client_id").unwrap_or_default(),
        id_token_from_env: String::new(),
    });
    let grant = if enterprise.is_some() {
        OAuthGrant::Enterprise
    } else if scenario.starts_with("auth/client-credentials") {
        OAuthGrant::ClientCredentials
    } else if context["valid_jwt"].is_string() {
        // SEP-1933: the suite hands over the workload's identity JWT.
        OAuthGrant::WorkloadIdentity
    } else {
        OAuthGrant::AuthorizationCode
    };
    let oauth = OAuthConfig {
        grant,
        enterprise,
        client_id: context["client_id"].as_str().map(str::to_owned),
        // The suite's Client ID Metadata Document URL (its fixed test client identity).
        client_metadata_url: Some(
            context["client_metadata_url"]
                .as_str()
                .unwrap_or(CONFORMANCE_CIMD_URL)
                .to_owned(),
        ),
        ..OAuthConfig::default()
    };
    let cfg = ServerConfig {
        id: "conformance".to_owned(),
        source: Source::Config,
        enabled: true,
        transport: TransportConfig::StreamableHttp(HttpConfig {
            url: url.to_owned(),
            headers: BTreeMap::new(),
            headers_from_env: BTreeMap::new(),
            oauth: Some(oauth),
        }),
        tools: ToolFilter::default(),
        log_level: None,
        sampling: SamplingPolicy::Deny,
        plugin_data_dir: None,
    };
    let config = McpConfig {
        entries: vec![ServerEntry {
            id: cfg.id.clone(),
            source: Source::Config,
            state: EntryState::Valid(Box::new(cfg)),
        }],
        ..McpConfig::default()
    };
    let mut opts = StartOptions::default();
    // Only this mode may authorize headlessly; tokens stay in memory.
    opts.connect.oauth = OAuthOptions {
        store: None,
        authorizer: Authorizer::Headless,
        memory: Default::default(),
        client_secret: text("client_secret"),
        private_key_pem: text("private_key_pem"),
        id_token: text("idp_id_token"),
        assertion: text("valid_jwt"),
        dpop_keys: Default::default(),
        ..OAuthOptions::default()
    };
    opts.connect.policies = Policies {
        responder: Some(Arc::new(AcceptDefaults)),
        ..Policies::default()
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = writeln!(
                err,
                "conformance-client: cannot start the async runtime: {e}"
            );
            return ExitCode::from(1);
        }
    };
    rt.block_on(async {
        let Some(runtime) = McpRuntime::start(&config, opts).await else {
            return ExitCode::from(1);
        };
        if let Slot::Failed { error, .. } = &runtime.slots()[0] {
            let _ = writeln!(err, "conformance-client ({scenario}): {error}");
            runtime.shutdown().await;
            return ExitCode::from(1);
        }
        if scenario != "initialize" {
            let tools = runtime.tools();
            for spec in &tools {
                let mut args = synth_args(&spec.input_schema);
                if scenario == "http-custom-headers" {
                    args.extend(custom_header_args(&spec.name));
                }
                if scenario == "json-schema-2020-12-preservation" && args.contains_key("schema") {
                    // Echo back the schema exactly as Rho holds it for the focal tool, which
                    // shows whether anything was lost in parsing.
                    if let Some(focal) = tools
                        .iter()
                        .find(|t| t.name.ends_with("json_schema_2020_12_tool"))
                    {
                        args.insert("schema".to_owned(), focal.input_schema.clone());
                    }
                }
                match runtime
                    .call(&spec.name, Some(args), CallContext::default())
                    .await
                {
                    Ok(out) => {
                        let _ = writeln!(err, "conformance-client: {} -> {}", spec.name, out.text);
                    }
                    Err(e) => {
                        let _ = writeln!(err, "conformance-client: {} failed: {e}", spec.name);
                    }
                }
            }
        }
        runtime.shutdown().await;
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_follow_the_schema() {
        let s = json!({"properties": {"a": {"type": "number"}, "s": {"type": "string", "enum": ["x"]}, "o": {"type": "string"}}, "required": ["a", "s"]});
        assert_eq!(Value::Object(synth_args(&s)), json!({"a": 1, "s": "x"}));
    }
}
