//! `rho_call`: a granted operation with a cached complete contract and its guidance, its input
//! checked against the contract's closed schema, the project injected, the contract hash sent as
//! `Rho-Contract`; large replies retained, lost mutating replies answered `unknown`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::core::{lock, parse_args, Adapter};
use super::intents::MANAGED;
use super::limits;
use super::refusal::{self, Refusal};
use super::select::outline;
use super::service::Outcome;

/// Input fields that carry a caller identity (CONVENTIONS.md "Identity, versions, idempotency").
pub const IDENTITY_FIELDS: &[&str] = &[
    "operationId",
    "changeId",
    "exportId",
    "observationId",
    "importId",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CallArgs {
    operation: String,
    #[serde(default)]
    input: Option<Value>,
    max_bytes: Option<u64>,
}

/// The operation's identity as a refusal names it: its name and identity fields.
pub fn identity(operation: &str, input: &Value) -> Value {
    let mut out = Map::new();
    out.insert("operation".into(), json!(operation));
    for f in IDENTITY_FIELDS {
        if let Some(v) = input.get(*f) {
            out.insert((*f).to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// The input schema inside a contract body.
fn input_schema(body: &Value) -> Option<&Value> {
    ["request", "input", "inputSchema"]
        .iter()
        .find_map(|k| body.get(*k).filter(|s| s.is_object() || s.is_boolean()))
}

/// Checks `input` against a compiled schema; `invalid` names the first failing pointer.
pub fn check_input(validator: &jsonschema::Validator, input: &Value) -> Result<(), Refusal> {
    if input.get("projectId").is_some() {
        return Err(Refusal::invalid(
            "input/projectId",
            "the project is injected by the adapter; input must not carry projectId",
        ));
    }
    match validator.iter_errors(input).next() {
        None => Ok(()),
        Some(e) => {
            let at = e.instance_path().as_str().to_owned();
            Err(Refusal::invalid(
                &format!("input{at}"),
                format!("does not match the operation's schema: {e}"),
            ))
        }
    }
}

impl Adapter {
    fn validator(
        &self,
        reference: &str,
        schema: &Value,
    ) -> Result<Arc<jsonschema::Validator>, Refusal> {
        if let Some(v) = lock(&self.validators).get(reference) {
            return Ok(Arc::clone(v));
        }
        let v = Arc::new(jsonschema::validator_for(schema).map_err(|e| {
            Refusal::new(
                "unavailable",
                format!("the cached contract's schema cannot be used: {e}"),
                json!({"reason": "schema"}),
            )
        })?);
        lock(&self.validators).insert(reference.to_string(), Arc::clone(&v));
        Ok(v)
    }

    /// Everything checked locally before dispatch: `(contract hash, effect)`.
    fn admit(&self, operation: &str, input: &Value) -> Result<(String, String), Refusal> {
        let (contract, skill) = {
            let mut k = lock(&self.store.knowledge);
            let contract = k.contract_for(operation);
            let skill = contract.as_ref().and_then(|c| k.skill_for(operation, c));
            (contract, skill)
        };
        let Some(contract) = contract else {
            return Err(Refusal::new(
                "invalid",
                format!("no complete contract of {operation} is cached; call rho_resolve {{operations:[{operation:?}]}} first"),
                json!({"field": "operation", "reason": "contract-missing", "operation": operation}),
            ));
        };
        if skill.is_none() {
            return Err(Refusal::new(
                "invalid",
                format!("the guidance (skill) for {operation} is not cached; call rho_resolve {{operations:[{operation:?}]}} first"),
                json!({"field": "operation", "reason": "guidance-missing", "operation": operation}),
            ));
        }
        let Some(schema) = input_schema(&contract.body) else {
            return Err(Refusal::new(
                "invalid",
                format!("the cached contract of {operation} has no input schema; resolve it again"),
                json!({"field": "operation", "reason": "schema-missing", "operation": operation}),
            ));
        };
        let validator = self.validator(&contract.reference, schema)?;
        check_input(&validator, input)?;
        lock(&self.store.results).check_capacity()?;
        if MANAGED.contains(&operation) {
            self.store.intents.admit(operation, input)?;
        }
        let hash = contract
            .body
            .get("hash")
            .and_then(Value::as_str)
            .filter(|h| h.starts_with("sha256:"))
            .unwrap_or(&contract.reference)
            .to_string();
        let effect = contract
            .body
            .get("effect")
            .and_then(Value::as_str)
            .unwrap_or("write")
            .to_string();
        Ok((hash, effect))
    }

    /// `rho_call`.
    pub async fn call(&self, args: Value) -> Result<Value, Refusal> {
        let a: CallArgs = parse_args(args)?;
        let max = limits::page_bytes(a.max_bytes)?;
        let input = a.input.unwrap_or_else(|| json!({}));
        if !input.is_object() {
            return Err(Refusal::invalid("input", "must be an object"));
        }
        let (hash, effect) = match self.admit(&a.operation, &input) {
            Ok(x) => x,
            Err(r) => {
                self.report_refusal(&a.operation, &r).await;
                return Err(r);
            }
        };
        let mut body = input.clone();
        body["projectId"] = json!(self.project_id());
        let outcome = self
            .service
            .post(
                &a.operation,
                &body,
                Some(&hash),
                self.limits.max_result_bytes,
            )
            .await;
        let who = identity(&a.operation, &input);
        match outcome {
            Outcome::Reply(env) => self.answer(&a.operation, &who, env, max),
            Outcome::NotDelivered(reason) => Err(Refusal::unreachable(reason)),
            Outcome::Lost(reason) if effect == "read" => Err(Refusal::unreachable(reason)),
            Outcome::Lost(reason) => Err(Refusal::new(
                "unknown",
                format!("the reply of {} was lost; its outcome is unknown and the adapter will not retry it. Look it up by its identity before calling again.", a.operation),
                json!({"operation": a.operation, "identity": who, "reason": reason}),
            )),
            Outcome::TooLarge(bytes) => Err(Refusal::new(
                "limit",
                format!("{} ran, but its reply ({bytes}+ bytes) is over RHO_MAX_RESULT_BYTES; it is not run again", a.operation),
                json!({"limit": "RHO_MAX_RESULT_BYTES", "value": self.limits.max_result_bytes, "identity": who, "ran": true}),
            )),
        }
    }

    fn answer(&self, operation: &str, who: &Value, env: Value, max: u64) -> Result<Value, Refusal> {
        if env.get("ok").and_then(Value::as_bool) != Some(true) {
            let r = Refusal::from_error(env.get("error").unwrap_or(&Value::Null));
            // Only the contract precondition's `stale` (it names the current contract) drops the
            // cached contract; an edit's `stale` for an older expectedVersion leaves it.
            if r.code == "stale" && r.details.get("currentHash").is_some() {
                let mut k = lock(&self.store.knowledge);
                k.supersede_contract(operation);
                self.store.save_knowledge(&k);
            }
            return Err(r);
        }
        let value = env.get("value").cloned().unwrap_or(Value::Null);
        let inline = refusal::ok(value);
        let text = serde_json::to_vec(&inline).unwrap_or_default();
        if text.len() as u64 <= max {
            return Ok(inline);
        }
        let value = &inline["value"];
        let bytes = serde_json::to_vec(value).unwrap_or_default();
        let kept = lock(&self.store.results)
            .retain(operation, who, &bytes)
            .map_err(|r| {
                r.with_detail("identity", who.clone())
                    .with_detail("ran", json!(true))
            })?;
        Ok(json!({
            "ok": true,
            "retained": {
                "ref": kept.reference, "bytes": kept.bytes, "operation": operation,
                "outline": outline(value),
                "read": "rho_read {ref, pointer?, page?:{offset,limit}, textRange?:{start,end}, release?}",
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator() -> jsonschema::Validator {
        jsonschema::validator_for(&json!({
            "type": "object", "additionalProperties": false,
            "properties": {"path": {"type": ["string", "null"]}, "cursor": {"type": ["string", "null"]}},
        }))
        .unwrap()
    }

    #[test]
    fn closed_schema_checks_input() {
        let v = validator();
        check_input(&v, &json!({"path": "data"})).unwrap();
        let wrong = check_input(&v, &json!({"path": 3})).unwrap_err();
        assert_eq!(wrong.details["field"], "input/path");
        assert_eq!(
            check_input(&v, &json!({"extra": 1})).unwrap_err().code,
            "invalid"
        );
        let project = check_input(&v, &json!({"projectId": "p"})).unwrap_err();
        assert_eq!(project.details["field"], "input/projectId");
    }

    #[test]
    fn identity_names_the_operation_and_its_identity_fields() {
        assert_eq!(
            identity(
                "document.edit",
                &json!({"changeId": "c", "documentId": "d"})
            ),
            json!({"operation": "document.edit", "changeId": "c"})
        );
    }

    #[test]
    fn input_schema_is_found_under_request() {
        assert!(input_schema(&json!({"request": {"type": "object"}})).is_some());
        assert!(input_schema(&json!({"response": {}})).is_none());
    }
}
