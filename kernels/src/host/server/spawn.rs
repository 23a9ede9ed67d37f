//! How a run's process starts: the guard command line around Rscript, its working directory,
//! `R_LIBS`, piped streams, and a process group of its own.

use super::state::Host;
use crate::host::paths;
use crate::host::proto::RunSpec;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Resolves the program like a shell would (a name searches `PATH`) and checks it can run.
fn resolve_program(program: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 || program.is_absolute() {
        return if executable(program) {
            Ok(program.to_path_buf())
        } else {
            Err(format!("{} is not an executable file", program.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
        .ok_or_else(|| format!("{} was not found on PATH", program.display()))
}

pub(crate) fn spawn(host: &Host, spec: &RunSpec) -> Result<Child, String> {
    let rscript = resolve_program(&spec.rscript)?;
    std::fs::create_dir_all(&spec.run_directory).map_err(|e| {
        format!(
            "cannot create the run directory {}: {e}",
            spec.run_directory.display()
        )
    })?;
    let script = paths::script_path(&host.project, &spec.operation_id, &spec.script_name);
    let mut r_libs = spec.library.clone().into_os_string();
    if let Some(existing) = std::env::var_os("R_LIBS").filter(|v| !v.is_empty()) {
        r_libs.push(":");
        r_libs.push(existing);
    }
    let (program, guard_args) = host
        .guard
        .split_first()
        .ok_or_else(|| "no guard program configured".to_string())?;
    let mut cmd = Command::new(program);
    cmd.args(guard_args)
        .arg(&rscript)
        .arg(&script)
        .arg(&spec.output_directory)
        .args(&spec.args)
        .current_dir(&spec.working_directory)
        .env("R_LIBS", r_libs)
        // The guard reads stdin only to see EOF: the Host holds the write end for the run's
        // life, so the Host's death (even kill -9) closes it and the guard kills the group.
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    cmd.spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))
}
