//! Places beyond this machine (issue 19): ssh places reached through the person's own ssh —
//! check what a server has, list a folder, copy a file in, run a notebook session there —,
//! servers through serverctl, and Slurm for sessions and runs, each bounded in time and size.

pub mod check;
pub mod copy;
pub mod jobfacts;
pub mod list;
pub mod route;
pub mod serverctl;
pub mod session;
pub mod shell;
pub mod slurm;
pub mod ssh;
pub mod stage;
pub mod wrapper;

pub use check::{check, check_command, CheckReport, Found, Interpreters};
pub use copy::{copy, Copied};
pub use list::{list, Entry, ListBounds, Listing};
pub use route::{Route, SlurmClient};
pub use serverctl::{Server, Serverctl, ServerctlError, Skill};
pub use session::{start as start_session, RemoteSpec};
pub use shell::{ServerShell, Shell};
pub use ssh::{BadArgument, SshPlace};

/// Why a place operation did not happen; each names what it found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    /// ssh could not reach or log in to the place (its own words).
    #[error("{0}")]
    Connect(String),
    /// The bound passed; `printed` is what ssh and the login printed meanwhile.
    #[error("no answer within {ms} ms{}", if printed.is_empty() { String::new() } else { format!(": {printed}") })]
    Timeout { ms: u64, printed: String },
    /// The remote command ran and failed.
    #[error("{0}")]
    Remote(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    /// Over a size bound, refused before anything was sent.
    #[error("{0}")]
    Limit(String),
    /// The file changed while it was copied; nothing was kept.
    #[error("{0}")]
    Changed(String),
    /// This machine's side failed (the destination file).
    #[error("{0}")]
    Local(String),
    #[error("could not start ssh: {0}")]
    Spawn(String),
}

impl From<BadArgument> for PlaceError {
    fn from(e: BadArgument) -> Self {
        PlaceError::Invalid(e.0)
    }
}
