//! The tail segment file: creating a segment atomically, continuing one, trimming its
//! preallocated tail, and writing the group buffer at the durable offset (`commit` drives it).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::failpoint;
use crate::fsutil;
use crate::header::{segment_file_name, SegmentHeader};

/// Creates segment file `header` in `dir` atomically (temp, fsync, rename, dir fsync) and returns
/// it open for writing.
pub(crate) fn create_segment(dir: &Path, header: &SegmentHeader) -> io::Result<(File, PathBuf)> {
    let path = dir.join(segment_file_name(header.segment, header.first_seq));
    let tmp = dir.join(format!(
        "{}.tmp",
        segment_file_name(header.segment, header.first_seq)
    ));
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)?;
    f.write_all(&header.encode())?;
    f.sync_all()?;
    if let Err(e) = fs::rename(&tmp, &path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    failpoint::point(failpoint::AFTER_SEGMENT_CREATE_BEFORE_DIR_SYNC);
    fsutil::sync_dir(dir)?;
    Ok((f, path))
}

/// The open tail segment; only the holder of the write turn (see `leader`) touches it.
pub(crate) struct Writer {
    pub(crate) file: File,
    pub(crate) header: SegmentHeader,
    /// End of durable data in the current segment.
    pub(crate) offset: u64,
    /// Length of the file: zeros from `offset` to here were written and synced beforehand.
    pub(crate) allocated: u64,
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    /// Continues segment `file` (with `header`) at `offset`, the end of its last valid frame.
    pub(crate) fn new(file: File, header: SegmentHeader, offset: u64) -> Writer {
        let allocated = file.metadata().map_or(offset, |m| m.len()).max(offset);
        Writer {
            file,
            header,
            offset,
            allocated,
            buf: Vec::new(),
        }
    }

    /// Gives back the unused preallocated tail on an orderly stop (close or drop), so a segment
    /// left by a clean stop ends at its last frame. Not synced: a preallocated tail that
    /// survives a power cut is read as unused space anyway.
    pub(crate) fn trim(&mut self) {
        if self.allocated > self.offset {
            match self.file.set_len(self.offset) {
                Ok(()) => self.allocated = self.offset,
                Err(e) => tracing::warn!(
                    segment = self.header.segment,
                    error = %e,
                    "could not trim the journal segment's preallocated tail"
                ),
            }
        }
    }

    pub(crate) fn write_buf(&mut self) -> io::Result<()> {
        if failpoint::hit(failpoint::WRITE_ERROR).is_some() {
            // Simulate ENOSPC after part of the data landed.
            let half = &self.buf[..self.buf.len() / 2];
            self.file.write_all_at(half, self.offset)?;
            return Err(io::Error::from_raw_os_error(28));
        }
        self.file.write_all_at(&self.buf, self.offset)
    }
}
