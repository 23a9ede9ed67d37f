//! Starting a Console guard: this executable re-run as `core console-guard`, detached (the guard
//! calls `setsid` itself), its own complaints into the record's `guard.log`, told to go on one
//! pipe and telling its start on another.

use super::files;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Kept bytes of a command's output: the head, then the tail.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub head: u64,
    pub tail: u64,
}

/// Spawns the guard of the command whose record folder `dir` exists; the caller reaps the child
/// (it outlives the caller if the caller dies). The guard gets ready and waits for one byte on
/// its stdin (a pipe: the caller's go, once the command's record is durable; the pipe's end
/// instead and the command is not run); then it writes one byte to its stdout (a pipe the caller
/// reads) once `guard.json` is written, and closes it at once if it failed.
pub fn spawn_guard(
    exe: &Path,
    dir: &Path,
    cwd: &Path,
    text: &str,
    bounds: Bounds,
) -> std::io::Result<Child> {
    let log = std::fs::File::create(files::log_path(dir))?;
    Command::new(exe)
        .args(["core", "console-guard", "--record"])
        .arg(dir)
        .arg("--cwd")
        .arg(cwd)
        .arg("--head")
        .arg(bounds.head.to_string())
        .arg("--tail")
        .arg(bounds.tail.to_string())
        .arg("--notify")
        .arg("--wait-go")
        .arg("--")
        .arg(text)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
}
