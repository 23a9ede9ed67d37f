//! An incremental server-sent events parser: bytes in, `(event, data)` records out.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Feeds on chunks as they arrive; a record is dispatched at its blank line.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

/// The longest line accepted (a provider's event is far smaller).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

impl SseParser {
    /// Adds a chunk; returns the events it completed. `Err` when a line grows past
    /// [`MAX_LINE`] or is not UTF-8.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(pos) = self.buf[start..].iter().position(|b| *b == b'\n') {
            let end = start + pos;
            let mut line = &self.buf[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = std::str::from_utf8(line)
                .map_err(|_| "an event line is not UTF-8".to_owned())?
                .to_owned();
            start = end + 1;
            if let Some(e) = self.line(&line) {
                out.push(e);
            }
        }
        self.buf.drain(..start);
        if self.buf.len() > MAX_LINE {
            return Err(format!("an event line is longer than {MAX_LINE} bytes"));
        }
        Ok(out)
    }

    /// Dispatches what is pending at the end of the stream (a last record without its blank line).
    pub fn finish(&mut self) -> Option<SseEvent> {
        let rest = std::mem::take(&mut self.buf);
        if let Ok(line) = std::str::from_utf8(&rest) {
            let line = line.trim_end_matches('\r').to_owned();
            if !line.is_empty() {
                self.line(&line);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => self.data.push(value.to_owned()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if self.data.is_empty() {
            return None;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        Some(SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks_and_crlf() {
        let mut p = SseParser::default();
        assert!(p.feed(b"event: a\r\nda").unwrap().is_empty());
        let got = p
            .feed(b"ta: {\"x\":1}\r\n\r\n: comment\n\ndata: one\ndata: two\n\n")
            .unwrap();
        assert_eq!(
            got,
            vec![
                SseEvent {
                    event: Some("a".into()),
                    data: "{\"x\":1}".into()
                },
                SseEvent {
                    event: None,
                    data: "one\ntwo".into()
                }
            ]
        );
        assert!(p.feed(b"data: [DONE]").unwrap().is_empty());
        assert_eq!(p.finish().unwrap().data, "[DONE]");
    }
}
