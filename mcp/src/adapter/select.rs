//! Selections inside a retained result: an RFC 6901 pointer, a page of a container, or a range of
//! a string in UTF-16 code units that never splits a character.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::refusal::Refusal;

/// A page of an array (items) or an object (entries in key order).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// First item.
    pub offset: usize,
    /// Items at most.
    pub limit: usize,
}

/// A range of a string in UTF-16 code units, `start` inclusive, `end` exclusive.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TextRange {
    /// First code unit.
    pub start: usize,
    /// One past the last code unit.
    pub end: usize,
}

/// What to select.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// JSON pointer (`""` is the whole result).
    pub pointer: Option<String>,
    /// A container page at the pointer.
    pub page: Option<Page>,
    /// A text range of the string at the pointer.
    pub text_range: Option<TextRange>,
}

/// The selected part of `value`, as the object `rho_read` returns.
pub fn select(value: &Value, sel: &Selection) -> Result<Value, Refusal> {
    let pointer = sel.pointer.clone().unwrap_or_default();
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(Refusal::invalid(
            "pointer",
            "a JSON pointer is empty or starts with '/'",
        ));
    }
    let target = value
        .pointer(&pointer)
        .ok_or_else(|| Refusal::not_found(format!("pointer {pointer:?} in the result")))?;
    match (sel.page, sel.text_range) {
        (Some(_), Some(_)) => Err(Refusal::invalid(
            "page",
            "give either page or textRange, not both",
        )),
        (Some(page), None) => page_of(target, page).map(|mut v| {
            v["pointer"] = json!(pointer);
            v
        }),
        (None, Some(range)) => {
            let Value::String(s) = target else {
                return Err(Refusal::invalid(
                    "textRange",
                    format!("the value at {pointer:?} is {}, not a string", kind(target)),
                ));
            };
            let (text, start, end, total) = utf16_range(s, range)?;
            Ok(json!({
                "pointer": pointer, "text": text, "start": start, "end": end, "total": total,
                "nextStart": if end < total { json!(end) } else { Value::Null },
            }))
        }
        (None, None) => Ok(json!({"pointer": pointer, "value": target})),
    }
}

fn page_of(target: &Value, page: Page) -> Result<Value, Refusal> {
    if page.limit == 0 {
        return Err(Refusal::invalid("page.limit", "must be positive"));
    }
    let next = |total: usize| {
        let end = page.offset.saturating_add(page.limit);
        if end < total {
            json!(end)
        } else {
            Value::Null
        }
    };
    match target {
        Value::Array(items) => {
            let slice: Vec<&Value> = items.iter().skip(page.offset).take(page.limit).collect();
            Ok(
                json!({"items": slice, "offset": page.offset, "total": items.len(), "nextOffset": next(items.len())}),
            )
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let entries: Map<String, Value> = keys
                .into_iter()
                .skip(page.offset)
                .take(page.limit)
                .map(|k| (k.clone(), map[k].clone()))
                .collect();
            Ok(
                json!({"entries": entries, "offset": page.offset, "total": map.len(), "nextOffset": next(map.len())}),
            )
        }
        other => Err(Refusal::invalid(
            "page",
            format!(
                "pages need an array or an object, the value is {}",
                kind(other)
            ),
        )),
    }
}

/// The JSON type name of a value.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A short description of a value that does not fit: its type, its size, and what to page.
pub fn outline(v: &Value) -> Value {
    match v {
        Value::Array(a) => json!({"type": "array", "length": a.len()}),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let shown: Vec<Value> = keys
                .iter()
                .take(64)
                .map(|k| json!({"key": k, "type": kind(&m[*k])}))
                .collect();
            json!({"type": "object", "length": m.len(), "keys": shown})
        }
        Value::String(s) => json!({"type": "string", "utf16Length": s.encode_utf16().count()}),
        other => json!({"type": kind(other)}),
    }
}

/// The text between two UTF-16 offsets; a boundary inside a surrogate pair moves back to the
/// pair's start, so no character is ever split. Returns `(text, start, end, total)`.
pub fn utf16_range(s: &str, range: TextRange) -> Result<(String, usize, usize, usize), Refusal> {
    let total: usize = s.chars().map(char::len_utf16).sum();
    if range.start > range.end {
        return Err(Refusal::invalid("textRange", "start is after end"));
    }
    if range.start > total {
        return Err(Refusal::invalid(
            "textRange.start",
            format!(
                "{} is past the text's {total} UTF-16 code units",
                range.start
            ),
        ));
    }
    let end_wanted = range.end.min(total);
    let (mut start_byte, mut start_u16) = (s.len(), total);
    let (mut end_byte, mut end_u16) = (s.len(), total);
    let mut found_start = false;
    let mut u16_at = 0usize;
    for (byte, ch) in s.char_indices() {
        let next = u16_at + ch.len_utf16();
        if !found_start && next > range.start {
            (start_byte, start_u16, found_start) = (byte, u16_at, true);
        }
        if next > end_wanted {
            (end_byte, end_u16) = (byte, u16_at);
            break;
        }
        u16_at = next;
    }
    if end_u16 < start_u16 {
        end_u16 = start_u16;
        end_byte = start_byte;
    }
    Ok((
        s[start_byte..end_byte].to_string(),
        start_u16,
        end_u16,
        total,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str, start: usize, end: usize) -> (String, usize, usize, usize) {
        utf16_range(s, TextRange { start, end }).unwrap()
    }

    #[test]
    fn ascii_and_bmp_ranges() {
        assert_eq!(r("hello", 1, 3), ("el".into(), 1, 3, 5));
        assert_eq!(r("héllo", 0, 2), ("hé".into(), 0, 2, 5));
        assert_eq!(r("abc", 2, 99), ("c".into(), 2, 3, 3));
        assert_eq!(r("abc", 3, 3), ("".into(), 3, 3, 3));
    }

    #[test]
    fn surrogate_pairs_are_never_split() {
        // "a😀b": a=0, 😀=1..3, b=3 (total 4)
        let s = "a😀b";
        assert_eq!(r(s, 0, 4), (s.into(), 0, 4, 4));
        assert_eq!(
            r(s, 2, 4),
            ("😀b".into(), 1, 4, 4),
            "start inside the pair moves back"
        );
        assert_eq!(
            r(s, 0, 2),
            ("a".into(), 0, 1, 4),
            "end inside the pair moves back"
        );
        assert_eq!(r(s, 2, 2), ("".into(), 1, 1, 4));
        assert!(utf16_range(s, TextRange { start: 5, end: 6 }).is_err());
        assert!(utf16_range(s, TextRange { start: 3, end: 1 }).is_err());
    }

    #[test]
    fn pointers_pages_and_text() {
        let v = json!({"rows": [1, 2, 3, 4, 5], "meta": {"b": 1, "a": 2}, "text": "x😀y"});
        let page = select(
            &v,
            &Selection {
                pointer: Some("/rows".into()),
                page: Some(Page {
                    offset: 3,
                    limit: 10,
                }),
                text_range: None,
            },
        )
        .unwrap();
        assert_eq!(page["items"], json!([4, 5]));
        assert_eq!(page["nextOffset"], Value::Null);
        let first = select(
            &v,
            &Selection {
                pointer: Some("/rows".into()),
                page: Some(Page {
                    offset: 0,
                    limit: 2,
                }),
                text_range: None,
            },
        )
        .unwrap();
        assert_eq!(
            (first["total"].clone(), first["nextOffset"].clone()),
            (json!(5), json!(2))
        );
        let obj = select(
            &v,
            &Selection {
                pointer: Some("/meta".into()),
                page: Some(Page {
                    offset: 0,
                    limit: 1,
                }),
                text_range: None,
            },
        )
        .unwrap();
        assert_eq!(obj["entries"], json!({"a": 2}));
        let text = select(
            &v,
            &Selection {
                pointer: Some("/text".into()),
                page: None,
                text_range: Some(TextRange { start: 1, end: 3 }),
            },
        )
        .unwrap();
        assert_eq!(text["text"], json!("😀"));
        assert_eq!(text["nextStart"], json!(3));
        let missing = select(
            &v,
            &Selection {
                pointer: Some("/nope".into()),
                ..Selection::default()
            },
        );
        assert_eq!(missing.unwrap_err().code, "not_found");
        let bad = select(
            &v,
            &Selection {
                pointer: Some("rows".into()),
                ..Selection::default()
            },
        );
        assert_eq!(bad.unwrap_err().code, "invalid");
        let not_text = select(
            &v,
            &Selection {
                pointer: Some("/rows".into()),
                page: None,
                text_range: Some(TextRange { start: 0, end: 1 }),
            },
        );
        assert_eq!(not_text.unwrap_err().code, "invalid");
    }
}
