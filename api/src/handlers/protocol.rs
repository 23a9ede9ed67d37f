//! `protocol.describe`: pages of operation summaries, or one operation's full contract.

use super::services::spec;
use crate::envelope::ApiError;
use crate::ops::{DuplicateOperation, OpTable};
use rho_actors::contract::registry;
use rho_actors::service_contract::{DescribeReply, DescribeRequest, OperationSummary};

/// Summaries per page.
const PAGE: usize = 50;

pub(super) fn register(table: &mut OpTable) -> Result<(), DuplicateOperation> {
    table.register(
        spec("protocol.describe"),
        |_ctx, req: DescribeRequest| async move { describe(req) },
    )?;
    Ok(())
}

fn describe(req: DescribeRequest) -> Result<DescribeReply, ApiError> {
    if let Some(name) = req.operation {
        let op = registry::find(&name)
            .ok_or_else(|| ApiError::not_found(format!("operation {name:?}")))?;
        let mut contract = registry::contract_json(&op);
        contract["hash"] = format!("sha256:{}", registry::contract_hash(&op)).into();
        return Ok(DescribeReply {
            operations: None,
            next: None,
            contract: Some(contract),
        });
    }
    let all = registry::all();
    let start = match req.cursor.as_deref() {
        None => 0,
        Some(c) => {
            if !all.iter().any(|o| o.name == c) {
                return Err(ApiError::invalid(
                    Some("cursor"),
                    "not a cursor of protocol.describe",
                ));
            }
            all.partition_point(|o| o.name <= c)
        }
    };
    let page: Vec<OperationSummary> = all[start..]
        .iter()
        .take(PAGE)
        .map(|o| OperationSummary {
            name: o.name.to_string(),
            version: o.version.to_string(),
            owner: o.owner.map_or("service", |w| w.name()).to_string(),
            effect: serde_json::to_value(o.effect)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            summary: o.summary.to_string(),
            hash: format!("sha256:{}", registry::contract_hash(o)),
        })
        .collect();
    let next = (start + PAGE < all.len())
        .then(|| page.last().map(|o| o.name.clone()))
        .flatten();
    Ok(DescribeReply {
        operations: Some(page),
        next,
        contract: None,
    })
}
