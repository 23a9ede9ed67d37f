//! The guard's kept output: the head written as it comes, then a `tail` file whose bytes keep
//! their output offsets while it moves (appended, compacted to the last bytes when it grows).
//!
//! See `files.rs` for the formats and decision 0604.

use super::files::{self, Chunk, STDERR};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often new tail bytes are written out (readers see the tail at most this late).
const TAIL_EVERY: Duration = Duration::from_millis(50);

/// Kept output of one command.
pub struct Keeper {
    head: BufWriter<File>,
    dir: PathBuf,
    head_left: u64,
    head_len: u64,
    keep: u64,
    /// The last `keep` bytes written (past the head).
    recent: VecDeque<Chunk>,
    recent_len: u64,
    /// Frames written since the tail file was last brought up to date, while they fit in `keep`.
    pending: Vec<u8>,
    pending_len: u64,
    /// Open for appends once the tail file exists; its data bytes and end offset.
    tail: Option<File>,
    tail_data: u64,
    tail_end: u64,
    tail_written: Instant,
    /// Every byte written (the next byte's offset), per stream.
    written: u64,
    pub totals: [u64; 2],
}

impl Keeper {
    pub fn new(head: File, dir: PathBuf, head_max: u64, keep: u64) -> Keeper {
        Keeper {
            head: BufWriter::with_capacity(256 * 1024, head),
            dir,
            head_left: head_max,
            head_len: 0,
            keep,
            recent: VecDeque::new(),
            recent_len: 0,
            pending: Vec::new(),
            pending_len: 0,
            tail: None,
            tail_data: 0,
            tail_end: 0,
            tail_written: Instant::now(),
            written: 0,
            totals: [0, 0],
        }
    }

    /// Bytes between the kept head and the kept tail.
    pub fn omitted(&self) -> u64 {
        if self.written == self.head_len {
            return 0;
        }
        self.written - self.recent_len - self.head_len
    }

    pub fn add(&mut self, stream: u8, mut bytes: &[u8]) -> std::io::Result<()> {
        self.totals[usize::from(stream == STDERR)] += bytes.len() as u64;
        if self.head_left > 0 {
            let n = (bytes.len() as u64).min(self.head_left) as usize;
            self.head.write_all(&[stream])?;
            self.head.write_all(&(n as u32).to_le_bytes())?;
            self.head.write_all(&bytes[..n])?;
            self.head_left -= n as u64;
            self.head_len += n as u64;
            self.written += n as u64;
            bytes = &bytes[n..];
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.written += bytes.len() as u64;
        let kept = &bytes[bytes.len() - (bytes.len() as u64).min(self.keep) as usize..];
        if self.pending_len + kept.len() as u64 <= self.keep && kept.len() == bytes.len() {
            files::frame(&mut self.pending, stream, kept);
            self.pending_len += kept.len() as u64;
        } else {
            // More came than is kept: the file is rewritten from `recent`.
            self.pending.clear();
            self.pending_len = u64::MAX / 2;
        }
        self.recent.push_back(Chunk {
            stream,
            bytes: kept.to_vec(),
        });
        self.recent_len += kept.len() as u64;
        while self.recent_len > self.keep {
            let over = (self.recent_len - self.keep) as usize;
            let Some(front) = self.recent.front_mut() else {
                break;
            };
            if front.bytes.len() <= over {
                self.recent_len -= front.bytes.len() as u64;
                self.recent.pop_front();
            } else {
                front.bytes.drain(..over);
                self.recent_len -= over as u64;
            }
        }
        Ok(())
    }

    /// Flushes the head and, when due (or `now`), brings the tail file up to date.
    pub fn flush(&mut self, now: bool) -> std::io::Result<()> {
        self.head.flush()?;
        let current = self.tail_end == self.written;
        // At the end the file must be exactly the kept tail; while running, current is enough.
        let done = current && (!now || self.tail_data == self.recent_len);
        if done || self.written == self.head_len {
            return Ok(());
        }
        if !now && self.tail_written.elapsed() < TAIL_EVERY {
            return Ok(());
        }
        self.tail_written = Instant::now();
        let appendable = self.pending_len <= self.keep
            && self.tail_end + self.pending_len == self.written
            && self.tail_data + self.pending_len <= self.keep + files::tail_slack(self.keep);
        match self.tail.as_mut().filter(|_| appendable && !now) {
            Some(f) => {
                f.write_all(&self.pending)?;
                self.tail_data += self.pending_len;
            }
            None => self.compact()?,
        }
        self.tail_end = self.written;
        self.pending.clear();
        self.pending_len = 0;
        Ok(())
    }

    /// Rewrites the tail file as exactly the last `keep` bytes.
    fn compact(&mut self) -> std::io::Result<()> {
        let start = self.written - self.recent_len;
        let mut b = files::tail_header(start, self.keep).to_vec();
        for c in &self.recent {
            files::frame(&mut b, c.stream, &c.bytes);
        }
        let path = files::tail_path(&self.dir);
        files::write_replace(&path, &b)?;
        self.tail = Some(std::fs::OpenOptions::new().append(true).open(&path)?);
        self.tail_data = self.recent_len;
        Ok(())
    }
}
