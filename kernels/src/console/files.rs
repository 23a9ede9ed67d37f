//! The Console guard's files under `<project>/.rho/plugins/console/<commandId>/`: names, the
//! framed output format, the guard and exit records, and the process start-time check.
//!
//! `output` holds the kept head as frames (`stream byte`, `u32 LE length`, bytes) in the order
//! the guard read them. Once the head is full, frames are appended to `tail`, whose header is
//! the output offset of its first byte (`u64 LE`) and the bytes kept from the end (`u64 LE`);
//! when it grows past [`tail_slack`] it is compacted (temp -> rename) to its last bytes, and at
//! the end to exactly those. Offsets count every byte the command wrote (both streams), so a
//! byte keeps its offset while the tail moves (decision 0604). `guard.json` is written once the
//! command started, `exit.json` once it ended; neither is fsynced (decision 0607).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Frame tag of a stdout chunk.
pub const STDOUT: u8 = b'o';
/// Frame tag of a stderr chunk.
pub const STDERR: u8 = b'e';

/// The folder of one command's files.
pub fn record_dir(project: &Path, command_id: &str) -> PathBuf {
    project
        .join(".rho")
        .join("plugins")
        .join("console")
        .join(command_id)
}

pub fn output_path(dir: &Path) -> PathBuf {
    dir.join("output")
}
pub fn tail_path(dir: &Path) -> PathBuf {
    dir.join("tail")
}
pub fn guard_path(dir: &Path) -> PathBuf {
    dir.join("guard.json")
}
pub fn exit_path(dir: &Path) -> PathBuf {
    dir.join("exit.json")
}
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("guard.log")
}

/// Who runs the command: the guard and the command (its pid leads its process group), each
/// with its start time in clock ticks since boot (so a reused pid is not mistaken for it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardRecord {
    pub guard_pid: i32,
    pub guard_start: u64,
    pub pid: i32,
    pub pid_start: u64,
    pub started_at_ms: i64,
}

/// How the command ended and how much it wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitRecord {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub ended_at_ms: i64,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub omitted_bytes: u64,
    /// Why the guard could not run the command, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Replaces `path` through a temporary file and a rename, without fsync: every file of the guard
/// is a report to the service, which journals the facts (the journal is what is durable); a
/// machine crash ends the command too, and a record whose end was not journaled reads `unknown`
/// after it (decision 0607).
pub fn write_replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

pub fn read_guard(dir: &Path) -> Option<GuardRecord> {
    read_json(&guard_path(dir))
}

pub fn read_exit(dir: &Path) -> Option<ExitRecord> {
    read_json(&exit_path(dir))
}

/// One chunk of output as read from a frames file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub stream: u8,
    pub bytes: Vec<u8>,
}

/// Appends one frame to `out`.
pub fn frame(out: &mut Vec<u8>, stream: u8, bytes: &[u8]) {
    out.push(stream);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The complete frames of `bytes` (a torn last frame, still being written, is left out).
pub fn parse_frames(bytes: &[u8]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut at = 0usize;
    while at + 5 <= bytes.len() {
        let mut len = [0u8; 4];
        len.copy_from_slice(&bytes[at + 1..at + 5]);
        let n = u32::from_le_bytes(len) as usize;
        let Some(end) = (at + 5).checked_add(n).filter(|e| *e <= bytes.len()) else {
            break;
        };
        chunks.push(Chunk {
            stream: bytes[at],
            bytes: bytes[at + 5..end].to_vec(),
        });
        at = end;
    }
    chunks
}

/// The kept head's chunks.
pub fn read_head(dir: &Path) -> Vec<Chunk> {
    std::fs::read(output_path(dir))
        .map(|b| parse_frames(&b))
        .unwrap_or_default()
}

/// Bytes a live `tail` file may hold past the kept `keep` before it is compacted.
pub fn tail_slack(keep: u64) -> u64 {
    keep.max(1 << 20)
}

/// The `tail` file's header: the output offset of its first byte and the bytes kept.
pub fn tail_header(start: u64, keep: u64) -> [u8; 16] {
    let mut h = [0u8; 16];
    h[..8].copy_from_slice(&start.to_le_bytes());
    h[8..].copy_from_slice(&keep.to_le_bytes());
    h
}

/// A read of the `tail` file: where its bytes start, how many are kept, its chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    pub start: u64,
    pub keep: u64,
    pub chunks: Vec<Chunk>,
}

impl Tail {
    /// The offset just past its last byte.
    pub fn end(&self) -> u64 {
        self.start
            + self
                .chunks
                .iter()
                .map(|c| c.bytes.len() as u64)
                .sum::<u64>()
    }
    /// Where the kept tail starts: the last `keep` bytes of what the file holds.
    pub fn kept_start(&self) -> u64 {
        self.start.max(self.end().saturating_sub(self.keep))
    }
}

/// The tail, when the head was exceeded.
pub fn read_tail(dir: &Path) -> Option<Tail> {
    let bytes = std::fs::read(tail_path(dir)).ok()?;
    let word = |at: usize| -> Option<u64> {
        let mut w = [0u8; 8];
        w.copy_from_slice(bytes.get(at..at + 8)?);
        Some(u64::from_le_bytes(w))
    };
    Some(Tail {
        start: word(0)?,
        keep: word(8)?,
        chunks: parse_frames(&bytes[16..]),
    })
}

/// The start time (clock ticks since boot) of a live, not-zombie process `pid`.
pub fn proc_start(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // rest[0] is field 3 (state); starttime is field 22.
    if matches!(fields.first(), Some(&"Z") | Some(&"X")) {
        return None;
    }
    fields.get(19)?.parse().ok()
}

/// Whether `pid` is alive and is the process that started at `start`.
pub fn is_same_process(pid: i32, start: u64) -> bool {
    pid > 0 && proc_start(pid) == Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_a_torn_frame_is_left_out() {
        let mut b = Vec::new();
        frame(&mut b, STDOUT, b"one");
        frame(&mut b, STDERR, b"two");
        let whole = b.len();
        frame(&mut b, STDOUT, b"three");
        let chunks = parse_frames(&b[..b.len() - 2]);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1].stream, STDERR);
        assert_eq!(chunks[1].bytes, b"two");
        assert_eq!(parse_frames(&b[..whole]).len(), 2);
        assert_eq!(parse_frames(&b).len(), 3);
    }

    #[test]
    fn this_process_is_itself_and_a_wrong_start_is_not() {
        let me = std::process::id() as i32;
        let start = proc_start(me).unwrap();
        assert!(is_same_process(me, start));
        assert!(!is_same_process(me, start + 1));
    }
}
