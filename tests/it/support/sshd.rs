//! The private sshd of the kernels' tests (`kernels/tests/it/support/sshd.rs`, included, not
//! copied), plus what the service tests need of it: the place definition that reaches it and the
//! processes left on the server side.

use serde_json::{json, Value};

#[path = "../../../kernels/tests/it/support/sshd.rs"]
mod server;

pub use server::{free_port, whoami, Sshd};

impl Sshd {
    /// `kernel.place.set`'s `define` for this server.
    pub fn definition(&self) -> Value {
        json!({"ssh": {"destination": format!("{}@127.0.0.1", whoami()), "args": self.args()}})
    }
}

/// Pids of live (not zombie) processes whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie
                && String::from_utf8_lossy(&cmd)
                    .replace('\0', " ")
                    .contains(needle)
        })
        .collect()
}
