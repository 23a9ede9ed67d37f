//! Reconciling mid-session list changes: revised tools update, withdrawn tools stay
//! registered and fail, added tools wait for a restart; prompts and resources re-list.

use std::sync::{PoisonError, Weak};

use crate::client::handler::ListChanged;
use crate::client::live::{ListRx, LiveServer};

/// Runs until the server's session ends, re-listing whatever the server says changed.
pub(crate) async fn watch_lists(server: Weak<LiveServer>, mut rx: ListRx) {
    while let Some(change) = rx.recv().await {
        let Some(live) = server.upgrade() else {
            return;
        };
        let (what, refresh) = match change {
            ListChanged::Tools => ("tools", Box::pin(refresh_tools(&live)) as Refresh<'_>),
            ListChanged::Prompts => ("prompts", Box::pin(refresh_prompts(&live)) as Refresh<'_>),
            ListChanged::Resources => (
                "resources",
                Box::pin(refresh_resources(&live)) as Refresh<'_>,
            ),
        };
        let result = tokio::time::timeout(live.refresh_budget, refresh).await;
        if live.closing.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        // Seed: after a session is established, discovery failures and timeouts attempt a
        // bounded close instead of relying only on Drop.
        if live.peer().is_transport_closed() {
            // The session itself ended (the server exited): that is the reason, which
            // `snapshot` records; nothing is left to close.
            let _ = live.snapshot();
            return;
        }
        let reason = match result {
            Ok(Ok(())) => {
                live.lists_changed.send_modify(|n| *n += 1);
                continue;
            }
            Ok(Err(e)) => format!("re-listing {what} after a list change failed: {e}"),
            Err(_) => format!(
                "re-listing {what} after a list change did not finish within {}s",
                live.refresh_budget.as_secs()
            ),
        };
        crate::client::live::fail_and_close(&live, reason).await;
        return;
    }
}

type Refresh<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<(), rmcp::ServiceError>> + Send + 'a>,
>;

/// Modern era: opens the `subscriptions/listen` stream for the lists the server declares
/// `listChanged` for, and returns once the server acknowledged it (so no change made after
/// startup is missed). `None` when there is nothing to listen to or listening failed.
pub(crate) async fn open_listen(
    peer: &rmcp::service::Peer<rmcp::service::RoleClient>,
    caps: &rmcp::model::ServerCapabilities,
    server: &str,
) -> Option<rmcp::service::Subscription> {
    use rmcp::model::SubscriptionFilter;
    let mut filter = SubscriptionFilter::builder();
    let mut any = false;
    if caps.tools.as_ref().and_then(|t| t.list_changed) == Some(true) {
        filter = filter.tools_list_changed();
        any = true;
    }
    if caps.prompts.as_ref().and_then(|t| t.list_changed) == Some(true) {
        filter = filter.prompts_list_changed();
        any = true;
    }
    if caps.resources.as_ref().and_then(|t| t.list_changed) == Some(true) {
        filter = filter.resources_list_changed();
        any = true;
    }
    if !any {
        return None;
    }
    match peer.listen(filter.build()).await {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::debug!(target: "rho::mcp", server = %server, error = %e, "subscriptions/listen not available");
            None
        }
    }
}

/// Forwards an acknowledged listen stream into the list-change reconciliation. Ends with the
/// stream or the session.
pub(crate) async fn forward_listen(
    mut sub: rmcp::service::Subscription,
    tx: tokio::sync::mpsc::UnboundedSender<ListChanged>,
) {
    use rmcp::model::ServerNotification;
    while let Ok(Some(n)) = sub.next().await {
        let change = match n {
            ServerNotification::ToolListChangedNotification(_) => ListChanged::Tools,
            ServerNotification::PromptListChangedNotification(_) => ListChanged::Prompts,
            ServerNotification::ResourceListChangedNotification(_) => ListChanged::Resources,
            _ => continue,
        };
        if tx.send(change).is_err() {
            return;
        }
    }
}

/// Legacy Streamable HTTP: ping on an interval, because an idle proxy can drop a remote
/// connection with no local signal. A failed ping is shown in status.
pub(crate) async fn ping_loop(server: Weak<LiveServer>, every: std::time::Duration) {
    use rmcp::model::{ClientRequest, PingRequest};
    loop {
        tokio::time::sleep(every).await;
        let Some(live) = server.upgrade() else {
            return;
        };
        if live.closing.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let sent = tokio::time::timeout(
            every.max(std::time::Duration::from_secs(1)),
            live.peer()
                .send_request(ClientRequest::PingRequest(PingRequest::default())),
        )
        .await;
        let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
        match sent {
            Ok(Ok(_)) => {
                state.last_ping = Some(
                    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
                );
                state.ping_error = None;
            }
            Ok(Err(e)) => state.ping_error = Some(format!("ping failed: {e}")),
            Err(_) => state.ping_error = Some("ping failed: no answer in time".to_owned()),
        }
    }
}

async fn refresh_tools(live: &LiveServer) -> Result<(), rmcp::ServiceError> {
    let tools = live.peer().list_all_tools().await?;
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
    let prompts = live.peer().list_all_prompts().await?;
    live.state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .prompts = prompts;
    Ok(())
}

async fn refresh_resources(live: &LiveServer) -> Result<(), rmcp::ServiceError> {
    let resources = live.peer().list_all_resources().await?;
    let templates = live.peer().list_all_resource_templates().await?;
    let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
    state.resources = resources;
    state.templates = templates;
    Ok(())
}
