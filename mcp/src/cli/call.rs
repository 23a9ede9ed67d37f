//! `rho mcp call <id> <tool> [--args JSON]`: one tool call on one configured server, with
//! stored OAuth tokens reused and refreshed and never a browser (like `--connect`).

use std::path::Path;

use crate::call::CallContext;
use crate::client::config::McpConfig;
use crate::client::oauth::Authorizer;
use crate::client::runtime::{McpRuntime, Slot};

/// Starts only server `id`, calls its tool `tool` (the raw name) with `args` (a JSON object),
/// and returns what the model would read. A tool error result is an error.
pub(crate) fn call(
    config: &McpConfig,
    id: &str,
    tool: &str,
    args: Option<&str>,
    home: &Path,
) -> Result<String, String> {
    let arguments = match args {
        None => None,
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => Some(map),
            Ok(_) => return Err("--args must be a JSON object".to_owned()),
            Err(e) => return Err(format!("--args is not JSON: {e}")),
        },
    };
    let only = super::setup::only_server(config, id)?;
    let rt = super::setup::async_runtime()?;
    rt.block_on(async {
        let opts = super::setup::start_options(home, Authorizer::Never);
        let Some(runtime) = McpRuntime::start(&only, opts).await else {
            return Err(format!("MCP server `{id}` did not start"));
        };
        let result = match &runtime.slots()[0] {
            Slot::Failed { error, .. } => Err(format!("MCP server `{id}` failed: {error}")),
            Slot::Live(_) => match runtime.registry().exported_for(id, tool) {
                None => Err(format!(
                    "MCP server `{id}` has no tool `{}` (see `rho mcp show {id} --connect`)",
                    tool.escape_default()
                )),
                Some(exported) => {
                    let exported = exported.to_owned();
                    match runtime
                        .call(&exported, arguments, CallContext::default())
                        .await
                    {
                        Ok(out) if out.is_error => {
                            Err(format!("tool `{tool}` failed: {}", out.text))
                        }
                        Ok(out) => Ok(out.text),
                        Err(e) => Err(e.to_string()),
                    }
                }
            },
        };
        runtime.shutdown().await;
        result
    })
}
