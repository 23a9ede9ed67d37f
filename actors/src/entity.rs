//! The child-entity pattern every owner uses: a pure fold over events, a decision step, identities.
//!
//! An entity's state is only ever changed by [`Entity::apply`], in replay and in live operation
//! alike, so both run the same code. [`Entity::decide`] validates a command against the current
//! state and says which events it produces and what the caller is told; it has no side effects.

use crate::codec::{self, CodecError};
use crate::error::ActorError;
use crate::identity::{IdentityTable, InputDigest};
use crate::principal::Principal;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// What the journal frame says about an event, handed to the fold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventMeta {
    pub seq: u64,
    pub entity_seq: u64,
    pub time_ms: i64,
    pub principal: String,
}

/// One kind of event of one entity kind.
pub trait EntityEvent: Serialize + DeserializeOwned + Clone + Send + 'static {
    /// The event kind recorded in the journal frame, e.g. `project.created`.
    fn kind(&self) -> &'static str;
    /// A one-line summary for `rho journal inspect`; never a credential, never bulk content.
    fn summary(&self) -> String;
}

/// Who asks, when, and under which caller identity.
#[derive(Debug, Clone)]
pub struct CommandContext {
    pub principal: Principal,
    pub time_ms: i64,
    /// The caller identity (`changeId`, `operationId`, ...) and the digest of its input.
    pub identity: Option<(String, InputDigest)>,
    /// The owners new work of this command needs (from its operation's spec, plus what the
    /// request adds); checked after the identity lookup, so a retry of an accepted identity
    /// returns its original reply whatever is selected.
    pub needs: Vec<crate::owners::Owner>,
}

impl CommandContext {
    /// A command of `principal` now, with no identity and no owner needs.
    pub fn now(principal: Principal) -> Self {
        CommandContext {
            principal,
            time_ms: rho_plumbing::time::now_ms(),
            identity: None,
            needs: Vec::new(),
        }
    }
}

/// The outcome of a decision: events to journal and the reply the caller gets once they are durable.
#[derive(Debug, Clone)]
pub struct Decision<Ev, R> {
    pub events: Vec<Ev>,
    pub reply: R,
}

/// A child entity: its kind, events, commands and fold.
pub trait Entity: Default + Clone + Serialize + DeserializeOwned + Send + Unpin + 'static {
    /// The entity kind in journal frames, e.g. `project`, `document`.
    const KIND: &'static str;
    type Event: EntityEvent;
    type Command: Send + 'static;
    type Reply: Clone + Serialize + DeserializeOwned + Send + 'static;

    /// The pure fold. Must not fail and must not do I/O: replay and live operation share it.
    fn apply(&mut self, event: &Self::Event, meta: &EventMeta);

    /// Validates `command` against the current state. Only called for new identities.
    fn decide(
        &self,
        command: &Self::Command,
        ctx: &CommandContext,
    ) -> Result<Decision<Self::Event, Self::Reply>, ActorError>;

    fn identities(&self) -> &IdentityTable<Self::Reply>;
    fn identities_mut(&mut self) -> &mut IdentityTable<Self::Reply>;

    /// Settles, live and once after replay, what was in flight at a crash (CONVENTIONS, Recovery).
    fn reconcile(&self, _now_ms: i64) -> Vec<Self::Event> {
        Vec::new()
    }
}

/// The journal payload of one event: the event, and on the last event of a command the identity stamp.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stamped<Ev, R> {
    pub event: Ev,
    pub identity: Option<(InputDigest, R)>,
}

/// A record could not be folded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FoldError {
    #[error("seq {seq}: event kind {kind:?} of entity kind {entity:?} is unknown to this binary")]
    UnknownKind {
        seq: u64,
        entity: String,
        kind: String,
    },
    #[error("seq {seq}: payload of {kind:?} does not decode: {source}")]
    Codec {
        seq: u64,
        kind: String,
        source: CodecError,
    },
    #[error("seq {seq}: frame says {frame:?} but payload is {payload:?}")]
    KindMismatch {
        seq: u64,
        frame: String,
        payload: String,
    },
    #[error("seq {seq}: identity stamp without a change identity")]
    StampWithoutIdentity { seq: u64 },
}

/// Decodes one journal record's payload as an event of `E`, checking its kind.
pub fn decode_event<E: Entity>(
    rec: &rho_journal::Record,
) -> Result<Stamped<E::Event, E::Reply>, FoldError> {
    let stamped: Stamped<E::Event, E::Reply> =
        codec::decode(rec.codec, &rec.payload).map_err(|source| FoldError::Codec {
            seq: rec.seq,
            kind: rec.kind.clone(),
            source,
        })?;
    if stamped.event.kind() != rec.kind {
        return Err(FoldError::KindMismatch {
            seq: rec.seq,
            frame: rec.kind.clone(),
            payload: stamped.event.kind().to_string(),
        });
    }
    Ok(stamped)
}

/// Folds one journal record into `state`: the event, then its identity stamp.
pub fn fold_record<E: Entity>(state: &mut E, rec: &rho_journal::Record) -> Result<(), FoldError> {
    let stamped = decode_event::<E>(rec)?;
    let meta = EventMeta {
        seq: rec.seq,
        entity_seq: rec.entity_seq,
        time_ms: rec.time_ms,
        principal: rec.principal.clone(),
    };
    state.apply(&stamped.event, &meta);
    if let Some((digest, reply)) = stamped.identity {
        let id = rec
            .change_id
            .clone()
            .ok_or(FoldError::StampWithoutIdentity { seq: rec.seq })?;
        state.identities_mut().record(id, digest, reply);
    }
    Ok(())
}
