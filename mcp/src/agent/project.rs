//! Rho's project tools: one tool per operation the conversation's grant allows, its input
//! schema the operation's published request schema, each call made through the grant exactly as
//! the `rho --mcp` adapter makes it (closed-schema check, the contract precondition, the
//! grant's token), so the service records it in activity under the conversation's principal.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::adapter::limits::MAX_RESOLVE_OPERATIONS;
use crate::adapter::Adapter;
use crate::client::policy::BoxFuture;
use crate::client::render::cap;
use crate::model::ToolDef;

/// What a project tool call gave the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectOutcome {
    /// The reply (JSON text), or the refusal's code and message.
    pub text: String,
    /// The service or the adapter refused.
    pub is_error: bool,
}

/// The project's tools of one session (fixed when it starts).
pub trait ProjectTools: Send + Sync {
    /// The tools offered each turn.
    fn tools(&self) -> Vec<ToolDef>;
    /// The operation behind a tool name.
    fn operation(&self, tool: &str) -> Option<String>;
    /// Calls one tool; dropping the future abandons the request (a mutating one's outcome is
    /// then unknown, as with any lost reply).
    fn call<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, ProjectOutcome>;
}

/// The tool name of an operation: `rho_` and the name with every other character as `_`.
pub fn tool_name(operation: &str) -> String {
    let body: String = operation
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("rho_{body}")
}

/// The project tools of a grant, through the in-process adapter core.
#[derive(Debug)]
pub struct GrantTools {
    adapter: Arc<Adapter>,
    ops: BTreeMap<String, String>,
    defs: Vec<ToolDef>,
    max_output_bytes: usize,
}

fn value_of(reply: Value) -> Value {
    reply.get("value").cloned().unwrap_or(reply)
}

impl GrantTools {
    /// Lists the grant's operations (every owner, every page) and resolves their contracts,
    /// which also puts them in the adapter's store for the calls.
    pub async fn load(adapter: Arc<Adapter>, max_output_bytes: usize) -> Result<Self, String> {
        let refusal = |r: crate::adapter::refusal::Refusal| format!("{}: {}", r.code, r.message);
        let owners = value_of(adapter.index(json!({})).await.map_err(refusal)?);
        let mut summaries: BTreeMap<String, (String, String)> = BTreeMap::new();
        for o in owners["owners"].as_array().into_iter().flatten() {
            let Some(owner) = o["owner"].as_str() else {
                continue;
            };
            let mut cursor: Option<String> = None;
            loop {
                let mut args = json!({"owner": owner});
                if let Some(c) = &cursor {
                    args["cursor"] = json!(c);
                }
                let page = value_of(adapter.index(args).await.map_err(refusal)?);
                for op in page["operations"].as_array().into_iter().flatten() {
                    if let Some(name) = op["name"].as_str() {
                        summaries.insert(
                            name.to_owned(),
                            (
                                op["summary"].as_str().unwrap_or("").to_owned(),
                                op["effect"].as_str().unwrap_or("").to_owned(),
                            ),
                        );
                    }
                }
                cursor = page["nextCursor"].as_str().map(str::to_owned);
                if cursor.is_none() {
                    break;
                }
            }
        }
        let names: Vec<String> = summaries.keys().cloned().collect();
        let mut schemas: BTreeMap<String, Value> = BTreeMap::new();
        for batch in names.chunks(MAX_RESOLVE_OPERATIONS) {
            for (name, schema) in resolve(&adapter, batch).await? {
                schemas.insert(name, schema);
            }
        }
        let mut ops = BTreeMap::new();
        let mut defs = Vec::new();
        for (name, (summary, effect)) in summaries {
            let Some(schema) = schemas.remove(&name) else {
                tracing::warn!(target: "rho::agent", operation = %name, "no contract resolved; not offered as a tool");
                continue;
            };
            let tool = tool_name(&name);
            defs.push(ToolDef {
                name: tool.clone(),
                description: format!("Rho operation `{name}` ({effect}): {summary}"),
                input_schema: schema,
            });
            ops.insert(tool, name);
        }
        Ok(Self {
            adapter,
            ops,
            defs,
            max_output_bytes,
        })
    }

    async fn call_once(
        &self,
        operation: &str,
        input: &Value,
    ) -> Result<Value, crate::adapter::refusal::Refusal> {
        self.adapter
            .call(json!({"operation": operation, "input": input, "maxBytes": crate::adapter::limits::MAX_PAGE_BYTES}))
            .await
    }
}

/// `(operation, request schema)` of each contract of a batch, every page.
async fn resolve(adapter: &Adapter, names: &[String]) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args =
            json!({"operations": names, "maxBytes": crate::adapter::limits::MAX_PAGE_BYTES});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = value_of(
            adapter
                .resolve(args)
                .await
                .map_err(|r| format!("{}: {}", r.code, r.message))?,
        );
        for o in page["objects"].as_array().into_iter().flatten() {
            if o["kind"] != "contract" {
                continue;
            }
            let (Some(name), Some(schema)) = (o["name"].as_str(), o["body"].get("request")) else {
                continue;
            };
            out.push((name.to_owned(), schema.clone()));
        }
        cursor = page["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() || page["complete"] == true {
            return Ok(out);
        }
    }
}

impl ProjectTools for GrantTools {
    fn tools(&self) -> Vec<ToolDef> {
        self.defs.clone()
    }

    fn operation(&self, tool: &str) -> Option<String> {
        self.ops.get(tool).cloned()
    }

    fn call<'a>(&'a self, tool: &'a str, input: Value) -> BoxFuture<'a, ProjectOutcome> {
        Box::pin(async move {
            let Some(operation) = self.ops.get(tool) else {
                return ProjectOutcome {
                    text: format!("no project tool named {tool}"),
                    is_error: true,
                };
            };
            let mut result = self.call_once(operation, &input).await;
            // The adapter's knowledge cache is bounded: a contract it let go of is resolved
            // again (nothing was sent yet) and the call made once more.
            if let Err(r) = &result {
                let reason = r.details["reason"].as_str().unwrap_or("");
                if matches!(reason, "contract-missing" | "guidance-missing") {
                    if let Err(e) = resolve(&self.adapter, std::slice::from_ref(operation)).await {
                        tracing::warn!(target: "rho::agent", operation = %operation, error = %e, "resolving a contract again failed");
                    }
                    result = self.call_once(operation, &input).await;
                }
            }
            match result {
                Ok(v) => ProjectOutcome {
                    text: cap(&value_of(v).to_string(), self.max_output_bytes),
                    is_error: false,
                },
                Err(r) => ProjectOutcome {
                    text: cap(
                        &json!({"code": r.code, "message": r.message, "details": r.details})
                            .to_string(),
                        self.max_output_bytes,
                    ),
                    is_error: true,
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_names_become_tool_names() {
        assert_eq!(tool_name("document.edit"), "rho_document_edit");
        assert_eq!(tool_name("r.execute"), "rho_r_execute");
    }
}
