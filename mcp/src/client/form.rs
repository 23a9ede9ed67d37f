//! Checks a person's typed answer to a form against the form's schema before it goes to the
//! server: each field's JSON type exactly, required fields, enum values, and the minimum /
//! maximum constraints (numbers, lengths, item counts); the first problem names its field.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::client::policy::{AnswerValue, Field, FieldKind, Question};

/// Why an answer cannot be sent, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {reason}")]
pub struct FormError {
    /// The property name.
    pub field: String,
    /// What is wrong, in words.
    pub reason: String,
}

fn bad(field: &Field, reason: impl Into<String>) -> FormError {
    FormError {
        field: field.name.clone(),
        reason: reason.into(),
    }
}

/// `value` against the field's `min_key` / `max_key` (a number, a length or a count).
fn bounds(
    field: &Field,
    value: f64,
    what: &str,
    min_key: &str,
    max_key: &str,
) -> Result<(), FormError> {
    if let Some(min) = field.schema[min_key].as_f64() {
        if value < min {
            return Err(bad(field, format!("{what} must be at least {min}")));
        }
    }
    if let Some(max) = field.schema[max_key].as_f64() {
        if value > max {
            return Err(bad(field, format!("{what} must be at most {max}")));
        }
    }
    Ok(())
}

fn offered(field: &Field, options: &[(String, String)], v: &str) -> Result<(), FormError> {
    if options.iter().any(|(o, _)| o == v) {
        return Ok(());
    }
    let list: Vec<&str> = options.iter().map(|(o, _)| o.as_str()).collect();
    Err(bad(
        field,
        format!("`{v}` is not one of {}", list.join(", ")),
    ))
}

/// One field's value, checked, as the text answer the questionnaire carries.
fn check_one(field: &Field, v: &Value) -> Result<AnswerValue, FormError> {
    match &field.kind {
        FieldKind::Text => {
            let s = v.as_str().ok_or_else(|| bad(field, "expected a string"))?;
            let chars = s.chars().count() as f64;
            bounds(field, chars, "its length", "minLength", "maxLength")?;
            Ok(AnswerValue::One(s.to_owned()))
        }
        FieldKind::Confirm => match v {
            Value::Bool(b) => Ok(AnswerValue::One(b.to_string())),
            _ => Err(bad(field, "expected true or false")),
        },
        FieldKind::Number { integer } => {
            let Value::Number(n) = v else {
                return Err(bad(
                    field,
                    if *integer {
                        "expected an integer"
                    } else {
                        "expected a number"
                    },
                ));
            };
            if *integer && !(n.is_i64() || n.is_u64()) {
                return Err(bad(field, "expected an integer"));
            }
            let f = n.as_f64().ok_or_else(|| bad(field, "expected a number"))?;
            bounds(field, f, "it", "minimum", "maximum")?;
            Ok(AnswerValue::One(n.to_string()))
        }
        FieldKind::Choice {
            options,
            multi: false,
        } => {
            let s = v
                .as_str()
                .ok_or_else(|| bad(field, "expected one of its choices"))?;
            offered(field, options, s)?;
            Ok(AnswerValue::One(s.to_owned()))
        }
        FieldKind::Choice {
            options,
            multi: true,
        } => {
            let list = v
                .as_array()
                .ok_or_else(|| bad(field, "expected a list of its choices"))?;
            let mut out = Vec::with_capacity(list.len());
            for item in list {
                let s = item
                    .as_str()
                    .ok_or_else(|| bad(field, "expected a list of its choices"))?;
                offered(field, options, s)?;
                out.push(s.to_owned());
            }
            bounds(
                field,
                out.len() as f64,
                "the number of choices",
                "minItems",
                "maxItems",
            )?;
            Ok(AnswerValue::Many(out))
        }
    }
}

/// Checks `content` (a JSON object keyed by property) against the form; the answers to send,
/// or the first field that is wrong (an unknown property, a missing required one, a wrong
/// type, a value not offered, a number, length or count out of its bounds).
pub fn check_content(
    q: &Question,
    content: &Value,
) -> Result<BTreeMap<String, AnswerValue>, FormError> {
    let empty = serde_json::Map::new();
    let object = match content {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => {
            return Err(FormError {
                field: String::new(),
                reason: "the content must be an object keyed by the form's fields".into(),
            })
        }
    };
    if let Some(unknown) = object
        .keys()
        .find(|k| !q.fields.iter().any(|f| &f.name == *k))
    {
        return Err(FormError {
            field: unknown.clone(),
            reason: "the form has no such field".into(),
        });
    }
    let mut out = BTreeMap::new();
    for field in &q.fields {
        match object.get(&field.name) {
            Some(Value::Null) | None if field.required => return Err(bad(field, "is required")),
            Some(Value::Null) | None => {}
            Some(v) => {
                out.insert(field.name.clone(), check_one(field, v)?);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::elicit::{question_from_schema, type_answers};
    use serde_json::json;

    fn form() -> Question {
        question_from_schema(
            "srv",
            "Who?",
            &json!({"type": "object", "properties": {
                "name": {"type": "string", "minLength": 2, "maxLength": 5},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "score": {"type": "number"},
                "ok": {"type": "boolean"},
                "colour": {"type": "string", "enum": ["r", "g"]},
                "tags": {"type": "array", "maxItems": 1, "items": {"enum": ["a", "b"]}}
            }, "required": ["name", "age"]}),
            &[],
        )
        .unwrap()
    }

    fn err(content: Value) -> String {
        check_content(&form(), &content).unwrap_err().to_string()
    }

    #[test]
    fn a_good_answer_keeps_its_json_types_through_the_questionnaire() {
        let q = form();
        let content = json!({"name": "Ada", "age": 36, "score": 2.5, "ok": false, "colour": "g", "tags": ["b"]});
        let answers = check_content(&q, &content).unwrap();
        assert_eq!(type_answers(&q, &answers).unwrap(), content);
    }

    #[test]
    fn each_wrong_answer_names_its_field() {
        assert_eq!(err(json!({"age": 3})), "field `name`: is required");
        assert_eq!(
            err(json!({"name": "Ada", "age": "3"})),
            "field `age`: expected an integer"
        );
        assert_eq!(
            err(json!({"name": "Ada", "age": 3.5})),
            "field `age`: expected an integer"
        );
        assert_eq!(
            err(json!({"name": "Ada", "age": 200})),
            "field `age`: it must be at most 150"
        );
        assert_eq!(
            err(json!({"name": "A", "age": 3})),
            "field `name`: its length must be at least 2"
        );
        assert_eq!(
            err(json!({"name": "Ada", "age": 3, "ok": "yes"})),
            "field `ok`: expected true or false"
        );
        assert_eq!(
            err(json!({"name": "Ada", "age": 3, "colour": "b"})),
            "field `colour`: `b` is not one of r, g"
        );
        assert_eq!(
            err(json!({"name": "Ada", "age": 3, "tags": ["a", "b"]})),
            "field `tags`: the number of choices must be at most 1"
        );
        assert_eq!(
            err(json!({"name": "Ada", "age": 3, "x": 1})),
            "field `x`: the form has no such field"
        );
    }
}
