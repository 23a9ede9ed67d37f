//! `artifact.check`: exactly the declared files of a run, checked against its completion
//! declaration (bytes and SHA-256); never interprets content. Blocking.

use super::contract::{CheckReply, CheckedFile, CompletionFacts, FileFacts};
use super::model::RunRecord;
use crate::error::ActorError;
use crate::files::store;
use serde::Deserialize;
use std::path::Path;

/// Largest completion declaration read (seed: 64 KiB completion reads).
pub const MAX_COMPLETION_BYTES: u64 = 64 * 1024;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Declaration {
    schema_version: u64,
    complete: bool,
    artifacts: Vec<DeclaredFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeclaredFile {
    path: String,
    bytes: u64,
    sha256: String,
}

/// The bytes and digest of a file as it is now (`None`: absent or unreadable within `max`).
pub fn actual(path: &Path, max: u64) -> Option<(u64, String)> {
    let bytes = store::read_bounded(path, max).ok()?;
    Some((bytes.len() as u64, rho_plumbing::sha256_hex(&bytes)))
}

/// The check of one run.
pub fn check(
    project: &Path,
    run: &RunRecord,
    max_file_bytes: u64,
) -> Result<CheckReply, ActorError> {
    let (present, declaration) = match &run.plan.completion {
        None => (false, None),
        Some(rel) => match store::read_bounded(&project.join(rel), MAX_COMPLETION_BYTES) {
            Ok(bytes) => (
                true,
                serde_json::from_slice::<Declaration>(&bytes)
                    .ok()
                    .filter(|d| d.schema_version == 1),
            ),
            Err(ActorError::Limit { .. }) => (true, None),
            Err(_) => (false, None),
        },
    };
    let valid = declaration.is_some();
    let declared_complete = declaration.as_ref().is_some_and(|d| d.complete);
    let out = project.join(&run.plan.output_directory);
    let mut files = Vec::new();
    let mut all_match = true;
    let mut any_present = false;
    for a in &run.plan.artifacts {
        let declared = declaration
            .as_ref()
            .and_then(|d| d.artifacts.iter().find(|f| f.path == a.path));
        let now = actual(&out.join(&a.path), max_file_bytes);
        any_present |= now.is_some();
        let matches = match (&declared, &now) {
            (Some(d), Some((b, s))) => d.bytes == *b && d.sha256.eq_ignore_ascii_case(s),
            _ => false,
        };
        all_match &= matches;
        files.push(CheckedFile {
            actual: now.map(|(bytes, sha256)| FileFacts { bytes, sha256 }),
            declared: declared.map(|d| FileFacts {
                bytes: d.bytes,
                sha256: d.sha256.clone(),
            }),
            matches,
            path: a.path.clone(),
        });
    }
    let complete = present && valid && declared_complete && all_match;
    Ok(CheckReply {
        complete,
        completion: CompletionFacts {
            complete: declared_complete,
            present,
            valid,
        },
        files,
        operation_id: run.operation_id.clone(),
        partial: !complete && any_present,
    })
}
