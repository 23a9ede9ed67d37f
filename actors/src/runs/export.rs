//! `action.export`: one run as ordinary files in a new project folder, built in a temporary
//! sibling and renamed into place; runs nothing, never writes into an existing folder. Blocking.

use super::contract::{ExportReply, ExportedFile, LeftOut};
use super::model::RunRecord;
use crate::error::ActorError;
use serde_json::{json, Value};
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

/// Unsaved buffer text to include beside the code that ran (never run).
pub struct Unsaved {
    pub text: String,
}

fn io(what: &Path, e: std::io::Error) -> ActorError {
    ActorError::internal(format!("{}: {e}", what.display()))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), ActorError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    let mut f = File::create(path).map_err(|e| io(path, e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| io(path, e))
}

fn sync_dir(dir: &Path) -> Result<(), ActorError> {
    rho_plumbing::fs::sync_dir(dir).map_err(|e| io(dir, e))
}

/// `<name>.unsaved.<ext>` for `<name>.<ext>`.
fn unsaved_name(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.unsaved.{ext}"),
        None => format!("{name}.unsaved"),
    }
}

/// What [`build`] wrote: the declared files, those left out, and the unsaved script's file.
struct Built {
    files: Vec<ExportedFile>,
    left_out: Vec<LeftOut>,
    unsaved: Option<String>,
}

/// Builds the export `export_id` of `run` at the project-relative `folder` (which must not exist).
pub fn export(
    project: &Path,
    run: &RunRecord,
    export_id: &str,
    folder: &str,
    unsaved: Option<Unsaved>,
    max_file_bytes: u64,
) -> Result<ExportReply, ActorError> {
    let target = project.join(folder);
    if target.exists() {
        return Err(ActorError::conflict(format!(
            "the export folder {folder} already exists; an export never writes into an existing folder"
        )));
    }
    let parent = target
        .parent()
        .ok_or_else(|| ActorError::invalid("folder", "name a folder inside the project"))?;
    fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = parent.join(format!(".{name}.tmp-{}", uuid::Uuid::new_v4()));
    let built = build(&temp, project, run, unsaved, max_file_bytes);
    let summary = match built {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&temp);
            return Err(e);
        }
    };
    if target.exists() {
        let _ = fs::remove_dir_all(&temp);
        return Err(ActorError::conflict(format!(
            "the export folder {folder} appeared while exporting"
        )));
    }
    fs::rename(&temp, &target).map_err(|e| io(&target, e))?;
    sync_dir(parent)?;
    Ok(ExportReply {
        export_id: export_id.to_string(),
        partial: !summary.left_out.is_empty(),
        files: summary.files,
        folder: folder.to_string(),
        left_out: summary.left_out,
        operation_id: run.operation_id.clone(),
        unsaved: summary.unsaved,
    })
}

fn build(
    temp: &Path,
    project: &Path,
    run: &RunRecord,
    unsaved: Option<Unsaved>,
    max_file_bytes: u64,
) -> Result<Built, ActorError> {
    fs::create_dir(temp).map_err(|e| io(temp, e))?;
    let plan = &run.plan;
    write_synced(
        &temp.join("script").join(&plan.script_name),
        plan.code.as_bytes(),
    )?;
    let unsaved_file = match &unsaved {
        Some(u) => {
            let n = unsaved_name(&plan.script_name);
            write_synced(&temp.join("script").join(&n), u.text.as_bytes())?;
            Some(format!("script/{n}"))
        }
        None => None,
    };
    let out = project.join(&plan.output_directory);
    let inventory = run.inventory.clone().unwrap_or_default();
    let mut files = Vec::new();
    let mut left_out = Vec::new();
    for a in &plan.artifacts {
        let recorded = inventory.iter().find(|e| e.path == a.path);
        let bytes = crate::files::store::read_bounded(&out.join(&a.path), max_file_bytes).ok();
        let sha = bytes.as_deref().map(rho_plumbing::sha256_hex);
        let matches = match (recorded.and_then(|r| r.sha256.as_ref()), &sha) {
            (Some(r), Some(s)) => r == s,
            _ => false,
        };
        let reason = match (&bytes, recorded.and_then(|r| r.sha256.as_ref()), matches) {
            (None, _, _) => Some("not written or no longer present"),
            (Some(_), None, _) => Some("not in the run's inventory"),
            (Some(_), Some(_), false) => Some("changed since the run wrote it"),
            _ => None,
        };
        if let (Some(b), None) = (&bytes, reason) {
            write_synced(&temp.join("outputs").join(&a.path), b)?;
        } else {
            left_out.push(LeftOut {
                path: a.path.clone(),
                reason: reason.map(str::to_string),
            });
        }
        files.push(ExportedFile {
            exported: reason.is_none(),
            format: a.format.clone(),
            inventory_sha256: recorded.and_then(|r| r.sha256.clone()),
            kind: a.kind.clone(),
            matches_inventory: matches,
            path: a.path.clone(),
            sha256: sha,
        });
    }
    let partial = !left_out.is_empty();
    let script = super::render::script(&plan.script);
    let provenance = json!({
        "schemaVersion": 1,
        "operationId": run.operation_id,
        "action": "r.execute",
        "actionVersion": "0.2.0",
        "submitter": run.submitter,
        "repairOf": run.repair_of,
        "script": script,
        "scriptFile": format!("script/{}", plan.script_name),
        "scriptDigest": plan.script_digest,
        "unsavedScript": unsaved_file.as_ref().map(|f| json!({"file": f, "neverRun": true})),
        "arguments": super::render::args(&plan.args),
        "requirements": super::render::requirements(plan),
        "core": super::render::core(plan),
        "exit": run.exit.as_ref().map(|e| json!({"exitCode": e.exit_code, "signal": e.signal})),
        "files": files,
        "leftOut": left_out,
        "partial": partial,
    });
    let pretty =
        serde_json::to_vec_pretty(&provenance).map_err(|e| ActorError::internal(e.to_string()))?;
    write_synced(&temp.join("provenance.json"), &pretty)?;
    write_synced(
        &temp.join("PROVENANCE.md"),
        markdown(run, &provenance).as_bytes(),
    )?;
    for d in [
        temp.join("script"),
        temp.join("outputs"),
        temp.to_path_buf(),
    ] {
        if d.exists() {
            sync_dir(&d)?;
        }
    }
    Ok(Built {
        files,
        left_out,
        unsaved: unsaved_file,
    })
}

fn markdown(run: &RunRecord, p: &Value) -> String {
    let mut s = format!(
        "# Run {}\n\nScript `{}` (SHA-256 `{}`), run by the Core `{}` (SHA-256 `{}`, {}).\n\n",
        run.operation_id,
        p["scriptFile"].as_str().unwrap_or_default(),
        run.plan.script_digest,
        run.plan.core.path,
        run.plan.core.sha256,
        run.plan.core.version
    );
    if let Some(u) = p["unsavedScript"]["file"].as_str() {
        s.push_str(&format!(
            "`{u}` holds unsaved editor changes; it was never run.\n\n"
        ));
    }
    s.push_str("## Arguments\n\n1. the output directory\n");
    for a in &run.plan.args {
        s.push_str(&format!("1. `{}`\n", a.text()));
    }
    s.push_str("\n## Files\n\n| path | SHA-256 | matches the run's inventory |\n|---|---|---|\n");
    for f in p["files"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "| {} | {} | {} |\n",
            f["path"].as_str().unwrap_or_default(),
            f["sha256"].as_str().unwrap_or("(missing)"),
            if f["matchesInventory"].as_bool() == Some(true) {
                "yes"
            } else {
                "no"
            }
        ));
    }
    if p["partial"].as_bool() == Some(true) {
        s.push_str(
            "\nThis export is **partial**: the files above that do not match were left out.\n",
        );
    }
    s
}
