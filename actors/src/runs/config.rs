//! The R runtime a service run uses: the Rscript, the package repositories and the selected Core.

use super::model::CoreIdentity;
use crate::requirements::Repos;
use std::path::PathBuf;

/// Fixed for one service run; `None`s make the dependent operations answer honestly
/// (`unknown` probe, `unavailable` managed execution).
#[derive(Debug, Clone, Default)]
pub struct RConfig {
    /// The Rscript (`--rscript`, `RHO_RSCRIPT`, or PATH).
    pub rscript: Option<PathBuf>,
    /// Repositories `requirements.prepare` installs from (`--r-repos`, `RHO_R_REPOS`).
    pub repos: Repos,
    /// The Core that runs managed scripts (`--core`, `RHO_CORE_BINARY`, or this executable).
    pub core: Option<CoreIdentity>,
}
