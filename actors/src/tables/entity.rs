//! The selections entity (owner Tables): selected entity keys per scope and namespace, journaled.

use super::contract::SelectionReply;
use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most keys one selection holds.
pub const MAX_KEYS: usize = 10_000;

/// Most bytes of keys (as JSON) a `selection.changed` event carries; beyond it `keys` is null
/// and a holder reads them by `selection.read` (the event stays well under `maxEventBytes`).
pub const MAX_EVENT_KEY_BYTES: usize = 8 * 1024;

/// The keys a `selection.changed` event carries: all of them under the bound, else null.
pub fn event_keys(keys: &[String]) -> serde_json::Value {
    let bytes: usize = keys.iter().map(|k| k.len() + 3).sum();
    if bytes <= MAX_EVENT_KEY_BYTES {
        serde_json::json!(keys)
    } else {
        serde_json::Value::Null
    }
}

/// The wire name and holder of a scope (`caller`/`view` name theirs; `shared` has none).
pub fn scope_wire(scope: &SelectionScope) -> (&'static str, Option<String>) {
    match scope {
        SelectionScope::Caller(c) => ("caller", Some(c.clone())),
        SelectionScope::View(v) => ("view", Some(v.clone())),
        SelectionScope::Shared => ("shared", None),
    }
}

/// Where a selection lives: the caller's own, one view's, or everyone's.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SelectionScope {
    Caller(String),
    View(String),
    Shared,
}

/// One selection's current keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    pub scope: SelectionScope,
    pub namespace: String,
    pub keys: Vec<String>,
    pub version: u64,
    pub principal: String,
    pub time_ms: i64,
}

/// A change to the selections. Variants are only ever appended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SelectionEvent {
    Set {
        scope: SelectionScope,
        namespace: String,
        keys: Vec<String>,
    },
}

impl EntityEvent for SelectionEvent {
    fn kind(&self) -> &'static str {
        "selection.set"
    }
    fn summary(&self) -> String {
        let SelectionEvent::Set {
            scope,
            namespace,
            keys,
        } = self;
        format!("{scope:?} {namespace:?}: {} keys", keys.len())
    }
}

/// Every selection of one project (one entity per project).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectionsEntity {
    /// Keyed by scope and namespace; an operator's JSON view lists the selections instead
    /// (a JSON object cannot have a pair as its key), the journal's binary form is the map.
    #[serde(with = "by_scope")]
    pub selections: BTreeMap<(SelectionScope, String), Selection>,
    identities: IdentityTable<SelectionReply>,
}

impl Entity for SelectionsEntity {
    const KIND: &'static str = "selections";
    type Event = SelectionEvent;
    type Command = SelectionEvent;
    type Reply = SelectionReply;

    fn apply(&mut self, event: &SelectionEvent, meta: &EventMeta) {
        let SelectionEvent::Set {
            scope,
            namespace,
            keys,
        } = event;
        let s = self
            .selections
            .entry((scope.clone(), namespace.clone()))
            .or_insert_with(|| Selection {
                scope: scope.clone(),
                namespace: namespace.clone(),
                keys: Vec::new(),
                version: 0,
                principal: String::new(),
                time_ms: 0,
            });
        s.keys = keys.clone();
        s.version += 1;
        s.principal = meta.principal.clone();
        s.time_ms = meta.time_ms;
    }

    fn decide(
        &self,
        command: &SelectionEvent,
        _ctx: &CommandContext,
    ) -> Result<Decision<SelectionEvent, SelectionReply>, ActorError> {
        let SelectionEvent::Set {
            scope,
            namespace,
            keys,
        } = command;
        if namespace.is_empty() {
            return Err(ActorError::invalid("namespace", "a namespace is non-empty"));
        }
        if keys.len() > MAX_KEYS {
            return Err(ActorError::Limit {
                limit: "selection.maxKeys".into(),
                value: MAX_KEYS as u64,
            });
        }
        if let Some(i) = keys.iter().position(String::is_empty) {
            return Err(ActorError::Invalid {
                field: Some("keys".into()),
                index: Some(i as u64),
                reason: "keys are non-empty strings".into(),
            });
        }
        let version = self
            .selections
            .get(&(scope.clone(), namespace.clone()))
            .map_or(0, |s| s.version)
            + 1;
        Ok(Decision {
            events: vec![command.clone()],
            reply: SelectionReply { version },
        })
    }

    fn identities(&self) -> &IdentityTable<SelectionReply> {
        &self.identities
    }
    fn identities_mut(&mut self) -> &mut IdentityTable<SelectionReply> {
        &mut self.identities
    }
}

/// The selections map in JSON (human-readable formats) as a list of selections, each naming its
/// own scope and namespace; binary formats keep the map exactly as journaled.
mod by_scope {
    use super::{Selection, SelectionScope};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    type Map = BTreeMap<(SelectionScope, String), Selection>;

    pub(super) fn serialize<S: Serializer>(map: &Map, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_seq(map.values())
        } else {
            map.serialize(serializer)
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Map, D::Error> {
        if deserializer.is_human_readable() {
            let list = Vec::<Selection>::deserialize(deserializer)?;
            Ok(list
                .into_iter()
                .map(|s| ((s.scope.clone(), s.namespace.clone()), s))
                .collect())
        } else {
            Map::deserialize(deserializer)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lists_the_selections_and_binary_keeps_the_map() {
        let mut entity = SelectionsEntity::default();
        let selection = Selection {
            scope: SelectionScope::View("v1".into()),
            namespace: "gene".into(),
            keys: vec!["a".into()],
            version: 1,
            principal: "local".into(),
            time_ms: 1,
        };
        entity
            .selections
            .insert((selection.scope.clone(), "gene".into()), selection.clone());
        let json = serde_json::to_value(&entity).unwrap();
        assert_eq!(json["selections"][0]["namespace"], "gene");
        let back: SelectionsEntity = serde_json::from_value(json).unwrap();
        assert_eq!(back, entity);
        let bytes = crate::codec::encode(&entity).unwrap();
        let plain = crate::codec::encode(&(&entity.selections, &entity.identities)).unwrap();
        assert_eq!(
            bytes, plain,
            "the journal's binary form is the map, as before"
        );
        let decoded: SelectionsEntity =
            crate::codec::decode(crate::codec::CURRENT_CODEC, &bytes).unwrap();
        assert_eq!(decoded, entity);
    }
}
