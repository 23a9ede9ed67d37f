//! The project's places as a fold of the journal: their definitions and last checks, where each
//! language's next session starts, and the copy records with their identities per caller.

use crate::error::ActorError;
use crate::identity::InputDigest;
use crate::kernel::contract::{
    CheckView, CopyRecord, Language, PlaceDefinition, PlaceView, PlacesReply, StaysView,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// This machine's name as a place.
pub const LOCAL: &str = "local";

/// One defined place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaceRecord {
    pub definition: PlaceDefinition,
    pub defined_by: String,
    pub defined_at_ms: i64,
    pub last_check: Option<CheckView>,
}

/// A caller's copy identity: the record its `changeId` named, with the input it came with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyKey {
    pub digest: InputDigest,
    pub copy_id: String,
}

/// Places, choices and copies of one project (a part of the kernel entity).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaceBook {
    pub(crate) places: BTreeMap<String, PlaceRecord>,
    /// Languages whose next session starts at a defined place (absent: this machine).
    pub(crate) chosen: BTreeMap<Language, String>,
    /// Copy records, oldest first.
    pub(crate) copies: Vec<CopyRecord>,
    /// `(principal, changeId)` -> copy: kept after the record is evicted, so a retry never
    /// copies twice.
    pub(crate) copy_keys: BTreeMap<(String, String), CopyKey>,
}

/// One place event (journaled as `KernelEvent::Place`; variants are only ever appended).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlaceEvent {
    Defined {
        name: String,
        definition: PlaceDefinition,
        by: String,
    },
    Removed {
        name: String,
        by: String,
    },
    /// `place`: none for this machine.
    Chosen {
        language: Language,
        place: Option<String>,
        by: String,
    },
    Checked {
        check: CheckView,
    },
    Copied {
        record: CopyRecord,
        digest: InputDigest,
    },
    CopyEvicted {
        copy_id: String,
    },
    /// The session starts at this place (journaled with its `SessionStarting`).
    SessionAt {
        session_id: String,
        place: String,
    },
}

impl PlaceEvent {
    pub fn kind(&self) -> &'static str {
        match self {
            PlaceEvent::Defined { .. } => "kernel.place-defined",
            PlaceEvent::Removed { .. } => "kernel.place-removed",
            PlaceEvent::Chosen { .. } => "kernel.place-chosen",
            PlaceEvent::Checked { .. } => "kernel.place-checked",
            PlaceEvent::Copied { .. } => "kernel.place-copied",
            PlaceEvent::CopyEvicted { .. } => "kernel.copy-evicted",
            PlaceEvent::SessionAt { .. } => "kernel.session-at",
        }
    }

    pub fn summary(&self) -> String {
        match self {
            PlaceEvent::Defined {
                name,
                definition,
                by,
            } => format!("place {name} defined ({}, by {by})", definition.kind()),
            PlaceEvent::Removed { name, by } => format!("place {name} removed by {by}"),
            PlaceEvent::Chosen {
                language,
                place,
                by,
            } => format!(
                "{} sessions start at {} (by {by})",
                language.name(),
                place.as_deref().unwrap_or(LOCAL)
            ),
            PlaceEvent::Checked { check } => format!(
                "place {} checked: {}",
                check.place,
                if check.ok { "ok" } else { "failed" }
            ),
            PlaceEvent::Copied { record, .. } => format!(
                "copy {} of {}:{} to {} ({} bytes, by {})",
                record.copy_id, record.place, record.source, record.to, record.bytes, record.by
            ),
            PlaceEvent::CopyEvicted { copy_id } => format!("copy record {copy_id} evicted"),
            PlaceEvent::SessionAt { session_id, place } => {
                format!("session {session_id} runs at {place}")
            }
        }
    }
}

/// A command on the places (decided by the kernel entity).
#[derive(Debug, Clone)]
pub enum PlaceCommand {
    Define {
        name: String,
        definition: PlaceDefinition,
        max_places: u64,
    },
    Remove {
        name: String,
    },
    Choose {
        language: Language,
        place: String,
    },
    Checked {
        check: CheckView,
    },
    Copied {
        record: CopyRecord,
        digest: InputDigest,
        max_copies: u64,
    },
}

/// What a place command answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlaceReply {
    Done,
    /// The copy of this identity (new or known).
    Copy(CopyRecord),
}

/// A place's name: lowercase letters, digits and `-`, 1 to 40, not `local`.
pub fn check_name(name: &str) -> Result<(), ActorError> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-');
    if !ok {
        return Err(ActorError::invalid(
            "place",
            format!("{name:?}: a place's name has 1 to 40 lowercase letters, digits and '-'"),
        ));
    }
    Ok(())
}

impl PlaceBook {
    /// The place named `name`.
    pub fn place(&self, name: &str) -> Option<&PlaceRecord> {
        self.places.get(name)
    }

    /// Where `language`'s next session starts: a defined place, or none for this machine.
    pub fn chosen(&self, language: Language) -> Option<(&str, &PlaceRecord)> {
        let name = self.chosen.get(&language)?;
        self.places.get(name).map(|p| (name.as_str(), p))
    }

    /// The copy a caller's `changeId` named.
    pub fn copy_key(&self, by: &str, change_id: &str) -> Option<&CopyKey> {
        self.copy_keys.get(&(by.to_string(), change_id.to_string()))
    }

    pub fn copy(&self, copy_id: &str) -> Option<&CopyRecord> {
        self.copies.iter().find(|c| c.copy_id == copy_id)
    }

    /// The places as `kernel.places` answers them (this machine first).
    pub fn view(&self, max_places: u64, stays: Vec<StaysView>) -> PlacesReply {
        let languages = |name: &str| -> Vec<Language> {
            [Language::R, Language::Python]
                .into_iter()
                .filter(|l| {
                    let at = self
                        .chosen
                        .get(l)
                        .filter(|n| self.places.contains_key(*n))
                        .map_or(LOCAL, String::as_str);
                    at == name
                })
                .collect()
        };
        let mut places = vec![PlaceView {
            name: LOCAL.into(),
            kind: LOCAL.into(),
            definition: None,
            defined_by: None,
            defined_at_ms: None,
            last_check: None,
            languages: languages(LOCAL),
        }];
        places.extend(self.places.iter().map(|(name, p)| PlaceView {
            name: name.clone(),
            kind: p.definition.kind().into(),
            definition: Some(p.definition.clone()),
            defined_by: Some(p.defined_by.clone()),
            defined_at_ms: Some(p.defined_at_ms),
            last_check: p.last_check.clone(),
            languages: languages(name),
        }));
        PlacesReply {
            places,
            max_places,
            stays,
        }
    }

    /// Folds one event (`time_ms`: when it was journaled).
    pub fn apply(&mut self, event: &PlaceEvent, time_ms: i64) {
        match event {
            PlaceEvent::Defined {
                name,
                definition,
                by,
            } => {
                self.places.insert(
                    name.clone(),
                    PlaceRecord {
                        definition: definition.clone(),
                        defined_by: by.clone(),
                        defined_at_ms: time_ms,
                        last_check: None,
                    },
                );
            }
            PlaceEvent::Removed { name, .. } => {
                self.places.remove(name);
                self.chosen.retain(|_, p| p != name);
            }
            PlaceEvent::Chosen {
                language, place, ..
            } => match place {
                Some(p) => {
                    self.chosen.insert(*language, p.clone());
                }
                None => {
                    self.chosen.remove(language);
                }
            },
            PlaceEvent::Checked { check } => {
                if let Some(p) = self.places.get_mut(&check.place) {
                    p.last_check = Some(check.clone());
                }
            }
            PlaceEvent::Copied { record, digest } => {
                self.copy_keys.insert(
                    (record.by.clone(), record.change_id.clone()),
                    CopyKey {
                        digest: *digest,
                        copy_id: record.copy_id.clone(),
                    },
                );
                self.copies.push(record.clone());
            }
            PlaceEvent::CopyEvicted { copy_id } => self.copies.retain(|c| &c.copy_id != copy_id),
            PlaceEvent::SessionAt { .. } => {}
        }
    }

    /// Decides `command` (pure); `by` is the caller's principal.
    pub fn decide(
        &self,
        command: &PlaceCommand,
        by: &str,
    ) -> Result<(Vec<PlaceEvent>, PlaceReply), ActorError> {
        match command {
            PlaceCommand::Define {
                name,
                definition,
                max_places,
            } => {
                check_name(name)?;
                if name == LOCAL {
                    return Err(ActorError::invalid("place", "local is this machine"));
                }
                check_definition(self, name, definition)?;
                if !self.places.contains_key(name) && self.places.len() as u64 >= *max_places {
                    return Err(ActorError::Limit {
                        limit: "kernel.maxPlaces".into(),
                        value: *max_places,
                    });
                }
                Ok((
                    vec![PlaceEvent::Defined {
                        name: name.clone(),
                        definition: definition.clone(),
                        by: by.to_string(),
                    }],
                    PlaceReply::Done,
                ))
            }
            PlaceCommand::Remove { name } => {
                if !self.places.contains_key(name) {
                    return Err(ActorError::NotFound {
                        what: format!("place {name}"),
                    });
                }
                if let Some(user) = self.places.iter().find(|(_, p)| {
                    p.definition
                        .slurm
                        .as_ref()
                        .and_then(|s| s.via.as_ref())
                        .is_some_and(|v| v == name)
                }) {
                    return Err(ActorError::conflict(format!(
                        "the Slurm place {} reaches its cluster through {name}",
                        user.0
                    )));
                }
                if let Some(l) = self.chosen.iter().find(|(_, p)| *p == name) {
                    return Err(ActorError::conflict(format!(
                        "{} sessions start at {name}: choose another place for them first",
                        l.0.name()
                    )));
                }
                Ok((
                    vec![PlaceEvent::Removed {
                        name: name.clone(),
                        by: by.to_string(),
                    }],
                    PlaceReply::Done,
                ))
            }
            PlaceCommand::Choose { language, place } => {
                let place = if place == LOCAL {
                    None
                } else if self.places.contains_key(place) {
                    Some(place.clone())
                } else {
                    return Err(ActorError::NotFound {
                        what: format!("place {place}"),
                    });
                };
                if self.chosen.get(language) == place.as_ref() {
                    return Ok((Vec::new(), PlaceReply::Done));
                }
                Ok((
                    vec![PlaceEvent::Chosen {
                        language: *language,
                        place,
                        by: by.to_string(),
                    }],
                    PlaceReply::Done,
                ))
            }
            PlaceCommand::Checked { check } => {
                if !self.places.contains_key(&check.place) {
                    return Err(ActorError::NotFound {
                        what: format!("place {}", check.place),
                    });
                }
                Ok((
                    vec![PlaceEvent::Checked {
                        check: check.clone(),
                    }],
                    PlaceReply::Done,
                ))
            }
            PlaceCommand::Copied {
                record,
                digest,
                max_copies,
            } => {
                // A copy of the same identity that finished first is the answer.
                if let Some(key) = self.copy_key(&record.by, &record.change_id) {
                    if &key.digest != digest {
                        return Err(ActorError::conflict(format!(
                            "changeId {:?} already named a copy with a different input",
                            record.change_id
                        )));
                    }
                    return match self.copy(&key.copy_id) {
                        Some(c) => Ok((Vec::new(), PlaceReply::Copy(c.clone()))),
                        None => Err(ActorError::NotFound {
                            what: format!(
                                "copy record {} (evicted: kernel.maxCopies)",
                                key.copy_id
                            ),
                        }),
                    };
                }
                let excess = (self.copies.len() as u64 + 1).saturating_sub(*max_copies);
                let mut events: Vec<PlaceEvent> = self
                    .copies
                    .iter()
                    .take(usize::try_from(excess).unwrap_or(usize::MAX))
                    .map(|c| PlaceEvent::CopyEvicted {
                        copy_id: c.copy_id.clone(),
                    })
                    .collect();
                events.push(PlaceEvent::Copied {
                    record: record.clone(),
                    digest: *digest,
                });
                Ok((events, PlaceReply::Copy(record.clone())))
            }
        }
    }
}

/// A definition names exactly one kind, and a Slurm place's `via` an ssh place.
fn check_definition(book: &PlaceBook, name: &str, d: &PlaceDefinition) -> Result<(), ActorError> {
    let kinds = [d.ssh.is_some(), d.slurm.is_some(), d.server.is_some()]
        .into_iter()
        .filter(|k| *k)
        .count();
    if kinds != 1 {
        return Err(ActorError::invalid(
            "define",
            "a place is exactly one of ssh, slurm or server",
        ));
    }
    let text = |field: &str, v: &str| -> Result<(), ActorError> {
        if v.is_empty() || v.len() > 1024 || v.contains(['\0', '\n', '\r']) {
            return Err(ActorError::invalid(
                field,
                "1 to 1024 bytes with no NUL or line break",
            ));
        }
        Ok(())
    };
    if let Some(ssh) = &d.ssh {
        text("define.ssh.destination", &ssh.destination)?;
        if ssh.destination.starts_with('-') {
            return Err(ActorError::invalid(
                "define.ssh.destination",
                "a destination never starts with '-'",
            ));
        }
        if ssh.args.len() > 32 {
            return Err(ActorError::invalid(
                "define.ssh.args",
                "at most 32 arguments",
            ));
        }
        for a in &ssh.args {
            text("define.ssh.args", a)?;
        }
    }
    if let Some(slurm) = &d.slurm {
        if let Some(via) = &slurm.via {
            if via == name {
                return Err(ActorError::invalid(
                    "define.slurm.via",
                    "a place cannot reach itself",
                ));
            }
            match book.places.get(via) {
                Some(p) if p.definition.ssh.is_some() => {}
                Some(_) => {
                    return Err(ActorError::invalid(
                        "define.slurm.via",
                        format!("{via} is not an ssh place"),
                    ))
                }
                None => {
                    return Err(ActorError::NotFound {
                        what: format!("place {via}"),
                    })
                }
            }
        }
        for (f, v) in [
            ("define.slurm.bin", &slurm.bin),
            ("define.slurm.conf", &slurm.conf),
            ("define.slurm.partition", &slurm.partition),
        ] {
            if let Some(v) = v {
                text(f, v)?;
            }
        }
    }
    if let Some(s) = &d.server {
        text("define.server", s)?;
    }
    for (f, v) in [
        ("define.rscript", &d.rscript),
        ("define.python", &d.python),
        ("define.folder", &d.folder),
    ] {
        if let Some(v) = v {
            text(f, v)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::contract::{SlurmAt, SshAt};

    fn ssh() -> PlaceDefinition {
        PlaceDefinition {
            ssh: Some(SshAt {
                destination: "me@lab".into(),
                args: vec![],
            }),
            slurm: None,
            server: None,
            rscript: None,
            python: None,
            folder: None,
        }
    }

    fn run(book: &mut PlaceBook, c: PlaceCommand) -> Result<PlaceReply, ActorError> {
        let (events, reply) = book.decide(&c, "local")?;
        for e in &events {
            book.apply(e, 1);
        }
        Ok(reply)
    }

    fn copy(id: &str, change: &str) -> CopyRecord {
        CopyRecord {
            copy_id: id.into(),
            place: "lab".into(),
            source: "/a".into(),
            to: "a".into(),
            bytes: 1,
            digest: "sha256:00".into(),
            modified_s: 0,
            by: "local".into(),
            change_id: change.into(),
            at_ms: 0,
        }
    }

    #[test]
    fn places_are_bounded_named_and_kept_while_used() {
        let mut b = PlaceBook::default();
        let define = |name: &str, d: PlaceDefinition| PlaceCommand::Define {
            name: name.into(),
            definition: d,
            max_places: 2,
        };
        run(&mut b, define("lab", ssh())).unwrap();
        let mut slurm = ssh();
        slurm.ssh = None;
        slurm.slurm = Some(SlurmAt {
            via: Some("lab".into()),
            bin: None,
            conf: None,
            partition: None,
        });
        run(&mut b, define("hpc", slurm)).unwrap();
        assert!(matches!(
            run(&mut b, define("third", ssh())),
            Err(ActorError::Limit { value: 2, .. })
        ));
        run(&mut b, define("lab", ssh())).unwrap();
        assert!(run(&mut b, define("Bad", ssh())).is_err());
        // In use as a login node, then as a language's place: not removed.
        let remove = |n: &str| PlaceCommand::Remove { name: n.into() };
        assert!(matches!(
            run(&mut b, remove("lab")),
            Err(ActorError::Conflict { .. })
        ));
        let choose = |p: &str| PlaceCommand::Choose {
            language: Language::R,
            place: p.into(),
        };
        run(&mut b, choose("hpc")).unwrap();
        assert_eq!(b.chosen(Language::R).map(|(n, _)| n), Some("hpc"));
        assert!(matches!(
            run(&mut b, remove("hpc")),
            Err(ActorError::Conflict { .. })
        ));
        run(&mut b, choose(LOCAL)).unwrap();
        assert!(b.chosen(Language::R).is_none());
        run(&mut b, remove("hpc")).unwrap();
        run(&mut b, remove("lab")).unwrap();
        assert!(matches!(
            run(&mut b, choose("lab")),
            Err(ActorError::NotFound { .. })
        ));
    }

    #[test]
    fn a_copy_identity_answers_its_record_and_the_oldest_records_make_room() {
        let mut b = PlaceBook::default();
        let d = |n: u8| -> InputDigest { [n; 32] };
        let copied = |id: &str, change: &str, digest| PlaceCommand::Copied {
            record: copy(id, change),
            digest,
            max_copies: 2,
        };
        run(&mut b, copied("1", "a", d(1))).unwrap();
        run(&mut b, copied("2", "b", d(2))).unwrap();
        // The same identity answers the first record; another input conflicts.
        assert_eq!(
            run(&mut b, copied("9", "a", d(1))).unwrap(),
            PlaceReply::Copy(copy("1", "a"))
        );
        assert!(run(&mut b, copied("9", "a", d(3))).is_err());
        run(&mut b, copied("3", "c", d(3))).unwrap();
        let ids: Vec<&str> = b.copies.iter().map(|c| c.copy_id.as_str()).collect();
        assert_eq!(ids, ["2", "3"]);
        // Evicted, its identity still never copies again.
        assert!(matches!(
            run(&mut b, copied("9", "a", d(1))),
            Err(ActorError::NotFound { .. })
        ));
    }
}
