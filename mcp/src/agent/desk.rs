//! The session's desk: where a server's questions meet the person and spend meets the ledger.
//! It implements the MCP client's policies (a responder that turns forms and sampling
//! confirmations into [`AgentEvent`]s answered through the session, a usage ledger, and the
//! model a sampling request spends) and holds what the running turn is (its number, the call in
//! flight, its cancellation), so a question names its tool call and dies with the turn.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::client::policy::{
    Answer, BoxFuture, Completion, Model, Question, Responder, SamplingAsk, Usage, UsageLedger,
};
use crate::model::ModelClient;

use super::events::{AgentEvent, FormAsk, SamplingQuestion};
use super::ledger::{Ledger, Spend, MCP_SAMPLING};

/// What the running turn is.
#[derive(Debug, Clone, Default)]
pub(crate) struct Current {
    /// The turn's number.
    pub(crate) message: Option<u64>,
    /// The tool call in flight.
    pub(crate) call: Option<String>,
    /// The turn's cancellation.
    pub(crate) cancel: CancellationToken,
}

/// Shared by the session, its turns and the MCP runtime's policies.
#[derive(Debug)]
pub(crate) struct Desk {
    pub(crate) events: mpsc::UnboundedSender<AgentEvent>,
    next: AtomicU64,
    forms: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    sampling: Mutex<HashMap<u64, oneshot::Sender<bool>>>,
    pub(crate) current: Mutex<Current>,
    pub(crate) ledger: Mutex<Ledger>,
    pub(crate) model: String,
    round_trips: Mutex<std::collections::VecDeque<RoundTrip>>,
}

/// One tool round trip of a turn: the loop's own time from the model's answer parsed to the
/// next request handed to the connection, without the tool calls themselves, and those calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundTrip {
    /// The loop's own time (events, transcript, tool set, the request encoded).
    pub own: std::time::Duration,
    /// The tool calls (MCP or project) between the two requests.
    pub calls: std::time::Duration,
}

/// How many round trips a session keeps for diagnostics.
pub(crate) const ROUND_TRIPS_KEPT: usize = 1024;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Desk {
    pub(crate) fn new(events: mpsc::UnboundedSender<AgentEvent>, model: String) -> Arc<Self> {
        Arc::new(Self {
            events,
            next: AtomicU64::new(1),
            forms: Mutex::new(HashMap::new()),
            sampling: Mutex::new(HashMap::new()),
            current: Mutex::new(Current::default()),
            ledger: Mutex::new(Ledger::default()),
            model,
            round_trips: Mutex::new(std::collections::VecDeque::new()),
        })
    }

    pub(crate) fn round_trip(&self, rt: RoundTrip) {
        let mut q = lock(&self.round_trips);
        if q.len() == ROUND_TRIPS_KEPT {
            q.pop_front();
        }
        q.push_back(rt);
    }

    pub(crate) fn round_trips(&self) -> Vec<RoundTrip> {
        lock(&self.round_trips).iter().copied().collect()
    }

    pub(crate) fn current(&self) -> Current {
        lock(&self.current).clone()
    }

    pub(crate) fn set_call(&self, call: Option<String>) {
        lock(&self.current).call = call;
    }

    pub(crate) fn emit(&self, e: AgentEvent) {
        let _ = self.events.send(e);
    }

    /// Records spend and reports it.
    pub(crate) fn spend(&self, message: Option<u64>, spend: Spend) {
        lock(&self.ledger).record(message, spend.clone());
        self.emit(AgentEvent::Spent { message, spend });
    }

    /// The person's answer to form `id`; false when no such form is open.
    pub(crate) fn answer_form(&self, id: u64, answer: Answer) -> bool {
        match lock(&self.forms).remove(&id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// The person's answer to sampling question `id`; false when no such question is open.
    pub(crate) fn answer_sampling(&self, id: u64, allow: bool) -> bool {
        match lock(&self.sampling).remove(&id) {
            Some(tx) => tx.send(allow).is_ok(),
            None => false,
        }
    }

    /// Open form ids (for the driver after a restart of its view).
    pub(crate) fn open_forms(&self) -> usize {
        lock(&self.forms).len()
    }
}

/// The MCP client's policies for one session.
#[derive(Debug, Clone)]
pub(crate) struct Bridge {
    pub(crate) desk: Arc<Desk>,
    pub(crate) client: ModelClient,
}

impl Responder for Bridge {
    fn ask(&self, question: Question) -> BoxFuture<'_, Answer> {
        let desk = Arc::clone(&self.desk);
        Box::pin(async move {
            let id = desk.next.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            lock(&desk.forms).insert(id, tx);
            let cur = desk.current();
            desk.emit(AgentEvent::Form {
                message: cur.message,
                ask: FormAsk {
                    id,
                    call: cur.call.clone(),
                    question,
                },
            });
            let answer = tokio::select! {
                a = rx => a.unwrap_or(Answer::Unavailable),
                _ = cur.cancel.cancelled() => Answer::Unavailable,
            };
            lock(&desk.forms).remove(&id);
            answer
        })
    }

    fn confirm_sampling(&self, ask: SamplingAsk) -> BoxFuture<'_, bool> {
        let desk = Arc::clone(&self.desk);
        Box::pin(async move {
            let id = desk.next.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            lock(&desk.sampling).insert(id, tx);
            let cur = desk.current();
            desk.emit(AgentEvent::Sampling {
                message: cur.message,
                ask: SamplingQuestion {
                    id,
                    call: cur.call.clone(),
                    server: ask.server,
                    messages: ask.messages,
                    max_tokens: ask.max_tokens,
                    model: desk.model.clone(),
                },
            });
            let allow = tokio::select! {
                a = rx => a.unwrap_or(false),
                _ = cur.cancel.cancelled() => false,
            };
            lock(&desk.sampling).remove(&id);
            allow
        })
    }
}

impl UsageLedger for Bridge {
    fn record(&self, usage: Usage) {
        let message = self.desk.current().message;
        self.desk.spend(
            message,
            Spend {
                purpose: if usage.purpose == MCP_SAMPLING {
                    MCP_SAMPLING
                } else {
                    super::ledger::TURN
                },
                server: Some(usage.server),
                model: usage.model,
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
            },
        );
    }
}

impl Model for Bridge {
    fn name(&self) -> String {
        self.client.model().to_owned()
    }

    fn complete(
        &self,
        system: Option<String>,
        user: String,
    ) -> BoxFuture<'_, Result<Completion, String>> {
        Box::pin(async move {
            let (text, usage) = self
                .client
                .complete(system, user)
                .await
                .map_err(|e| e.to_string())?;
            Ok(Completion {
                text,
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
            })
        })
    }
}
