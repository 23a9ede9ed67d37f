//! The public value types of the journal: entity references, records, batch results and reports,
//! and the identity (kind, principal, clock) of the journal's own records.

use uuid::Uuid;

use crate::error::JournalError;

/// Entity kind of the journal's own records (entity id = project id).
pub const INTERNAL_ENTITY_KIND: &str = "journal";
/// Principal of the journal's own records.
pub(crate) const INTERNAL_PRINCIPAL: &str = "rho-journal";

/// Unix time in milliseconds (the time stamp of the journal's own records).
pub(crate) use rho_plumbing::time::now_ms;
/// Event kind appended when a writer epoch starts (create and every open for writing).
pub const KIND_OPENED: &str = "journal.opened";
/// Event kind appended on a segment roll; its seq becomes the watermark.
pub const KIND_CHECKPOINT: &str = "journal.checkpoint";
/// Event kind appended by `close`; its seq becomes the clean watermark.
pub const KIND_CLEAN_SHUTDOWN: &str = "journal.clean-shutdown";

/// A reference to one entity: a short ASCII kind (1..=32 bytes) and a UUID.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityRef {
    /// Entity kind, e.g. `project`, `document`; ASCII graphic characters, 1..=32 bytes.
    pub kind: String,
    /// Entity id.
    pub id: Uuid,
}

/// A record to append; the journal assigns its seq, entity seq and epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRecord {
    /// The entity this event belongs to.
    pub entity: EntityRef,
    /// Wall-clock time, unix milliseconds.
    pub time_ms: i64,
    /// Who did it.
    pub principal: String,
    /// The caller's change identity, if any.
    pub change_id: Option<String>,
    /// Event kind, 1..=64 bytes of UTF-8.
    pub kind: String,
    /// Version of the codec that encoded `payload`.
    pub codec: u8,
    /// Opaque encoded event.
    pub payload: Vec<u8>,
}

/// A record read back from the journal, with its position on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Global seq, contiguous from 1.
    pub seq: u64,
    /// Segment number holding the frame.
    pub segment: u64,
    /// Byte offset of the frame in its segment file.
    pub offset: u64,
    /// Frame size in bytes, padding included.
    pub bytes: u32,
    /// Writer epoch that wrote it.
    pub epoch: u64,
    /// Last frame of its write (one group commit): the write is durable as a whole.
    pub write_end: bool,
    /// The entity.
    pub entity: EntityRef,
    /// Per-entity seq, contiguous from 1.
    pub entity_seq: u64,
    /// Unix milliseconds.
    pub time_ms: i64,
    /// Who did it.
    pub principal: String,
    /// The caller's change identity, if any.
    pub change_id: Option<String>,
    /// Event kind.
    pub kind: String,
    /// Codec version of the payload.
    pub codec: u8,
    /// Encoded event.
    pub payload: Vec<u8>,
}

impl Record {
    /// True for the journal's own records (`journal.opened`, `journal.checkpoint`,
    /// `journal.clean-shutdown`), which carry no project event.
    pub fn is_internal(&self) -> bool {
        self.entity.kind == INTERNAL_ENTITY_KIND
    }
}

/// Seqs assigned to a submitted batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assigned {
    /// Seq of the batch's first record.
    pub first_seq: u64,
    /// Seq of the batch's last record.
    pub last_seq: u64,
    /// Entity seq of each record, in submit order.
    pub entity_seqs: Vec<u64>,
}

/// Completion of a submitted batch: `Ok(last seq of the batch)` once durable, or the error.
pub type DoneFn = Box<dyn FnOnce(Result<u64, JournalError>) + Send + 'static>;

/// Completion of `when_durable`.
pub type WaitFn = Box<dyn FnOnce(Result<(), JournalError>) + Send + 'static>;

/// A torn tail found (and truncated) by `open`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// Segment number.
    pub segment: u64,
    /// Offset where the torn bytes started (the file now ends here).
    pub offset: u64,
    /// How many bytes were cut.
    pub bytes: u64,
}

/// What `open` found and did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenReport {
    /// The torn tail that was truncated, if any.
    pub torn_tail: Option<TornTail>,
    /// Last seq found on disk, before this open's `journal.opened` record.
    pub last_seq: u64,
    /// The new writer epoch.
    pub epoch: u64,
    /// Whether the previous writer closed cleanly.
    pub was_clean: bool,
    /// Number of segment files.
    pub segments: usize,
    /// Number of records found on disk (internal ones included), before `journal.opened`.
    pub records: u64,
}
