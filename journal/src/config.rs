//! Journal tuning knobs (`JournalConfig`) and their defaults.

/// Size bounds of a journal. The defaults are the numbers of the design (`journal.*` limits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalConfig {
    /// Roll to a new segment when the current one would exceed this many bytes (64 MiB).
    pub segment_bytes: u64,
    /// Largest frame (header + body + padding) accepted (4 MiB).
    pub max_record_bytes: u32,
    /// Flush a group commit at about this many records (64).
    pub group_max_records: usize,
    /// Flush a group commit at about this many bytes (256 KiB).
    pub group_max_bytes: usize,
}

impl Default for JournalConfig {
    fn default() -> Self {
        JournalConfig {
            segment_bytes: 64 * 1024 * 1024,
            max_record_bytes: 4 * 1024 * 1024,
            group_max_records: 64,
            group_max_bytes: 256 * 1024,
        }
    }
}
