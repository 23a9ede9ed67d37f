//! The kernel owner's files beside the journal: kept plots by digest and session folders; what an eviction leaves behind is deleted.
//!
//! A plot a session wrote is moved into `.rho/plugins/kernel/plots/<sha256>.png` (no second copy
//! stays in the session's folder). When maxCells evicts a cell, the digests no remaining cell
//! names are deleted; when maxEndedSessions evicts a session record, its folder goes. The store
//! lock (`LiveSessions::store`) is held from a plot's move into the store until its record is
//! in the kernel entity's mailbox, and while a sweep reads which digests are named and deletes,
//! so a sweep never deletes a plot whose record is on its way.

use super::entity::KernelEntity;
use super::handlers::KernelHandle;
use rho_kernels::notebook as rt;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where kept plots live by digest.
pub(crate) fn plots_dir(project: &Path) -> PathBuf {
    project.join(".rho/plugins/kernel/plots")
}

/// Where each session's folder is (`<sessionId>/`: runner files, settings, command pipe).
pub(crate) fn sessions_dir(project: &Path) -> PathBuf {
    project.join(".rho/plugins/kernel/sessions")
}

/// Moves a plot file the session wrote into the digest store; the session's file is gone after.
pub(crate) fn keep_plot(plots: &Path, plot: &rt::PlotFile) -> std::io::Result<()> {
    std::fs::create_dir_all(plots)?;
    let target = plots.join(format!("{}.png", plot.sha256));
    if target.exists() {
        let _ = std::fs::remove_file(&plot.path);
        return Ok(());
    }
    if std::fs::rename(&plot.path, &target).is_err() {
        // Another file system: copy, then remove the session's file.
        std::fs::copy(&plot.path, &target)?;
        let _ = std::fs::remove_file(&plot.path);
    }
    Ok(())
}

/// The digests (hex) the kernel entity's cells still name.
fn named(k: &KernelEntity) -> BTreeSet<String> {
    k.cells()
        .flat_map(|c| c.plots.iter())
        .map(|p| p.digest.trim_start_matches("sha256:").to_string())
        .collect()
}

/// The sessions the kernel entity still records.
fn recorded(k: &KernelEntity) -> BTreeSet<String> {
    k.sessions().iter().map(|s| s.session_id.clone()).collect()
}

/// Deletes every kept plot no cell names any more (after maxCells evicted a cell).
pub(crate) async fn sweep_plots(h: &KernelHandle) {
    let _store = h.live.store.lock().await;
    let Ok(keep) = h.peek(named).await else {
        return;
    };
    let dir = plots_dir(h.dir());
    let _ = tokio::task::spawn_blocking(move || remove_unnamed(&dir, ".png", &keep, false)).await;
}

/// Deletes the folder of every session the kernel entity no longer records (maxEndedSessions).
/// A session's start is journaled before its folder is made, so a starting one is recorded.
pub(crate) async fn sweep_sessions(h: &KernelHandle) {
    let Ok(keep) = h.peek(recorded).await else {
        return;
    };
    let dir = sessions_dir(h.dir());
    let _ = tokio::task::spawn_blocking(move || remove_unnamed(&dir, "", &keep, true)).await;
}

/// [`sweep_sessions`] from a session's bridge thread: the entity answers through a channel
/// (its reply queued behind the records the bridge sent before).
pub(crate) fn sweep_sessions_blocking(recorder: &super::bridge::Recorder) {
    let (tx, rx) = std::sync::mpsc::channel();
    recorder
        .child
        .do_send(crate::child::Query::<KernelEntity, ()> {
            read: Box::new(move |k| {
                let _ = tx.send(recorded(k));
            }),
        });
    if let Ok(keep) = rx.recv_timeout(std::time::Duration::from_secs(30)) {
        remove_unnamed(&recorder.sessions, "", &keep, true);
    }
}

/// Removes the entries of `dir` whose name (less `suffix`) is not in `keep`: plot files named by
/// their digest, or session folders.
fn remove_unnamed(dir: &Path, suffix: &str, keep: &BTreeSet<String>, folders: bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(key) = name.strip_suffix(suffix) else {
            continue;
        };
        // Anything Rho did not name this way (a temporary file, another name) is left alone.
        let ours = if folders {
            uuid::Uuid::parse_str(key).is_ok()
        } else {
            key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())
        };
        if !ours || keep.contains(key) {
            continue;
        }
        let path = e.path();
        let result = if folders {
            if !path.is_dir() {
                continue;
            }
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        match result {
            Ok(()) => {
                tracing::debug!(path = %path.display(), "kernel: removed what an eviction left")
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "kernel: cannot remove"),
        }
    }
}
