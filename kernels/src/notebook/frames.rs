//! Splits a runner's stdout into printed text and protocol frames. A frame is
//! `STX "RHO" <nonce> "#" <seq> " " <json> ETX`: the runner prints it on the same stream as the
//! cell's own output, so an answer always lands after the text printed before it.

/// One piece of the stream, in order.
#[derive(Debug, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Frame { seq: u64, json: String },
}

/// An incremental splitter: feed it bytes as they are read.
pub(crate) struct Splitter {
    marker: Vec<u8>,
    buf: Vec<u8>,
}

const ETX: u8 = 0x03;

impl Splitter {
    pub(crate) fn new(nonce: &str) -> Self {
        let mut marker = vec![0x02];
        marker.extend_from_slice(b"RHO");
        marker.extend_from_slice(nonce.as_bytes());
        marker.push(b'#');
        Self {
            marker,
            buf: Vec::new(),
        }
    }

    /// Appends `bytes` and returns every piece now complete. Text that may be the start of a
    /// marker, or an incomplete UTF-8 character, waits for more bytes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<Piece> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        loop {
            match find(&self.buf, &self.marker) {
                Some(at) => {
                    if at > 0 {
                        let text: Vec<u8> = self.buf.drain(..at).collect();
                        out.push(Piece::Text(String::from_utf8_lossy(&text).into_owned()));
                    }
                    let Some(end) = self.buf.iter().position(|b| *b == ETX) else {
                        return out;
                    };
                    let frame: Vec<u8> = self.buf.drain(..=end).collect();
                    let body = &frame[self.marker.len()..frame.len() - 1];
                    let text = String::from_utf8_lossy(body);
                    let (seq, json) = text.split_once(' ').unwrap_or((&text, ""));
                    out.push(Piece::Frame {
                        seq: seq.parse().unwrap_or(0),
                        json: json.to_string(),
                    });
                }
                None => {
                    let keep = self.held_back();
                    let upto = self.buf.len() - keep;
                    if upto > 0 {
                        let text: Vec<u8> = self.buf.drain(..upto).collect();
                        out.push(Piece::Text(String::from_utf8_lossy(&text).into_owned()));
                    }
                    return out;
                }
            }
        }
    }

    /// What is left at the end of the stream, as text.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.buf.is_empty() {
            return None;
        }
        let rest = std::mem::take(&mut self.buf);
        Some(String::from_utf8_lossy(&rest).into_owned())
    }

    /// How many trailing bytes may still become a marker or complete a UTF-8 character.
    fn held_back(&self) -> usize {
        let b = &self.buf;
        if let Some(stx) = b.iter().rposition(|c| *c == 0x02) {
            if self.marker.starts_with(&b[stx..]) {
                return b.len() - stx;
            }
        }
        incomplete_utf8_tail(b)
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The length of an unfinished UTF-8 sequence at the end of `b` (0 when it ends cleanly).
fn incomplete_utf8_tail(b: &[u8]) -> usize {
    for back in 1..=3.min(b.len()) {
        let c = b[b.len() - back];
        if c & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for the lead
        }
        let need = if c >= 0xF0 {
            4
        } else if c >= 0xE0 {
            3
        } else if c >= 0xC0 {
            2
        } else {
            1
        };
        return if need > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn text_and_frames_keep_their_order_across_split_reads() {
        let mut s = Splitter::new("n1");
        let all = "a\u{e9}b\u{2}RHOn1#1 {\"t\":1}\u{3}tail";
        let mut pieces = Vec::new();
        for b in all.as_bytes() {
            pieces.extend(s.feed(&[*b]));
        }
        let text: String = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Text(t) => Some(t.as_str()),
                Piece::Frame { .. } => None,
            })
            .collect();
        assert_eq!(text, "a\u{e9}btail");
        let frames: Vec<&Piece> = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Frame { .. }))
            .collect();
        assert_eq!(
            frames,
            vec![&Piece::Frame {
                seq: 1,
                json: "{\"t\":1}".into()
            }]
        );
        let before = pieces
            .iter()
            .position(|p| matches!(p, Piece::Frame { .. }))
            .unwrap();
        assert!(pieces[..before]
            .iter()
            .all(|p| matches!(p, Piece::Text(t) if !t.contains("tail"))));
    }

    #[test]
    fn a_stray_stx_that_is_no_marker_is_text() {
        let mut s = Splitter::new("n1");
        let p = s.feed(b"x\x02y");
        assert_eq!(p, vec![Piece::Text("x\u{2}y".into())]);
    }
}
