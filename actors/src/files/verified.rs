//! Files whose digest was verified, by path, with the stamp (size, modification and change times, inode) they had then: a file that still has that stamp holds those bytes.
//!
//! A write or a replacement of a file changes its change time (a writer cannot set it back), so
//! an unchanged stamp means unchanged bytes, with one exception the record guards against: a
//! write in the same clock tick as the change time the record saw. A record is *settled* when
//! the change time it saw was more than one tick (at most 10 ms on Linux) before the
//! verification began, with sub-second precision: any later write then has a later change time.
//! Only a settled record lets a read skip the digest (decision 0181); any record lets a cached
//! table stand (decision 0014).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What `stat` says about a file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
}

/// The stamp of the file at `path` now.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        len: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
        ino: m.ino(),
        dev: m.dev(),
    })
}

/// Longest clock tick of a Linux file timestamp (HZ = 100).
const TICK: Duration = Duration::from_millis(10);
/// How many files one service remembers.
const KEEP: usize = 64;

/// Whether a file stamped `s`, stamped when the verification `started`, can have been written
/// again since without a new stamp: not when its change time is more than one tick older and
/// has sub-second precision (a file system keeping whole seconds is never settled).
fn settled(s: &Stamp, started: SystemTime) -> bool {
    let (Ok(secs), Ok(nanos)) = (u64::try_from(s.ctime.0), u32::try_from(s.ctime.1)) else {
        return false;
    };
    nanos != 0 && UNIX_EPOCH + Duration::new(secs, nanos) + TICK < started
}

/// One verified file: its path, stamp, digest, and whether the record is settled.
#[derive(Debug, Clone)]
struct Record {
    path: PathBuf,
    stamp: Stamp,
    sha256: String,
    settled: bool,
}

/// The last verified files of one service (a clone is the same list).
#[derive(Debug, Clone, Default)]
pub struct Verified(Arc<Mutex<Vec<Record>>>);

impl Verified {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Record>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers that the file at `path`, stamped `before` when a read of it `started`, held
    /// bytes of digest `sha256` (the caller read exactly `before.len` bytes).
    pub fn note(&self, path: PathBuf, before: Stamp, started: SystemTime, sha256: &str) {
        let mut files = self.lock();
        files.retain(|r| r.path != path);
        if files.len() >= KEEP {
            files.remove(0);
        }
        files.push(Record {
            path,
            settled: settled(&before, started),
            stamp: before,
            sha256: sha256.to_string(),
        });
    }

    /// Whether the file at `path`, stamped `now`, still has the stamp it had when its digest
    /// was verified as `sha256`; with `settled`, only when that record is settled.
    pub fn unchanged(&self, path: &Path, now: &Stamp, sha256: &str, settled: bool) -> bool {
        self.lock().iter().any(|r| {
            r.path == path && r.stamp == *now && r.sha256 == sha256 && (r.settled || !settled)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_settled_only_when_the_change_time_is_a_tick_older() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        std::fs::write(&path, b"one").unwrap();
        let s = stamp(&path).unwrap();
        let v = Verified::default();
        // Verified at once: not settled (a write in the same tick would keep the stamp).
        v.note(path.clone(), s, SystemTime::now(), "d1");
        assert!(v.unchanged(&path, &s, "d1", false));
        assert!(!v.unchanged(&path, &s, "d1", true));
        assert!(!v.unchanged(&path, &s, "d2", false));
        std::thread::sleep(TICK * 3);
        v.note(path.clone(), s, SystemTime::now(), "d1");
        assert!(v.unchanged(&path, &s, "d1", true));
        // Another write of the same length with the old modification time restored still
        // changes the stamp (its change time).
        std::fs::write(&path, b"two").unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        let old = std::time::UNIX_EPOCH + Duration::new(s.mtime.0 as u64, s.mtime.1 as u32);
        f.set_modified(old).unwrap();
        let now = stamp(&path).unwrap();
        assert_eq!((now.len, now.mtime), (s.len, s.mtime));
        assert!(!v.unchanged(&path, &now, "d1", false));
        // Whole-second change times are never settled.
        let coarse = Stamp {
            ctime: (s.ctime.0, 0),
            ..s
        };
        assert!(!settled(&coarse, SystemTime::now()));
    }
}
