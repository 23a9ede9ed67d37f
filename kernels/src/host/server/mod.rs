//! The Host process of one project: start (session, lock, records, socket) and how it ends
//! (idle or Shutdown); the state its connection threads share is in `state.rs`.

mod capture;
mod connection;
pub mod inventory;
mod run;
mod runs;
mod spawn;
mod state;
mod store;
mod validate;

pub use state::HostExit;

use crate::host::paths::{self, SocketPathError};
use crate::host::proto::{HostReply, HostRequest};
use run::Run;
use state::Host;
use std::ffi::OsString;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Default idle period before a Host with nothing running exits (`RHO_HOST_IDLE_MS`).
pub const DEFAULT_IDLE_MS: u64 = 60_000;

/// How a Host is run.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The project folder (canonicalized at start).
    pub project: PathBuf,
    /// The trampoline command R runs under: program and its leading arguments; the Rscript
    /// command line follows. Default: this executable's `core guard --`.
    pub guard: Vec<OsString>,
    /// Exit after this long with nothing running and no request.
    pub idle: Duration,
    /// Run as the Host process: call `setsid` at start, and turn SIGTERM, SIGINT and SIGHUP
    /// into a Shutdown requested by `system` (an in-process Host does neither).
    pub new_session: bool,
    /// How long to wait for a previous Host's lock (it may be finishing its idle exit).
    pub lock_wait: Duration,
}

impl HostConfig {
    /// The Host as `rho core host` runs it: this executable as guard, `RHO_HOST_IDLE_MS`.
    pub fn for_process(project: PathBuf) -> Result<Self, HostError> {
        let exe = std::env::current_exe().map_err(HostError::CurrentExe)?;
        let idle = match std::env::var("RHO_HOST_IDLE_MS") {
            Ok(v) => v
                .trim()
                .parse::<u64>()
                .map_err(|_| HostError::IdleSetting(v.clone()))?,
            Err(_) => DEFAULT_IDLE_MS,
        };
        Ok(Self {
            project,
            guard: vec![exe.into(), "core".into(), "guard".into(), "--".into()],
            idle: Duration::from_millis(idle),
            new_session: true,
            lock_wait: Duration::from_secs(10),
        })
    }
}

/// Why a Host could not start or serve.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    SocketPath(#[from] SocketPathError),
    #[error("cannot find this executable for the guard: {0}")]
    CurrentExe(#[source] std::io::Error),
    #[error("RHO_HOST_IDLE_MS={0:?} is not a number of milliseconds")]
    IdleSetting(String),
    #[error("another Host holds {path} and did not release it within {waited_ms} ms")]
    LockBusy { path: PathBuf, waited_ms: u128 },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io_err(what: &'static str, path: PathBuf) -> impl FnOnce(std::io::Error) -> HostError {
    move |source| HostError::Io { what, path, source }
}

/// Runs a Host until it ends. One per project: the lock on `.rho/host/host.lock` is held for
/// the process's life; records a previous Host left running are marked lost first.
pub fn run(config: HostConfig) -> Result<HostExit, HostError> {
    let stop_signals = stop_signals();
    if config.new_session {
        // Spawned without a process group of its own, so this succeeds; the Host then
        // outlives the service that started it and no terminal signal reaches it.
        if let Err(e) = nix::unistd::setsid() {
            tracing::warn!(error = %e, "setsid failed; the Host stays in its parent's session");
        }
        // Before any thread exists, so all inherit it; one thread takes them with sigwait.
        if let Err(e) = stop_signals.thread_block() {
            tracing::warn!(error = %e, "cannot block stop signals; SIGTERM ends the Host abruptly");
        }
    }
    let project = paths::canonical_project(&config.project)?;
    let socket = paths::socket_path_in(&project)?;
    store::ensure_host_dir(&project).map_err(io_err("cannot create", paths::host_dir(&project)))?;
    let lock_path = paths::lock_path(&project);
    let lock = match acquire_lock(&lock_path, &project, config.lock_wait)? {
        Ok(lock) => lock,
        Err(pid) => return Ok(HostExit::AlreadyServed { pid }),
    };
    let loaded = store::load(&project).map_err(io_err(
        "cannot load records from",
        paths::host_dir(&project),
    ))?;
    let runs = loaded
        .records
        .into_iter()
        .map(|(id, record)| (id, Run::loaded(record)))
        .collect();
    for (id, why) in &loaded.unreadable {
        tracing::error!(operation = %id, reason = %why, "run record unreadable; this id is refused");
    }
    match std::fs::remove_file(&socket) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(io_err("cannot remove the stale socket", socket)(e))
        }
        _ => {}
    }
    let listener =
        UnixListener::bind(&socket).map_err(io_err("cannot listen on", socket.clone()))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
            .map_err(io_err("cannot restrict", socket.clone()))?;
    }
    let host = Arc::new(Host::new(project, config.guard, runs, loaded.unreadable));
    tracing::info!(socket = %socket.display(), pid = std::process::id(), "Host serving");
    if config.new_session {
        watch_stop_signals(stop_signals, socket.clone());
    }
    let exit = connection::serve(&host, &listener, &socket, config.idle);
    drop(listener);
    drop(lock);
    Ok(exit)
}

/// SIGTERM, SIGINT and SIGHUP: an orderly stop of the Host process.
fn stop_signals() -> nix::sys::signal::SigSet {
    use nix::sys::signal::{SigSet, Signal};
    let mut set = SigSet::empty();
    for s in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        set.add(s);
    }
    set
}

/// A thread that waits for a stop signal and then asks this Host to shut down, in the name of
/// `system`, through its own socket (the same path as any Shutdown: runs get stop facts).
fn watch_stop_signals(set: nix::sys::signal::SigSet, socket: PathBuf) {
    let spawned = std::thread::Builder::new()
        .name("stop-signals".into())
        .spawn(move || {
            let Ok(signal) = set.wait() else {
                return;
            };
            tracing::info!(?signal, "stop signal: shutting down");
            let shutdown = HostRequest::Shutdown {
                requested_by: "system".into(),
            };
            let t = Duration::from_secs(validate::MAX_STOP_GRACE_MS / 1000 + 30);
            match crate::host::client::request_at(&socket, &shutdown, t) {
                // Already leaving (its socket is gone): nothing to add.
                Ok(_) | Err(crate::host::client::HostClientError::NotRunning { .. }) => {}
                Err(e) => {
                    tracing::error!(error = %e, "the stop signal's Shutdown failed; exiting");
                    std::process::exit(1);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "no stop-signal thread; SIGTERM ends the Host abruptly");
    }
}

/// The lock, or `Err(pid)` when another Host answers Ping while holding it.
fn acquire_lock(
    path: &std::path::Path,
    project: &std::path::Path,
    wait: Duration,
) -> Result<Result<std::fs::File, u32>, HostError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io_err("cannot open", path.to_path_buf()))?;
    let started = Instant::now();
    loop {
        if fs2::FileExt::try_lock_exclusive(&file).is_ok() {
            return Ok(Ok(file));
        }
        let ping =
            crate::host::client::request(project, &HostRequest::Ping, Duration::from_secs(2));
        if let Ok(HostReply::Pong { pid, .. }) = ping {
            return Ok(Err(pid));
        }
        if started.elapsed() >= wait {
            return Err(HostError::LockBusy {
                path: path.to_path_buf(),
                waited_ms: started.elapsed().as_millis(),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
