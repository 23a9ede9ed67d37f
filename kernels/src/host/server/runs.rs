//! One run inside the Host: Submit (record durably, then spawn through the guard), the watcher
//! thread that observes the end and writes the exit facts, Cancel and Wait.

use super::capture::{copy_capped, Counter};
use super::run::{Run, RunInner};
use super::spawn::spawn;
use super::state::Host;
use super::{inventory, store, validate};
use crate::host::paths;
use crate::host::proto::{
    HostErrorCode, HostRecord, HostReply, HostStop, LogFacts, RunSpec, RunState, StopState,
};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use rho_plumbing::time::now_ms;
use std::fs::OpenOptions;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn error(code: HostErrorCode, message: impl Into<String>) -> HostReply {
    HostReply::Error {
        code,
        message: message.into(),
    }
}

fn persist(project: &Path, record: &HostRecord) {
    if let Err(e) = store::write_record(project, record) {
        tracing::error!(operation = %record.operation_id, error = %e, "writing the run record failed");
    }
}

/// Submit: the existing record for a repeated delivery, a conflict for a different digest, or
/// a new run recorded durably before R is spawned.
pub(crate) fn submit(host: &Arc<Host>, spec: RunSpec) -> HostReply {
    if let Err(why) = validate::check(&spec, &host.project) {
        return error(HostErrorCode::Invalid, why);
    }
    let op = spec.operation_id.clone();
    if let Some(why) = host.unreadable.get(&op) {
        return error(
            HostErrorCode::Internal,
            format!("the record of operationId {op} is unreadable ({why}); it is never re-run"),
        );
    }
    let mut runs = host.runs();
    if let Some(run) = runs.get(&op).cloned() {
        drop(runs);
        let inner = run.lock();
        if inner.record.request_digest != spec.request_digest {
            return error(
                HostErrorCode::Conflict,
                format!(
                    "operationId {op} was delivered with requestDigest {}; this delivery has {}",
                    inner.record.request_digest, spec.request_digest
                ),
            );
        }
        return HostReply::Record {
            record: inner.snapshot(),
        };
    }
    if host.is_shutting_down() {
        return error(
            HostErrorCode::ShuttingDown,
            "this Host is shutting down; nothing was recorded: deliver again to a new Host",
        );
    }
    let record = HostRecord {
        operation_id: op.clone(),
        request_digest: spec.request_digest.clone(),
        state: RunState::Recorded,
        pid: None,
        exit_code: None,
        signal: None,
        spawn_error: None,
        recorded_at_ms: now_ms(),
        started_at_ms: None,
        ended_at_ms: None,
        stdout: LogFacts::default(),
        stderr: LogFacts::default(),
        stop: None,
        inventory: None,
        lost_with_host: false,
    };
    if let Err(e) = store::create_record(&host.project, &spec, &record) {
        tracing::error!(operation = %op, error = %e, "creating the run record failed");
        return error(
            HostErrorCode::Internal,
            format!("the Host could not record operationId {op}: {e}; nothing was run"),
        );
    }
    let run = Run::loaded(record);
    let mut inner = run.lock();
    runs.insert(op, run.clone());
    drop(runs);
    host.touch();
    start(host, &run, &mut inner, spec);
    HostReply::Record {
        record: inner.snapshot(),
    }
}

/// Spawns the guard (which runs Rscript) with the run's record lock held, so a Cancel or a
/// repeated Submit sees `running` with its pid, or `failedToStart`.
fn start(host: &Arc<Host>, run: &Arc<Run>, inner: &mut RunInner, spec: RunSpec) {
    let op = spec.operation_id.clone();
    match spawn(host, &spec) {
        Ok(child) => {
            let pid = child.id();
            let out = Arc::new(Counter::default());
            let err = Arc::new(Counter::default());
            inner.record.state = RunState::Running;
            inner.record.pid = Some(pid);
            inner.record.started_at_ms = Some(now_ms());
            inner.pgid = i32::try_from(pid).ok().map(Pid::from_raw);
            inner.grace = Duration::from_millis(spec.stop_grace_ms);
            inner.logs = Some((out.clone(), err.clone()));
            // `running` is written by the watcher, off the reply path: the acknowledged fact
            // is the `recorded` record; a Host that dies now leaves it lost either way.
            tracing::info!(operation = %op, pid, "run started");
            let (host, run) = (host.clone(), run.clone());
            let watcher = std::thread::Builder::new()
                .name(format!("run-{op}"))
                .spawn(move || watch(host, run, child, spec, out, err));
            if let Err(e) = watcher {
                // Without a watcher nobody would observe the end: stop the group now.
                tracing::error!(operation = %op, error = %e, "no watcher thread; killing the run");
                if let Some(pgid) = inner.pgid {
                    let _ = killpg(pgid, Signal::SIGKILL);
                }
            }
        }
        Err(why) => {
            tracing::warn!(operation = %op, reason = %why, "run failed to start");
            inner.record.state = RunState::FailedToStart;
            inner.record.spawn_error = Some(why);
            inner.record.ended_at_ms = Some(now_ms());
            persist(&host.project, &inner.record);
            run.ended.notify_all();
        }
    }
}

/// Lives as long as the run: drains both streams, waits for the guard, sweeps the process
/// group, takes the inventory and writes the final record.
fn watch(
    host: Arc<Host>,
    run: Arc<Run>,
    mut child: Child,
    spec: RunSpec,
    out: Arc<Counter>,
    err: Arc<Counter>,
) {
    let op = spec.operation_id.clone();
    let _death_pipe = child.stdin.take();
    {
        let inner = run.lock();
        persist(&host.project, &inner.snapshot());
    }
    let copier = |pipe: Option<Box<dyn std::io::Read + Send>>, path: PathBuf, counter| {
        let (host, run) = (host.clone(), run.clone());
        let cap = spec.max_log_bytes;
        let name = format!("log-{op}");
        std::thread::Builder::new().name(name).spawn(move || {
            let file = OpenOptions::new().append(true).open(&path);
            match (pipe, file) {
                (Some(pipe), Ok(file)) => Some(copy_capped(pipe, file, cap, counter, || {
                    let inner = run.lock();
                    persist(&host.project, &inner.snapshot());
                })),
                (Some(mut pipe), Err(e)) => {
                    tracing::error!(path = %path.display(), error = %e, "cannot open a run log");
                    let _ = std::io::copy(&mut pipe, &mut std::io::sink());
                    None
                }
                (None, _) => None,
            }
        })
    };
    let stdout_pipe = child
        .stdout
        .take()
        .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>);
    let stderr_pipe = child
        .stderr
        .take()
        .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>);
    let copiers = [
        copier(stdout_pipe, paths::stdout_path(&host.project, &op), out),
        copier(stderr_pipe, paths::stderr_path(&host.project, &op), err),
    ];
    let status = end_and_sweep(&mut child);
    let mut facts = [LogFacts::default(), LogFacts::default()];
    let mut logs = Vec::new();
    for (slot, copier) in facts.iter_mut().zip(copiers) {
        if let Ok(handle) = copier {
            if let Ok(Some((f, file))) = handle.join() {
                *slot = f;
                logs.push(file);
            }
        }
    }
    let inventory = inventory::take(&spec.output_directory, &spec.artifacts);
    let mut inner = run.lock();
    let r = &mut inner.record;
    match &status {
        Ok(s) => {
            r.exit_code = s.code();
            r.signal = s.signal();
        }
        Err(e) => tracing::error!(operation = %op, error = %e, "waiting for the run failed"),
    }
    r.state = RunState::Exited;
    r.ended_at_ms = Some(now_ms());
    [r.stdout, r.stderr] = facts;
    r.inventory = Some(inventory);
    if let Some(stop) = &mut r.stop {
        stop.state = match stop.state {
            StopState::Signalled => StopState::Stopped,
            StopState::Requested => StopState::FinishedFirst,
            other => other,
        };
    }
    inner.pgid = None;
    if let Err(e) = store::write_record_after(&host.project, &inner.record, &logs) {
        tracing::error!(operation = %op, error = %e, "writing the final run record failed");
    }
    tracing::info!(operation = %op, exit = ?inner.record.exit_code, signal = ?inner.record.signal, "run ended");
    drop(inner);
    run.ended.notify_all();
    host.touch();
}

/// Waits for the guard to end, then kills whatever the script left in its process group. On
/// Linux the group is swept while the guard is still an unreaped zombie, so its id cannot have
/// been reused; elsewhere right after reaping.
fn end_and_sweep(child: &mut Child) -> std::io::Result<std::process::ExitStatus> {
    let pgid = i32::try_from(child.id()).ok().map(Pid::from_raw);
    #[cfg(target_os = "linux")]
    if let Some(pid) = pgid {
        use nix::sys::wait::{waitid, Id, WaitPidFlag};
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT;
        while let Err(nix::errno::Errno::EINTR) = waitid(Id::Pid(pid), flags) {}
        let _ = killpg(pid, Signal::SIGKILL);
    }
    let status = child.wait();
    if let (false, Some(pid)) = (cfg!(target_os = "linux"), pgid) {
        let _ = killpg(pid, Signal::SIGKILL);
    }
    status
}

/// Cancel: SIGTERM to the group now, SIGKILL after the grace; a finished run gets
/// `finished-first`, a run lost with its Host `unconfirmed`. Answers the record as it stands.
pub(crate) fn cancel(host: &Arc<Host>, run: &Arc<Run>, requested_by: &str) -> HostRecord {
    let mut inner = run.lock();
    if inner.record.stop.is_some() {
        return inner.snapshot();
    }
    let at_ms = now_ms();
    let stop = |state| HostStop {
        state,
        requested_by: requested_by.to_string(),
        at_ms,
    };
    let Some(pgid) = inner.pgid.filter(|_| inner.is_running()) else {
        let state = if inner.record.lost_with_host {
            StopState::Unconfirmed
        } else {
            StopState::FinishedFirst
        };
        inner.record.stop = Some(stop(state));
        persist(&host.project, &inner.record);
        return inner.snapshot();
    };
    inner.record.stop = Some(stop(StopState::Requested));
    persist(&host.project, &inner.record);
    match killpg(pgid, Signal::SIGTERM) {
        Ok(()) => {
            inner.record.stop = Some(stop(StopState::Signalled));
            persist(&host.project, &inner.record);
        }
        Err(e) => {
            tracing::warn!(operation = %inner.record.operation_id, error = %e, "SIGTERM to the run's group failed")
        }
    }
    let grace = inner.grace;
    let reply = inner.snapshot();
    drop(inner);
    let run = run.clone();
    let escalate = std::thread::Builder::new()
        .name("stop-grace".into())
        .spawn(move || {
            let record = run.wait_until(Instant::now() + grace);
            if record.state == RunState::Running {
                tracing::info!(operation = %record.operation_id, "grace over; SIGKILL to the group");
                let _ = killpg(pgid, Signal::SIGKILL);
            }
        });
    if escalate.is_err() {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    reply
}
