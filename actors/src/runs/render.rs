//! The wire form of a run record (shared by the HTTP edge, events and snapshots).

use super::model::*;
use serde_json::{json, Value};

use rho_plumbing::time::rfc3339_ms as time;

/// `not-sent` / `sent` / `uncertain` (a delivery in flight is not yet known: `uncertain`).
pub fn delivery(r: &RunRecord) -> &'static str {
    match r.delivery {
        Delivery::NotSent => "not-sent",
        Delivery::Sent => "sent",
        Delivery::Sending | Delivery::Uncertain => "uncertain",
    }
}

/// `running` / `exited` / `unknown` (a run lost with its Host is `unknown` too, with
/// `lostWithHost`); a run not delivered yet reads `null`.
pub fn execution(r: &RunRecord) -> Value {
    match r.execution {
        Execution::Pending => Value::Null,
        Execution::Running => json!("running"),
        Execution::Exited => json!("exited"),
        Execution::Unknown | Execution::LostWithHost => json!("unknown"),
    }
}

fn exit(e: &ExitFacts) -> Value {
    json!({"exitCode": e.exit_code, "signal": e.signal, "spawnError": e.spawn_error,
        "endedAt": e.ended_at_ms.map(time)})
}

/// The public plan.
pub fn plan(p: &RunPlan) -> Value {
    let script = match &p.script {
        ScriptRef::Disk { path } => json!({"kind": "disk", "path": path}),
        ScriptRef::Buffer {
            document_id,
            path,
            version,
        } => json!({"kind": "buffer", "documentId": document_id, "path": path, "version": version}),
    };
    json!({
        "runDirectory": format!("{}/", p.run_directory),
        "outputDirectory": p.output_directory,
        "completion": p.completion,
        "script": script,
        "scriptDigest": p.script_digest,
        "arguments": args(&p.args),
        "requirements": p.requirements.iter().map(|r| json!({"package": r.package, "source": r.source.name(), "minimumVersion": r.minimum_version})).collect::<Vec<_>>(),
        "artifacts": p.artifacts.iter().map(|a| json!({"path": a.path, "kind": a.kind, "format": a.format})).collect::<Vec<_>>(),
        "core": {"path": p.core.path, "sha256": p.core.sha256, "version": p.core.version},
    })
}

/// The resolved trailing arguments (after the output directory).
pub fn args(a: &[ResolvedArg]) -> Vec<Value> {
    a.iter()
        .map(|a| match a {
            ResolvedArg::Literal(s) => json!({"literal": s}),
            ResolvedArg::Resource {
                id,
                version,
                sha256,
                path,
            } => {
                json!({"resource": {"id": id, "version": version}, "sha256": sha256, "path": path})
            }
        })
        .collect()
}

/// Stop facts.
pub fn stop(s: &StopFacts) -> Value {
    json!({"state": s.state.name(), "requestedBy": s.requested_by, "at": time(s.at_ms),
        "coreExit": s.core_exit.as_ref().map(exit)})
}

/// The whole record; `unknown_now` reports `execution: "unknown"` when no Host answers
/// (without changing the stored facts).
pub fn record(r: &RunRecord, unknown_now: bool) -> Value {
    let running = matches!(r.execution, Execution::Running);
    json!({
        "operationId": r.operation_id,
        "action": "r.execute",
        "actionVersion": "0.2.0",
        "submitter": r.submitter,
        "repairOf": r.repair_of,
        "delivery": delivery(r),
        "deliveryNote": r.delivery_note,
        "execution": if unknown_now && running { json!("unknown") } else { execution(r) },
        "lostWithHost": r.execution == Execution::LostWithHost,
        "exit": r.exit.as_ref().map(exit),
        "stop": r.stop.as_ref().map(stop),
        "logs": {"stdout": {"bytes": r.stdout.bytes, "truncated": r.stdout.truncated},
                 "stderr": {"bytes": r.stderr.bytes, "truncated": r.stderr.truncated}},
        "inventory": r.inventory.as_ref().map(|inv| inv.iter().map(|e| json!({"path": e.path, "bytes": e.bytes, "sha256": e.sha256})).collect::<Vec<_>>()),
        "acceptedAt": time(r.accepted_at_ms),
        "sentAt": r.sent_at_ms.map(time),
        "updatedAt": time(r.updated_at_ms),
        "plan": plan(&r.plan),
    })
}
