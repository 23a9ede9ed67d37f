//! The Host's client: one request, one reply, with errors that say whether the request was
//! certainly not delivered ([`HostClientError::NotRunning`]) or may have been
//! ([`HostClientError::Lost`]); and [`start`], which spawns a detached Host and waits for it.

use crate::host::paths::{self, SocketPathError};
use crate::host::proto::{HostReply, HostRequest};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Largest reply line the client reads (a `List` of 256 records fits easily).
const MAX_REPLY_BYTES: u64 = 64 << 20;

/// Why a request got no reply.
#[derive(Debug, thiserror::Error)]
pub enum HostClientError {
    /// The project has no usable socket path (missing folder, path too long).
    #[error(transparent)]
    SocketPath(#[from] SocketPathError),
    /// No Host is serving (no socket, or nobody listening): the request was certainly not
    /// delivered.
    #[error("no Host is serving {}: {source}", socket.display())]
    NotRunning {
        socket: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Connecting failed for another reason (e.g. permissions): not delivered either.
    #[error("cannot connect to the Host at {}: {source}", socket.display())]
    Connect {
        socket: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Connected and (partly) sent, but no readable reply within the timeout: the request may
    /// or may not have been acted on.
    #[error("the Host at {} gave no reply ({reason}); delivery is uncertain", socket.display())]
    Lost { socket: PathBuf, reason: String },
    /// The request could not be encoded (nothing was sent).
    #[error("the request cannot be encoded: {0}")]
    Encode(#[source] serde_json::Error),
    /// `start`: the Core binary could not be started.
    #[error("cannot start the Core {}: {source}", core.display())]
    Spawn {
        core: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `start`: the Host exited before answering.
    #[error("the Host exited ({status}) before answering; its log ends: {log_tail}")]
    HostExited { status: String, log_tail: String },
    /// `start`: the Host did not answer Ping in time (it was stopped).
    #[error("the Host did not answer within {waited_ms} ms; its log ends: {log_tail}")]
    StartTimeout { waited_ms: u128, log_tail: String },
    /// `start`: the Host's folder or log cannot be prepared.
    #[error("cannot prepare {}: {source}", path.display())]
    Prepare {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl HostClientError {
    /// The request may have reached the Host (only [`HostClientError::Lost`]).
    pub fn is_uncertain(&self) -> bool {
        matches!(self, Self::Lost { .. })
    }
}

/// Sends one request to the project's Host and reads its reply, all within `timeout` (for a
/// `Wait`, make it longer than the wait's `timeoutMs`).
pub fn request(
    project_dir: &Path,
    request: &HostRequest,
    timeout: Duration,
) -> Result<HostReply, HostClientError> {
    let socket = paths::socket_path(project_dir)?;
    request_at(&socket, request, timeout)
}

/// [`request`] to a known socket path.
pub fn request_at(
    socket: &Path,
    request: &HostRequest,
    timeout: Duration,
) -> Result<HostReply, HostClientError> {
    let mut line = serde_json::to_vec(request).map_err(HostClientError::Encode)?;
    line.push(b'\n');
    let deadline = Instant::now() + timeout;
    let stream = UnixStream::connect(socket).map_err(|source| {
        use std::io::ErrorKind::{ConnectionRefused, NotFound};
        if matches!(source.kind(), NotFound | ConnectionRefused) {
            HostClientError::NotRunning {
                socket: socket.to_path_buf(),
                source,
            }
        } else {
            HostClientError::Connect {
                socket: socket.to_path_buf(),
                source,
            }
        }
    })?;
    let lost = |reason: String| HostClientError::Lost {
        socket: socket.to_path_buf(),
        reason,
    };
    let left = || {
        let d = deadline.saturating_duration_since(Instant::now());
        Some(d.max(Duration::from_millis(1)))
    };
    stream
        .set_write_timeout(left())
        .map_err(|e| lost(e.to_string()))?;
    (&stream)
        .write_all(&line)
        .map_err(|e| lost(format!("sending failed: {e}")))?;
    stream
        .set_read_timeout(left())
        .map_err(|e| lost(e.to_string()))?;
    let mut reply = Vec::new();
    let mut reader = BufReader::new((&stream).take(MAX_REPLY_BYTES));
    loop {
        match reader.read_until(b'\n', &mut reply) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(lost(format!("reading the reply failed: {e}"))),
        }
    }
    if reply.last() != Some(&b'\n') {
        return Err(lost("the connection closed before a whole reply".into()));
    }
    serde_json::from_slice(&reply).map_err(|e| lost(format!("unreadable reply: {e}")))
}

/// A Host that answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartedHost {
    /// The Host's pid (from its Pong).
    pub pid: u32,
    /// This call started it. `false`: a Host was already serving; the caller does not own it
    /// (it must not shut it down on its own exit).
    pub owned: bool,
}

/// Starts `<core> core host --project DIR` detached (stdin null, stdout and stderr appended to
/// `.rho/host/host.log`, its own session) unless a Host already answers, and waits until Ping
/// answers. The socket path is checked before anything is spawned.
pub fn start(
    core_binary: &Path,
    project_dir: &Path,
    timeout: Duration,
) -> Result<StartedHost, HostClientError> {
    let project = paths::canonical_project(project_dir)?;
    let socket = paths::socket_path_in(&project)?;
    let ping = |t| request_at(&socket, &HostRequest::Ping, t);
    if let Ok(HostReply::Pong { pid, .. }) = ping(timeout) {
        return Ok(StartedHost { pid, owned: false });
    }
    let host_dir = paths::host_dir(&project);
    let prepare = |path: &Path| {
        let path = path.to_path_buf();
        move |source| HostClientError::Prepare { path, source }
    };
    std::fs::create_dir_all(&host_dir).map_err(prepare(&host_dir))?;
    let log_path = paths::log_path(&project);
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(prepare(&log_path))?;
    let log2 = log.try_clone().map_err(prepare(&log_path))?;
    let mut child = Command::new(core_binary)
        .args(["core", "host", "--project"])
        .arg(&project)
        .current_dir(&project)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|source| HostClientError::Spawn {
            core: core_binary.to_path_buf(),
            source,
        })?;
    let started = Instant::now();
    loop {
        if let Ok(HostReply::Pong { pid, .. }) = ping(Duration::from_secs(2)) {
            let owned = pid == child.id();
            // Reap it when it ends, so a long-lived caller keeps no zombie.
            let _ = std::thread::Builder::new()
                .name("host-reaper".into())
                .spawn(move || child.wait());
            return Ok(StartedHost { pid, owned });
        }
        if let Ok(Some(status)) = child.try_wait() {
            // It may have found another Host serving (exit 0): ask once more.
            if let Ok(HostReply::Pong { pid, .. }) = ping(Duration::from_secs(2)) {
                return Ok(StartedHost { pid, owned: false });
            }
            return Err(HostClientError::HostExited {
                status: status.to_string(),
                log_tail: log_tail(&log_path),
            });
        }
        if started.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(HostClientError::StartTimeout {
                waited_ms: started.elapsed().as_millis(),
                log_tail: log_tail(&log_path),
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The last 2 KiB of the Host log, on one line.
fn log_tail(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let tail = &bytes[bytes.len().saturating_sub(2048)..];
    String::from_utf8_lossy(tail).trim().replace('\n', " | ")
}
