//! One turn of the loop: the model request with the turn's tool set, its streamed text, each
//! tool call run in order with its result fed back, again until the model ends its turn (or the
//! step bound, an error or the person's cancel ends it); the transcript stays valid either way.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::model::{
    Event, Message, ModelClient, ModelStream, Part, Request, StopReason, ToolCall, ToolResult,
};

use super::desk::{Current, Desk, RoundTrip};
use super::events::{AgentEvent, TurnEnd};
use super::ledger::{Spend, TURN};
use super::tools::ToolSet;

/// What a turn runs with.
#[derive(Debug, Clone)]
pub(crate) struct TurnCtx {
    pub(crate) desk: Arc<Desk>,
    pub(crate) client: ModelClient,
    pub(crate) tools: ToolSet,
    pub(crate) transcript: Arc<tokio::sync::Mutex<Vec<Message>>>,
    pub(crate) system: String,
    pub(crate) max_steps: u32,
    pub(crate) busy: Arc<AtomicBool>,
}

fn end(stop: &str, error: Option<String>) -> TurnEnd {
    TurnEnd {
        stop: stop.to_owned(),
        error,
    }
}

/// Runs turn `message` for `input` and reports its end.
pub(crate) async fn run(ctx: TurnCtx, message: u64, input: Vec<Part>, cancel: CancellationToken) {
    let result = steps(&ctx, message, input, &cancel).await;
    *ctx.desk
        .current
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Current::default();
    ctx.busy.store(false, Ordering::SeqCst);
    ctx.desk.emit(AgentEvent::Finished {
        message,
        end: result,
    });
}

async fn steps(
    ctx: &TurnCtx,
    message: u64,
    input: Vec<Part>,
    cancel: &CancellationToken,
) -> TurnEnd {
    let mut transcript = ctx.transcript.lock().await;
    transcript.push(Message::User(input));
    let mut step = 0;
    // When the previous answer was parsed and how long its tool calls took.
    let mut previous: Option<(Instant, Duration)> = None;
    loop {
        if cancel.is_cancelled() {
            return end("cancelled", None);
        }
        if step >= ctx.max_steps {
            return end(
                "max_steps",
                Some(format!(
                    "the turn made {} model requests, the most one turn may make",
                    ctx.max_steps
                )),
            );
        }
        step += 1;
        // The transcript is lent to the request while its body is encoded, never copied.
        let mut request = Request {
            system: ctx.system.clone(),
            messages: std::mem::take(&mut *transcript),
            tools: ctx.tools.defs(),
            max_tokens: ctx.client.config().max_tokens,
        };
        let stream = ctx.client.stream(&request);
        *transcript = std::mem::take(&mut request.messages);
        let (text, calls, outcome, sent) = answer(ctx, message, stream, cancel).await;
        let parsed = Instant::now();
        if let (Some((then, calls)), Some(sent)) = (previous.take(), sent) {
            ctx.desk.round_trip(RoundTrip {
                own: sent.saturating_duration_since(then).saturating_sub(calls),
                calls,
            });
        }
        if !text.is_empty() || !calls.is_empty() {
            transcript.push(Message::Assistant {
                text,
                calls: calls.clone(),
            });
        }
        let stop = match outcome {
            Ok(stop) => stop,
            Err(e) => return e,
        };
        if calls.is_empty() {
            return end(stop.as_str(), None);
        }
        let mut results = Vec::with_capacity(calls.len());
        let mut spent = Duration::ZERO;
        for call in &calls {
            let (result, took) = run_call(ctx, message, call, cancel).await;
            results.push(result);
            spent += took;
        }
        transcript.push(Message::Tool(results));
        previous = Some((parsed, spent));
        if cancel.is_cancelled() {
            return end("cancelled", None);
        }
    }
}

/// What one streamed answer gave: its text, its calls, the stop reason or the turn's end, and
/// when its request was handed to the connection.
type Answered = (
    String,
    Vec<ToolCall>,
    Result<StopReason, TurnEnd>,
    Option<Instant>,
);

/// Streams one model answer.
async fn answer(
    ctx: &TurnCtx,
    message: u64,
    mut stream: ModelStream,
    cancel: &CancellationToken,
) -> Answered {
    let mut text = String::new();
    let mut calls = Vec::new();
    loop {
        let next = tokio::select! {
            biased;
            // Dropping the stream (on return) cancels the request.
            _ = cancel.cancelled() => return (text, Vec::new(), Err(end("cancelled", None)), None),
            n = stream.next() => n,
        };
        let sent = stream.sent_at();
        match next {
            Some(Ok(Event::Text(t))) => {
                text.push_str(&t);
                ctx.desk.emit(AgentEvent::Text { message, text: t });
            }
            Some(Ok(Event::ToolCall(c))) => calls.push(c),
            Some(Ok(Event::Usage(u))) => ctx.desk.spend(
                Some(message),
                Spend {
                    purpose: TURN,
                    server: None,
                    model: ctx.client.model().to_owned(),
                    input_tokens: u.input_tokens,
                    output_tokens: u.output_tokens,
                },
            ),
            Some(Ok(Event::Retrying(retry))) => ctx.desk.emit(AgentEvent::Retrying {
                message: Some(message),
                retry,
            }),
            Some(Ok(Event::Stop(stop))) => return (text, calls, Ok(stop), sent),
            Some(Err(e)) => {
                return (
                    text,
                    Vec::new(),
                    Err(end("error", Some(e.to_string()))),
                    sent,
                )
            }
            None => {
                return (
                    text,
                    Vec::new(),
                    Err(end(
                        "error",
                        Some("the model's answer ended early".to_owned()),
                    )),
                    sent,
                )
            }
        }
    }
}

/// Runs one call with its card, progress and the desk knowing it is in flight; the result and
/// how long the call itself took.
async fn run_call(
    ctx: &TurnCtx,
    message: u64,
    call: &ToolCall,
    cancel: &CancellationToken,
) -> (ToolResult, Duration) {
    if cancel.is_cancelled() {
        let r = ToolResult {
            call_id: call.id.clone(),
            text: "not run: the turn was cancelled".to_owned(),
            is_error: true,
        };
        return (r, Duration::ZERO);
    }
    ctx.desk.emit(AgentEvent::ToolStarted {
        message,
        step: ctx.tools.start(call),
    });
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<crate::client::handler::Progress>();
    let desk = Arc::clone(&ctx.desk);
    let id = call.id.clone();
    // The client keeps a progress route open briefly after the result (a notification may
    // trail it); what arrives once the step has ended is dropped, never reported after it.
    let ended = Arc::new(AtomicBool::new(false));
    let seen_end = Arc::clone(&ended);
    tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if seen_end.load(Ordering::SeqCst) {
                continue;
            }
            desk.emit(AgentEvent::ToolProgress {
                message,
                id: id.clone(),
                progress: p.progress,
                total: p.total,
                text: p.message,
            });
        }
    });
    ctx.desk.set_call(Some(call.id.clone()));
    let t0 = Instant::now();
    let step = ctx.tools.call(call, cancel, Some(tx)).await;
    let took = t0.elapsed();
    ctx.desk.set_call(None);
    ended.store(true, Ordering::SeqCst);
    let result = ToolResult {
        call_id: call.id.clone(),
        text: step.text.clone(),
        is_error: step.is_error,
    };
    ctx.desk.emit(AgentEvent::ToolFinished { message, step });
    (result, took)
}
