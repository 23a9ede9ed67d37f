//! The knowledge cache: complete immutable contract and skill bodies by `sha256:` reference,
//! bounded by count and serialized bytes, least recently used evicted first; plus which contract
//! and skill the index named for each operation.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One complete body (`kind` is `contract` or `skill`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// `sha256:<hex>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `contract` or `skill`.
    pub kind: String,
    /// The operation (contract) or owner (skill) it describes.
    pub name: String,
    /// The body itself.
    pub body: Value,
}

impl Body {
    fn bytes(&self) -> u64 {
        serde_json::to_vec(&self.body).map_or(u64::MAX, |b| b.len() as u64)
    }
}

/// The references the index gave for one operation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpRefs {
    /// Its contract's reference.
    #[serde(default)]
    pub contract: Option<String>,
    /// Its owner's skill reference.
    #[serde(default)]
    pub skill: Option<String>,
    /// Skills `capability.resolve` returned in selections that named this operation.
    #[serde(default)]
    pub resolved_skills: Vec<String>,
}

/// What the cache keeps on disk (bodies oldest use first).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Persisted {
    /// Bodies, least recently used first.
    pub bodies: Vec<Body>,
    /// Operation name -> references.
    pub operations: BTreeMap<String, OpRefs>,
}

/// The cache.
#[derive(Debug)]
pub struct Knowledge {
    max_entries: usize,
    max_bytes: u64,
    bodies: HashMap<String, (Body, u64)>,
    /// Least recently used first.
    order: Vec<String>,
    bytes: u64,
    operations: BTreeMap<String, OpRefs>,
}

/// Whether a fetched body was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Kept complete; these references were evicted for it.
    Yes(Vec<String>),
    /// Larger than the whole budget: returned to the caller, not kept.
    OverBudget,
}

impl Knowledge {
    /// An empty cache with these bounds.
    pub fn new(max_entries: usize, max_bytes: u64) -> Self {
        Self {
            max_entries,
            max_bytes,
            bodies: HashMap::new(),
            order: Vec::new(),
            bytes: 0,
            operations: BTreeMap::new(),
        }
    }

    /// A cache refilled from its persisted form (bodies beyond today's bounds are dropped).
    pub fn restore(max_entries: usize, max_bytes: u64, p: Persisted) -> Self {
        let mut k = Self::new(max_entries, max_bytes);
        for body in p.bodies {
            let _ = k.insert(body);
        }
        k.operations = p.operations;
        k
    }

    /// The persisted form.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            bodies: self
                .order
                .iter()
                .filter_map(|r| self.bodies.get(r).map(|(b, _)| b.clone()))
                .collect(),
            operations: self.operations.clone(),
        }
    }

    /// Number of bodies and their serialized bytes.
    pub fn usage(&self) -> (usize, u64) {
        (self.bodies.len(), self.bytes)
    }

    /// Keeps a complete body, evicting least recently used ones to make room. A newer body of
    /// the same kind and name supersedes the older one.
    pub fn insert(&mut self, body: Body) -> Kept {
        let size = body.bytes();
        if size > self.max_bytes || self.max_entries == 0 {
            return Kept::OverBudget;
        }
        if self.bodies.contains_key(&body.reference) {
            self.touch(&body.reference);
            return Kept::Yes(Vec::new());
        }
        let superseded: Vec<String> = self
            .bodies
            .values()
            .filter(|(b, _)| b.kind == body.kind && b.name == body.name)
            .map(|(b, _)| b.reference.clone())
            .collect();
        let mut evicted = Vec::new();
        for r in superseded {
            self.remove(&r);
            evicted.push(r);
        }
        while self.bodies.len() + 1 > self.max_entries || self.bytes + size > self.max_bytes {
            let Some(oldest) = self.order.first().cloned() else {
                break;
            };
            self.remove(&oldest);
            evicted.push(oldest);
        }
        self.order.push(body.reference.clone());
        self.bytes += size;
        self.bodies.insert(body.reference.clone(), (body, size));
        Kept::Yes(evicted)
    }

    fn touch(&mut self, reference: &str) {
        if let Some(i) = self.order.iter().position(|r| r == reference) {
            let r = self.order.remove(i);
            self.order.push(r);
        }
    }

    /// Whether the body is held complete (does not count as a use).
    pub fn holds(&self, reference: &str) -> bool {
        self.bodies.contains_key(reference)
    }

    /// The body, marked as just used.
    pub fn get(&mut self, reference: &str) -> Option<Body> {
        let body = self.bodies.get(reference).map(|(b, _)| b.clone())?;
        self.touch(reference);
        Some(body)
    }

    /// Drops a body (evicted, superseded or released).
    pub fn remove(&mut self, reference: &str) {
        if let Some((_, size)) = self.bodies.remove(reference) {
            self.bytes -= size;
            self.order.retain(|r| r != reference);
        }
    }

    /// Records the references the index named for an operation.
    pub fn note_operation(&mut self, name: &str, refs: OpRefs) {
        let entry = self.operations.entry(name.to_string()).or_default();
        entry.contract = refs.contract;
        entry.skill = refs.skill;
    }

    /// Records a skill that a resolve selection naming `operation` returned.
    pub fn note_resolved_skill(&mut self, operation: &str, skill: &str) {
        let entry = self.operations.entry(operation.to_string()).or_default();
        if !entry.resolved_skills.iter().any(|s| s == skill) {
            entry.resolved_skills.push(skill.to_string());
            if entry.resolved_skills.len() > 16 {
                entry.resolved_skills.remove(0);
            }
        }
    }

    /// The cached complete contract of an operation (the one the index named, else the cached
    /// contract body of that name).
    pub fn contract_for(&mut self, operation: &str) -> Option<Body> {
        let named = self
            .operations
            .get(operation)
            .and_then(|o| o.contract.clone())
            .filter(|r| self.holds(r));
        let reference = named.or_else(|| {
            self.bodies
                .values()
                .find(|(b, _)| b.kind == "contract" && b.name == operation)
                .map(|(b, _)| b.reference.clone())
        })?;
        self.get(&reference)
    }

    /// The cached skill relevant to an operation: the one the index named for it, the one its
    /// contract names, or the skill of its contract's owner.
    pub fn skill_for(&mut self, operation: &str, contract: &Body) -> Option<Body> {
        let mut candidates: Vec<String> = Vec::new();
        if let Some(o) = self.operations.get(operation) {
            candidates.extend(o.skill.clone());
        }
        for key in ["skill", "skillRef"] {
            match contract.body.get(key) {
                Some(Value::String(r)) => candidates.push(r.clone()),
                Some(Value::Object(o)) => {
                    if let Some(r) = o.get("ref").and_then(Value::as_str) {
                        candidates.push(r.to_string());
                    }
                }
                _ => {}
            }
        }
        if let Some(o) = self.operations.get(operation) {
            candidates.extend(o.resolved_skills.iter().cloned());
        }
        if let Some(reference) = candidates.into_iter().find(|r| self.holds(r)) {
            return self.get(&reference);
        }
        let owner = contract.body.get("owner").and_then(Value::as_str)?;
        let reference = self
            .bodies
            .values()
            .find(|(b, _)| b.kind == "skill" && b.name == owner)
            .map(|(b, _)| b.reference.clone())?;
        self.get(&reference)
    }

    /// Forgets the contract of an operation (the service says it changed).
    pub fn supersede_contract(&mut self, operation: &str) {
        let refs: Vec<String> = self
            .bodies
            .values()
            .filter(|(b, _)| b.kind == "contract" && b.name == operation)
            .map(|(b, _)| b.reference.clone())
            .collect();
        for r in refs {
            self.remove(&r);
        }
        if let Some(o) = self.operations.get_mut(operation) {
            o.contract = None;
        }
    }

    /// Drops everything (another connection).
    pub fn clear(&mut self) {
        *self = Self::new(self.max_entries, self.max_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(r: &str, kind: &str, name: &str, pad: usize) -> Body {
        Body {
            reference: r.into(),
            kind: kind.into(),
            name: name.into(),
            body: json!({"owner": "files", "pad": "x".repeat(pad)}),
        }
    }

    #[test]
    fn least_recently_used_goes_first_by_count() {
        let mut k = Knowledge::new(2, 1 << 20);
        k.insert(body("a", "contract", "op.a", 1));
        k.insert(body("b", "contract", "op.b", 1));
        assert!(k.get("a").is_some());
        assert_eq!(
            k.insert(body("c", "contract", "op.c", 1)),
            Kept::Yes(vec!["b".into()])
        );
        assert!(k.holds("a") && k.holds("c") && !k.holds("b"));
    }

    #[test]
    fn byte_budget_evicts_and_refuses_oversized_bodies() {
        let mut k = Knowledge::new(10, 100);
        k.insert(body("a", "contract", "op.a", 40));
        k.insert(body("b", "contract", "op.b", 40));
        assert!(k.usage().1 <= 100);
        assert_eq!(k.usage().0, 1, "the second body evicted the first");
        assert_eq!(k.insert(body("big", "skill", "r", 200)), Kept::OverBudget);
        assert!(!k.holds("big"));
    }

    #[test]
    fn newer_contract_supersedes_and_skill_follows_owner() {
        let mut k = Knowledge::new(10, 1 << 20);
        k.insert(body("c1", "contract", "project.entries", 1));
        k.insert(body("c2", "contract", "project.entries", 1));
        assert!(!k.holds("c1"));
        let c = k.contract_for("project.entries").unwrap();
        assert_eq!(c.reference, "c2");
        assert!(k.skill_for("project.entries", &c).is_none());
        k.insert(body("s", "skill", "files", 1));
        assert_eq!(k.skill_for("project.entries", &c).unwrap().reference, "s");
        k.supersede_contract("project.entries");
        assert!(k.contract_for("project.entries").is_none());
        k.insert(body("c3", "contract", "action.submit", 1));
        k.insert(body("sr", "skill", "r", 1));
        let c = k.contract_for("action.submit").unwrap();
        assert!(k.skill_for("action.submit", &c).unwrap().reference == "s");
        k.remove("s");
        assert!(
            k.skill_for("action.submit", &c).is_none(),
            "skill r is not the owner's"
        );
        k.note_resolved_skill("action.submit", "sr");
        assert_eq!(k.skill_for("action.submit", &c).unwrap().reference, "sr");
    }

    #[test]
    fn persisted_form_keeps_order_and_operations() {
        let mut k = Knowledge::new(3, 1 << 20);
        k.insert(body("a", "contract", "x", 1));
        k.insert(body("b", "contract", "y", 1));
        k.get("a");
        k.note_operation(
            "x",
            OpRefs {
                contract: Some("a".into()),
                ..OpRefs::default()
            },
        );
        let p = k.persisted();
        assert_eq!(p.bodies[0].reference, "b");
        let mut back = Knowledge::restore(3, 1 << 20, p);
        back.insert(body("c", "contract", "z", 1));
        back.insert(body("d", "contract", "w", 1));
        assert!(!back.holds("b") && back.holds("a"));
        assert_eq!(back.contract_for("x").unwrap().reference, "a");
    }
}
