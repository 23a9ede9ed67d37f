//! The Host's socket: accept loop (with the idle exit), one request line and one reply line per
//! connection on its own thread, the dispatch of each request, and the orderly end.

use super::run::Run;
use super::runs;
use super::state::{Host, HostExit};
use crate::host::proto::{HostErrorCode, HostRecord, HostReply, HostRequest, PROTOCOL_VERSION};
use nix::poll::{poll, PollFd, PollFlags};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Largest request line (a 1 MiB script escapes to well under this).
const MAX_REQUEST_BYTES: u64 = 32 << 20;
/// Connections served at once; more are answered `internal` at once.
const MAX_CONNECTIONS: usize = 256;
/// A client must send its line (and take its reply) within this.
const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest `Wait`.
pub(crate) const MAX_WAIT_MS: u64 = 600_000;
/// How often the accept loop looks at the idle clock and a requested exit.
const TICK_MS: u16 = 100;

struct Shared {
    host: Arc<Host>,
    active: AtomicUsize,
    exit: Mutex<Option<HostExit>>,
}

/// Serves until idle or a Shutdown was answered; then unlinks the socket, answers what is
/// already queued (new Submits refused as `shutting_down`) and returns.
pub(crate) fn serve(
    host: &Arc<Host>,
    listener: &UnixListener,
    socket: &Path,
    idle: Duration,
) -> HostExit {
    let shared = Arc::new(Shared {
        host: host.clone(),
        active: AtomicUsize::new(0),
        exit: Mutex::new(None),
    });
    let exit = loop {
        if let Some(exit) = *shared.exit.lock().unwrap_or_else(|p| p.into_inner()) {
            break exit;
        }
        if !host.is_shutting_down()
            && shared.active.load(Ordering::Acquire) == 0
            && host.idle_for() >= idle
            && host.running().is_empty()
        {
            host.begin_shutdown();
            tracing::info!(idle_ms = idle.as_millis() as u64, "idle: Host exiting");
            break HostExit::Idle;
        }
        let mut fds = [PollFd::new(listener.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, TICK_MS) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => {
                tracing::error!(error = %e, "poll on the Host socket failed");
                std::thread::sleep(Duration::from_millis(u64::from(TICK_MS)));
                continue;
            }
        }
        match listener.accept() {
            Ok((stream, _)) => spawn_connection(&shared, stream),
            Err(e) => tracing::warn!(error = %e, "accept failed"),
        }
    };
    // New connections now fail (no socket file: certainly not delivered); the ones already
    // queued are answered with Submits refused.
    let _ = std::fs::remove_file(socket);
    std::thread::sleep(Duration::from_millis(20));
    if listener.set_nonblocking(true).is_ok() {
        while let Ok((stream, _)) = listener.accept() {
            let _ = stream.set_nonblocking(false);
            handle(&shared, stream);
        }
    }
    exit
}

fn spawn_connection(shared: &Arc<Shared>, stream: UnixStream) {
    if shared.active.load(Ordering::Acquire) >= MAX_CONNECTIONS {
        let reply = HostReply::Error {
            code: HostErrorCode::Internal,
            message: format!("the Host is serving {MAX_CONNECTIONS} connections; try again"),
        };
        let _ = write_reply(&stream, &reply);
        return;
    }
    shared.active.fetch_add(1, Ordering::AcqRel);
    let worker = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("host-conn".into())
        .spawn(move || {
            handle(&worker, stream);
            worker.active.fetch_sub(1, Ordering::AcqRel);
        });
    if let Err(e) = spawned {
        shared.active.fetch_sub(1, Ordering::AcqRel);
        tracing::error!(error = %e, "no thread for a connection");
    }
}

fn write_reply(mut stream: &UnixStream, reply: &HostReply) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(reply).map_err(std::io::Error::other)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    stream.flush()
}

fn handle(shared: &Shared, stream: UnixStream) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut line = Vec::new();
    let limited = std::io::Read::take(&stream, MAX_REQUEST_BYTES + 1);
    let read = BufReader::new(limited).read_until(b'\n', &mut line);
    if let Err(e) = read {
        tracing::debug!(error = %e, "a client sent no complete request");
        return;
    }
    if line.last() != Some(&b'\n') {
        let message = if line.len() as u64 > MAX_REQUEST_BYTES {
            format!("request line exceeds {MAX_REQUEST_BYTES} bytes")
        } else {
            "request line must end with a newline".to_string()
        };
        let reply = HostReply::Error {
            code: HostErrorCode::Invalid,
            message,
        };
        let _ = write_reply(&stream, &reply);
        return;
    }
    let (reply, exit) = match serde_json::from_slice::<HostRequest>(&line) {
        Ok(request) => dispatch(&shared.host, request),
        Err(e) => (
            HostReply::Error {
                code: HostErrorCode::Invalid,
                message: format!("not a Host request: {e}"),
            },
            None,
        ),
    };
    if let Err(e) = write_reply(&stream, &reply) {
        tracing::warn!(error = %e, "the reply could not be written; the client reads it as lost");
    }
    if let Some(exit) = exit {
        *shared.exit.lock().unwrap_or_else(|p| p.into_inner()) = Some(exit);
    }
}

fn not_found(operation_id: &str) -> HostReply {
    HostReply::Error {
        code: HostErrorCode::NotFound,
        message: format!("this Host has no record of operationId {operation_id}"),
    }
}

/// The run of `operation_id`, or the reply that says why there is none.
fn find(host: &Host, operation_id: &str) -> Result<Arc<Run>, Box<HostReply>> {
    if let Some(why) = host.unreadable.get(operation_id) {
        return Err(Box::new(HostReply::Error {
            code: HostErrorCode::Internal,
            message: format!("the record of operationId {operation_id} is unreadable: {why}"),
        }));
    }
    host.run(operation_id)
        .ok_or_else(|| Box::new(not_found(operation_id)))
}

fn dispatch(host: &Arc<Host>, request: HostRequest) -> (HostReply, Option<HostExit>) {
    host.touch();
    let reply = match request {
        HostRequest::Ping if host.is_shutting_down() => HostReply::Error {
            code: HostErrorCode::ShuttingDown,
            message: "this Host is shutting down".into(),
        },
        HostRequest::Ping => HostReply::Pong {
            pid: std::process::id(),
            protocol: PROTOCOL_VERSION,
            core_version: crate::core::our_version(),
            started_at_ms: host.started_at_ms,
        },
        HostRequest::Submit(spec) => runs::submit(host, *spec),
        HostRequest::Lookup { operation_id } => match find(host, &operation_id) {
            Ok(run) => HostReply::Record {
                record: run.lock().snapshot(),
            },
            Err(reply) => *reply,
        },
        HostRequest::Wait {
            operation_id,
            timeout_ms,
        } => match find(host, &operation_id) {
            Ok(run) => {
                let wait = Duration::from_millis(timeout_ms.min(MAX_WAIT_MS));
                HostReply::Record {
                    record: run.wait_until(Instant::now() + wait),
                }
            }
            Err(reply) => *reply,
        },
        HostRequest::Cancel {
            operation_id,
            requested_by,
        } => match find(host, &operation_id) {
            Ok(run) => HostReply::Record {
                record: runs::cancel(host, &run, &requested_by),
            },
            Err(reply) => *reply,
        },
        HostRequest::List => HostReply::Records {
            records: list(host),
        },
        HostRequest::Shutdown { requested_by } => {
            return (shutdown(host, &requested_by), Some(HostExit::Shutdown));
        }
    };
    (reply, None)
}

fn list(host: &Host) -> Vec<HostRecord> {
    let runs: Vec<_> = host.runs().values().cloned().collect();
    let mut records: Vec<HostRecord> = runs.iter().map(|r| r.lock().snapshot()).collect();
    records.sort_by(|a, b| {
        (a.recorded_at_ms, &a.operation_id).cmp(&(b.recorded_at_ms, &b.operation_id))
    });
    records
}

/// Refuses new runs, stops the running ones (stop facts name `requested_by`), waits for each
/// to end (its grace plus a margin) and answers their records.
fn shutdown(host: &Arc<Host>, requested_by: &str) -> HostReply {
    host.begin_shutdown();
    let running = host.running();
    tracing::info!(
        runs = running.len(),
        requested_by,
        "Shutdown: stopping runs"
    );
    for run in &running {
        runs::cancel(host, run, requested_by);
    }
    let records = running
        .iter()
        .map(|run| {
            let grace = run.lock().grace();
            run.wait_until(Instant::now() + grace + Duration::from_secs(10))
        })
        .collect();
    HostReply::Records { records }
}
