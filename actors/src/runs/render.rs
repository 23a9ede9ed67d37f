//! The wire form of a run record (shared by the HTTP edge, events and snapshots).

use super::contract::{
    ArgView, ArtifactView, BufferKind, CoreView, DeliveryView, DiskKind, ExecutionView, ExitView,
    InventoryView, LogView, LogsView, PlanView, RequirementView, ResourceRefView, RunView,
    ScriptView, SlurmView, StopStateView, StopView,
};
use super::model::*;

use rho_plumbing::time::rfc3339_ms as time;

/// `not-sent` / `sent` / `uncertain` (a delivery in flight is not yet known: `uncertain`).
pub fn delivery_view(r: &RunRecord) -> DeliveryView {
    match r.delivery {
        Delivery::NotSent => DeliveryView::NotSent,
        Delivery::Sent => DeliveryView::Sent,
        Delivery::Sending | Delivery::Uncertain => DeliveryView::Uncertain,
    }
}

/// The wire name of [`delivery_view`].
pub fn delivery(r: &RunRecord) -> &'static str {
    match delivery_view(r) {
        DeliveryView::NotSent => "not-sent",
        DeliveryView::Sent => "sent",
        DeliveryView::Uncertain => "uncertain",
    }
}

/// `running` / `exited` / `unknown` (a run lost with its Host is `unknown` too, with
/// `lostWithHost`); a run not delivered yet has none (`null`).
pub fn execution(r: &RunRecord) -> Option<ExecutionView> {
    match r.execution {
        Execution::Pending => None,
        Execution::Running => Some(ExecutionView::Running),
        Execution::Exited => Some(ExecutionView::Exited),
        Execution::Unknown | Execution::LostWithHost => Some(ExecutionView::Unknown),
    }
}

/// The wire name of [`execution`].
pub fn execution_name(e: Option<ExecutionView>) -> Option<&'static str> {
    e.map(|e| match e {
        ExecutionView::Running => "running",
        ExecutionView::Exited => "exited",
        ExecutionView::Unknown => "unknown",
    })
}

/// How R ended, with its end time when known.
pub fn exit(e: &ExitFacts) -> ExitView {
    ExitView {
        ended_at: e.ended_at_ms.map(time),
        exit_code: e.exit_code,
        signal: e.signal,
        spawn_error: e.spawn_error.clone(),
    }
}

/// Where the code came from.
pub fn script(s: &ScriptRef) -> ScriptView {
    match s {
        ScriptRef::Disk { path } => ScriptView::Disk {
            kind: DiskKind::Disk,
            path: path.clone(),
        },
        ScriptRef::Buffer {
            document_id,
            path,
            version,
        } => ScriptView::Buffer {
            document_id: document_id.clone(),
            kind: BufferKind::Buffer,
            path: path.clone(),
            version: *version,
        },
    }
}

/// The declared packages of a plan.
pub fn requirements(p: &RunPlan) -> Vec<RequirementView> {
    p.requirements
        .iter()
        .map(|r| RequirementView {
            minimum_version: r.minimum_version.clone(),
            package: r.package.clone(),
            source: r.source.name().to_string(),
        })
        .collect()
}

/// The declared artifacts.
pub fn artifacts(a: &[ArtifactDecl]) -> Vec<ArtifactView> {
    a.iter()
        .map(|a| ArtifactView {
            format: a.format.clone(),
            kind: a.kind.clone(),
            path: a.path.clone(),
        })
        .collect()
}

/// The Core of a plan.
pub fn core(p: &RunPlan) -> CoreView {
    CoreView {
        path: p.core.path.clone(),
        sha256: p.core.sha256.clone(),
        version: p.core.version.clone(),
    }
}

/// The public plan.
pub fn plan(p: &RunPlan) -> PlanView {
    PlanView {
        arguments: args(&p.args),
        artifacts: artifacts(&p.artifacts),
        completion: p.completion.clone(),
        core: core(p),
        output_directory: p.output_directory.clone(),
        requirements: requirements(p),
        run_directory: format!("{}/", p.run_directory),
        script: script(&p.script),
        script_digest: p.script_digest.clone(),
    }
}

/// The resolved trailing arguments (after the output directory).
pub fn args(a: &[ResolvedArg]) -> Vec<ArgView> {
    a.iter()
        .map(|a| match a {
            ResolvedArg::Literal(s) => ArgView::Literal { literal: s.clone() },
            ResolvedArg::Resource {
                id,
                version,
                sha256,
                path,
            } => ArgView::Resource {
                path: path.clone(),
                resource: ResourceRefView {
                    id: id.clone(),
                    version: *version,
                },
                sha256: sha256.clone(),
            },
        })
        .collect()
}

/// Stop facts.
pub fn stop(s: &StopFacts) -> StopView {
    StopView {
        at: time(s.at_ms),
        core_exit: s.core_exit.as_ref().map(exit),
        requested_by: s.requested_by.clone(),
        state: match s.state {
            StopState::Requested => StopStateView::Requested,
            StopState::Signalled => StopStateView::Signalled,
            StopState::Stopped => StopStateView::Stopped,
            StopState::FinishedFirst => StopStateView::FinishedFirst,
            StopState::Unconfirmed => StopStateView::Unconfirmed,
        },
    }
}

fn log(l: &LogFacts) -> LogView {
    LogView {
        bytes: l.bytes,
        truncated: l.truncated,
    }
}

/// The whole record; `unknown_now` reports `execution: "unknown"` when no Host answers
/// (without changing the stored facts).
pub fn record(r: &RunRecord, unknown_now: bool) -> RunView {
    let running = matches!(r.execution, Execution::Running);
    RunView {
        accepted_at: time(r.accepted_at_ms),
        action: "r.execute".to_string(),
        action_version: "0.2.0".to_string(),
        delivery: delivery_view(r),
        delivery_note: r.delivery_note.clone(),
        execution: if unknown_now && running {
            Some(ExecutionView::Unknown)
        } else {
            execution(r)
        },
        exit: r.exit.as_ref().map(exit),
        inventory: r.inventory.as_ref().map(|inv| {
            inv.iter()
                .map(|e| InventoryView {
                    bytes: e.bytes,
                    path: e.path.clone(),
                    sha256: e.sha256.clone(),
                })
                .collect()
        }),
        logs: LogsView {
            stderr: log(&r.stderr),
            stdout: log(&r.stdout),
        },
        lost_with_host: r.execution == Execution::LostWithHost,
        operation_id: r.operation_id.clone(),
        plan: plan(&r.plan),
        repair_of: r.repair_of.clone(),
        sent_at: r.sent_at_ms.map(time),
        stop: r.stop.as_ref().map(stop),
        slurm: None,
        submitter: r.submitter.clone(),
        updated_at: time(r.updated_at_ms),
    }
}

/// The record with its Slurm side.
pub fn with_slurm(mut view: RunView, s: Option<&super::slurm::SlurmRun>) -> RunView {
    view.slurm = s.map(|s| SlurmView {
        place: s.target.place.clone(),
        job_id: s.job_id.clone(),
    });
    view
}
