//! `kernel.place.copy` on an ssh place or a serverctl server: one regular file into a local file, refused over
//! `remoteCopyBytes` before any byte is sent, refused when it changed while being copied, with
//! the SHA-256 of exactly the bytes written.

use super::shell::{Shell, MISSING, WRONG_KIND};
use super::ssh::quote;
use super::PlaceError;
use rho_plumbing::child::{self, Cut};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A file's identity on the place, before and after the copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    size: u64,
    modified_s: i64,
}

/// What was copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub bytes: u64,
    /// Lowercase hex SHA-256 of the bytes written.
    pub sha256: String,
    pub modified_s: i64,
}

fn stat(place: &dyn Shell, path: &str, timeout: Duration) -> Result<Stat, PlaceError> {
    let script = format!(
        "f={}\n[ -e \"$f\" ] || exit {MISSING}\n[ -f \"$f\" ] || exit {WRONG_KIND}\nstat -L -c '%s %Y' -- \"$f\"",
        quote(path)?
    );
    let run = child::run(place.script(&script, timeout), timeout, 4096)
        .map_err(|e| place.spawn_failed(e.to_string()))?;
    if run.cut == Some(Cut::Timeout) {
        return Err(PlaceError::Timeout {
            ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            printed: run.stderr_tail(400),
        });
    }
    match run.exit_code {
        Some(0) => {}
        Some(MISSING) => return Err(PlaceError::NotFound(format!("no file {path} on the place"))),
        Some(WRONG_KIND) => {
            return Err(PlaceError::Invalid(format!("{path} is not a regular file")))
        }
        code => return Err(place.failure(&run.stderr, code)),
    }
    let text = String::from_utf8_lossy(&run.stdout);
    let mut f = text.split_whitespace();
    match (
        f.next().and_then(|s| s.parse().ok()),
        f.next().and_then(|s| s.parse().ok()),
    ) {
        (Some(size), Some(modified_s)) => Ok(Stat { size, modified_s }),
        _ => Err(PlaceError::Remote(format!("stat printed {text:?}"))),
    }
}

/// Copies `path` on the place into `dest` (created or truncated), within `timeout` overall.
pub fn copy(
    place: &dyn Shell,
    path: &str,
    dest: &Path,
    max_bytes: u64,
    timeout: Duration,
) -> Result<Copied, PlaceError> {
    place.ready()?;
    let started = Instant::now();
    let before = stat(place, path, timeout)?;
    if before.size > max_bytes {
        return Err(PlaceError::Limit(format!(
            "{path} has {} bytes, over remoteCopyBytes ({max_bytes}); nothing was copied",
            before.size
        )));
    }
    let left = timeout.saturating_sub(started.elapsed());
    let (bytes, sha256) = stream(place, path, dest, max_bytes, left)?;
    let after = stat(place, path, timeout.saturating_sub(started.elapsed()))?;
    if after != before || bytes != before.size {
        let _ = std::fs::remove_file(dest);
        return Err(PlaceError::Changed(format!(
            "{path} changed while being copied ({} bytes before, {} read, {} after); nothing was kept",
            before.size, bytes, after.size
        )));
    }
    Ok(Copied {
        bytes,
        sha256,
        modified_s: before.modified_s,
    })
}

/// `cat`s the file over ssh into `dest`, hashing as it writes; the whole group is killed at the
/// deadline or past `max_bytes`.
fn stream(
    place: &dyn Shell,
    path: &str,
    dest: &Path,
    max_bytes: u64,
    timeout: Duration,
) -> Result<(u64, String), PlaceError> {
    use std::os::unix::process::CommandExt;
    let mut cmd = place.script(&format!("exec cat -- {}", quote(path)?), timeout);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| place.spawn_failed(e.to_string()))?;
    let group = child.id();
    let (Some(mut out), Some(mut err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(PlaceError::Spawn("ssh pipes missing".into()));
    };
    let stderr = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut err).take(16 * 1024).read_to_end(&mut buf);
        buf
    });
    // A watchdog ends the copy at its deadline, whatever the reads are doing.
    let (done, watch) = std::sync::mpsc::channel::<()>();
    let dog = std::thread::spawn(move || {
        if watch.recv_timeout(timeout) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
            if let Ok(pgid) = i32::try_from(group) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            return true;
        }
        false
    });
    let result = (|| -> Result<(u64, String), PlaceError> {
        let mut file = std::fs::File::create(dest).map_err(|e| PlaceError::Local(e.to_string()))?;
        let mut hash = Sha256::new();
        let mut buf = vec![0u8; 256 * 1024];
        let mut total = 0u64;
        loop {
            let n = out
                .read(&mut buf)
                .map_err(|e| PlaceError::Remote(e.to_string()))?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total > max_bytes {
                return Err(PlaceError::Changed(format!(
                    "{path} grew past remoteCopyBytes ({max_bytes}) while being copied; nothing was kept"
                )));
            }
            hash.update(&buf[..n]);
            file.write_all(&buf[..n])
                .map_err(|e| PlaceError::Local(e.to_string()))?;
        }
        file.sync_all()
            .map_err(|e| PlaceError::Local(e.to_string()))?;
        Ok((total, rho_plumbing::hex::encode(&hash.finalize())))
    })();
    if result.is_err() {
        if let Ok(pgid) = i32::try_from(group) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
    let status = child.wait();
    let _ = done.send(());
    let timed_out = dog.join().unwrap_or(false);
    let printed = stderr.join().unwrap_or_default();
    if timed_out {
        let _ = std::fs::remove_file(dest);
        return Err(PlaceError::Timeout {
            ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            printed: String::from_utf8_lossy(&printed).trim().to_string(),
        });
    }
    let copied = match result {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(dest);
            return Err(e);
        }
    };
    match status.ok().and_then(|s| s.code()) {
        Some(0) => Ok(copied),
        code => {
            let _ = std::fs::remove_file(dest);
            Err(place.failure(&printed, code))
        }
    }
}
