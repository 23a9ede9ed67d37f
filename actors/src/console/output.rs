//! Pages of a command's kept output, read from its guard's files: the head's chunks, then the
//! cut (with the omitted count) and the tail's chunks; offsets count every byte written.

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
///
/// Offsets count every byte the command wrote; the head is `[0, h)`, the kept tail the last
/// bytes the tail file holds. A read that reaches the head's end, or starts between the head
/// and the kept tail (bytes no longer kept), gets the cut with the count between them and goes
/// on at the kept tail's start (decision 0604).
pub fn page(dir: &Path, offset: u64, max: u64) -> Page {
    let head = files::read_head(dir);
    let tail = files::read_tail(dir);
    let h: u64 = head.iter().map(|c| c.bytes.len() as u64).sum();
    let end = tail.as_ref().map_or(h, |t| t.end().max(h));
    let mut pieces = Vec::new();
    let mut room = max;
    let mut next = offset.min(end);
    if next < h {
        next = take(&head, 0, next, &mut room, &mut pieces);
    }
    if let Some(t) = &tail {
        let kept = t.kept_start().max(h);
        if next >= h && (next < kept || (offset <= h && room > 0)) {
            pieces.push(Piece::Cut { omitted: kept - h });
            next = kept;
        }
        if next >= kept {
            next = take(&t.chunks, t.start, next, &mut room, &mut pieces);
        }
    }
    Page {
        pieces,
        next_offset: next,
        size: end,
    }
}

/// The offset just past the last byte written so far (what `console.changed` reports).
pub fn end(dir: &Path) -> u64 {
    page(dir, u64::MAX, 0).size
}

#[cfg(test)]
mod tests {
    use super::*;

    type Frames<'a> = &'a [(u8, &'a [u8])];

    /// The head's frames and the tail file's (start, keep, frames).
    fn write(dir: &Path, head: Frames<'_>, tail: Option<(u64, u64, Frames<'_>)>) {
        let mut b = Vec::new();
        for (s, x) in head {
            files::frame(&mut b, *s, x);
        }
        std::fs::write(files::output_path(dir), b).unwrap();
        if let Some((start, keep, chunks)) = tail {
            let mut b = files::tail_header(start, keep).to_vec();
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
            Some((12, 2, &[(b'o', b"xy")])),
        );
        let p1 = page(d.path(), 0, 4);
        assert_eq!(p1.next_offset, 4);
        assert_eq!(p1.size, 14);
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
        assert_eq!(p2.next_offset, 14);
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
        let p3 = page(d.path(), 14, 64);
        assert!(p3.pieces.is_empty());
        assert_eq!(p3.next_offset, 14);
    }

    #[test]
    fn a_live_tail_keeps_offsets_and_a_reader_left_behind_gets_the_cut_again() {
        let d = tempfile::tempdir().unwrap();
        // The tail file holds 4 bytes from offset 12 but keeps 2: offsets 12..14 are gone.
        write(
            d.path(),
            &[(b'o', b"abc"), (b'e', b"de")],
            Some((12, 2, &[(b'o', b"xy"), (b'e', b"zw")])),
        );
        assert_eq!(end(d.path()), 16);
        let behind = page(d.path(), 13, 64);
        assert_eq!(
            behind.pieces,
            vec![
                Piece::Cut { omitted: 9 },
                Piece::Bytes {
                    stderr: true,
                    bytes: b"zw".to_vec()
                },
            ]
        );
        assert_eq!(behind.next_offset, 16);
        let current = page(d.path(), 14, 1);
        assert_eq!(
            current.pieces,
            vec![Piece::Bytes {
                stderr: true,
                bytes: b"z".to_vec()
            }]
        );
        assert_eq!(current.next_offset, 15);
        // Before any tail byte exists past the head, reaching the head's end shows a cut of 0.
        write(d.path(), &[(b'o', b"abc")], Some((3, 2, &[])));
        let p = page(d.path(), 0, 64);
        assert_eq!(p.pieces.last(), Some(&Piece::Cut { omitted: 0 }));
        assert_eq!((p.next_offset, p.size), (3, 3));
    }
}
