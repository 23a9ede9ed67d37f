//! The rmcp server handler: `initialize` (2025-11-25 and older) and `server/discover`
//! (2026-07-28, stateless) both serve the same four tools; tool faults are `isError` results,
//! JSON-RPC errors only for protocol faults (an unknown tool).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;

use super::core::Adapter;
use super::tools;

/// The handler rmcp drives.
#[derive(Debug, Clone)]
pub struct Handler {
    adapter: Arc<Adapter>,
}

impl Handler {
    /// A handler over one adapter.
    pub fn new(adapter: Arc<Adapter>) -> Self {
        Self { adapter }
    }
}

const INSTRUCTIONS: &str = "Rho project tools. Start with rho_index (the grant's scope and owner summaries), pick an owner or search, rho_resolve the operations you need, then rho_call them. Large replies are retained: read them with rho_read and release them when done.";

/// Runs one tool and renders its answer as one text block of JSON.
pub async fn run_tool(adapter: &Adapter, name: &str, args: Value) -> Option<CallToolResult> {
    let result = match name {
        "rho_index" => adapter.index(args).await,
        "rho_resolve" => adapter.resolve(args).await,
        "rho_call" => adapter.call(args).await,
        "rho_read" => adapter.read(args).await,
        _ => return None,
    };
    Some(match result {
        Ok(v) => CallToolResult::success(vec![ContentBlock::text(v.to_string())]),
        Err(r) => CallToolResult::error(vec![ContentBlock::text(r.envelope().to_string())]),
    })
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let mut info = Implementation::new("rho", env!("CARGO_PKG_VERSION"));
        info.title = Some("Rho project".into());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(info)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        match run_tool(&self.adapter, &request.name, args).await {
            Some(result) => Ok(CallToolResponse::Complete(result)),
            None => Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; the tools are {}",
                    request.name,
                    tools::NAMES.join(", ")
                ),
                None,
            )),
        }
    }
}
