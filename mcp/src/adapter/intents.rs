//! Managed intents (`action.submit` through the adapter): a write-once, fsynced original record
//! per `operationId` before delivery; reuse with changed input conflicts; a bounded count per
//! project/session whose exhaustion keeps the earlier records.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::fsio;
use super::refusal::Refusal;

/// Operations whose calls are managed intents.
pub const MANAGED: &[&str] = &["action.submit"];

/// The intent records of one project/session.
#[derive(Debug)]
pub struct Intents {
    dir: PathBuf,
    max: usize,
}

/// What the record says about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
    /// A new record was written; deliver.
    New,
    /// The same identity and input were recorded before; deliver again (the service answers
    /// with the original result).
    Repeat,
}

/// SHA-256 of canonical JSON (sorted keys) of the input without `projectId` and the identity.
pub fn input_digest(input: &Value, identity_field: &str) -> String {
    let mut v = input.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("projectId");
        m.remove(identity_field);
    }
    let mut out = Vec::new();
    canonical(&v, &mut out);
    rho_plumbing::sha256_hex(&out)
}

fn canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(&serde_json::to_vec(k).unwrap_or_default());
                out.push(b':');
                canonical(&m[k], out);
            }
            out.push(b'}');
        }
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(x, out);
            }
            out.push(b']');
        }
        other => out.extend_from_slice(&serde_json::to_vec(other).unwrap_or_default()),
    }
}

impl Intents {
    /// Opens the records folder.
    pub fn open(dir: PathBuf, max: usize) -> std::io::Result<Self> {
        fsio::private_dir(&dir)?;
        Ok(Self { dir, max })
    }

    fn count(&self) -> usize {
        std::fs::read_dir(&self.dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter(|e| {
                        let n = e.file_name();
                        let n = n.to_string_lossy();
                        n.ends_with(".json") && !n.starts_with('.')
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    /// Records the original intent before delivery, or checks a repeat against it.
    pub fn admit(&self, operation: &str, input: &Value) -> Result<Admitted, Refusal> {
        let Some(id) = input.get("operationId").and_then(Value::as_str) else {
            return Err(Refusal::invalid(
                "operationId",
                format!("{operation} is a managed intent and needs a caller operationId"),
            ));
        };
        let digest = input_digest(input, "operationId");
        let path = self
            .dir
            .join(format!("{}.json", rho_plumbing::sha256_hex(id.as_bytes())));
        let internal = |e: std::io::Error| {
            Refusal::new(
                "internal",
                format!("the intent record could not be written: {e}"),
                json!({}),
            )
        };
        match std::fs::read(&path) {
            Ok(bytes) => {
                let rec: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                return if rec.get("inputDigest").and_then(Value::as_str) == Some(&digest) {
                    Ok(Admitted::Repeat)
                } else {
                    Err(Refusal::new(
                        "conflict",
                        format!("operationId {id:?} was already used with a different input"),
                        json!({"operationId": id, "reason": "changed input for a recorded intent"}),
                    ))
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(internal(e)),
        }
        if self.count() >= self.max {
            return Err(Refusal::limit(
                "RHO_MAX_AGENT_INTENTS",
                self.max as u64,
                format!(
                    "this session already holds {} managed intents (the maximum); earlier intents are kept",
                    self.max
                ),
            ));
        }
        let record = json!({
            "operation": operation, "operationId": id, "inputDigest": digest, "input": input,
            "recordedAt": chrono_now(),
        });
        match fsio::write_once(&path, &serde_json::to_vec(&record).unwrap_or_default()) {
            Ok(()) => Ok(Admitted::New),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => self.admit(operation, input),
            Err(e) => Err(internal(e)),
        }
    }
}

fn chrono_now() -> u64 {
    u64::try_from(rho_plumbing::time::now_ms()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_once_repeat_conflict_and_limit() {
        let dir = tempfile::tempdir().unwrap();
        let i = Intents::open(dir.path().join("intents"), 2).unwrap();
        let a = json!({"operationId": "a", "action": "x", "projectId": "p"});
        assert_eq!(i.admit("action.submit", &a).unwrap(), Admitted::New);
        let same = json!({"action": "x", "operationId": "a"});
        assert_eq!(i.admit("action.submit", &same).unwrap(), Admitted::Repeat);
        let changed = json!({"operationId": "a", "action": "y"});
        assert_eq!(
            i.admit("action.submit", &changed).unwrap_err().code,
            "conflict"
        );
        i.admit("action.submit", &json!({"operationId": "b"}))
            .unwrap();
        let full = i
            .admit("action.submit", &json!({"operationId": "c"}))
            .unwrap_err();
        assert_eq!(full.details["limit"], "RHO_MAX_AGENT_INTENTS");
        assert_eq!(
            i.admit("action.submit", &a).unwrap(),
            Admitted::Repeat,
            "exhaustion keeps earlier intents usable"
        );
        assert_eq!(
            i.admit("action.submit", &json!({"x": 1})).unwrap_err().code,
            "invalid"
        );
    }

    #[test]
    fn digest_ignores_key_order_project_and_identity() {
        let a = input_digest(
            &json!({"b": 1, "a": {"y": 2, "x": 1}, "operationId": "1"}),
            "operationId",
        );
        let b = input_digest(
            &json!({"a": {"x": 1, "y": 2}, "b": 1, "projectId": "p"}),
            "operationId",
        );
        assert_eq!(a, b);
    }
}
