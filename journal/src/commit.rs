//! One group commit of the tail segment (one write + one fdatasync per group), segment roll,
//! write-failure rollback and fsync poisoning; run by whoever holds the write turn (`leader`).

use std::io;
use std::sync::atomic::Ordering;

use crate::error::{IoFailure, JournalError};
use crate::failpoint;
use crate::frame::{self, Stamp};
use crate::header::{segment_file_name, SegmentHeader, HEADER_LEN, PREALLOCATED_VERSION};
use crate::slot::Slot;
use crate::state::{Batch, Mode, Shared, Stamped};
use crate::sync::{complete, lock};
use crate::types::{NewRecord, KIND_CHECKPOINT};
use crate::writer::{create_segment, Writer};

/// A preallocated segment grows by as much zero-filled space as it already holds, at least
/// `PREALLOCATE_MIN` and at most `PREALLOCATE_MAX` at a time: a fresh or reopened segment writes
/// little ahead, a busy one changes its size (and its sync the file's metadata) once a MiB.
const PREALLOCATE_MIN: u64 = 64 << 10;
const PREALLOCATE_MAX: u64 = 1 << 20;

enum Outcome {
    Ok,
    WriteFailed(io::Error),
    Poison(String),
}

impl Writer {
    /// Drains the next group from the queue; `None` when the queue is empty or the journal is
    /// poisoned.
    pub(crate) fn next_group(&mut self, sh: &Shared) -> Option<(Vec<Batch>, bool)> {
        let mut st = lock(&sh.state);
        if matches!(st.mode, Mode::Poisoned(_)) || st.queue.is_empty() {
            return None;
        }
        let cfg = &sh.config;
        let mut group = Vec::new();
        let (mut recs, mut bytes) = (0usize, 0usize);
        while let Some(b) = st.queue.front() {
            if !group.is_empty()
                && (recs + b.records.len() > cfg.group_max_records
                    || bytes + b.bytes > cfg.group_max_bytes)
            {
                break;
            }
            recs += b.records.len();
            bytes += b.bytes;
            if let Some(b) = st.queue.pop_front() {
                group.push(b);
            }
        }
        let roll =
            self.offset > HEADER_LEN as u64 && self.offset + bytes as u64 > cfg.segment_bytes;
        // While closing, the clean-shutdown marker must stay the last record (the clean watermark
        // names it), so a roll then writes no checkpoint record.
        if roll && !matches!(st.mode, Mode::Closing) {
            // The checkpoint record takes the next unassigned seq, which comes after every batch
            // already queued, so it goes to the back of the queue (a later write), never into this
            // group: seqs on disk stay contiguous. The watermark itself is updated when this
            // group's sync returns (see `ack`).
            let rec = NewRecord {
                entity: sh.internal_entity(),
                time_ms: crate::types::now_ms(),
                principal: crate::types::INTERNAL_PRINCIPAL.to_string(),
                change_id: None,
                kind: KIND_CHECKPOINT.to_string(),
                codec: 0,
                payload: Vec::new(),
            };
            let es = {
                let s = st.entity_seqs.entry(rec.entity.clone()).or_insert(0);
                *s += 1;
                *s
            };
            let seq = st.next_seq;
            st.next_seq += 1;
            let n = frame::frame_len(&rec);
            st.queue.push_back(Batch {
                records: vec![Stamped {
                    rec,
                    seq,
                    entity_seq: es,
                }],
                bytes: n,
                done: None,
                waiter: None,
            });
        }
        Some((group, roll))
    }

    /// Writes and syncs `group`, then completes it (or fails it and everything queued). `mine`
    /// is the slot of the caller doing this write, if a caller does it.
    pub(crate) fn commit(
        &mut self,
        sh: &Shared,
        group: Vec<Batch>,
        roll: bool,
        mine: Option<&Slot>,
    ) {
        match self.write_group(sh, &group, roll) {
            Outcome::Ok => self.ack(sh, group, roll, mine),
            Outcome::WriteFailed(e) => self.fail_write(sh, group, e),
            Outcome::Poison(reason) => self.poison(sh, group, reason),
        }
    }

    fn write_group(&mut self, sh: &Shared, group: &[Batch], roll: bool) -> Outcome {
        let first = group
            .first()
            .and_then(|b| b.records.first())
            .map_or(0, |r| r.seq);
        if roll {
            let header = SegmentHeader {
                version: PREALLOCATED_VERSION,
                project_id: sh.project_id,
                segment: self.header.segment + 1,
                first_seq: first,
                epoch: sh.epoch,
                salt: rand::random(),
            };
            match create_segment(&sh.dir, &header) {
                Ok((file, _)) => {
                    // The sealed segment ends at its last frame again.
                    self.trim();
                    self.file = file;
                    self.header = header;
                    self.offset = HEADER_LEN as u64;
                    self.allocated = self.offset;
                }
                Err(e) => {
                    // If the new name may exist but is not durable, we cannot know: poison.
                    let path = sh
                        .dir
                        .join(segment_file_name(header.segment, header.first_seq));
                    if path.exists() {
                        return Outcome::Poison(format!(
                            "creating segment {} failed after its rename: {e}",
                            header.segment
                        ));
                    }
                    return Outcome::WriteFailed(e);
                }
            }
        }
        self.buf.clear();
        let last = group.last().map_or(0, Batch::last_seq);
        for b in group {
            for r in &b.records {
                let st = Stamp {
                    seq: r.seq,
                    write_first_seq: first,
                    entity_seq: r.entity_seq,
                    epoch: sh.epoch,
                    write_end: r.seq == last,
                };
                frame::encode_into(
                    &mut self.buf,
                    self.header.salt,
                    self.header.segment,
                    st,
                    &r.rec,
                );
            }
        }
        let used = self.buf.len() as u64;
        self.preallocate(sh, used);
        failpoint::point(failpoint::BEFORE_WRITE);
        if let Err(e) = self.write_buf() {
            return Outcome::WriteFailed(e);
        }
        failpoint::point(failpoint::AFTER_WRITE_BEFORE_SYNC);
        let synced = if failpoint::hit(failpoint::SYNC_ERROR).is_some() {
            Err(io::Error::from_raw_os_error(5))
        } else {
            self.file.sync_data()
        };
        if let Err(e) = synced {
            return Outcome::Poison(format!(
                "fdatasync of segment {} failed: {e}",
                self.header.segment
            ));
        }
        self.offset += used;
        self.allocated = self
            .allocated
            .max(self.offset + self.buf.len() as u64 - used);
        Outcome::Ok
    }

    /// When the `used` bytes in `buf` would extend a preallocated segment, appends zeros to
    /// `buf` so that this one write (and its one sync) also preallocates the space of the
    /// following writes (see `PREALLOCATE_MIN`), up to the segment size.
    fn preallocate(&mut self, sh: &Shared, used: u64) {
        let end = self.offset + used;
        if !self.header.preallocated() || end <= self.allocated {
            return;
        }
        let grow = self.offset.clamp(PREALLOCATE_MIN, PREALLOCATE_MAX);
        let target = end.max((self.allocated + grow).min(sh.config.segment_bytes));
        self.buf.resize((target - self.offset) as usize, 0);
    }

    fn ack(&mut self, sh: &Shared, group: Vec<Batch>, roll: bool, mine: Option<&Slot>) {
        let last = group.last().map_or(0, Batch::last_seq);
        sh.durable.store(last, Ordering::SeqCst);
        failpoint::point(failpoint::AFTER_SYNC_BEFORE_ACK);
        // The rolled segment's data, and a durable checkpoint record, become watermarks: nothing at
        // or below them can later be taken for a torn tail.
        let checkpoint = group
            .iter()
            .flat_map(|b| b.records.iter())
            .filter(|r| {
                r.rec.kind == KIND_CHECKPOINT
                    && r.rec.entity.kind == crate::types::INTERNAL_ENTITY_KIND
            })
            .map(|r| r.seq)
            .max();
        let mark_err = match (roll, checkpoint) {
            (false, None) => None,
            (_, cp) => {
                let seq = cp.unwrap_or(last);
                sh.update_watermark(|w| w.seq = w.seq.max(seq)).err()
            }
        };
        // Blocked callers (other than the one writing, who is not waiting) are woken as a tree;
        // their `done` only sets their slot, so it is dropped uncalled.
        let mut woken = Vec::new();
        for b in group {
            let seq = b.last_seq();
            match (b.waiter, b.done) {
                (Some(w), Some(_)) if mine.is_none_or(|m| !std::ptr::eq(m, &*w)) => {
                    woken.push((w, seq));
                }
                (_, Some(done)) => complete(|| done(Ok(seq))),
                (_, None) => {}
            }
        }
        Slot::wake_group(woken);
        let ready = {
            let mut st = lock(&sh.state);
            let rest = st.waiters.split_off(&(last + 1));
            std::mem::replace(&mut st.waiters, rest)
        };
        for w in ready.into_values().flatten() {
            complete(|| w(Ok(())));
        }
        if let Some(e) = mark_err {
            self.poison(
                sh,
                Vec::new(),
                format!("writing the checkpoint watermark failed: {e}"),
            );
        }
    }

    fn fail_write(&mut self, sh: &Shared, group: Vec<Batch>, err: io::Error) {
        // Back to the state before the write: the durable frames, then (in a preallocated
        // segment) zeros up to the length the file had. The restored zeros may be a hole, so the
        // next write preallocates afresh from the durable offset.
        let before = self.allocated;
        let truncated = if failpoint::hit(failpoint::TRUNCATE_ERROR).is_some() {
            Err(io::Error::from_raw_os_error(5))
        } else {
            self.file
                .set_len(self.offset)
                .and_then(|()| self.file.set_len(before))
                .and_then(|()| self.file.sync_all())
        };
        if truncated.is_ok() {
            self.allocated = self.offset;
        }
        if let Err(te) = truncated {
            return self.poison(
                sh,
                group,
                format!("write failed ({err}) and truncating back failed: {te}"),
            );
        }
        tracing::warn!(
            segment = self.header.segment,
            offset = self.offset,
            error = %err,
            "journal write failed; truncated back to the durable offset"
        );
        let durable = sh.durable.load(Ordering::SeqCst);
        let (failed, waiters) = {
            let mut st = lock(&sh.state);
            if st.mode == Mode::Open {
                st.mode = Mode::NeedsRebuild;
            }
            let mut failed = group;
            failed.extend(st.queue.drain(..));
            for b in failed.iter().rev() {
                for r in b.records.iter().rev() {
                    if r.entity_seq <= 1 {
                        st.entity_seqs.remove(&r.rec.entity);
                    } else if let Some(s) = st.entity_seqs.get_mut(&r.rec.entity) {
                        *s = r.entity_seq - 1;
                    }
                }
            }
            st.next_seq = durable + 1;
            let waiters = std::mem::take(&mut st.waiters);
            (failed, waiters)
        };
        let e = JournalError::WriteFailed {
            source: IoFailure::from(&err),
        };
        for b in failed {
            if let Some(done) = b.done {
                complete(|| done(Err(e.clone())));
            }
        }
        for w in waiters.into_values().flatten() {
            complete(|| w(Err(e.clone())));
        }
    }

    fn poison(&mut self, sh: &Shared, group: Vec<Batch>, reason: String) {
        tracing::error!(segment = self.header.segment, %reason, "journal poisoned");
        let (queued, waiters) = {
            let mut st = lock(&sh.state);
            st.mode = Mode::Poisoned(reason.clone());
            let q: Vec<Batch> = st.queue.drain(..).collect();
            (q, std::mem::take(&mut st.waiters))
        };
        let e = JournalError::Poisoned { reason };
        for b in group.into_iter().chain(queued) {
            if let Some(done) = b.done {
                complete(|| done(Err(e.clone())));
            }
        }
        for w in waiters.into_values().flatten() {
            complete(|| w(Err(e.clone())));
        }
    }
}
