//! At run end, each declared output the run wrote is registered as a Files resource whose
//! provenance names the run (`operationId`); the registration's changeId is derived from the
//! run and path, so observing the end again registers nothing twice.

use super::model::RunRecord;
use crate::entity::CommandContext;
use crate::files::handlers::{Declared, PutResource};
use crate::files::PutBounds;
use crate::project_actor::ProjectActor;
use actix::prelude::*;

/// Registers `run`'s declared outputs (those in its inventory with bytes), in the background.
pub(crate) fn register(run: RunRecord, me: Addr<ProjectActor>, limits: &crate::limits::Limits) {
    let max_file_bytes = limits.resources.max_file_bytes;
    let bounds = PutBounds {
        max_resources: limits.resources.max_resources,
        max_artifact_bytes: limits.resources.max_artifact_bytes,
    };
    actix::spawn(async move {
        let Some(inventory) = &run.inventory else {
            return;
        };
        for decl in &run.plan.artifacts {
            let written = inventory
                .iter()
                .any(|e| e.path == decl.path && e.bytes.is_some());
            if !written {
                continue;
            }
            let path = format!("{}/{}", run.plan.output_directory, decl.path);
            let change_id = format!("run:{}:{}", run.operation_id, decl.path);
            let digest = crate::identity::input_digest(
                &serde_json::json!({"path": path, "kind": decl.kind, "format": decl.format, "operationId": run.operation_id}),
                "changeId",
            );
            let msg = PutResource {
                path: path.clone(),
                declared: Some(Declared {
                    kind: decl.kind.clone(),
                    format: decl.format.clone(),
                    partial: false,
                    table: None,
                    media: None,
                }),
                capture: false,
                max_file_bytes,
                bounds,
                ctx: CommandContext {
                    principal: crate::Principal::System,
                    time_ms: rho_plumbing::time::now_ms(),
                    identity: Some((change_id, digest)),
                    needs: Vec::new(),
                },
                operation_id: Some(run.operation_id.clone()),
            };
            match me.send(msg).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    tracing::warn!(operation = %run.operation_id, %path, error = %e, "a declared output was not registered")
                }
                Err(e) => tracing::warn!(operation = %run.operation_id, error = %e, "project gone"),
            }
        }
    });
}
