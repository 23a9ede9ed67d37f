//! One message's turn in a driver: the Agent's updates turned into journaled facts (text at
//! once after a quiet 50 ms, else batched per 50 ms or 4 KiB; steps; permissions), stop, the
//! step and wall-time caps, the buffers reloaded after a step, and at its end the files it
//! kept, what limits cut and how it ended.

use super::answers::{asked, control};
use super::control::{needs_choice, Control, Live, Port, Setup};
use super::entity::{ConversationEvent, Cut};
use super::kept::{self, Scan};
use super::native::Note;
use super::record::ToolStep;
use super::session::{PermissionRequest, TurnEvent};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Text is journaled at most this often while it streams...
const TEXT_EVERY: Duration = Duration::from_millis(50);
/// ...or as soon as this much is waiting.
const TEXT_BYTES: usize = 4096;

/// The `--limits` keys of the caps a turn applies.
pub(super) const MAX_AGENT_TURNS: &str = "conversations.maxAgentTurns";
pub(super) const TURN_WALL_MS: &str = "conversations.turnWallMs";

/// The state of one running turn.
pub(super) struct Turn {
    pub(super) message_id: String,
    pub(super) sent_text: usize,
    pub(super) due: Option<Instant>,
    /// When text was last journaled (the next waits until 50 ms after it).
    pub(super) last_text: Option<Instant>,
    pub(super) sent_steps: HashMap<String, ToolStep>,
    pub(super) pending: HashMap<String, PermissionRequest>,
    pub(super) asked: u64,
    pub(super) waiters: Vec<oneshot::Sender<()>>,
    /// The cap that stopped the turn: its key, and the stop reason the message ends with.
    pub(super) limit: Option<(&'static str, String)>,
    /// A step that may have written a file ended: reload the open buffers.
    pub(super) reload: bool,
}

enum Wake {
    Event(TurnEvent),
    Control(Option<Control>),
    Flush,
    Wall,
}

/// Runs one turn to its end. `None`: ended; `Some(true)`: the transport was lost (the session
/// is gone); `Some(false)`: the port is gone (stop driving).
pub(super) async fn turn(
    s: &mut Live,
    setup: &Setup,
    message_id: String,
    port: &dyn Port,
    rx: &mut mpsc::UnboundedReceiver<Control>,
    before: JoinHandle<Scan>,
) -> Option<bool> {
    let mut t = Turn {
        message_id,
        sent_text: 0,
        due: None,
        last_text: None,
        sent_steps: HashMap::new(),
        pending: HashMap::new(),
        asked: 0,
        waiters: Vec::new(),
        limit: None,
        reload: false,
    };
    let wall = setup
        .turn
        .turn_wall_ms
        .map(|ms| Instant::now() + Duration::from_millis(ms));
    loop {
        let due = t.due;
        let wall_due = wall.filter(|_| t.limit.is_none());
        let wake = tokio::select! {
            e = s.next() => Wake::Event(e),
            c = rx.recv() => Wake::Control(c),
            _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => Wake::Flush,
            _ = tokio::time::sleep_until(wall_due.unwrap_or_else(Instant::now)), if wall_due.is_some() => Wake::Wall,
        };
        let mut facts = Vec::new();
        let mut answered = None;
        match wake {
            Wake::Flush => text(s, &mut t, &mut facts),
            Wake::Wall => stop_at_limit(s, &mut t, TURN_WALL_MS, "cancelled", &mut facts),
            Wake::Event(TurnEvent::Changed) => {
                let waiting = s.message().text.len() - t.sent_text;
                let quiet = t.last_text.is_none_or(|at| at.elapsed() >= TEXT_EVERY);
                if waiting >= TEXT_BYTES || (waiting > 0 && quiet) {
                    text(s, &mut t, &mut facts);
                } else if waiting > 0 && t.due.is_none() {
                    t.due = Some(t.last_text.unwrap_or_else(Instant::now) + TEXT_EVERY);
                }
                steps(s, &mut t, &mut facts);
                let turns = 1 + s.message().steps.len() as u64 + s.message().cut_steps;
                if setup.turn.max_agent_turns.is_some_and(|max| turns > max) {
                    stop_at_limit(s, &mut t, MAX_AGENT_TURNS, "max_turn_requests", &mut facts);
                }
            }
            Wake::Event(TurnEvent::Permission(p)) => {
                text(s, &mut t, &mut facts);
                steps(s, &mut t, &mut facts);
                asked(&mut t, p, &mut facts);
            }
            Wake::Event(TurnEvent::Noted(note)) => {
                text(s, &mut t, &mut facts);
                steps(s, &mut t, &mut facts);
                facts.push(noted(&t.message_id, note));
            }
            Wake::Event(ended) => {
                text(s, &mut t, &mut facts);
                steps(s, &mut t, &mut facts);
                let lost = finish(s, setup, &mut t, ended, port, before, &mut facts).await;
                let learned = port.learn(facts).await;
                port.reload().await;
                for w in t.waiters.drain(..) {
                    let _ = w.send(());
                }
                if !learned {
                    return Some(false);
                }
                return lost.then_some(true);
            }
            Wake::Control(None) => return Some(false),
            Wake::Control(Some(c)) => answered = control(s, &mut t, c, &mut facts),
        }
        if !facts.is_empty() && !port.learn(facts).await {
            return Some(false);
        }
        // An answer is confirmed once its fact is journaled, so a read after it shows it.
        if let Some((done, answer)) = answered {
            let _ = done.send(answer);
        }
        if std::mem::take(&mut t.reload) {
            port.reload().await;
        }
    }
}

/// The end of the message: what it kept and what limits cut (unless the transport was lost),
/// then how it ended. Answers whether the session is gone (transport lost, or it could not be
/// continued).
async fn finish(
    s: &mut Live,
    setup: &Setup,
    t: &mut Turn,
    ended: TurnEvent,
    port: &dyn Port,
    before: JoinHandle<Scan>,
    facts: &mut Vec<ConversationEvent>,
) -> bool {
    if let TurnEvent::Unresumable(why) = &ended {
        facts.extend(needs_choice(s.session_id(), why, &t.message_id));
        return true;
    }
    let lost = matches!(ended, TurnEvent::Lost);
    if lost {
        facts.push(ConversationEvent::Unknown {
            message_id: t.message_id.clone(),
            reason: format!(
                "the Agent's connection closed mid-turn: {}",
                s.stderr_tail()
            ),
        });
        return true;
    }
    let m = s.message().clone();
    if !m.cut_by.is_empty() {
        facts.push(ConversationEvent::Cuts {
            message_id: t.message_id.clone(),
            limits: m.cut_by.iter().map(|k| k.to_string()).collect(),
        });
    }
    facts.push(kept_files(setup, &m.steps, &t.message_id, port, before).await);
    let cut = Cut {
        text_bytes: m.cut_text_bytes,
        steps: m.cut_steps,
        outputs: m.steps.iter().filter(|s| s.output_dropped).count() as u64,
    };
    let (mut stop_reason, mut error) = match ended {
        TurnEvent::Finished(r) => (Some(r), m.notice.clone()),
        TurnEvent::Failed(e) => (
            Some("error".to_string()),
            Some(("agent_error".to_string(), e.to_string())),
        ),
        _ => (None, None),
    };
    if let Some((key, reason)) = &t.limit {
        let value = match *key {
            MAX_AGENT_TURNS => setup.turn.max_agent_turns,
            _ => setup.turn.turn_wall_ms,
        };
        stop_reason = Some(reason.clone());
        error = Some((
            "limit".to_string(),
            format!(
                "stopped at {key} ({}): the message reached the limit set in --limits",
                value.unwrap_or_default()
            ),
        ));
    }
    facts.push(ConversationEvent::Ended {
        message_id: t.message_id.clone(),
        stop_reason,
        usage: m.usage.clone(),
        error,
        cut,
    });
    false
}

/// The files the message kept: its steps' explicit file locations and the files that changed
/// while it ran, captured through the port.
async fn kept_files(
    setup: &Setup,
    steps: &[ToolStep],
    message_id: &str,
    port: &dyn Port,
    before: JoinHandle<Scan>,
) -> ConversationEvent {
    let before = before.await.unwrap_or_default();
    let (cwd, max, limits) = (setup.cwd.clone(), setup.keep.compared_files, setup.keep);
    let named = kept::named(&setup.cwd, steps);
    let chosen = tokio::task::spawn_blocking(move || {
        let after = kept::scan(&cwd, max);
        let changed = kept::changed(&before, &after);
        kept::choose(&cwd, named, changed, !(before.full && after.full), &limits)
    })
    .await;
    let (paths, mut omitted) = chosen.unwrap_or_default();
    let mut files = Vec::new();
    for result in port.keep(paths).await {
        match result {
            Ok(f) => files.push(f),
            Err(left) => omitted.push(left),
        }
    }
    ConversationEvent::Kept {
        message_id: message_id.to_string(),
        files,
        omitted,
    }
}

/// Stops the turn at a cap: cancel, and every pending permission cancelled.
fn stop_at_limit(
    s: &mut Live,
    t: &mut Turn,
    key: &'static str,
    reason: &str,
    facts: &mut Vec<ConversationEvent>,
) {
    if t.limit.is_some() {
        return;
    }
    t.limit = Some((key, reason.to_string()));
    cancel(s, t, facts);
}

/// ACP cancel (or the CLI's process ended) with every pending permission answered cancelled.
pub(super) fn cancel(s: &mut Live, t: &mut Turn, facts: &mut Vec<ConversationEvent>) {
    facts.push(ConversationEvent::StopRequested {
        message_id: t.message_id.clone(),
    });
    s.cancel();
    for (request_id, _) in t.pending.drain() {
        facts.push(ConversationEvent::Answered {
            message_id: t.message_id.clone(),
            request_id,
            option_id: None,
            by: "stop".into(),
        });
    }
}

/// The text streamed since the last batch, as one fact.
fn text(s: &Live, t: &mut Turn, facts: &mut Vec<ConversationEvent>) {
    t.due = None;
    let all = &s.message().text;
    if all.len() > t.sent_text {
        facts.push(ConversationEvent::Text {
            message_id: t.message_id.clone(),
            text: all[t.sent_text..].to_string(),
        });
        t.sent_text = all.len();
        t.last_text = Some(Instant::now());
    }
}

/// Every step that changed since it was last journaled (text before it is flushed first); a
/// step that wrote or ran something and has ended asks for the buffers to be reloaded.
fn steps(s: &Live, t: &mut Turn, facts: &mut Vec<ConversationEvent>) {
    for step in &s.message().steps {
        let before = t.sent_steps.get(&step.id);
        if before == Some(step) {
            continue;
        }
        let done = |st: &ToolStep| matches!(st.status.as_str(), "completed" | "failed");
        if done(step)
            && !before.is_some_and(done)
            && matches!(
                step.kind.as_str(),
                "edit" | "delete" | "move" | "execute" | "other"
            )
        {
            t.reload = true;
        }
        if before.is_none() {
            text(s, t, facts);
        }
        t.sent_steps.insert(step.id.clone(), step.clone());
        facts.push(ConversationEvent::Step {
            message_id: t.message_id.clone(),
            step: step.clone(),
        });
    }
}

/// A fact of Rho's own agent, journaled under the running message.
fn noted(message_id: &str, note: Note) -> ConversationEvent {
    let message_id = message_id.to_string();
    match note {
        Note::Spent(spend, mine) => ConversationEvent::Spent {
            message_id: mine.then_some(message_id),
            spend,
        },
        Note::Retried(note) => ConversationEvent::Retried { message_id, note },
        Note::Called(call) => ConversationEvent::Called { message_id, call },
        Note::Imaged(image) => ConversationEvent::Imaged { message_id, image },
    }
}
