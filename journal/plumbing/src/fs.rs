//! Durable file writes: temp sibling, write, fsync, rename, directory fsync; durable mkdir and
//! remove. A temp file is `.<name>.<16 hex>.tmp` beside its target and is removed on any failure.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Mode of private files (credentials, connection files).
pub const PRIVATE: u32 = 0o600;

/// How a durable replace failed: an I/O step, or the caller's `before_rename` step.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError<E> {
    #[error(transparent)]
    Io(io::Error),
    #[error("the step before the rename refused")]
    Refused(E),
}

/// fsyncs a directory so that entries created, renamed or removed in it are durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The folder an entry of `path` lives in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn file_name(path: &Path) -> io::Result<OsString> {
    path.file_name()
        .map(|n| n.to_os_string())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))
}

/// Sixteen hex digits that differ between calls and processes (pid, a counter and the clock).
fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // splitmix64 over the three so names look random and rarely share a prefix.
    let mut z =
        nanos ^ (u64::from(std::process::id()) << 32) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    format!("{:016x}", z ^ (z >> 31))
}

/// Whether `entry` (a file name in the same folder) is a temp file of a write to `path`.
pub fn is_temp_of(path: &Path, entry: &str) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let Some(rest) = entry
        .strip_prefix('.')
        .and_then(|e| e.strip_prefix(&*name.to_string_lossy()))
        .and_then(|e| e.strip_prefix('.'))
        .and_then(|e| e.strip_suffix(".tmp"))
    else {
        return false;
    };
    rest.len() == 16 && rest.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Creates a new temp sibling of `path` (exclusively, with `mode` when given) holding `bytes`,
/// fsynced. The temp is removed when any step fails.
fn durable_temp(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<PathBuf> {
    let name = file_name(path)?;
    let dir = parent_of(path);
    let mut attempts = 0;
    let (tmp, mut f) = loop {
        let mut n = OsString::from(".");
        n.push(&name);
        n.push(format!(".{}.tmp", unique()));
        let tmp = dir.join(n);
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        if let Some(m) = mode {
            o.mode(m);
        }
        match o.open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 8 => attempts += 1,
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        if let Some(m) = mode {
            // Exactly `mode`, whatever the umask took away at creation.
            f.set_permissions(fs::Permissions::from_mode(m))?;
        }
        f.write_all(bytes)?;
        f.sync_all()
    })();
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Replaces `path` with `bytes`, durable when this returns: temp sibling (created with `mode`
/// when given), write, fsync, then `before_rename` (a fail point, a last check), rename, fsync of
/// the folder. On any failure the temp is removed and `path` is untouched unless the rename
/// happened.
pub fn replace_with<E>(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    before_rename: impl FnOnce() -> Result<(), E>,
) -> Result<(), ReplaceError<E>> {
    let tmp = durable_temp(path, bytes, mode).map_err(ReplaceError::Io)?;
    if let Err(e) = before_rename() {
        let _ = fs::remove_file(&tmp);
        return Err(ReplaceError::Refused(e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(ReplaceError::Io(e));
    }
    sync_dir(parent_of(path)).map_err(ReplaceError::Io)
}

/// [`replace_with`] with nothing between the durable temp and the rename.
pub fn replace(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    replace_with(path, bytes, mode, || Ok::<(), std::convert::Infallible>(())).map_err(
        |e| match e {
            ReplaceError::Io(e) => e,
            ReplaceError::Refused(never) => match never {},
        },
    )
}

/// [`replace`] with mode 0600 set at creation.
pub fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, Some(PRIVATE))
}

/// Writes `path` once (with `mode` when given), durable with its folder; `AlreadyExists` when it
/// is there, and an existing file is never replaced. Written under a temp name and hard-linked
/// into place, so a crash never leaves a torn file under the final name.
pub fn write_once(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let tmp = durable_temp(path, bytes, mode)?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    linked?;
    sync_dir(parent_of(path))
}

/// Removes `path` durably (fsync of its folder); a missing file is fine.
pub fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => sync_dir(parent_of(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates `dir`, which must not exist, and fsyncs it and its parent.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir(dir)?;
    sync_dir(dir)?;
    sync_dir(parent_of(dir))
}

/// A step of [`create_dirs`] that failed: `creating directory` or `syncing directory`, and where.
#[derive(Debug, thiserror::Error)]
#[error("{step} {}: {source}", path.display())]
pub struct DirError {
    pub step: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// Creates `dir` and every missing ancestor, fsyncing each new directory into its parent. A
/// directory another process creates meanwhile is fine.
pub fn create_dirs(dir: &Path) -> Result<(), DirError> {
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(p) = cur {
        if p.as_os_str().is_empty() || p.exists() {
            break;
        }
        missing.push(p);
        cur = p.parent();
    }
    let failed = |step, path: &Path| {
        let path = path.to_path_buf();
        move |source| DirError { step, path, source }
    };
    for p in missing.into_iter().rev() {
        match fs::create_dir(p) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(failed("creating directory", p)(e)),
        }
        let parent = parent_of(p);
        sync_dir(parent).map_err(failed("syncing directory", parent))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temps(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn replace_is_whole_private_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.json");
        replace(&p, b"1", None).unwrap();
        replace_private(&p, b"22").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"22");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        replace(&p, b"3", Some(0o640)).unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert!(temps(d.path()).is_empty());
    }

    #[test]
    fn a_refusal_before_the_rename_keeps_the_old_file_and_removes_the_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("snap");
        replace(&p, b"old", None).unwrap();
        let mut seen = Vec::new();
        let r = replace_with(&p, b"new", None, || {
            seen = temps(d.path());
            Err("no")
        });
        assert!(matches!(r, Err(ReplaceError::Refused("no"))));
        assert_eq!(seen.len(), 1, "the temp is durable before the hook");
        assert!(is_temp_of(&p, &seen[0]), "{seen:?}");
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert!(temps(d.path()).is_empty());
        // A failed write (no such folder) leaves nothing either.
        assert!(replace(&d.path().join("none/x"), b"x", None).is_err());
    }

    #[test]
    fn temp_names_belong_to_one_target() {
        let p = Path::new("/x/a");
        assert!(is_temp_of(p, ".a.0123456789abcdef.tmp"));
        assert!(!is_temp_of(p, ".a.b.0123456789abcdef.tmp"));
        assert!(!is_temp_of(p, ".a.0123.tmp"));
        assert!(!is_temp_of(p, "a.0123456789abcdef.tmp"));
        assert_ne!(unique(), unique());
    }

    #[test]
    fn write_once_never_replaces_and_remove_is_idempotent() {
        let d = tempfile::tempdir().unwrap();
        let o = d.path().join("once.json");
        write_once(&o, b"first", Some(PRIVATE)).unwrap();
        let again = write_once(&o, b"second", Some(PRIVATE)).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&o).unwrap(), b"first");
        assert_eq!(
            fs::metadata(&o).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(temps(d.path()).is_empty());
        remove(&o).unwrap();
        remove(&o).unwrap();
        assert!(!o.exists());
    }

    #[test]
    fn directories_are_created_durably() {
        let d = tempfile::tempdir().unwrap();
        let deep = d.path().join("a/b/c");
        create_dirs(&deep).unwrap();
        create_dirs(&deep).unwrap();
        assert!(deep.is_dir());
        let one = d.path().join("one");
        create_dir(&one).unwrap();
        assert_eq!(
            create_dir(&one).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        sync_dir(&one).unwrap();
    }
}
