//! The byte reader behind `GET .../resources/{id}/{version}`: one message to the project's Files owner, the exact version's bytes.

use super::data::load_bytes;
use super::services::Services;
use crate::ops::{OpTable, RawBytes};
use std::sync::Arc;

pub(super) fn register(table: &mut OpTable, services: &Arc<Services>) {
    let s = services.clone();
    table.register_bytes(move |ctx, project_id, resource, version| {
        let s = s.clone();
        async move {
            let (rec, bytes) = load_bytes(&s, &ctx, &project_id, &resource, version).await?;
            // A declared media format names the type (`media:{format}`), else the file's format.
            let format = rec.facts.media.map_or(rec.facts.format, |m| m.format);
            Ok(RawBytes {
                bytes,
                format,
                sha256: rec.facts.sha256,
            })
        }
    });
}
