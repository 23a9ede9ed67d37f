//! The tool set of a turn: Rho's project tools and the MCP runtime's tools (definitions read
//! fresh each turn, so a revised tool reaches the model on the next one), and one call
//! dispatched to whichever owns the name, with progress forwarded and cancellation honoured.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client::call::{CallContext, CallError};
use crate::client::handler::Progress;
use crate::client::runtime::McpRuntime;
use crate::model::{ToolCall, ToolDef};

use super::events::{StepEnd, StepStart, ToolSource};
use super::project::ProjectTools;

/// Where a turn's tools come from.
#[derive(Clone, Default)]
pub struct ToolSet {
    /// The MCP runtime, when any server is enabled.
    pub mcp: Option<Arc<McpRuntime>>,
    /// The project's granted operations.
    pub project: Option<Arc<dyn ProjectTools>>,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSet")
            .field("mcp", &self.mcp.is_some())
            .field("project", &self.project.is_some())
            .finish()
    }
}

/// `get-tiny-image` -> `Get tiny image`.
pub fn humanize(name: &str) -> String {
    let words = name.replace(['-', '_', '.'], " ");
    let mut out = String::new();
    for (i, w) in words.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        } else {
            out.push_str(w);
        }
    }
    out
}

impl ToolSet {
    /// The definitions offered to the model for the next request: project tools first.
    pub fn defs(&self) -> Vec<ToolDef> {
        let mut out = self.project.as_ref().map(|p| p.tools()).unwrap_or_default();
        if let Some(rt) = &self.mcp {
            out.extend(rt.tools().into_iter().map(|t| ToolDef {
                name: t.name,
                description: t.description,
                input_schema: t.input_schema,
            }));
        }
        out
    }

    /// What the card shows when a call starts.
    pub fn start(&self, call: &ToolCall) -> StepStart {
        let (title, source) = self.describe(&call.name);
        StepStart {
            id: call.id.clone(),
            name: call.name.clone(),
            title,
            source,
            input: call.arguments.clone(),
        }
    }

    fn describe(&self, name: &str) -> (String, ToolSource) {
        if let Some(op) = self.project.as_ref().and_then(|p| p.operation(name)) {
            return (humanize(&op), ToolSource::Project { operation: op });
        }
        if let Some(rt) = &self.mcp {
            if let Some(r) = rt.registry().get(name) {
                let title = rt
                    .server(&r.server_id)
                    .and_then(|l| {
                        l.state
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .tools
                            .iter()
                            .find(|t| t.name == r.tool)
                            .and_then(crate::client::registry::title)
                    })
                    .unwrap_or_else(|| humanize(&r.tool));
                return (
                    title,
                    ToolSource::Mcp {
                        server: r.server_id.clone(),
                        tool: r.tool.clone(),
                    },
                );
            }
        }
        (humanize(name), ToolSource::Unknown)
    }

    /// Runs one call to its end (or the turn's cancellation); progress goes to `progress`.
    pub async fn call(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
        progress: Option<mpsc::UnboundedSender<Progress>>,
    ) -> StepEnd {
        let started = Instant::now();
        let end = |text: String, is_error: bool, cancelled: bool| StepEnd {
            id: call.id.clone(),
            text,
            is_error,
            cancelled,
            image: None,
            duration_ms: started.elapsed().as_millis() as u64,
        };
        let Value::Object(args) = &call.arguments else {
            return end(
                format!(
                    "the arguments are not a JSON object: {}",
                    crate::client::render::cap(&call.arguments.to_string(), 2000)
                ),
                true,
                false,
            );
        };
        if let Some(p) = self
            .project
            .as_ref()
            .filter(|p| p.operation(&call.name).is_some())
        {
            let work = p.call(&call.name, Value::Object(args.clone()));
            return tokio::select! {
                biased;
                _ = cancel.cancelled() => end(CallError::Cancelled.to_string(), true, true),
                out = work => end(out.text, out.is_error, false),
            };
        }
        let Some(rt) = self
            .mcp
            .as_ref()
            .filter(|rt| rt.registry().get(&call.name).is_some())
        else {
            return end(
                format!("there is no tool named `{}`", call.name),
                true,
                false,
            );
        };
        let ctx = CallContext {
            cancel: cancel.clone(),
            progress,
        };
        match rt.call(&call.name, Some(args.clone()), ctx).await {
            Ok(out) => StepEnd {
                image: out.image,
                ..end(out.text, out.is_error, false)
            },
            Err(CallError::Cancelled) => end(CallError::Cancelled.to_string(), true, true),
            Err(e) => end(e.to_string(), true, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_words() {
        assert_eq!(humanize("get-tiny-image"), "Get tiny image");
        assert_eq!(humanize("document.edit"), "Document edit");
    }
}
