//! Questions from a server (`elicitation/create`): the schema -> form mapping, typing the
//! text answers back to the schema's JSON types, and accept / decline / cancel.

use serde_json::{Map, Value};

use crate::client::budget::Budget;
use crate::client::policy::{Answer, AnswerValue, Field, FieldKind, Policies, Question};

/// What the server is told.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Accepted with typed content.
    Accept(Value),
    /// Declined (could not ask, could not render, could not type, URL mode).
    Decline,
    /// The person dismissed the form (also ends the turn).
    Cancel,
}

fn help_of(p: &Value) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(d) = p["description"].as_str() {
        parts.push(d.to_owned());
    }
    for key in [
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "format",
        "pattern",
    ] {
        if let Some(v) = p.get(key) {
            parts.push(format!("{key}: {v}"));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn choices(p: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = p["enum"].as_array() {
        let names = p["enumNames"].as_array();
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let v = v.as_str()?.to_owned();
                let label = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .map_or_else(|| v.clone(), str::to_owned);
                Some((v, label))
            })
            .collect();
    }
    let list = p["oneOf"].as_array().or_else(|| p["anyOf"].as_array())?;
    list.iter()
        .map(|o| {
            let v = o["const"].as_str()?.to_owned();
            let label = o["title"].as_str().map_or_else(|| v.clone(), str::to_owned);
            Some((v, label))
        })
        .collect()
}

fn kind_of(p: &Value) -> Option<FieldKind> {
    match p["type"].as_str() {
        Some("boolean") => Some(FieldKind::Confirm),
        Some("number") => Some(FieldKind::Number { integer: false }),
        Some("integer") => Some(FieldKind::Number { integer: true }),
        Some("array") => Some(FieldKind::Choice {
            options: choices(&p["items"])?,
            multi: true,
        }),
        Some("string") | None => match choices(p) {
            Some(options) => Some(FieldKind::Choice {
                options,
                multi: false,
            }),
            None if p.get("enum").is_some() || p.get("oneOf").is_some() => None,
            None => Some(FieldKind::Text),
        },
        _ => None,
    }
}

/// A request as wire JSON, and its schema's property names in the order the server sent them
/// (rmcp keeps that order; a `serde_json` map sorts its keys, so it travels beside the JSON).
pub fn wire_params(request: &rmcp::model::ElicitRequestParams) -> (Value, Vec<String>) {
    let order = match request {
        rmcp::model::ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => requested_schema.property_order.clone().unwrap_or_default(),
        _ => Vec::new(),
    };
    (serde_json::to_value(request).unwrap_or_default(), order)
}

/// The form for a schema, its fields in `order` (the server's property order; names it does
/// not list follow by name); `None` when it cannot be rendered whole (no properties, an enum
/// with no values, an unknown field type).
pub fn question_from_schema(
    server: &str,
    message: &str,
    schema: &Value,
    order: &[String],
) -> Option<Question> {
    let props = schema["properties"].as_object().filter(|p| !p.is_empty())?;
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let listed = order
        .iter()
        .filter_map(|n| props.get_key_value(n.as_str()))
        .collect::<Vec<_>>();
    let rest = props.iter().filter(|(n, _)| !order.contains(n));
    let mut fields = Vec::new();
    for (name, p) in listed.into_iter().chain(rest) {
        let kind = kind_of(p)?;
        if let FieldKind::Choice { options, .. } = &kind {
            if options.is_empty() {
                return None;
            }
        }
        fields.push(Field {
            name: name.clone(),
            title: p["title"].as_str().unwrap_or(name).to_owned(),
            help: help_of(p),
            kind,
            required: required.contains(&name.as_str()),
            default: p.get("default").cloned(),
            schema: p.clone(),
        });
    }
    Some(Question {
        server: server.to_owned(),
        message: message.to_owned(),
        fields,
    })
}

fn type_one(kind: &FieldKind, answer: &AnswerValue) -> Option<Value> {
    let one = |a: &AnswerValue| match a {
        AnswerValue::One(s) => Some(s.clone()),
        AnswerValue::Many(v) if v.len() == 1 => Some(v[0].clone()),
        AnswerValue::Many(_) => None,
    };
    match kind {
        FieldKind::Text => one(answer).map(Value::String),
        FieldKind::Confirm => match one(answer)?.trim().to_ascii_lowercase().as_str() {
            "yes" | "y" | "true" => Some(Value::Bool(true)),
            "no" | "n" | "false" => Some(Value::Bool(false)),
            _ => None,
        },
        FieldKind::Number { integer: true } => {
            one(answer)?.trim().parse::<i64>().ok().map(Value::from)
        }
        FieldKind::Number { integer: false } => {
            let f = one(answer)?.trim().parse::<f64>().ok()?;
            serde_json::Number::from_f64(f).map(Value::Number)
        }
        FieldKind::Choice { options, multi } => {
            let valid = |v: &String| options.iter().any(|(o, _)| o == v);
            if *multi {
                let values = match answer {
                    AnswerValue::One(s) => vec![s.clone()],
                    AnswerValue::Many(v) => v.clone(),
                };
                values
                    .iter()
                    .all(valid)
                    .then(|| Value::Array(values.into_iter().map(Value::String).collect()))
            } else {
                one(answer).filter(valid).map(Value::String)
            }
        }
    }
}

/// Types text answers to the schema; `None` (decline) when any cannot carry its type or a
/// required field is missing.
pub fn type_answers(
    q: &Question,
    answers: &std::collections::BTreeMap<String, AnswerValue>,
) -> Option<Value> {
    let mut out = Map::new();
    for f in &q.fields {
        match answers.get(&f.name) {
            Some(a) => {
                out.insert(f.name.clone(), type_one(&f.kind, a)?);
            }
            None if f.required => return None,
            None => {}
        }
    }
    Some(Value::Object(out))
}

/// Runs one elicitation (params in wire JSON) through the responder, with the call's budget
/// paused while the form is open.
pub async fn elicit(
    policies: &Policies,
    server: &str,
    (params, order): (&Value, &[String]),
    budget: Option<&Budget>,
) -> Outcome {
    let Some(responder) = &policies.responder else {
        return Outcome::Decline;
    };
    if params["mode"] == "url" || params.get("url").is_some() {
        return Outcome::Decline;
    }
    let message = params["message"].as_str().unwrap_or("");
    let Some(question) = question_from_schema(server, message, &params["requestedSchema"], order)
    else {
        return Outcome::Decline;
    };
    let _paused = budget.map(Budget::pause);
    match responder.ask(question.clone()).await {
        Answer::Submitted(answers) => match type_answers(&question, &answers) {
            Some(content) => Outcome::Accept(content),
            None => Outcome::Decline,
        },
        Answer::Dismissed => Outcome::Cancel,
        Answer::Declined | Answer::Unavailable => Outcome::Decline,
    }
}

/// The wire `ElicitResult` for an outcome.
pub fn result_json(outcome: &Outcome) -> Value {
    match outcome {
        Outcome::Accept(c) => serde_json::json!({"action": "accept", "content": c}),
        Outcome::Decline => serde_json::json!({"action": "decline"}),
        Outcome::Cancel => serde_json::json!({"action": "cancel"}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 2},
                "age": {"type": "integer"},
                "score": {"type": "number"},
                "ok": {"type": "boolean", "default": true},
                "colour": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b"}]}}
            },
            "required": ["name", "age"]
        })
    }

    fn ans(pairs: &[(&str, &str)]) -> BTreeMap<String, AnswerValue> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), AnswerValue::One(v.to_string())))
            .collect()
    }

    #[test]
    fn schema_maps_to_fields_with_help_and_defaults() {
        let q = question_from_schema("srv", "Who?", &schema(), &[]).unwrap();
        let f = |n: &str| q.fields.iter().find(|f| f.name == n).unwrap().clone();
        assert_eq!(f("name").help.as_deref(), Some("minLength: 2"));
        assert!(f("name").required);
        assert_eq!(f("ok").kind, FieldKind::Confirm);
        assert_eq!(f("ok").default, Some(json!(true)));
        assert_eq!(
            f("colour").kind,
            FieldKind::Choice {
                options: vec![("r".into(), "Red".into()), ("g".into(), "Green".into())],
                multi: false
            }
        );
        assert!(matches!(
            f("tags").kind,
            FieldKind::Choice { multi: true, .. }
        ));
        assert_eq!(f("age").kind, FieldKind::Number { integer: true });
    }

    #[test]
    fn answers_keep_their_json_types() {
        let q = question_from_schema("srv", "Who?", &schema(), &[]).unwrap();
        let mut a = ans(&[
            ("name", "Ada"),
            ("age", "36"),
            ("score", "2.5"),
            ("ok", "no"),
            ("colour", "g"),
        ]);
        a.insert(
            "tags".into(),
            AnswerValue::Many(vec!["a".into(), "b".into()]),
        );
        assert_eq!(
            type_answers(&q, &a).unwrap(),
            json!({"name": "Ada", "age": 36, "score": 2.5, "ok": false, "colour": "g", "tags": ["a", "b"]})
        );
    }

    #[test]
    fn untypable_or_missing_answers_decline() {
        let q = question_from_schema("srv", "Who?", &schema(), &[]).unwrap();
        assert_eq!(
            type_answers(&q, &ans(&[("name", "Ada"), ("age", "3.5")])),
            None
        );
        assert_eq!(type_answers(&q, &ans(&[("name", "Ada")])), None);
        assert_eq!(
            type_answers(&q, &ans(&[("name", "A"), ("age", "3"), ("colour", "blue")])),
            None
        );
        assert_eq!(
            type_answers(&q, &ans(&[("name", "A"), ("age", "3"), ("ok", "maybe")])),
            None
        );
    }

    #[test]
    fn unrenderable_schemas_are_declined_whole() {
        assert!(
            question_from_schema("s", "m", &json!({"type": "object", "properties": {}}), &[])
                .is_none()
        );
        assert!(question_from_schema(
            "s",
            "m",
            &json!({"properties": {"x": {"type": "string", "enum": []}}}),
            &[]
        )
        .is_none());
        assert!(question_from_schema(
            "s",
            "m",
            &json!({"properties": {"x": {"type": "object"}}}),
            &[]
        )
        .is_none());
    }

    #[test]
    fn fields_keep_the_servers_property_order() {
        let raw = r#"{"mode": "form", "message": "Who?", "requestedSchema": {"type": "object",
            "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"},
            "mid": {"type": "boolean"}}, "required": ["alpha"]}}"#;
        let request: rmcp::model::ElicitRequestParams = serde_json::from_str(raw).unwrap();
        let (params, order) = wire_params(&request);
        assert_eq!(order, ["zeta", "alpha", "mid"]);
        let q = question_from_schema("s", "m", &params["requestedSchema"], &order).unwrap();
        let names: Vec<&str> = q.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
        // Without an order (or a name it does not list) the rest follow by name.
        let q =
            question_from_schema("s", "m", &params["requestedSchema"], &["mid".into()]).unwrap();
        let names: Vec<&str> = q.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["mid", "alpha", "zeta"]);
    }
}
