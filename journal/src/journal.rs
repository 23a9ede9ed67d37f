//! The `Journal` handle: create, open (scan, verify, repair a torn tail), submit/append,
//! durability waits, reads, snapshots, close and the failure states.

use std::collections::{BTreeMap, VecDeque};
use std::fs::{self, OpenOptions};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{JoinHandle, ThreadId};

use uuid::Uuid;

use crate::config::JournalConfig;
use crate::error::JournalError;
use crate::fsutil;
use crate::header::{SegmentHeader, HEADER_LEN, PREALLOCATED_VERSION};
use crate::leader;
use crate::reader::RecordIter;
use crate::scan::{self, ProblemKind, ScanMode};
use crate::snapshot;
use crate::state::{Mode, Shared, State};
use crate::sync::lock;
use crate::types::{
    now_ms, Assigned, DoneFn, NewRecord, OpenReport, TornTail, WaitFn, INTERNAL_PRINCIPAL,
    KIND_CLEAN_SHUTDOWN, KIND_OPENED,
};
use crate::watermark::{self, Watermark};
use crate::writer::{self, Writer};

/// An open project journal with its single writer thread. `Send + Sync`; share it via `Arc`.
pub struct Journal {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
    writer_id: ThreadId,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("dir", &self.shared.dir)
            .field("project_id", &self.shared.project_id)
            .field("epoch", &self.shared.epoch)
            .field("durable_seq", &self.durable_seq())
            .finish()
    }
}

impl Journal {
    /// Creates `dir` (and missing parents, fsyncing each new directory into its parent), writes
    /// segment 0 and the watermark, and starts epoch 1 with a durable `journal.opened` record.
    /// Fails with `AlreadyExists` if a journal (a segment or watermark) is already there.
    pub fn create(
        dir: &Path,
        project_id: Uuid,
        config: JournalConfig,
    ) -> Result<Journal, JournalError> {
        if dir.exists() {
            let (segs, bad) = crate::header::list_segments(dir)?;
            if !segs.is_empty() || !bad.is_empty() || dir.join(watermark::FILE_NAME).exists() {
                return Err(JournalError::AlreadyExists);
            }
        }
        fsutil::create_dirs_synced(dir)?;
        fsutil::create_dirs_synced(&dir.join(snapshot::DIR_NAME))?;
        let epoch = 1;
        let header = SegmentHeader {
            version: PREALLOCATED_VERSION,
            project_id,
            segment: 0,
            first_seq: 1,
            epoch,
            salt: rand::random(),
        };
        let (file, _) = writer::create_segment(dir, &header)
            .map_err(|e| JournalError::io(format!("creating segment 0 in {}", dir.display()), e))?;
        let mark = Watermark {
            clean: false,
            project_id,
            seq: 0,
            epoch,
        };
        mark.write(dir)?;
        let state = State {
            mode: Mode::Open,
            next_seq: 1,
            entity_seqs: Default::default(),
            queue: VecDeque::new(),
            waiters: BTreeMap::new(),
            stop: false,
            writing: false,
            writer_turn: false,
        };
        let j = Journal::start(
            dir,
            config,
            epoch,
            mark,
            state,
            0,
            file,
            header,
            HEADER_LEN as u64,
        )?;
        j.append_internal(KIND_OPENED)?;
        Ok(j)
    }

    /// Scans and verifies every frame, truncates a torn tail (with a warning), starts a new writer
    /// epoch (a durable `journal.opened` record) and marks the watermark not clean.
    /// Missing journal: `NotFound`; damage: `Corrupt` (nothing is modified).
    pub fn open(dir: &Path, config: JournalConfig) -> Result<(Journal, OpenReport), JournalError> {
        let mode = ScanMode {
            live_writer: false,
            verify_all_snapshots: false,
            max_frame: config.max_record_bytes as usize,
        };
        let s = scan::scan(dir, mode, &mut |_, _, _| {})?;
        let mut torn = None;
        if let Some(p) = &s.problem {
            if p.kind != ProblemKind::TornTail {
                return Err(JournalError::Corrupt {
                    segment: p.segment,
                    offset: p.offset,
                    seq: p.seq,
                    reason: p.reason.clone(),
                });
            }
            torn = Some(TornTail {
                segment: p.segment,
                offset: p.offset,
                bytes: p.bytes,
            });
        }
        let (Ok(wm), Some(tail)) = (s.watermark.clone(), s.tail.clone()) else {
            return Err(JournalError::Corrupt {
                segment: 0,
                offset: 0,
                seq: s.last_seq + 1,
                reason: "journal has no watermark or no segment".to_string(),
            });
        };
        let file = OpenOptions::new()
            .write(true)
            .open(&tail.path)
            .map_err(|e| JournalError::io(format!("opening {}", tail.path.display()), e))?;
        if let Some(t) = &torn {
            file.set_len(t.offset)
                .and_then(|()| file.sync_all())
                .map_err(|e| {
                    JournalError::io(
                        format!("truncating torn tail of {}", tail.path.display()),
                        e,
                    )
                })?;
            tracing::warn!(
                segment = t.segment,
                offset = t.offset,
                bytes = t.bytes,
                reason = s.problem.as_ref().map_or("", |p| p.reason.as_str()),
                "journal: truncated a torn tail left by a crash"
            );
        }
        let epoch = wm.epoch.max(s.last_epoch).max(tail.header.epoch) + 1;
        let mark = Watermark {
            clean: false,
            project_id: wm.project_id,
            seq: s.must_exist,
            epoch,
        };
        mark.write(dir)?;
        let state = State {
            mode: Mode::Open,
            next_seq: s.last_seq + 1,
            entity_seqs: s.entity_seqs(),
            queue: VecDeque::new(),
            waiters: BTreeMap::new(),
            stop: false,
            writing: false,
            writer_turn: false,
        };
        let report = OpenReport {
            torn_tail: torn,
            last_seq: s.last_seq,
            epoch,
            was_clean: wm.clean,
            segments: s.segments.len(),
            records: s.records,
        };
        let j = Journal::start(
            dir,
            config,
            epoch,
            mark,
            state,
            s.last_seq,
            file,
            tail.header,
            tail.valid_end,
        )?;
        j.append_internal(KIND_OPENED)?;
        Ok((j, report))
    }

    #[allow(clippy::too_many_arguments)]
    fn start(
        dir: &Path,
        config: JournalConfig,
        epoch: u64,
        mark: Watermark,
        state: State,
        durable: u64,
        file: fs::File,
        header: SegmentHeader,
        offset: u64,
    ) -> Result<Journal, JournalError> {
        let shared = Arc::new(Shared {
            project_id: mark.project_id,
            dir: dir.to_path_buf(),
            config,
            epoch,
            state: Mutex::new(state),
            work: Condvar::new(),
            tail: Mutex::new(Writer::new(file, header, offset)),
            durable: AtomicU64::new(durable),
            marks: Mutex::new(mark),
        });
        let sh = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("rho-journal-writer".to_string())
            .spawn(move || leader::writer_thread(sh))
            .map_err(|e| JournalError::io("starting the journal writer thread", e))?;
        Ok(Journal {
            shared,
            writer_id: thread.thread().id(),
            thread: Mutex::new(Some(thread)),
        })
    }

    fn internal_record(&self, kind: &str) -> NewRecord {
        NewRecord {
            entity: self.shared.internal_entity(),
            time_ms: now_ms(),
            principal: INTERNAL_PRINCIPAL.to_string(),
            change_id: None,
            kind: kind.to_string(),
            codec: 0,
            payload: Vec::new(),
        }
    }

    /// Blocking calls from a `done` callback would wait for the write that runs it.
    fn refuse_on_writer_thread(&self, what: &str) -> Result<(), JournalError> {
        if std::thread::current().id() == self.writer_id || leader::in_commit() {
            return Err(JournalError::invalid(format!(
                "{what} must not be called from a done callback (the thread writing)"
            )));
        }
        Ok(())
    }

    fn append_internal(&self, kind: &str) -> Result<u64, JournalError> {
        self.refuse_on_writer_thread(kind)?;
        leader::append(&self.shared, vec![self.internal_record(kind)], true).map(|(_, seq)| seq)
    }

    /// The project this journal belongs to.
    pub fn project_id(&self) -> Uuid {
        self.shared.project_id
    }

    /// This writer's epoch.
    pub fn epoch(&self) -> u64 {
        self.shared.epoch
    }

    /// The journal directory.
    pub fn dir(&self) -> &Path {
        &self.shared.dir
    }

    /// Assigns seqs and entity seqs now (in call order across threads), queues the batch and
    /// returns at once (the writer thread writes it unless a blocked `append` leads the write
    /// first). All records of one submit land in one write. `done` is called exactly once, from
    /// the thread that wrote the batch (the writer thread or a leading `append` caller), once the
    /// batch is durable (`Ok(last seq)`) or with the error. When `submit` itself returns an
    /// error, `done` is dropped without a call.
    pub fn submit(&self, records: Vec<NewRecord>, done: DoneFn) -> Result<Assigned, JournalError> {
        self.shared
            .enqueue(records, Some(done), None, false)
            .map(|(a, _)| a)
    }

    /// Submits and waits until the batch is durable. When no write is in progress the calling
    /// thread writes and syncs every pending batch itself (leader/follower group commit).
    /// Must not be called from a `done` callback.
    pub fn append(&self, records: Vec<NewRecord>) -> Result<Assigned, JournalError> {
        self.refuse_on_writer_thread("append")?;
        leader::append(&self.shared, records, false).map(|(a, _)| a)
    }

    /// Highest seq assigned so far (durable or not).
    pub fn last_assigned_seq(&self) -> u64 {
        lock(&self.shared.state).next_seq - 1
    }

    /// Highest seq known durable.
    pub fn durable_seq(&self) -> u64 {
        self.shared.durable.load(Ordering::SeqCst)
    }

    /// Calls `done(Ok(()))` once `seq` is durable (at once if it already is), or with the error
    /// of the failure that dropped it. A seq not yet assigned is `Invalid`.
    pub fn when_durable(&self, seq: u64, done: WaitFn) {
        if seq <= self.durable_seq() {
            return done(Ok(()));
        }
        let mut st = lock(&self.shared.state);
        if seq <= self.durable_seq() {
            drop(st);
            return done(Ok(()));
        }
        let refusal = match &st.mode {
            Mode::Open | Mode::Closing => None,
            m => m.refusal(false),
        };
        if let Some(e) = refusal {
            drop(st);
            return done(Err(e));
        }
        if seq >= st.next_seq {
            drop(st);
            return done(Err(JournalError::invalid(format!(
                "seq {seq} has not been assigned"
            ))));
        }
        st.waiters.entry(seq).or_default().push(done);
    }

    /// Durable records with seq >= `from`, in order, read from the segment files (includes the
    /// journal's internal records).
    pub fn records_from(
        &self,
        from: u64,
    ) -> Result<impl Iterator<Item = Result<crate::types::Record, JournalError>>, JournalError>
    {
        RecordIter::new(
            &self.shared.dir,
            from,
            self.durable_seq(),
            self.shared.config.max_record_bytes as usize,
        )
    }

    /// The newest valid snapshot with seq <= `durable_seq`, as (seq, state). Corrupt snapshots
    /// are skipped with a warning.
    pub fn load_snapshot(&self) -> Result<Option<(u64, Vec<u8>)>, JournalError> {
        let durable = self.durable_seq();
        for (seq, path) in snapshot::list(&self.shared.dir)?.into_iter().rev() {
            if seq > durable {
                continue;
            }
            match snapshot::load(&path, seq, self.shared.project_id)? {
                Ok(state) => return Ok(Some((seq, state))),
                Err(why) => tracing::warn!(
                    path = %path.display(),
                    seq,
                    reason = %why,
                    "ignoring invalid snapshot"
                ),
            }
        }
        Ok(None)
    }

    /// Writes the snapshot of `seq` (which must be durable) atomically, then raises the
    /// watermark to it. Blocking I/O.
    pub fn write_snapshot(&self, seq: u64, state: &[u8]) -> Result<(), JournalError> {
        if let Some(reason) = self.poisoned() {
            return Err(JournalError::Poisoned { reason });
        }
        let durable = self.durable_seq();
        if seq == 0 || seq > durable {
            return Err(JournalError::invalid(format!(
                "snapshot seq {seq} must be in 1..={durable} (durable)"
            )));
        }
        snapshot::write(&self.shared.dir, self.shared.project_id, seq, state)?;
        self.shared.update_watermark(|w| w.seq = w.seq.max(seq))
    }

    /// Stops accepting, drains, appends a durable `journal.clean-shutdown`, writes the clean
    /// watermark and stops the writer thread. Closing twice is a no-op. Must not be called from
    /// a `done` callback.
    pub fn close(&self) -> Result<(), JournalError> {
        self.refuse_on_writer_thread("close")?;
        {
            let mut st = lock(&self.shared.state);
            match &st.mode {
                Mode::Poisoned(r) => {
                    let e = JournalError::Poisoned { reason: r.clone() };
                    drop(st);
                    self.stop_writer();
                    return Err(e);
                }
                Mode::Closed => return Ok(()),
                Mode::Closing => return Err(JournalError::Closed),
                Mode::Open | Mode::NeedsRebuild => st.mode = Mode::Closing,
            }
        }
        let result = self.append_internal(KIND_CLEAN_SHUTDOWN).and_then(|seq| {
            let epoch = self.shared.epoch;
            self.shared.update_watermark(|w| {
                w.clean = true;
                w.seq = seq;
                w.epoch = epoch;
            })
        });
        self.stop_writer();
        result
    }

    fn stop_writer(&self) {
        {
            let mut st = lock(&self.shared.state);
            st.stop = true;
            if !matches!(st.mode, Mode::Poisoned(_)) {
                st.mode = Mode::Closed;
            }
        }
        self.shared.work.notify_all();
        if let Some(t) = lock(&self.thread).take() {
            // The last handle may be dropped inside a done callback, on the writer thread itself:
            // then the thread exits on its own after the callback returns.
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }

    /// The poison reason, if a sync failed.
    pub fn poisoned(&self) -> Option<String> {
        match &lock(&self.shared.state).mode {
            Mode::Poisoned(r) => Some(r.clone()),
            _ => None,
        }
    }

    /// Leaves the `NeedsRebuild` state after a failed write, once the owner has rebuilt its
    /// state from disk. A no-op when the journal is open.
    pub fn resume(&self) -> Result<(), JournalError> {
        let mut st = lock(&self.shared.state);
        match &st.mode {
            Mode::NeedsRebuild => {
                st.mode = Mode::Open;
                Ok(())
            }
            Mode::Open => Ok(()),
            m => Err(m.refusal(false).unwrap_or(JournalError::Closed)),
        }
    }
}

impl Drop for Journal {
    /// Stops the writer after it drained the queue, without a clean-shutdown marker.
    fn drop(&mut self) {
        self.stop_writer();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn journal_is_send_and_sync() {
        fn is<T: Send + Sync>() {}
        is::<super::Journal>();
    }
}
