//! An RFC 4180 CSV reader: comma separator, quoted fields with doubled quotes and embedded newlines, CRLF or LF, optional UTF-8 BOM.

/// A CSV text that does not follow RFC 4180.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    #[error("line {line}: a quoted field is never closed")]
    Unterminated { line: u64 },
    #[error("line {line}: a quote inside an unquoted field, or text after a closing quote")]
    StrayQuote { line: u64 },
    #[error("the file is not UTF-8 (byte {offset})")]
    NotUtf8 { offset: usize },
}

/// Decodes bytes as UTF-8, dropping one leading BOM.
pub fn text(bytes: &[u8]) -> Result<&str, CsvError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| CsvError::NotUtf8 {
        offset: e.valid_up_to(),
    })
}

/// Calls `record` with each record's fields (borrowed where no unquoting was needed).
/// A final line break does not start an empty record; a blank line is a record of one empty field.
pub fn for_each_record(
    text: &str,
    mut record: impl FnMut(&[std::borrow::Cow<'_, str>]) -> bool,
) -> Result<(), CsvError> {
    records(text, 0, text.len(), 1, |fields| {
        let cows: Vec<std::borrow::Cow<'_, str>> = fields
            .iter()
            .map(|f| std::borrow::Cow::Borrowed(*f))
            .collect();
        record(&cows)
    })?;
    Ok(())
}

/// Calls `record` with the fields of each record that starts in `from..until` (`from` a record
/// start; a record may run past `until`), without allocating per field. Returns where the last
/// record read ended and its line; `line` is the line number at `from` (for errors).
pub fn records(
    text: &str,
    from: usize,
    until: usize,
    mut line: u64,
    mut record: impl FnMut(&[&str]) -> bool,
) -> Result<(usize, u64), CsvError> {
    let b = text.as_bytes();
    let mut i = from;
    // Field spans: in `text`, or (when unquoting was needed) in `scratch`.
    let mut spans: Vec<(bool, usize, usize)> = Vec::with_capacity(32);
    let mut scratch = String::new();
    let mut spare: Vec<&'static str> = Vec::with_capacity(32);
    while i < until.min(b.len()) {
        spans.clear();
        scratch.clear();
        loop {
            if i < b.len() && b[i] == b'"' {
                let start_line = line;
                i += 1;
                let mut seg = i;
                let mut unquoted: Option<usize> = None;
                loop {
                    let Some(q) = find_quote(b, i) else {
                        return Err(CsvError::Unterminated { line: start_line });
                    };
                    line += b[i..q].iter().filter(|&&c| c == b'\n').count() as u64;
                    if q + 1 < b.len() && b[q + 1] == b'"' {
                        unquoted.get_or_insert(scratch.len());
                        scratch.push_str(&text[seg..=q]);
                        i = q + 2;
                        seg = i;
                    } else {
                        match unquoted {
                            Some(s0) => {
                                scratch.push_str(&text[seg..q]);
                                spans.push((true, s0, scratch.len()));
                            }
                            None => spans.push((false, seg, q)),
                        }
                        i = q + 1;
                        break;
                    }
                }
                if i < b.len() && !matches!(b[i], b',' | b'\n' | b'\r') {
                    return Err(CsvError::StrayQuote { line });
                }
            } else {
                let start = i;
                i = field_end(b, i);
                if i < b.len() && b[i] == b'"' {
                    return Err(CsvError::StrayQuote { line });
                }
                spans.push((false, start, i));
            }
            if i < b.len() && b[i] == b',' {
                i += 1;
                continue;
            }
            break;
        }
        // End of record: CRLF, LF, lone CR, or end of text.
        if i < b.len() && b[i] == b'\r' {
            i += 1;
        }
        if i < b.len() && b[i] == b'\n' {
            i += 1;
        }
        line += 1;
        // Reuse one allocation for the field list across records.
        let mut fields: Vec<&str> = std::mem::take(&mut spare).into_iter().map(|_| "").collect();
        fields.extend(spans.iter().map(|&(s, a, z)| {
            if s {
                scratch.get(a..z).unwrap_or("")
            } else {
                text.get(a..z).unwrap_or("")
            }
        }));
        let go_on = record(&fields);
        fields.clear();
        spare = fields.into_iter().map(|_| "").collect();
        if !go_on {
            return Ok((i, line));
        }
    }
    Ok((i, line))
}

/// The first `,`, `\n`, `\r` or `"` at or after `i` (or the end), eight bytes at a time.
pub(super) fn field_end(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `w` equal to `c`; bits above the lowest true one may be
    // false alarms (a borrow), so only the lowest set bit is used.
    let eq = |w: u64, c: u8| {
        let x = w ^ (ONES * u64::from(c));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    while let Some(chunk) = b.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let w = u64::from_le_bytes(word);
        let hit = eq(w, b',') | eq(w, b'\n') | eq(w, b'\r') | eq(w, b'"');
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !matches!(b[i], b',' | b'\n' | b'\r' | b'"') {
        i += 1;
    }
    i
}

fn find_quote(b: &[u8], from: usize) -> Option<usize> {
    b[from..].iter().position(|&c| c == b'"').map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<Vec<String>>, CsvError> {
        let mut out = Vec::new();
        for_each_record(text(s.as_bytes())?, |f| {
            out.push(f.iter().map(|c| c.to_string()).collect());
            true
        })?;
        Ok(out)
    }

    #[test]
    fn rfc4180_quoting_newlines_bom_and_crlf() {
        assert_eq!(
            parse("\u{feff}a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",\r\n").unwrap(),
            vec![
                vec!["a", "b"],
                vec!["x,1", "say \"hi\""],
                vec!["multi\nline", ""]
            ]
        );
        assert_eq!(parse("a\nb").unwrap(), vec![vec!["a"], vec!["b"]]);
        assert_eq!(parse("").unwrap(), Vec::<Vec<String>>::new());
        assert_eq!(
            parse("a,\"b").unwrap_err(),
            CsvError::Unterminated { line: 1 }
        );
        assert_eq!(
            parse("a\nb\"c").unwrap_err(),
            CsvError::StrayQuote { line: 2 }
        );
        assert_eq!(
            parse("\"a\"b").unwrap_err(),
            CsvError::StrayQuote { line: 1 }
        );
        assert!(matches!(
            text(b"\xff"),
            Err(CsvError::NotUtf8 { offset: 0 })
        ));
    }

    proptest::proptest! {
        #[test]
        fn field_end_finds_the_first_separator(s in "[a-z,\"\r\n\u{80}-\u{ff}]{0,40}", from in 0usize..40) {
            let b = s.as_bytes();
            let from = from.min(b.len());
            let slow = b[from..]
                .iter()
                .position(|c| matches!(c, b',' | b'\n' | b'\r' | b'"'))
                .map_or(b.len(), |p| p + from);
            proptest::prop_assert_eq!(field_end(b, from), slow);
        }

        #[test]
        fn written_records_read_back(rows in proptest::collection::vec(
            proptest::collection::vec("[a-z,\"\n\r ]{0,6}", 1..5), 1..6)) {
            let mut s = String::new();
            for r in &rows {
                let fields: Vec<String> = r.iter().map(|f| format!("\"{}\"", f.replace('"', "\"\""))).collect();
                s.push_str(&fields.join(","));
                s.push_str("\r\n");
            }
            proptest::prop_assert_eq!(parse(&s).unwrap(), rows);
        }
    }
}
