//! `action.submit/lookup/observe/output/list/retry/cancel`: parse and lift the request, send one message, render the run.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::contract::CallerKind;
use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use rho_actors::owners::Owner;
use rho_actors::requirements::contract::RequirementDecl;
use rho_actors::runs::contract::{
    ArgInput, ListRequest, OutputRequest, RunListReply, RunRequest, RunView, ScriptInput,
    SubmitRequest,
};
use rho_actors::runs::freeze;
use rho_actors::runs::handlers::state::ReadRuns;
use rho_actors::runs::handlers::submit::{ArgSource, ScriptSource, SubmitRun, Submitted};
use rho_actors::runs::handlers::supervise::{CancelRun, ObserveRun, RetryRun, RunError};
use rho_actors::runs::render;
use rho_actors::runs::slurm::SlurmOf;
use rho_actors::runs::RunRecord;
use serde_json::json;
use std::sync::Arc;

fn run_error(e: RunError) -> ApiError {
    match e {
        RunError::Actor(a) => a.into(),
        RunError::Forbidden(m) => ApiError::forbidden(m),
    }
}

fn check_op(id: &str) -> Result<(), ApiError> {
    freeze::operation_id(id).map_err(|reason| ApiError::invalid(Some("operationId"), reason))
}

/// The wire record with its Slurm side, when it went to a cluster.
async fn view(
    p: &actix::Addr<rho_actors::project_actor::ProjectActor>,
    r: &RunRecord,
    unknown_now: bool,
) -> Result<RunView, ApiError> {
    let s = p
        .send(SlurmOf(r.operation_id.clone()))
        .await
        .map_err(mailbox)??;
    Ok(render::with_slurm(
        render::record(r, unknown_now),
        s.as_ref(),
    ))
}

/// The one retained run a read names; anything else is one `not_found`.
async fn read_one(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
    op: &str,
) -> Result<RunRecord, ApiError> {
    let p = project(s, ctx, project_id).await?;
    let mut runs = p
        .send(ReadRuns {
            operation_id: Some(op.to_string()),
        })
        .await
        .map_err(mailbox)??;
    runs.pop().ok_or_else(|| ApiError::not_found("run"))
}

/// After submit or retry: a delivery that did not reach the Host or the cluster is
/// `unavailable` naming why (the run is retained as not-sent).
fn delivered(r: &RunRecord) -> Result<(), ApiError> {
    if render::delivery(r) == "not-sent" {
        let reason = r.delivery_note.clone().unwrap_or_default();
        let mut e = ApiError::unavailable(
            &[],
            format!(
                "the run {} is retained but was not delivered: {reason}",
                r.operation_id
            ),
        );
        e.details["operationId"] = json!(r.operation_id);
        e.details["delivery"] = json!("not-sent");
        return Err(e);
    }
    Ok(())
}

fn lift(req: &SubmitRequest, s: &Services, ctx: &Ctx) -> Result<SubmitRun, ApiError> {
    if req.action != "r.execute" {
        return Err(ApiError::invalid(
            Some("action"),
            format!(
                "{:?} is not a registered action (only r.execute)",
                req.action
            ),
        ));
    }
    if req.action_version != "0.2.0" {
        return Err(ApiError::invalid(
            Some("actionVersion"),
            "r.execute is served at 0.2.0",
        ));
    }
    check_op(&req.operation_id)?;
    let input = &req.input;
    let script = match &input.script {
        ScriptInput::Disk { path, digest } => {
            if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(ApiError::invalid(
                    Some("input.script.digest"),
                    "a SHA-256 digest is 64 hexadecimal characters",
                ));
            }
            ScriptSource::Disk {
                path: path.clone(),
                digest: digest.to_ascii_lowercase(),
            }
        }
        ScriptInput::Buffer {
            document_id,
            version,
        } => ScriptSource::Buffer {
            document_id: uuid::Uuid::parse_str(document_id)
                .map_err(|_| ApiError::not_found("document"))?,
            version: *version,
        },
    };
    let args = input
        .args
        .iter()
        .map(|a| match a {
            ArgInput::Literal(s) => Ok(ArgSource::Literal(s.clone())),
            ArgInput::Resource(r) => Ok(ArgSource::Resource {
                id: uuid::Uuid::parse_str(&r.resource.id)
                    .map_err(|_| ApiError::not_found("resource"))?,
                version: r.resource.version,
            }),
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let requirements = rho_actors::requirements::model::validate(
        "input.requirements",
        &RequirementDecl::raw(&input.requirements),
    )?;
    let raw: Vec<(String, String, String)> = input
        .artifacts
        .iter()
        .map(|a| (a.path.clone(), a.kind.clone(), a.format.clone()))
        .collect();
    let artifacts = freeze::artifacts(&raw, s.limits.resources.max_artifact_files)?;
    let completion = input
        .completion
        .as_deref()
        .map(freeze::completion)
        .transpose()?;
    if let Some(r) = &req.repair_of {
        check_op(r).map_err(|_| ApiError::not_found("run"))?;
        if r == &req.operation_id {
            return Err(ApiError::invalid(
                Some("repairOf"),
                "a run cannot repair itself",
            ));
        }
    }
    // r.execute's needs (its spec), and for a buffer script the documents owner.
    let mut needs = ctx.needs.clone();
    if matches!(input.script, ScriptInput::Buffer { .. }) {
        needs.push(Owner::Documents);
    }
    Ok(SubmitRun {
        operation_id: req.operation_id.clone(),
        script,
        args,
        requirements,
        artifacts,
        completion,
        repair_of: req.repair_of.clone(),
        place: match &input.place {
            Some(p) => {
                rho_actors::kernel::places::book::check_name(p)
                    .map_err(|e| ApiError::invalid(Some("input.place"), e.to_string()))?;
                Some(p.clone())
            }
            None => None,
        },
        ctx: CommandContext {
            principal: ctx.principal.clone(),
            time_ms: rho_plumbing::time::now_ms(),
            identity: Some((req.operation_id.clone(), input_digest(req, "operationId"))),
            needs,
        },
    })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("action.submit"),
        move |ctx: Ctx, req: SubmitRequest| {
            let s = s.clone();
            async move {
                let msg = lift(&req, &s, &ctx)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                // An accepted identity answers its original record even with owners unselected.
                match p.send(msg).await.map_err(mailbox)?? {
                    Submitted::Original(r) => view(&p, &r, false).await,
                    Submitted::New(r) => {
                        delivered(&r)?;
                        view(&p, &r, false).await
                    }
                }
            }
        },
    )?;

    let s = services.clone();
    table.register(spec("action.lookup"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let r = read_one(&s, &ctx, &req.project_id, &req.operation_id).await?;
            let p = project(&s, &ctx, &req.project_id).await?;
            view(&p, &r, false).await
        }
    })?;

    let s = services.clone();
    table.register(spec("action.observe"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let (r, answered) = p
                .send(ObserveRun {
                    operation_id: req.operation_id.clone(),
                })
                .await
                .map_err(mailbox)??;
            view(&p, &r, !answered).await
        }
    })?;

    let s = services.clone();
    table.register(spec("action.list"), move |ctx: Ctx, req: ListRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let runs = p
                .send(ReadRuns { operation_id: None })
                .await
                .map_err(mailbox)??;
            let mut views = Vec::with_capacity(runs.len());
            for r in &runs {
                views.push(view(&p, r, false).await?);
            }
            Ok(RunListReply { runs: views })
        }
    })?;

    let s = services.clone();
    table.register(
        spec("action.output"),
        move |ctx: Ctx, req: OutputRequest| {
            let s = s.clone();
            async move { super::runs_output::output(&s, &ctx, req).await }
        },
    )?;

    let s = services.clone();
    table.register(spec("action.retry"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let r = p
                .send(RetryRun {
                    operation_id: req.operation_id.clone(),
                    ctx: CommandContext {
                        principal: ctx.principal.clone(),
                        time_ms: rho_plumbing::time::now_ms(),
                        identity: None,
                        needs: ctx.needs.clone(),
                    },
                })
                .await
                .map_err(mailbox)?
                .map_err(run_error)?;
            delivered(&r)?;
            view(&p, &r, false).await
        }
    })?;

    let s = services.clone();
    table.register(spec("action.cancel"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let (r, answered) = p
                .send(CancelRun {
                    operation_id: req.operation_id.clone(),
                    requested_by: ctx.principal.to_string(),
                    person: matches!(ctx.caller, CallerKind::Local | CallerKind::Paired),
                })
                .await
                .map_err(mailbox)?
                .map_err(run_error)?;
            view(&p, &r, !answered).await
        }
    })?;
    Ok(())
}
