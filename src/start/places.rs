//! The programs places use: `--ssh`/`RHO_SSH` and `--serverctl`/`RHO_SERVERCTL` (a selected one
//! must exist; otherwise the name on PATH, looked up when used), and ssh's control folder.

use super::which::{is_executable, which};
use rho_actors::kernel::places::RemoteRuntime;
use std::path::{Path, PathBuf};

fn selected(option: Option<&Path>, env: &str, label: &str) -> Result<Option<PathBuf>, String> {
    let chosen = option.map(Path::to_path_buf).or_else(|| {
        std::env::var_os(env)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let Some(p) = chosen else {
        return Ok(None);
    };
    let found = if p.components().count() == 1 {
        which(&p.to_string_lossy())
    } else {
        Some(p.clone())
    };
    match found.filter(|f| is_executable(f)) {
        Some(f) => Ok(Some(f)),
        None => Err(format!(
            "the selected {label} {} does not exist or is not executable",
            p.display()
        )),
    }
}

/// The places' runtime of a start: ssh's control sockets live in `<state>/ssh` (0700), or in
/// a short private folder under `/tmp` when that path is too long for a socket.
pub(crate) fn remote_runtime(
    ssh: Option<&Path>,
    serverctl: Option<&Path>,
    state: &Path,
) -> Result<RemoteRuntime, String> {
    Ok(RemoteRuntime::new(
        selected(ssh, "RHO_SSH", "ssh")?,
        selected(serverctl, "RHO_SERVERCTL", "serverctl")?,
        Some(rho_kernels::remote::ssh::control_folder(state)),
    ))
}
