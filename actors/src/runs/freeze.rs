//! Freezing an `r.execute` request before acceptance: the exact code, resolved arguments, declarations.
//!
//! Everything here is checked against the project and the limits; nothing is journaled or
//! delivered. Blocking helpers run off the actor thread.

use super::model::{ArtifactDecl, ResolvedArg};
use crate::error::ActorError;
use crate::files::store;
use std::path::Path;

/// The bounds that apply to a frozen request.
#[derive(Debug, Clone, Copy)]
pub struct FreezeLimits {
    pub max_code_bytes: u64,
    pub max_script_bytes: u64,
    pub max_artifact_files: u64,
    pub max_file_bytes: u64,
}

/// Refuses code over either bound, naming the key.
pub fn check_code_size(code: &str, l: &FreezeLimits) -> Result<(), ActorError> {
    let n = code.len() as u64;
    if n > l.max_script_bytes {
        return Err(ActorError::Limit {
            limit: "r.maxScriptBytes".into(),
            value: l.max_script_bytes,
        });
    }
    if n > l.max_code_bytes {
        return Err(ActorError::Limit {
            limit: "maxCodeBytes".into(),
            value: l.max_code_bytes,
        });
    }
    Ok(())
}

/// The bytes of a saved script, checked against the caller's digest (blocking).
pub fn disk_code(
    project: &Path,
    path: &str,
    digest: &str,
    l: &FreezeLimits,
) -> Result<(String, String), ActorError> {
    let normalized = crate::files::handlers::normalize("input.script.path", path)?;
    let file = crate::paths::resolve_existing(project, "input.script.path", &normalized)?;
    let cap = l.max_script_bytes.min(l.max_code_bytes);
    let bytes = store::read_bounded(&file, cap).map_err(|e| match e {
        ActorError::Limit { .. } => ActorError::Limit {
            limit: if l.max_script_bytes <= l.max_code_bytes {
                "r.maxScriptBytes".into()
            } else {
                "maxCodeBytes".into()
            },
            value: cap,
        },
        other => other,
    })?;
    let actual = rho_plumbing::sha256_hex(&bytes);
    if !actual.eq_ignore_ascii_case(digest) {
        return Err(ActorError::Conflict {
            reason: format!(
                "the script {normalized} has sha256 {actual}, not the submitted digest {digest}"
            ),
            existing_id: None,
        });
    }
    let code = String::from_utf8(bytes)
        .map_err(|_| ActorError::invalid("input.script.path", "the script is not UTF-8 text"))?;
    Ok((normalized, code))
}

/// An `operationId` the Core Host can name its record folder after (the Host's own rule).
pub fn operation_id(id: &str) -> Result<(), String> {
    rho_kernels::host::paths::check_operation_id(id)
}

/// The file name the code is frozen under: the script's own name when it is plain, else `script.R`.
pub fn script_name(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match rho_kernels::host::paths::check_script_name(name) {
        Ok(()) => name.to_string(),
        Err(_) => "script.R".into(),
    }
}

/// A resource argument's read-only frozen copy in the captured store (blocking): answers its
/// project-relative path.
pub fn frozen_copy(project: &Path, bytes: &[u8], sha256: &str) -> Result<String, ActorError> {
    let path = store::store(project, bytes, sha256)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444))
        .map_err(|e| ActorError::internal(format!("{}: {e}", path.display())))?;
    Ok(format!(".rho/store/sha256/{sha256}"))
}

/// Validates artifact declarations: inside the output directory, unique, within the count bound.
pub fn artifacts(
    raw: &[(String, String, String)],
    max_files: u64,
) -> Result<Vec<ArtifactDecl>, ActorError> {
    if raw.len() as u64 > max_files {
        return Err(ActorError::Limit {
            limit: "resources.maxArtifactFiles".into(),
            value: max_files,
        });
    }
    let mut out: Vec<ArtifactDecl> = Vec::new();
    for (i, (path, kind, format)) in raw.iter().enumerate() {
        let bad = |reason: &str| ActorError::Invalid {
            field: Some("input.artifacts.path".into()),
            index: Some(i as u64),
            reason: reason.into(),
        };
        let parts = crate::paths::components("input.artifacts.path", path).map_err(|_| {
            bad("an artifact path stays inside the output directory (relative, no `..`)")
        })?;
        if parts.is_empty() {
            return Err(bad("name a file inside the output directory"));
        }
        let p = parts.join("/");
        if out.iter().any(|a| a.path == p) {
            return Err(bad("declared twice"));
        }
        if kind.is_empty() || format.is_empty() {
            return Err(bad("an artifact declares its kind and format"));
        }
        out.push(ArtifactDecl {
            path: p,
            kind: kind.clone(),
            format: format.clone(),
        });
    }
    Ok(out)
}

/// A completion declaration's file name: a plain name beside `artifacts/`.
pub fn completion(name: &str) -> Result<String, ActorError> {
    if name == "artifacts" || rho_kernels::host::paths::check_script_name(name).is_err() {
        return Err(ActorError::invalid(
            "input.completion",
            "a completion is a plain file name (A-Z a-z 0-9 . _ -) beside the artifacts directory",
        ));
    }
    Ok(name.to_string())
}

/// The argument text list R receives after the output directory.
pub fn arg_texts(args: &[ResolvedArg]) -> Vec<String> {
    args.iter().map(|a| a.text().to_string()).collect()
}
