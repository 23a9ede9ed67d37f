//! The trampoline R runs under (`rho core guard -- PROGRAM ARGS`): it leads the run's process
//! group, runs the program as its child, and kills the whole group when its Host dies.
//!
//! The Host spawns the guard as the leader of a new process group with a pipe on its stdin and
//! keeps the pipe's write end open for the run's life. The kernel closes that end whenever the
//! Host dies (also on `kill -9`); the guard then reads EOF and sends SIGKILL to its own group,
//! taking R and anything R started with it. The guard ignores (blocks) SIGTERM, SIGINT and
//! SIGHUP (R gets them unblocked) so a cancel's SIGTERM to the group reaches R while the guard
//! keeps watching; its exit mirrors the program's (same code, or the same signal re-raised).
//! See decision 0302.

use nix::sys::signal::{killpg, raise, SigSet, Signal};
use nix::unistd::{getpgrp, getpid};
use std::ffi::OsString;
use std::io::Read;
use std::process::{Command, ExitCode, Stdio};

/// Exit status when the guard itself cannot do its job (like a shell's "cannot execute").
pub const GUARD_FAILED: u8 = 127;

/// Runs `command` under the guard; returns only when it ended normally (a signal death is
/// re-raised so the Host observes the same signal).
pub fn run(command: &[OsString]) -> ExitCode {
    let Some((program, args)) = command.split_first() else {
        eprintln!("rho core guard: no program given");
        return ExitCode::from(2);
    };
    if getpgrp() != getpid() {
        eprintln!("rho core guard: must lead its own process group (the Host starts it so); refusing to run");
        return ExitCode::from(2);
    }
    let mut shielded = SigSet::empty();
    for s in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        shielded.add(s);
    }
    // Before any thread exists, so every later thread inherits it.
    if let Err(e) = shielded.thread_block() {
        eprintln!("rho core guard: cannot block signals: {e}");
        return ExitCode::from(GUARD_FAILED);
    }
    // A child inherits its spawning thread's mask (std does not reset it), so the program is
    // spawned from a short-lived thread that unblocks the shielded signals for itself only.
    let (program_owned, args_owned) = (program.clone(), args.to_vec());
    let spawner = std::thread::Builder::new()
        .name("spawn".into())
        .spawn(move || {
            shielded.thread_unblock().map_err(std::io::Error::from)?;
            Command::new(program_owned)
                .args(args_owned)
                .stdin(Stdio::null())
                .spawn()
        });
    let spawned = match spawner {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("spawner thread panicked"))),
        Err(e) => Err(e),
    };
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "rho core guard: cannot start {}: {e}",
                program.to_string_lossy()
            );
            return ExitCode::from(GUARD_FAILED);
        }
    };
    let watcher = std::thread::Builder::new()
        .name("host-death".into())
        .spawn(|| {
            let mut buf = [0u8; 64];
            let mut stdin = std::io::stdin().lock();
            // Nothing is ever written: any return means the Host end closed (or broke).
            while let Ok(n) = stdin.read(&mut buf) {
                if n == 0 {
                    break;
                }
            }
            let _ = killpg(getpgrp(), Signal::SIGKILL);
        });
    if watcher.is_err() {
        eprintln!("rho core guard: no watcher thread; stopping the program");
        let _ = killpg(getpgrp(), Signal::SIGKILL);
    }
    let status = match child.wait() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rho core guard: waiting for the program failed: {e}");
            return ExitCode::from(GUARD_FAILED);
        }
    };
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code & 0xff).unwrap_or(GUARD_FAILED));
    }
    use std::os::unix::process::ExitStatusExt;
    let Some(signal) = status.signal().and_then(|s| Signal::try_from(s).ok()) else {
        return ExitCode::from(GUARD_FAILED);
    };
    // Mirror the death: no core file of the guard, the signal unblocked, then raised.
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    let _ = SigSet::all().thread_unblock();
    let _ = raise(signal);
    ExitCode::from(128u8.saturating_add(signal as u8))
}
