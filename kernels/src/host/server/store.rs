//! The Host's durable records: a record folder is created whole (temp folder, fsync, rename,
//! directory fsync) and `record.json` is replaced atomically (temp, fsync, rename, dir fsync).

use crate::host::paths;
use crate::host::proto::{HostRecord, RunSpec, RunState, StopState};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Prefix of a record folder still being built; never acknowledged, removed at Host start.
const NEW_PREFIX: &str = ".new-";

/// fsync a directory so a create/rename/remove inside it is durable.
pub(crate) use rho_plumbing::fs::sync_dir;

/// Creates `<project>/.rho/host/` (fsynced into `.rho/`) if missing.
pub(crate) fn ensure_host_dir(project: &Path) -> io::Result<()> {
    let dir = paths::host_dir(project);
    if !dir.is_dir() {
        fs::create_dir_all(&dir)?;
        sync_dir(&project.join(".rho"))?;
    }
    Ok(())
}

/// Creates the record folder of a new run with its frozen script, empty logs and the
/// `recorded` record, all durable before this returns. The folder is built under a temporary
/// name and renamed into place, so a record folder always holds a whole record. The script,
/// the record and the temporary folder are fsynced in parallel (one journal commit instead of
/// three on most file systems); the empty logs need only their directory entries.
pub(crate) fn create_record(project: &Path, spec: &RunSpec, record: &HostRecord) -> io::Result<()> {
    let host = paths::host_dir(project);
    let temp = host.join(format!("{NEW_PREFIX}{}", spec.operation_id));
    if temp.exists() {
        fs::remove_dir_all(&temp)?;
    }
    fs::create_dir(&temp)?;
    let script = write_new(&temp.join(&spec.script_name), spec.script.as_bytes())?;
    let rec = write_new(&temp.join(paths::RECORD_FILE), &encode(record)?)?;
    write_new(&temp.join(paths::STDOUT_FILE), b"")?;
    write_new(&temp.join(paths::STDERR_FILE), b"")?;
    let dir = File::open(&temp)?;
    std::thread::scope(|s| {
        let a = s.spawn(|| script.sync_all());
        let b = s.spawn(|| dir.sync_all());
        let c = rec.sync_all();
        for r in [a.join(), b.join()] {
            r.unwrap_or_else(|_| Err(io::Error::other("fsync thread panicked")))?;
        }
        c
    })?;
    fs::rename(&temp, paths::record_dir(project, &spec.operation_id))?;
    sync_dir(&host)
}

fn write_new(path: &Path, bytes: &[u8]) -> io::Result<File> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(path)?;
    f.write_all(bytes)?;
    Ok(f)
}

fn encode(record: &HostRecord) -> io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(record).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Replaces `record.json` atomically and durably.
pub(crate) fn write_record(project: &Path, record: &HostRecord) -> io::Result<()> {
    write_record_after(project, record, &[])
}

/// [`write_record`], with `first` (the run's logs) fsynced in parallel with the new record and
/// before the rename makes it current: the record never claims log bytes a crash could lose.
pub(crate) fn write_record_after(
    project: &Path,
    record: &HostRecord,
    first: &[File],
) -> io::Result<()> {
    let dir = paths::record_dir(project, &record.operation_id);
    let temp = dir.join("record.json.tmp");
    let _ = fs::remove_file(&temp);
    let new = write_new(&temp, &encode(record)?)?;
    std::thread::scope(|s| {
        let others: Vec<_> = first.iter().map(|f| s.spawn(|| f.sync_all())).collect();
        let own = new.sync_all();
        for r in others {
            r.join()
                .unwrap_or_else(|_| Err(io::Error::other("fsync thread panicked")))?;
        }
        own
    })?;
    fs::rename(&temp, dir.join(paths::RECORD_FILE))?;
    sync_dir(&dir)
}

/// What a starting Host finds on disk.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub(crate) records: BTreeMap<String, HostRecord>,
    /// Record folders whose `record.json` cannot be read: their ids are refused, never re-run.
    pub(crate) unreadable: BTreeMap<String, String>,
}

/// Loads every record; a record a previous Host left `recorded` or `running` is marked lost
/// (see [`mark_lost`]) and rewritten. Unfinished `.new-*` folders are removed.
pub(crate) fn load(project: &Path) -> io::Result<Loaded> {
    let host = paths::host_dir(project);
    let mut loaded = Loaded::default();
    let mut removed = false;
    for entry in fs::read_dir(&host)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type()?.is_dir() {
            continue;
        }
        if name.starts_with(NEW_PREFIX) {
            fs::remove_dir_all(entry.path())?;
            removed = true;
            continue;
        }
        if paths::check_operation_id(&name).is_err() {
            continue;
        }
        let parsed = fs::read(entry.path().join(paths::RECORD_FILE))
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<HostRecord>(&b).map_err(|e| e.to_string()));
        match parsed {
            Ok(mut record) if record.operation_id == name => {
                if mark_lost(project, &mut record) {
                    write_record(project, &record)?;
                }
                loaded.records.insert(name, record);
            }
            Ok(record) => {
                let why = format!("record names operationId {:?}", record.operation_id);
                loaded.unreadable.insert(name, why);
            }
            Err(why) => {
                loaded.unreadable.insert(name, why);
            }
        }
    }
    if removed {
        sync_dir(&host)?;
    }
    Ok(loaded)
}

/// A record left `recorded`/`running` by a Host that died: its R process group died with that
/// Host (the guard kills it), so it is `exited` with no exit code, signal or end time known,
/// `lostWithHost`, its kept log sizes read from disk, and a stop in flight `unconfirmed`.
/// Returns whether anything changed.
pub(crate) fn mark_lost(project: &Path, record: &mut HostRecord) -> bool {
    if !matches!(record.state, RunState::Recorded | RunState::Running) {
        return false;
    }
    record.state = RunState::Exited;
    record.lost_with_host = true;
    record.exit_code = None;
    record.signal = None;
    record.ended_at_ms = None;
    let op = record.operation_id.clone();
    for (facts, path) in [
        (&mut record.stdout, paths::stdout_path(project, &op)),
        (&mut record.stderr, paths::stderr_path(project, &op)),
    ] {
        if let Ok(meta) = fs::metadata(path) {
            facts.bytes = meta.len();
        }
    }
    if let Some(stop) = &mut record.stop {
        if matches!(stop.state, StopState::Requested | StopState::Signalled) {
            stop.state = StopState::Unconfirmed;
        }
    }
    true
}
