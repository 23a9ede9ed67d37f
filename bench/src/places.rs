//! The places the remote benchmark measures on, started by the benchmark itself: the kernels'
//! own test harnesses, included (not copied) — a private sshd on 127.0.0.1 with its own host and
//! user keys, and a single-node Slurm (munged, slurmctld, slurmd from Debian's packages) on a
//! private config. Both need root inside `unshare -n` with lo up and 127.0.0.2/8 added
//! (docs/remote.md); they are stopped by PID when dropped.

#[path = "../../kernels/tests/it/support/sshd.rs"]
pub mod sshd;

#[path = "../../kernels/tests/it/support/slurm.rs"]
pub mod slurm;

pub use slurm::Slurm;
pub use sshd::Sshd;
