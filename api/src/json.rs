//! Request bodies: strict JSON into a typed request, with the failing field's path in `invalid`.

use crate::envelope::ApiError;
use serde::de::DeserializeOwned;

/// Parses `body` as `T`. An empty body reads as `{}`. Malformed JSON, trailing data, unknown
/// fields, wrong types and lone surrogate escapes are `invalid` with `details.field` (the JSON
/// path, when there is one) and `details.reason`.
pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    let mut de = serde_json::Deserializer::from_slice(body);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let syntax = inner.is_syntax() || inner.is_eof();
        let reason = if syntax {
            format!("the request body is not valid JSON: {inner}")
        } else {
            format!("the request does not match the operation's schema: {inner}")
        };
        // A syntax error is the body's as a whole; a path segment serde could not name is "?".
        let field = (!syntax && path != "." && !path.contains('?')).then_some(path);
        ApiError::invalid(field.as_deref(), reason)
    })?;
    de.end()
        .map_err(|e| ApiError::invalid(None, format!("the request body is not valid JSON: {e}")))?;
    Ok(value)
}

/// The body's top-level `projectId`, if it is an object with a string there.
pub fn project_id(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Scoped {
        #[serde(rename = "projectId")]
        project_id: Option<String>,
    }
    serde_json::from_slice::<Scoped>(body).ok()?.project_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Req {
        name: String,
        items: Option<Vec<Item>>,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        n: u32,
    }

    fn field(body: &str) -> (Option<String>, String) {
        let e = parse::<Req>(body.as_bytes()).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid");
        (
            e.details["field"].as_str().map(str::to_string),
            e.details["reason"].as_str().unwrap().to_string(),
        )
    }

    #[test]
    fn every_bad_input_names_its_field() {
        assert_eq!(field(r#"{"name": 3}"#).0.as_deref(), Some("name"));
        assert_eq!(
            field(r#"{"name": "a", "items": [{"n": 1}, {"n": "x"}]}"#)
                .0
                .as_deref(),
            Some("items[1].n")
        );
        let (f, reason) = field(r#"{"name": "a", "extra": 1}"#);
        assert_eq!(f.as_deref(), Some("extra"), "{reason}");
        assert!(reason.contains("unknown field"), "{reason}");
        assert!(field(r#"{"name": "a""#).1.contains("not valid JSON"));
        assert!(field(r#"{"name": "a"} x"#).1.contains("not valid JSON"));
        for lone in [
            r#"{"name": "\ud800"}"#,
            r#"{"name": "\udc00x"}"#,
            r#"{"name": "a\ud800\u0041"}"#,
        ] {
            let (_, r) = field(lone);
            assert!(r.contains("not valid JSON"), "{lone}: {r}");
        }
        assert!(field("").1.contains("missing field"));
        assert!(parse::<Req>(br#"{"name": "\ud83d\ude00"}"#).is_ok());
    }

    #[test]
    fn project_id_is_read_leniently() {
        assert_eq!(
            project_id(br#"{"projectId": "p", "x": [1]}"#).as_deref(),
            Some("p")
        );
        assert_eq!(project_id(br#"{"x": 1}"#), None);
        assert_eq!(project_id(b"[1]"), None);
    }
}
