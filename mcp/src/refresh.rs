//! Reconciling mid-session list changes: revised tools update, withdrawn tools stay
//! registered and fail, added tools wait for a restart; prompts and resources re-list.

use std::sync::{PoisonError, Weak};

use crate::handler::ListChanged;
use crate::runtime::{ListRx, LiveServer};

/// Runs until the server's session ends, re-listing whatever the server says changed.
pub(crate) async fn watch_lists(server: Weak<LiveServer>, mut rx: ListRx) {
    while let Some(change) = rx.recv().await {
        let Some(live) = server.upgrade() else {
            return;
        };
        let result = match change {
            ListChanged::Tools => refresh_tools(&live).await,
            ListChanged::Prompts => refresh_prompts(&live).await,
            ListChanged::Resources => refresh_resources(&live).await,
        };
        if live.closing.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        if let Err(e) = result {
            tracing::warn!(target: "rho::mcp", server = %live.config.id, error = %e, "re-listing after a list change failed");
        }
    }
}

async fn refresh_tools(live: &LiveServer) -> Result<(), rmcp::ServiceError> {
    let tools = live.peer.list_all_tools().await?;
    let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
    let before: Vec<String> = state.tools.iter().map(|t| t.name.to_string()).collect();
    let original: Vec<String> = before
        .iter()
        .chain(state.withdrawn.iter())
        .cloned()
        .collect();
    let now: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    state.withdrawn = original
        .iter()
        .filter(|n| !now.contains(n))
        .cloned()
        .collect();
    for n in &now {
        if !original.contains(n) && !state.added.contains(n) {
            state.added.push(n.clone());
        }
    }
    state.added.retain(|n| now.contains(n));
    // Keep only tools that were registered at start; added ones need a restart.
    state.tools = tools
        .into_iter()
        .filter(|t| original.iter().any(|o| *o == t.name))
        .collect();
    Ok(())
}

async fn refresh_prompts(live: &LiveServer) -> Result<(), rmcp::ServiceError> {
    let prompts = live.peer.list_all_prompts().await?;
    live.state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .prompts = prompts;
    Ok(())
}

async fn refresh_resources(live: &LiveServer) -> Result<(), rmcp::ServiceError> {
    let resources = live.peer.list_all_resources().await?;
    let templates = live.peer.list_all_resource_templates().await?;
    let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
    state.resources = resources;
    state.templates = templates;
    Ok(())
}
