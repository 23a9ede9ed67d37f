//! The single-node Slurm of the kernels' tests (`kernels/tests/it/support/slurm.rs`, included, not
//! copied), plus what the service tests need of it: a place definition for `kernel.place.set`.

use super::sshd;

#[path = "../../../kernels/tests/it/support/slurm.rs"]
mod cluster;

pub use cluster::Slurm;

impl Slurm {
    /// `kernel.place.set`'s `define` for this cluster, with the Rscript of its nodes.
    pub fn definition(&self, rscript: &str) -> serde_json::Value {
        serde_json::json!({"slurm": {"conf": self.conf().display().to_string()}, "rscript": rscript})
    }
}
