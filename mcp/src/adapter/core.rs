//! The adapter's shared state (connection, store, limits, compiled schemas) and the two knowledge
//! tools: `rho_index` and `rho_resolve` over `capability.index` / `capability.resolve`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::{json, Value};

use super::knowledge::{Body, Kept, OpRefs};
use super::limits::{self, Limits, MAX_KNOWN_REFS, MAX_RESOLVE_OPERATIONS};
use super::refusal::{self, Refusal};
use super::service::{Outcome, ServiceClient};
use super::store::Store;

/// One adapter process: the connection, its store and its limits.
#[derive(Debug)]
pub struct Adapter {
    /// The service.
    pub service: ServiceClient,
    /// The per-connection store.
    pub store: Store,
    /// Limits from the environment.
    pub limits: Limits,
    /// Compiled input schemas by contract reference.
    pub(super) validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// Locks a mutex, taking the data of a poisoned one (its holders never leave it half-updated).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Parses tool arguments into their typed form (`invalid` naming the problem).
pub(super) fn parse_args<T: for<'de> Deserialize<'de>>(args: Value) -> Result<T, Refusal> {
    serde_json::from_value(args).map_err(|e| Refusal::invalid("arguments", e.to_string()))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct IndexArgs {
    owner: Option<String>,
    search: Option<String>,
    cursor: Option<String>,
    max_bytes: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ResolveArgs {
    operations: Vec<Value>,
    known_refs: Option<Vec<Value>>,
    cursor: Option<String>,
    max_bytes: Option<u64>,
}

fn strings(field: &str, values: Vec<Value>) -> Result<Vec<String>, Refusal> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s),
            _ => Err(Refusal::invalid(
                &format!("{field}/{i}"),
                "must be a string",
            )),
        })
        .collect()
}

impl Adapter {
    /// The grant's project id.
    pub fn project_id(&self) -> String {
        self.service.connection().project_id
    }

    /// Sends a knowledge or ordinary request and returns the envelope's value (or its error).
    pub(super) async fn request(
        &self,
        operation: &str,
        body: Value,
        contract: Option<&str>,
    ) -> Result<Value, Refusal> {
        match self
            .service
            .post(operation, &body, contract, self.limits.max_result_bytes)
            .await
        {
            Outcome::Reply(env) => envelope_value(env),
            Outcome::NotDelivered(reason) | Outcome::Lost(reason) => {
                Err(Refusal::unreachable(reason))
            }
            Outcome::TooLarge(bytes) => Err(Refusal::limit(
                "RHO_MAX_RESULT_BYTES",
                self.limits.max_result_bytes,
                format!(
                    "the service's {operation} reply ({bytes}+ bytes) is over RHO_MAX_RESULT_BYTES"
                ),
            )),
        }
    }

    /// Records a call the adapter refused locally as the Agent's activity (best effort: a
    /// service that cannot be reached is logged, the refusal still goes to the client).
    pub(super) async fn report_refusal(&self, operation: &str, refusal: &Refusal) {
        let body = json!({
            "projectId": self.project_id(),
            "operation": operation,
            "refusal": {"code": refusal.code, "reason": refusal.message.chars().take(1000).collect::<String>()},
        });
        if let Err(e) = self.request("activity.report", body, None).await {
            tracing::warn!(target: "rho::mcp::adapter", operation, error = %e, "could not report a local refusal");
        }
    }

    /// `rho_index`.
    pub async fn index(&self, args: Value) -> Result<Value, Refusal> {
        let a: IndexArgs = parse_args(args)?;
        let max = limits::page_bytes(a.max_bytes)?;
        let mut body = json!({"projectId": self.project_id(), "maxBytes": max});
        for (k, v) in [
            ("owner", a.owner),
            ("search", a.search),
            ("cursor", a.cursor),
        ] {
            if let Some(v) = v {
                body[k] = json!(v);
            }
        }
        let value = self.request("capability.index", body, None).await?;
        if let Some(ops) = value.get("operations").and_then(Value::as_array) {
            let mut k = lock(&self.store.knowledge);
            for op in ops {
                let Some(name) = op.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let r = |key: &str| {
                    op.get(key)
                        .and_then(|c| c.get("ref"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                k.note_operation(
                    name,
                    OpRefs {
                        contract: r("contract"),
                        skill: r("skill"),
                        ..OpRefs::default()
                    },
                );
            }
            self.store.save_knowledge(&k);
        }
        Ok(refusal::ok(value))
    }

    /// `rho_resolve`.
    pub async fn resolve(&self, args: Value) -> Result<Value, Refusal> {
        let a: ResolveArgs = parse_args(args)?;
        let known_count = a.known_refs.as_ref().map_or(0, Vec::len);
        if a.operations.len() > MAX_RESOLVE_OPERATIONS || known_count > MAX_KNOWN_REFS {
            let (field, key, max, n) = if a.operations.len() > MAX_RESOLVE_OPERATIONS {
                (
                    "operations",
                    "layeredGrantLimits.maxEntries",
                    MAX_RESOLVE_OPERATIONS,
                    a.operations.len(),
                )
            } else {
                (
                    "knownRefs",
                    "layeredGrantLimits.maxKnownRefs",
                    MAX_KNOWN_REFS,
                    known_count,
                )
            };
            let r = Refusal::limit(
                key,
                max as u64,
                format!("{n} {field} is over the maximum of {max}; ask for fewer"),
            );
            self.report_refusal("capability.resolve", &r).await;
            return Err(r);
        }
        if a.operations.is_empty() {
            return Err(Refusal::invalid(
                "operations",
                "name at least one operation",
            ));
        }
        let operations = strings("operations", a.operations)?;
        let known = strings("knownRefs", a.known_refs.unwrap_or_default())?;
        let max = limits::page_bytes(a.max_bytes)?;
        // Only bodies this adapter itself holds complete may be omitted.
        let held: Vec<String> = {
            let k = lock(&self.store.knowledge);
            known.into_iter().filter(|r| k.holds(r)).collect()
        };
        let mut body = json!({
            "projectId": self.project_id(), "operations": operations, "maxBytes": max,
        });
        if !held.is_empty() {
            body["knownRefs"] = json!(held);
        }
        if let Some(c) = a.cursor {
            body["cursor"] = json!(c);
        }
        let value = self.request("capability.resolve", body, None).await?;
        if let Some(objects) = value.get("objects").and_then(Value::as_array) {
            let mut k = lock(&self.store.knowledge);
            let mut changed = false;
            for o in objects {
                if o.get("kind").and_then(Value::as_str) == Some("skill") {
                    if let Some(reference) = o.get("ref").and_then(Value::as_str) {
                        for op in &operations {
                            k.note_resolved_skill(op, reference);
                        }
                        changed = true;
                    }
                }
                let (Some(reference), Some(kind), Some(name), Some(b)) = (
                    o.get("ref").and_then(Value::as_str),
                    o.get("kind").and_then(Value::as_str),
                    o.get("name").and_then(Value::as_str),
                    o.get("body"),
                ) else {
                    continue;
                };
                let kept = k.insert(Body {
                    reference: reference.to_string(),
                    kind: kind.to_string(),
                    name: name.to_string(),
                    body: b.clone(),
                });
                if let Kept::OverBudget = kept {
                    tracing::debug!(target: "rho::mcp::adapter", reference, "body over the knowledge budget; returned, not cached");
                }
                changed = true;
            }
            if changed {
                self.store.save_knowledge(&k);
            }
        }
        Ok(refusal::ok(value))
    }
}

/// The `value` of an ok envelope, or its error as a refusal.
pub(super) fn envelope_value(env: Value) -> Result<Value, Refusal> {
    if env.get("ok").and_then(Value::as_bool) == Some(true) {
        Ok(env.get("value").cloned().unwrap_or(Value::Null))
    } else {
        Err(Refusal::from_error(
            env.get("error").unwrap_or(&Value::Null),
        ))
    }
}
