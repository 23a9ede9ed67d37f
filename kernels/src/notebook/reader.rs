//! The session's shared state and the threads that read its runner: stdout (printed text and
//! protocol frames, in order), stderr, and the process's end.

use super::frames::{Piece, Splitter};
use super::types::{
    CellNo, CellOutcome, PlotFile, PlotRef, RuntimeLimits, SessionEvent, Stream, Variable,
    Variables,
};
use serde::Deserialize;
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The last printed bytes kept for `Exited` and a start that failed.
const TAIL_BYTES: usize = 4096;

/// What the supervisor knows of its runner, behind one lock.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) version: Option<String>,
    pub(crate) running: Option<CellNo>,
    pub(crate) last_cell: CellNo,
    kept: u64,
    omitted: u64,
    plots: u32,
    pub(crate) inspecting: Option<u64>,
    pub(crate) reply: Option<(u64, InspectAnswer)>,
    pub(crate) ended: Option<String>,
    pub(crate) tail: String,
    seq: u64,
}

impl State {
    /// A new cell starts: its output and plot counts begin at zero.
    pub(crate) fn begin_cell(&mut self, cell: CellNo) {
        self.running = Some(cell);
        self.last_cell = cell;
        self.kept = 0;
        self.omitted = 0;
        self.plots = 0;
    }
}

/// A runner's answer to one inspection.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct InspectAnswer {
    pub(crate) ok: bool,
    #[serde(default)]
    pub(crate) value: serde_json::Value,
    #[serde(default)]
    pub(crate) error: String,
    #[serde(default)]
    pub(crate) message: String,
}

/// One message of the runner, as framed on its stdout.
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "camelCase")]
enum Message {
    Ready {
        version: String,
    },
    Out {
        stream: Stream,
        text: String,
    },
    Plot {
        cell: CellNo,
        page: u32,
        path: PathBuf,
        #[serde(default)]
        replaces: Option<PlotRef>,
    },
    End {
        cell: CellNo,
        outcome: CellOutcome,
        variables: WireVariables,
        defined: Vec<String>,
        removed: Option<Vec<String>>,
    },
    Inspect {
        id: u64,
        #[serde(flatten)]
        answer: InspectAnswer,
    },
}

/// The variables as a runner sends them: one array per field (fast to write in R).
#[derive(Debug, Deserialize)]
struct WireVariables {
    names: Vec<String>,
    #[serde(default)]
    types: Vec<String>,
    #[serde(default)]
    sizes: Vec<String>,
    #[serde(default)]
    summaries: Vec<String>,
    omitted: u64,
}

impl From<WireVariables> for Variables {
    fn from(w: WireVariables) -> Self {
        let at = |v: &[String], i: usize| v.get(i).cloned().unwrap_or_default();
        let list = w
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| Variable {
                name: name.clone(),
                type_name: at(&w.types, i),
                size: at(&w.sizes, i),
                summary: at(&w.summaries, i),
            })
            .collect();
        Self {
            list,
            omitted: w.omitted,
        }
    }
}

/// State, its condition variable, the event channel and the limits, shared by all threads.
pub(crate) struct Shared {
    state: Mutex<State>,
    pub(crate) changed: Condvar,
    events: Sender<SessionEvent>,
    pub(crate) limits: RuntimeLimits,
}

impl Shared {
    pub(crate) fn new(events: Sender<SessionEvent>, limits: RuntimeLimits) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            events,
            limits,
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn send(&self, event: SessionEvent) {
        let _ = self.events.send(event);
    }

    /// Printed text of the current cell, kept up to `maxOutputBytes` and counted beyond.
    fn output(&self, stream: Stream, text: String) {
        if text.is_empty() {
            return;
        }
        let mut st = self.lock();
        push_tail(&mut st.tail, &text);
        let cell = st.running.unwrap_or(st.last_cell);
        let room = self.limits.max_output_bytes.saturating_sub(st.kept);
        let len = text.len() as u64;
        if len <= room {
            st.kept += len;
            self.send(SessionEvent::Output { cell, stream, text });
            return;
        }
        let mut cut = usize::try_from(room).unwrap_or(usize::MAX).min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        st.kept += cut as u64;
        st.omitted += len - cut as u64;
        if cut > 0 {
            self.send(SessionEvent::Output {
                cell,
                stream,
                text: text[..cut].to_string(),
            });
        }
    }

    fn message(&self, seq: u64, json: &str) {
        let msg = match serde_json::from_str::<Message>(json) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "notebook runner: unreadable frame");
                return;
            }
        };
        {
            let mut st = self.lock();
            if seq != st.seq + 1 {
                tracing::warn!(
                    seq,
                    expected = st.seq + 1,
                    "notebook runner: frame out of order"
                );
            }
            st.seq = seq;
        }
        match msg {
            Message::Ready { version } => {
                self.lock().version = Some(version);
                self.changed.notify_all();
            }
            Message::Out { stream, text } => self.output(stream, text),
            Message::Plot {
                cell,
                page,
                path,
                replaces,
            } => self.plot(cell, page, path, replaces),
            Message::End {
                cell,
                outcome,
                variables,
                defined,
                removed,
            } => {
                let mut st = self.lock();
                if st.omitted > 0 {
                    self.send(SessionEvent::OutputCut {
                        cell,
                        omitted_bytes: st.omitted,
                    });
                }
                st.running = None;
                self.send(SessionEvent::CellEnded {
                    cell,
                    outcome,
                    variables: variables.into(),
                    defined,
                    removed,
                });
                drop(st);
                self.changed.notify_all();
            }
            Message::Inspect { id, answer } => {
                let mut st = self.lock();
                let ended = st.inspecting == Some(id);
                if ended {
                    st.inspecting = None;
                    st.reply = Some((id, answer));
                }
                drop(st);
                self.changed.notify_all();
                // Whoever waits for the session to be free (a cell queued during the reading)
                // learns it here, also when the reading was given up on before this answer.
                if ended {
                    self.send(SessionEvent::ReadingEnded);
                }
            }
        }
    }

    /// A plot file the runner wrote: kept with its digest, or dropped over a limit.
    fn plot(&self, cell: CellNo, page: u32, path: PathBuf, replaces: Option<PlotRef>) {
        let mut st = self.lock();
        st.plots += 1;
        let n = st.plots;
        drop(st);
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let note = if n > self.limits.max_plots {
            Some(format!(
                "plot {n} not kept: a cell keeps at most maxPlots {} plots",
                self.limits.max_plots
            ))
        } else if bytes > self.limits.max_plot_bytes {
            Some(format!(
                "plot {n} not kept: {bytes} bytes is over maxPlotBytes {}",
                self.limits.max_plot_bytes
            ))
        } else {
            None
        };
        if let Some(note) = note {
            let _ = std::fs::remove_file(&path);
            self.send(SessionEvent::PlotDropped { cell, note });
            return;
        }
        match std::fs::read(&path) {
            Ok(data) => {
                use sha2::{Digest, Sha256};
                let sha256 = Sha256::digest(&data)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                let plot = PlotFile {
                    page,
                    path,
                    bytes: data.len() as u64,
                    sha256,
                    replaces,
                };
                self.send(SessionEvent::Plot { cell, plot });
            }
            Err(e) => self.send(SessionEvent::PlotDropped {
                cell,
                note: format!("plot {n} not kept: cannot read {}: {e}", path.display()),
            }),
        }
    }

    /// The process ended: record it, wake every waiter, say so once.
    pub(crate) fn exited(&self, status: String) {
        let mut st = self.lock();
        st.ended = Some(status.clone());
        let printed_tail = st.tail.clone();
        st.inspecting = None;
        self.send(SessionEvent::Exited {
            status,
            printed_tail,
        });
        drop(st);
        self.changed.notify_all();
    }
}

fn push_tail(tail: &mut String, text: &str) {
    tail.push_str(text);
    if tail.len() > TAIL_BYTES {
        let mut from = tail.len() - TAIL_BYTES;
        while !tail.is_char_boundary(from) {
            from += 1;
        }
        tail.drain(..from);
    }
}

/// Reads the runner's stdout to its end: text as printed, frames as messages.
pub(crate) fn read_stdout(shared: &Shared, mut out: impl Read, nonce: &str) {
    let mut split = Splitter::new(nonce);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for piece in split.feed(&buf[..n]) {
            match piece {
                Piece::Text(t) => shared.output(Stream::Stdout, t),
                Piece::Frame { seq, json } => shared.message(seq, &json),
            }
        }
    }
    if let Some(rest) = split.finish() {
        shared.output(Stream::Stdout, rest);
    }
}

/// Reads the runner's stderr to its end, streamed as printed.
pub(crate) fn read_stderr(shared: &Shared, mut err: impl Read) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let n = match err.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        let valid = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => pending.len(),
        };
        let chunk: Vec<u8> = pending.drain(..valid).collect();
        shared.output(Stream::Stderr, String::from_utf8_lossy(&chunk).into_owned());
    }
    if !pending.is_empty() {
        shared.output(
            Stream::Stderr,
            String::from_utf8_lossy(&pending).into_owned(),
        );
    }
}
