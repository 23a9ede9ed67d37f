//! The project's contexts: frozen copies of what a caller pointed at (a buffer range, declared entities), journaled.

use super::contract::{
    BufferContext, ContextView, EntitiesContext, MediaContext, RangeView, RectView, ResourceRef,
};
use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// What a context froze. Variants are only ever appended (their index is the wire tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Frozen {
    /// A UTF-16 range of one buffer version, with the text copied.
    Buffer {
        document_id: Uuid,
        path: String,
        version: u64,
        start: u64,
        end: u64,
        text: String,
    },
    /// Entities the caller declared: a namespace and its keys.
    Entities {
        namespace: String,
        keys: Vec<String>,
    },
    /// A rectangle of one page of a media resource version; coordinates in thousandths of `units`.
    Media {
        resource_id: Uuid,
        version: u64,
        format: String,
        page: u64,
        units: String,
        rect_milli: [i64; 4],
    },
    /// One managed run as it stood: state, exit, stop, the last bytes of its stderr.
    Run(Box<crate::runs::context::RunContext>),
}

impl Frozen {
    /// Bytes the context keeps (for `maxContextBytes`).
    pub fn bytes(&self) -> u64 {
        match self {
            Frozen::Buffer { text, path, .. } => (text.len() + path.len()) as u64,
            Frozen::Entities { namespace, keys } => {
                (namespace.len() + keys.iter().map(String::len).sum::<usize>()) as u64
            }
            Frozen::Media { format, units, .. } => (format.len() + units.len() + 64) as u64,
            Frozen::Run(r) => r.bytes(),
        }
    }
}

/// One retained context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextRecord {
    pub id: Uuid,
    pub frozen: Frozen,
    pub principal: String,
    pub time_ms: i64,
}

impl ContextRecord {
    /// The wire form.
    pub fn view(&self) -> ContextView {
        let mut v = ContextView {
            buffer: None,
            context_id: self.id.to_string(),
            created_by: self.principal.clone(),
            entities: None,
            media: None,
            run: None,
            time: rho_plumbing::time::rfc3339_ms(self.time_ms),
        };
        match &self.frozen {
            Frozen::Buffer {
                document_id,
                path,
                version,
                start,
                end,
                text,
            } => {
                v.buffer = Some(BufferContext {
                    document_id: document_id.to_string(),
                    path: path.clone(),
                    range: RangeView {
                        end: *end,
                        start: *start,
                    },
                    text: text.clone(),
                    version: *version,
                })
            }
            Frozen::Entities { namespace, keys } => {
                v.entities = Some(EntitiesContext {
                    keys: keys.clone(),
                    namespace: namespace.clone(),
                })
            }
            Frozen::Run(r) => v.run = Some(r.view()),
            Frozen::Media {
                resource_id,
                version,
                format,
                page,
                units,
                rect_milli,
            } => {
                let f = |m: i64| m as f64 / 1000.0;
                v.media = Some(MediaContext {
                    format: format.clone(),
                    page: *page,
                    rect: RectView {
                        height: f(rect_milli[3]),
                        width: f(rect_milli[2]),
                        x: f(rect_milli[0]),
                        y: f(rect_milli[1]),
                    },
                    resource: ResourceRef {
                        id: resource_id.to_string(),
                        version: *version,
                    },
                    units: units.clone(),
                })
            }
        }
        v
    }
}

/// Events of the contexts entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContextEvent {
    Created { record: ContextRecord },
}

impl EntityEvent for ContextEvent {
    fn kind(&self) -> &'static str {
        match self {
            ContextEvent::Created { .. } => "context.created",
        }
    }

    fn summary(&self) -> String {
        match self {
            ContextEvent::Created { record } => match &record.frozen {
                Frozen::Buffer {
                    path,
                    version,
                    start,
                    end,
                    ..
                } => {
                    format!(
                        "context {} of {path:?} v{version} [{start}, {end})",
                        record.id
                    )
                }
                Frozen::Entities { namespace, keys } => {
                    format!(
                        "context {} of {} {namespace} entities",
                        record.id,
                        keys.len()
                    )
                }
                Frozen::Media {
                    resource_id,
                    version,
                    page,
                    ..
                } => format!(
                    "context {} of a rectangle of {resource_id} v{version} page {page}",
                    record.id
                ),
                Frozen::Run(r) => format!("context {} of run {:?}", record.id, r.operation_id),
            },
        }
    }
}

/// Every context of one project (one entity per project; its id is the project's id).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextsEntity {
    pub contexts: BTreeMap<Uuid, ContextRecord>,
    identities: IdentityTable<ContextRecord>,
}

/// Create one context; the limits come from the project.
#[derive(Debug, Clone)]
pub struct CreateContext {
    pub id: Uuid,
    pub frozen: Frozen,
    pub max_contexts: u64,
    pub max_bytes: u64,
}

impl Entity for ContextsEntity {
    const KIND: &'static str = "contexts";
    type Event = ContextEvent;
    type Command = CreateContext;
    type Reply = ContextRecord;

    fn apply(&mut self, event: &ContextEvent, _meta: &EventMeta) {
        match event {
            ContextEvent::Created { record } => {
                self.contexts.insert(record.id, record.clone());
            }
        }
    }

    fn decide(
        &self,
        c: &CreateContext,
        ctx: &CommandContext,
    ) -> Result<Decision<ContextEvent, ContextRecord>, ActorError> {
        if self.contexts.len() as u64 >= c.max_contexts {
            return Err(ActorError::Limit {
                limit: "maxContexts".into(),
                value: c.max_contexts,
            });
        }
        if c.frozen.bytes() > c.max_bytes {
            return Err(ActorError::Limit {
                limit: "maxContextBytes".into(),
                value: c.max_bytes,
            });
        }
        let record = ContextRecord {
            id: c.id,
            frozen: c.frozen.clone(),
            principal: ctx.principal.to_string(),
            time_ms: ctx.time_ms,
        };
        Ok(Decision {
            events: vec![ContextEvent::Created {
                record: record.clone(),
            }],
            reply: record,
        })
    }

    fn identities(&self) -> &IdentityTable<ContextRecord> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<ContextRecord> {
        &mut self.identities
    }
}
