//! `install.packages` into the project library from the configured repositories, bounded.

use super::probe::rscript_command;
use rho_plumbing::child::{self, Bounded, Cut, SpawnError};
use std::path::Path;
use std::time::Duration;

/// Wall-time bound of one preparation's installer.
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Output bound of one preparation's installer (stdout and stderr each).
pub const INSTALL_MAX_OUTPUT: u64 = 4 * 1024 * 1024;
/// Bytes of installer output kept in the journal.
pub const LOG_TAIL: usize = 8 * 1024;

/// Packages, library and repositories arrive as trailing arguments, never inside the code.
const INSTALL_R: &str = r#"a <- commandArgs(trailingOnly = TRUE)
lib <- a[1]
n <- as.integer(a[2])
repos <- a[3:(2 + n)]
pkgs <- a[-(1:(2 + n))]
dir.create(lib, recursive = TRUE, showWarnings = FALSE)
options(warn = 1)
utils::install.packages(pkgs, lib = lib, repos = repos, dependencies = c("Depends", "Imports", "LinkingTo"))
"#;

/// Runs the installer (blocking).
pub fn install(
    rscript: &Path,
    library: &Path,
    repos: &[String],
    packages: &[String],
) -> Result<Bounded, SpawnError> {
    let mut cmd = rscript_command(rscript, library);
    cmd.args([
        "--vanilla",
        "--default-packages=base,utils,tools,methods,stats",
        "-e",
        INSTALL_R,
    ]);
    cmd.arg(library);
    cmd.arg(repos.len().to_string());
    cmd.args(repos);
    cmd.args(packages);
    child::run(cmd, INSTALL_TIMEOUT, INSTALL_MAX_OUTPUT)
}

/// The last `LOG_TAIL` bytes of both streams, as text.
pub fn log_tail(b: &Bounded) -> String {
    let mut all = b.stdout.clone();
    all.extend_from_slice(&b.stderr);
    let from = all.len().saturating_sub(LOG_TAIL);
    String::from_utf8_lossy(&all[from..]).into_owned()
}

/// The wire name of a bound that stopped the installer.
pub fn cut_name(c: Cut) -> &'static str {
    match c {
        Cut::Timeout => "timeout",
        Cut::OutputLimit => "output-limit",
    }
}
