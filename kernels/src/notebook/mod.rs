//! The notebook runtime: live R and Python sessions run by Rho's own runner programs
//! (`runner.R`, `runner.py`) under the guard, supervised with plain threads. The `kernel` owner
//! builds cells, journaling and recovery on top of it (docs/notebook-runtime.md).

pub(crate) mod frames;
pub(crate) mod link;
pub(crate) mod reader;
pub(crate) mod session;
mod types;

pub use session::{start, InspectError, Session, SessionError, StartError};
pub use types::*;

/// The R runner's files, written into the session's folder at start (the first one runs).
pub const RUNNER_R: [(&str, &str); 2] = [
    ("runner.R", include_str!("runner.R")),
    ("inspect.R", include_str!("inspect.R")),
];
/// The Python runner's files, written into the session's folder at start (the first one runs).
pub const RUNNER_PY: [(&str, &str); 2] = [
    ("runner.py", include_str!("runner.py")),
    ("rho_inspect.py", include_str!("rho_inspect.py")),
];
