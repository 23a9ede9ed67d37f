//! A version's bytes read once, in order, a piece at a time: each piece hashed as it is handed out, and the whole checked (its digest, or the stamp of a file verified unchanged) once the reader is done.
//!
//! A reader that keeps only the pieces it is working on never holds the whole file: the bytes it
//! typed are the bytes that were hashed, so a table is cached only when what it was read from is
//! the version's bytes (decision 0182).

use super::store::{
    check_digest, consume_version, io_error, read_unchanged, too_large, unless_cached,
    version_bound, version_path, Verified,
};
use super::verified::{stamp, Stamp};
use super::{FilesError, VersionFacts};
use crate::error::ActorError;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Bytes read in order, a piece at a time.
pub trait Source: Send {
    /// About how many bytes there are in all (a file's size when it was opened).
    fn len_hint(&self) -> usize;
    /// Appends up to `n` more bytes to `buf` and answers how many: 0 at the end, or when the
    /// read failed (the failure is kept for whoever owns the source).
    fn read_into(&mut self, buf: &mut Vec<u8>, n: usize) -> usize;
}

impl Source for &[u8] {
    fn len_hint(&self) -> usize {
        self.len()
    }

    fn read_into(&mut self, buf: &mut Vec<u8>, n: usize) -> usize {
        let (head, rest) = self.split_at(n.min(self.len()));
        buf.extend_from_slice(head);
        *self = rest;
        head.len()
    }
}

/// A file read as a version's bytes, at most `max` of them.
struct Stream {
    path: PathBuf,
    file: File,
    len: u64,
    max: u64,
    read: u64,
    /// `None` for a file verified unchanged (its stamp is checked instead).
    digest: Option<Sha256>,
    failure: Option<FilesError>,
    /// A read answered 0 without a failure: everything was handed out.
    ended: bool,
}

impl Stream {
    fn open(path: &Path, max: u64, hashed: bool) -> Result<Stream, FilesError> {
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let meta = file.metadata().map_err(|e| io_error(path, e))?;
        if !meta.is_file() {
            return Err(ActorError::invalid("path", "not a regular file").into());
        }
        if meta.len() > max {
            return Err(too_large(max).into());
        }
        Ok(Stream {
            path: path.to_path_buf(),
            file,
            len: meta.len(),
            max,
            read: 0,
            digest: hashed.then(Sha256::new),
            failure: None,
            ended: false,
        })
    }
}

impl Source for Stream {
    fn len_hint(&self) -> usize {
        usize::try_from(self.len).unwrap_or(usize::MAX)
    }

    fn read_into(&mut self, buf: &mut Vec<u8>, n: usize) -> usize {
        if self.failure.is_some() || self.ended {
            return 0;
        }
        let start = buf.len();
        buf.reserve(n);
        // One byte past the bound shows a file that grew beyond it.
        let room = (self.max + 1).saturating_sub(self.read).min(n as u64);
        let got = match (&self.file).take(room).read_to_end(buf) {
            Ok(got) => got,
            Err(e) => {
                buf.truncate(start);
                self.failure = Some(io_error(&self.path, e).into());
                return 0;
            }
        };
        self.read += got as u64;
        if self.read > self.max {
            buf.truncate(start);
            self.failure = Some(too_large(self.max).into());
            return 0;
        }
        if let (Some(d), Some(piece)) = (&mut self.digest, buf.get(start..)) {
            d.update(piece);
        }
        self.ended = got == 0 && n > 0;
        got
    }
}

/// What `stream` made of the bytes of `path` read through a [`Stream`], with how many it read,
/// when they are the version's: their digest matches (`stale` or the store's error otherwise),
/// or for a file verified unchanged (`trusted`) its stamp is still that. `Ok(None)` when
/// `stream` gave up, stopped before the end, or the trusted file changed.
fn streamed<R>(
    path: &Path,
    facts: &VersionFacts,
    max: u64,
    trusted: Option<Stamp>,
    stream: impl FnOnce(&mut dyn Source) -> Option<R>,
) -> Result<Option<(usize, R)>, FilesError> {
    let mut s = Stream::open(path, max, trusted.is_none())?;
    let made = stream(&mut s);
    if let Some(e) = s.failure.take() {
        return Err(e);
    }
    let (Some(made), true) = (made, s.ended) else {
        return Ok(None);
    };
    let read = usize::try_from(s.read).unwrap_or(usize::MAX);
    match (trusted, s.digest.take()) {
        (Some(before), _) => {
            Ok((s.read == before.len && stamp(path) == Some(before)).then_some((read, made)))
        }
        (None, Some(d)) => {
            check_digest(path, facts, rho_plumbing::hex::encode(&d.finalize()))?;
            Ok(Some((read, made)))
        }
        (None, None) => Ok(None),
    }
}

/// Like `store::consume_version`, for a reader of pieces: what `stream` made of the version's
/// bytes read through a [`Source`] (hashed as they are handed out, so the bytes it read are the
/// bytes checked); when it answers `None` (gives up), what `whole` makes of the bytes read whole.
pub fn stream_version<R: Send>(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
    stream: impl FnOnce(&mut dyn Source) -> Option<R>,
    whole: impl FnOnce(&[u8]) -> R,
) -> Result<R, FilesError> {
    stream_counted(project, rel_path, facts, max, stream, whole).map(|(_, made)| made)
}

/// [`stream_version`], with how many bytes were read.
fn stream_counted<R: Send>(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
    stream: impl FnOnce(&mut dyn Source) -> Option<R>,
    whole: impl FnOnce(&[u8]) -> R,
) -> Result<(usize, R), FilesError> {
    let path = version_path(project, rel_path, facts)?;
    match streamed(&path, facts, version_bound(facts, max), None, stream)? {
        Some(made) => Ok(made),
        None => consume_version(project, rel_path, facts, max, |b| (b.len(), whole(b))),
    }
}

/// [`stream_version`] as `store::consume_unless_cached` reads: `None` without reading when the
/// cached bytes are known unchanged, and a file verified unchanged is read without its digest
/// (its stamp checked after the read instead).
pub fn stream_unless_cached<R: Send>(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    max: u64,
    (cached, verified): (bool, &Verified),
    stream: impl FnOnce(&mut dyn Source) -> Option<R>,
    whole: impl FnOnce(&[u8]) -> R,
) -> Result<Option<R>, FilesError> {
    unless_cached(project, rel_path, facts, cached, verified, |known| {
        let Some((path, before)) = known else {
            return stream_counted(project, rel_path, facts, max, stream, whole);
        };
        if let Some(made) = streamed(path, facts, max, Some(before), stream)? {
            return Ok(made);
        }
        if let Some(bytes) = read_unchanged((path, before), max) {
            return Ok((bytes.len(), whole(&bytes)));
        }
        consume_version(project, rel_path, facts, max, |b| (b.len(), whole(b)))
    })
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
