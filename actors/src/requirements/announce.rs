//! `requirements.progress`: a preparation announces its phases (checking, installing, rechecking, finished) as it reaches them.
//!
//! The event names the preparation by its `changeId` and carries the packages being installed; it
//! is a live hint for the person watching, not a fact: the journal holds the preparation itself.

use crate::project_actor::ProjectActor;
use actix::prelude::*;

/// One phase a preparation reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The first probe: what is there already.
    Checking,
    /// `install.packages` for the packages the probe found missing or too old.
    Installing,
    /// The probe again, after installing.
    Rechecking,
    /// The outcome is journaled and is about to be answered.
    Finished,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Checking => "checking",
            Phase::Installing => "installing",
            Phase::Rechecking => "rechecking",
            Phase::Finished => "finished",
        }
    }
}

/// Publish that preparation `change_id` reached `phase` (with the packages it installs).
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct AnnouncePhase {
    pub change_id: String,
    pub phase: Phase,
    pub packages: Vec<String>,
}

impl Handler<AnnouncePhase> for ProjectActor {
    type Result = ();

    fn handle(&mut self, msg: AnnouncePhase, _: &mut Context<Self>) {
        if let Some(bus) = self.events() {
            bus.publish(
                "requirements.progress",
                Some(self.project_id()),
                serde_json::json!({"changeId": msg.change_id, "phase": msg.phase.name(), "packages": msg.packages}),
            );
        }
    }
}

/// Tells `me` to announce `phase` of `change_id`; a gone actor means no one is watching.
pub(crate) fn announce(
    me: &Addr<ProjectActor>,
    change_id: &str,
    phase: Phase,
    packages: &[String],
) {
    me.do_send(AnnouncePhase {
        change_id: change_id.to_string(),
        phase,
        packages: packages.to_vec(),
    });
}
