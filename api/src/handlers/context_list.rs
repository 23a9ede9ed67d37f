//! `context.list`: parses, sends one message to the project's contexts and maps the records to their wire form.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::contexts::contract::list::{ListReply, ListRequest, DEFAULT_LIMIT, MAX_LIMIT};
use rho_actors::contexts::handlers::ListContexts;
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("context.list"), move |ctx: Ctx, req: ListRequest| {
        let s = s.clone();
        async move {
            let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
            if limit == 0 || limit > MAX_LIMIT {
                return Err(ApiError::invalid(
                    Some("limit"),
                    format!("a page has 1 to {MAX_LIMIT} contexts"),
                ));
            }
            if req.principal.as_deref().is_some_and(str::is_empty) {
                return Err(ApiError::invalid(
                    Some("principal"),
                    "a principal is not empty (omit it for everyone's)",
                ));
            }
            let p = project(&s, &ctx, &req.project_id).await?;
            let (records, more) = p
                .send(ListContexts {
                    principal: req.principal,
                    limit: limit as usize,
                })
                .await
                .map_err(mailbox)??;
            Ok(ListReply {
                contexts: records.iter().map(|r| r.view()).collect(),
                more,
            })
        }
    })?;
    Ok(())
}
