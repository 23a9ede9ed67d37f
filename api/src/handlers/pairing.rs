//! `pairing.mint`: the operator's one-time browser link (what `rho --pair` calls).

use super::services::{spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::service_contract::{PairReply, PairRequest};
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("pairing.mint"), move |ctx: Ctx, req: PairRequest| {
        let s = s.clone();
        async move {
            let scope = match &req.folder {
                None => None,
                Some(folder) => {
                    let parts =
                        rho_actors::paths::components("folder", folder).map_err(ApiError::from)?;
                    if parts.is_empty() {
                        return Err(ApiError::invalid(
                            Some("folder"),
                            "name a folder below the root",
                        ));
                    }
                    let dir = parts.iter().fold(s.root.clone(), |d, p| d.join(p));
                    let real = dir.canonicalize().map_err(|_| {
                        ApiError::not_found(format!("folder {folder:?} below the root"))
                    })?;
                    if !real.starts_with(&s.root) || !real.is_dir() {
                        return Err(ApiError::invalid(
                            Some("folder"),
                            "not a folder below the root",
                        ));
                    }
                    Some(real)
                }
            };
            let link = ctx.state.pairing.mint(scope);
            Ok(PairReply {
                url: format!("{}{}", s.url, link.path),
                expires_at: rho_plumbing::time::rfc3339_secs(unix_ms(link.expires_at)),
                folder: req.folder,
            })
        }
    })?;
    Ok(())
}

/// Unix milliseconds of a time (0 before the epoch).
fn unix_ms(t: std::time::SystemTime) -> i64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
