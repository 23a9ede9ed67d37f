//! Validating an object snapshot's shape and selecting from its `value` by RFC 6901 pointer.

use super::contract::ObjectReadReply;
use super::ObjectError;
use serde_json::Value;

const KEYS: [&str; 4] = ["schemaVersion", "classes", "provenance", "value"];

/// Checks RFC 6901 syntax: empty, or `/`-prefixed with `~` only in `~0` and `~1`.
fn check_pointer(p: &str) -> Result<(), ObjectError> {
    if !p.is_empty() && !p.starts_with('/') {
        return Err(ObjectError::Pointer(
            "a non-empty pointer starts with /".into(),
        ));
    }
    let b = p.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'~' && !matches!(b.get(i + 1), Some(b'0' | b'1')) {
            return Err(ObjectError::Pointer("~ is only escaped as ~0 or ~1".into()));
        }
    }
    Ok(())
}

/// Validates `bytes` as a snapshot and selects `pointer` from its value; the selection's
/// compact JSON may have at most `max_bytes` bytes.
pub fn select(bytes: &[u8], pointer: &str, max_bytes: u64) -> Result<ObjectReadReply, ObjectError> {
    check_pointer(pointer)?;
    let shape = |r: &str| ObjectError::Shape(r.to_string());
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| ObjectError::Shape(e.to_string()))?;
    let Value::Object(mut top) = doc else {
        return Err(shape("the snapshot is a JSON object"));
    };
    if let Some(k) = top.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(ObjectError::Shape(format!("unknown member {k:?}")));
    }
    if top.get("schemaVersion").and_then(Value::as_u64) != Some(1) {
        return Err(shape("schemaVersion must be 1"));
    }
    let classes = match top.remove("classes") {
        Some(Value::Array(c)) => c
            .into_iter()
            .map(|c| match c {
                Value::String(s) => Ok(s),
                _ => Err(shape("classes are strings")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(shape("classes is an array of strings")),
    };
    let Some(Value::Object(provenance)) = top.remove("provenance") else {
        return Err(shape("provenance is an object"));
    };
    let mut value = top
        .remove("value")
        .ok_or_else(|| shape("value is missing"))?;
    let selected = value
        .pointer_mut(pointer)
        .map(Value::take)
        .ok_or(ObjectError::NothingSelected)?;
    let size = serde_json::to_vec(&selected).map_or(0, |v| v.len()) as u64;
    if size > max_bytes {
        return Err(ObjectError::TooLarge {
            bytes: size,
            max: max_bytes,
        });
    }
    Ok(ObjectReadReply {
        schema_version: 1,
        classes,
        provenance,
        pointer: pointer.to_string(),
        value: selected,
        bytes: size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snap(value: Value) -> Vec<u8> {
        json!({"schemaVersion": 1, "classes": ["lm"], "provenance": {"r": "4.4.1"}, "value": value})
            .to_string()
            .into_bytes()
    }

    #[test]
    fn selects_by_pointer_with_escapes() {
        let b = snap(json!({"coef": [1.5, 2.5], "a/b": {"m~n": true}}));
        let all = select(&b, "", 1000).unwrap();
        assert_eq!(
            (all.classes.clone(), all.pointer.as_str()),
            (vec!["lm".to_string()], "")
        );
        assert_eq!(select(&b, "/coef/1", 1000).unwrap().value, json!(2.5));
        assert_eq!(select(&b, "/a~1b/m~0n", 1000).unwrap().value, json!(true));
        assert_eq!(
            select(&b, "/coef/2", 1000),
            Err(ObjectError::NothingSelected)
        );
        assert_eq!(
            select(&b, "/coef/01", 1000),
            Err(ObjectError::NothingSelected)
        );
        assert!(matches!(
            select(&b, "coef", 1000),
            Err(ObjectError::Pointer(_))
        ));
        assert!(matches!(
            select(&b, "/a~2", 1000),
            Err(ObjectError::Pointer(_))
        ));
    }

    #[test]
    fn refuses_bad_shapes_and_large_selections() {
        for bad in [
            json!([1]),
            json!({"schemaVersion": 2, "classes": [], "provenance": {}, "value": 1}),
            json!({"schemaVersion": 1, "classes": [1], "provenance": {}, "value": 1}),
            json!({"schemaVersion": 1, "classes": [], "provenance": [], "value": 1}),
            json!({"schemaVersion": 1, "classes": [], "provenance": {}}),
            json!({"schemaVersion": 1, "classes": [], "provenance": {}, "value": 1, "x": 0}),
        ] {
            let b = bad.to_string().into_bytes();
            assert!(
                matches!(select(&b, "", 100), Err(ObjectError::Shape(_))),
                "{bad}"
            );
        }
        assert!(matches!(select(b"{", "", 100), Err(ObjectError::Shape(_))));
        let b = snap(json!({"big": "x".repeat(200), "small": 1}));
        assert_eq!(
            select(&b, "/big", 100),
            Err(ObjectError::TooLarge {
                bytes: 202,
                max: 100
            })
        );
        assert_eq!(select(&b, "/small", 100).unwrap().bytes, 1);
    }
}
