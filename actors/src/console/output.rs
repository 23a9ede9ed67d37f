//! Pages of a command's kept output, read from its guard's files: the head's chunks, then the
//! cut (with the omitted count) and the tail's chunks; offsets count kept bytes.

use rho_kernels::console::files::{self, Chunk, STDERR};
use std::path::Path;

/// One piece of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Bytes { stderr: bool, bytes: Vec<u8> },
    Cut { omitted: u64 },
}

/// One page: its pieces, where the next starts and how much is kept in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub pieces: Vec<Piece>,
    pub next_offset: u64,
    pub size: u64,
}

fn take(chunks: &[Chunk], base: u64, offset: u64, room: &mut u64, out: &mut Vec<Piece>) -> u64 {
    let mut at = base;
    let mut next = offset.max(base);
    for c in chunks {
        let (start, end) = (at, at + c.bytes.len() as u64);
        at = end;
        if end <= next || *room == 0 {
            continue;
        }
        let from = (next - start) as usize;
        let n = ((end - next).min(*room)) as usize;
        out.push(Piece::Bytes {
            stderr: c.stream == STDERR,
            bytes: c.bytes[from..from + n].to_vec(),
        });
        *room -= n as u64;
        next += n as u64;
    }
    next
}

/// The page of at most `max` bytes from `offset` of the command whose files are in `dir`.
pub fn page(dir: &Path, offset: u64, max: u64) -> Page {
    let head = files::read_head(dir);
    let tail = files::read_tail(dir);
    let h: u64 = head.iter().map(|c| c.bytes.len() as u64).sum();
    let t: u64 = tail
        .as_ref()
        .map_or(0, |(_, c)| c.iter().map(|c| c.bytes.len() as u64).sum());
    let mut pieces = Vec::new();
    let mut room = max;
    let mut next = offset.min(h + t);
    if next < h {
        next = take(&head, 0, next, &mut room, &mut pieces);
    }
    if let Some((omitted, chunks)) = &tail {
        if next == h && offset <= h && (room > 0 || t == 0) {
            pieces.push(Piece::Cut { omitted: *omitted });
        }
        if next >= h {
            next = take(chunks, h, next, &mut room, &mut pieces);
        }
    }
    Page {
        pieces,
        next_offset: next,
        size: h + t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Frames<'a> = &'a [(u8, &'a [u8])];

    fn write(dir: &Path, head: Frames<'_>, tail: Option<(u64, Frames<'_>)>) {
        let mut b = Vec::new();
        for (s, x) in head {
            files::frame(&mut b, *s, x);
        }
        std::fs::write(files::output_path(dir), b).unwrap();
        if let Some((omitted, chunks)) = tail {
            let mut b = omitted.to_le_bytes().to_vec();
            for (s, x) in chunks {
                files::frame(&mut b, *s, x);
            }
            std::fs::write(files::tail_path(dir), b).unwrap();
        }
    }

    #[test]
    fn pages_split_chunks_keep_streams_and_show_the_cut_once() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            &[(b'o', b"abc"), (b'e', b"de")],
            Some((7, &[(b'o', b"xy")])),
        );
        let p1 = page(d.path(), 0, 4);
        assert_eq!(p1.next_offset, 4);
        assert_eq!(p1.size, 7);
        assert_eq!(
            p1.pieces,
            vec![
                Piece::Bytes {
                    stderr: false,
                    bytes: b"abc".to_vec()
                },
                Piece::Bytes {
                    stderr: true,
                    bytes: b"d".to_vec()
                },
            ]
        );
        let p2 = page(d.path(), 4, 64);
        assert_eq!(p2.next_offset, 7);
        assert_eq!(
            p2.pieces,
            vec![
                Piece::Bytes {
                    stderr: true,
                    bytes: b"e".to_vec()
                },
                Piece::Cut { omitted: 7 },
                Piece::Bytes {
                    stderr: false,
                    bytes: b"xy".to_vec()
                },
            ]
        );
        let p3 = page(d.path(), 7, 64);
        assert!(p3.pieces.is_empty());
        assert_eq!(p3.next_offset, 7);
    }
}
