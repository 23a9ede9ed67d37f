//! Bytes of resources: digests of project files and the captured, content-addressed store under `.rho/store/`.
//!
//! A capture writes a temp file, fsyncs it, renames it to its digest and fsyncs the folder
//! before the metadata is journaled, so a journaled capture always has its bytes.

use super::events::VersionFacts;
use super::FilesError;
use crate::error::ActorError;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The captured store of a project.
pub fn store_dir(project: &Path) -> PathBuf {
    project.join(".rho").join("store").join("sha256")
}

pub(super) fn io_error(what: &Path, e: io::Error) -> ActorError {
    if e.kind() == io::ErrorKind::NotFound {
        ActorError::NotFound {
            what: "file".into(),
        }
    } else {
        ActorError::internal(format!("{}: {e}", what.display()))
    }
}

pub(super) fn too_large(max: u64) -> ActorError {
    ActorError::Limit {
        limit: "resources.maxFileBytes".into(),
        value: max,
    }
}

/// Reads a whole regular file of at most `max` bytes.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ActorError> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let meta = file.metadata().map_err(|e| io_error(path, e))?;
    if !meta.is_file() {
        return Err(ActorError::invalid("path", "not a regular file"));
    }
    if meta.len() > max {
        return Err(too_large(max));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(bytes)
}

/// Copies `bytes` (whose digest is `digest`) into the store, durably; answers the stored file.
pub fn store(project: &Path, bytes: &[u8], digest: &str) -> Result<PathBuf, ActorError> {
    let dir = store_dir(project);
    let fail =
        |e: io::Error| ActorError::internal(format!("captured store {}: {e}", dir.display()));
    let target = dir.join(digest);
    if target.exists() {
        return Ok(target);
    }
    if !dir.exists() {
        // Each new folder (`store/`, `store/sha256/`) is fsynced into its parent.
        rho_plumbing::fs::create_dirs(&dir).map_err(|e| fail(e.source))?;
    }
    rho_plumbing::fs::replace(&target, bytes, None).map_err(fail)?;
    Ok(target)
}

/// The file holding a version's bytes: its stored copy when captured, else the project file
/// (`stale` when that is gone).
pub(super) fn version_path(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
) -> Result<PathBuf, FilesError> {
    if facts.captured {
        return Ok(store_dir(project).join(&facts.sha256));
    }
    match crate::paths::resolve_existing(project, "path", rel_path) {
        Ok(p) => Ok(p),
        Err(ActorError::NotFound { .. }) => Err(FilesError::Stale {
            recorded: facts.sha256.clone(),
            current: None,
        }),
        Err(e) => Err(e.into()),
    }
}

/// The byte bound of a read: a captured version is read whole whatever the limit is now.
pub(super) fn version_bound(facts: &VersionFacts, max: u64) -> u64 {
    if facts.captured {
        max.max(facts.bytes)
    } else {
        max
    }
}

/// `Ok` when `current` (the digest of the bytes read from `path`) is the version's.
pub(super) fn check_digest(
    path: &Path,
    facts: &VersionFacts,
    current: String,
) -> Result<(), FilesError> {
    if current == facts.sha256 {
        return Ok(());
    }
    if facts.captured {
        return Err(ActorError::internal(format!(
            "captured store file {} does not match its digest",
            path.display()
        ))
        .into());
    }
    Err(FilesError::Stale {
        recorded: facts.sha256.clone(),
        current: Some(current),
    })
}

/// The exact bytes of one version: from the store when captured, else from the file when its
/// digest still matches (`stale` with both digests when it does not).
pub fn load_version(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
) -> Result<Vec<u8>, FilesError> {
    let path = version_path(project, rel_path, facts)?;
    let bytes = read_bounded(&path, version_bound(facts, max))?;
    check_digest(&path, facts, rho_plumbing::sha256_hex(&bytes))?;
    Ok(bytes)
}

/// Like [`load_version`], but hands the bytes to `consume` while their digest is computed on a
/// second thread, and answers what `consume` made only when the digest matches (the same
/// `stale` or store error as [`load_version`] otherwise, whatever `consume` found).
pub fn consume_version<R: Send>(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
    consume: impl FnOnce(&[u8]) -> R,
) -> Result<R, FilesError> {
    let path = version_path(project, rel_path, facts)?;
    let bytes = read_bounded(&path, version_bound(facts, max))?;
    let (current, made) = std::thread::scope(|s| {
        let digest = s.spawn(|| rho_plumbing::sha256_hex(&bytes));
        let made = consume(&bytes);
        (digest.join(), made)
    });
    let current = current.map_err(|_| ActorError::internal("the digest thread panicked"))?;
    check_digest(&path, facts, current)?;
    Ok(made)
}

pub use super::verified::Verified;
use super::verified::{stamp, Stamp};

/// Like [`load_version`], but answers `None` without reading when the caller already holds the
/// bytes of this digest (`cached`) and they are known unchanged: a captured version, or a file
/// that still has the stamp it had when its digest was last verified (remembered in
/// `verified`). A file whose settled record says it is unchanged is read without its digest.
pub fn load_unless_cached(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
    cached: bool,
    verified: &Verified,
) -> Result<Option<Vec<u8>>, FilesError> {
    unless_cached(project, rel_path, facts, cached, verified, |known| {
        if let Some(bytes) = known.and_then(|k| read_unchanged(k, max)) {
            return Ok((bytes.len(), bytes));
        }
        let bytes = load_version(project, rel_path, facts, max)?;
        Ok((bytes.len(), bytes))
    })
}

/// [`load_unless_cached`] through [`consume_version`]: what `consume` made of the verified bytes.
pub fn consume_unless_cached<R: Send>(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
    (cached, verified): (bool, &Verified),
    consume: impl FnOnce(&[u8]) -> R,
) -> Result<Option<R>, FilesError> {
    unless_cached(project, rel_path, facts, cached, verified, |known| {
        if let Some(bytes) = known.and_then(|k| read_unchanged(k, max)) {
            return Ok((bytes.len(), consume(&bytes)));
        }
        consume_version(project, rel_path, facts, max, |b| (b.len(), consume(b)))
    })
}

/// The bytes of a file whose settled record says it holds a version's bytes, when its stamp is
/// still `before` after the read (`None`: read it again with its digest).
pub(super) fn read_unchanged((path, before): (&Path, Stamp), max: u64) -> Option<Vec<u8>> {
    let bytes = read_bounded(path, max).ok()?;
    (bytes.len() as u64 == before.len && stamp(path) == Some(before)).then_some(bytes)
}

/// `None` when the cached bytes are known unchanged, else what `load` made of the verified
/// bytes (with their length), remembering the file as verified. `load` is handed the file and
/// its stamp when a settled record says it holds this version's bytes.
pub(super) fn unless_cached<T>(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    cached: bool,
    verified: &Verified,
    load: impl FnOnce(Option<(&Path, Stamp)>) -> Result<(usize, T), FilesError>,
) -> Result<Option<T>, FilesError> {
    if facts.captured {
        return if cached {
            Ok(None)
        } else {
            load(None).map(|(_, t)| Some(t))
        };
    }
    let path = crate::paths::resolve_existing(project, "path", rel_path).ok();
    let started = std::time::SystemTime::now();
    let now = path.as_deref().and_then(stamp);
    let known = |settled: bool| match (&path, &now) {
        (Some(p), Some(s)) => verified.unchanged(p, s, &facts.sha256, settled),
        _ => false,
    };
    if cached && known(false) {
        return Ok(None);
    }
    let trusted = match (&path, now) {
        (Some(p), Some(s)) if known(true) => Some((p.as_path(), s)),
        _ => None,
    };
    let (read, made) = load(trusted)?;
    if let (Some(p), Some(s)) = (path, now) {
        if s.len == read as u64 {
            verified.note(p, s, started, &facts.sha256);
        }
    }
    Ok(Some(made))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A project holding `a.txt` = `one`, its digest, and the facts of that version.
    fn project_with_one_file() -> (tempfile::TempDir, String, VersionFacts) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(".rho")).unwrap();
        fs::write(dir.path().join("a.txt"), b"one").unwrap();
        let digest = rho_plumbing::sha256_hex(b"one");
        let facts = VersionFacts {
            kind: "file".into(),
            format: "text".into(),
            bytes: 3,
            sha256: digest.clone(),
            captured: false,
            partial: false,
            operation_id: None,
            table: None,
            media: None,
        };
        (dir, digest, facts)
    }

    #[test]
    fn stored_bytes_are_found_by_digest_and_stale_files_are_reported() {
        let (dir, digest, mut facts) = project_with_one_file();
        assert_eq!(
            load_version(dir.path(), "a.txt", &facts, 100).unwrap(),
            b"one"
        );
        store(dir.path(), b"one", &digest).unwrap();
        fs::write(dir.path().join("a.txt"), b"two").unwrap();
        match load_version(dir.path(), "a.txt", &facts, 100) {
            Err(FilesError::Stale { recorded, current }) => {
                assert_eq!(recorded, digest);
                assert_eq!(current, Some(rho_plumbing::sha256_hex(b"two")));
            }
            other => panic!("{other:?}"),
        }
        facts.captured = true;
        assert_eq!(
            load_version(dir.path(), "a.txt", &facts, 100).unwrap(),
            b"one"
        );
    }

    #[test]
    fn consumed_bytes_count_only_when_their_digest_matches() {
        let (dir, digest, mut facts) = project_with_one_file();
        let len = |b: &[u8]| b.len();
        assert_eq!(
            consume_version(dir.path(), "a.txt", &facts, 100, len),
            Ok(3)
        );
        fs::write(dir.path().join("a.txt"), b"three").unwrap();
        assert_eq!(
            consume_version(dir.path(), "a.txt", &facts, 100, len),
            Err(FilesError::Stale {
                recorded: digest.clone(),
                current: Some(rho_plumbing::sha256_hex(b"three")),
            })
        );
        fs::remove_file(dir.path().join("a.txt")).unwrap();
        assert_eq!(
            consume_version(dir.path(), "a.txt", &facts, 100, len),
            Err(FilesError::Stale {
                recorded: digest.clone(),
                current: None,
            })
        );
        // A captured copy whose bytes no longer match its digest is refused, not handed out.
        store(dir.path(), b"one", &digest).unwrap();
        facts.captured = true;
        assert_eq!(consume_version(dir.path(), "a.txt", &facts, 1, len), Ok(3));
        fs::write(store_dir(dir.path()).join(&digest), b"onf").unwrap();
        assert!(matches!(
            consume_version(dir.path(), "a.txt", &facts, 100, len),
            Err(FilesError::Actor(ActorError::Internal { .. }))
        ));
    }

    #[test]
    fn a_settled_record_is_read_without_its_digest_and_a_racy_one_is_hashed() {
        let (dir, _, facts) = project_with_one_file();
        let path = crate::paths::resolve_existing(dir.path(), "path", "a.txt").unwrap();
        let verified = Verified::default();
        let len = |b: &[u8]| b.len();
        // A record made up to claim other bytes: a read that believes it without hashing
        // answers, one that hashes finds the file stale.
        let mut other = facts.clone();
        other.sha256 = "0".repeat(64);
        let s = stamp(&path).unwrap();
        verified.note(path.clone(), s, std::time::SystemTime::now(), &other.sha256);
        assert!(matches!(
            consume_unless_cached(dir.path(), "a.txt", &other, 100, (false, &verified), len),
            Err(FilesError::Stale { .. })
        ));
        std::thread::sleep(std::time::Duration::from_millis(30));
        verified.note(path.clone(), s, std::time::SystemTime::now(), &other.sha256);
        assert_eq!(
            consume_unless_cached(dir.path(), "a.txt", &other, 100, (false, &verified), len),
            Ok(Some(3))
        );
        assert_eq!(
            load_unless_cached(dir.path(), "a.txt", &other, 100, false, &verified),
            Ok(Some(b"one".to_vec()))
        );
        // Written again with the same length: the stamp changed, so the digest is checked.
        fs::write(&path, b"two").unwrap();
        assert!(matches!(
            consume_unless_cached(dir.path(), "a.txt", &other, 100, (false, &verified), len),
            Err(FilesError::Stale { .. })
        ));
        assert!(matches!(
            load_unless_cached(dir.path(), "a.txt", &facts, 100, false, &verified),
            Err(FilesError::Stale { .. })
        ));
    }
}
