//! The notebook runtime's public data: what a session is started with, its limits, the events
//! it streams, its variables and plots, and an inspection's request. All camelCase JSON.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A cell's number within its session, chosen by the caller (the `kernel` owner).
pub type CellNo = u64;

/// The language of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    R,
    Python,
}

/// How the kill-with-parent guard runs: a program and its arguments before the runner's own
/// command line (the service passes `current_exe` + `["core","guard","--"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// Everything a session is started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSpec {
    pub language: Language,
    /// Rscript or python3, already resolved by the caller (a bare name searches `PATH`).
    pub program: PathBuf,
    /// The working directory: the project folder.
    pub cwd: PathBuf,
    /// The session's own folder (created if missing): the runner program, the command pipe and
    /// the plots are written here.
    pub state_dir: PathBuf,
    pub guard: GuardCommand,
    pub limits: RuntimeLimits,
}

/// The seed's kernel limits the runtime enforces (defaults are the seed's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RuntimeLimits {
    pub max_output_bytes: u64,
    pub max_plots: u32,
    pub max_plot_bytes: u64,
    pub max_variables: u32,
    pub inspect_rows: u32,
    pub inspect_rows_max: u32,
    pub inspect_columns: u32,
    pub inspect_children: u32,
    pub inspect_cell_chars: u32,
    pub inspect_text_bytes: u32,
    pub inspect_sort_rows: u64,
    pub inspect_timeout_ms: u64,
    pub inspect_give_up_ms: u64,
    pub start_timeout_ms: u64,
    pub stop_grace_ms: u64,
}

impl Default for RuntimeLimits {
    fn default() -> Self {
        Self {
            max_output_bytes: 256 * 1024,
            max_plots: 8,
            max_plot_bytes: 4 * 1024 * 1024,
            max_variables: 200,
            inspect_rows: 50,
            inspect_rows_max: 200,
            inspect_columns: 50,
            inspect_children: 200,
            inspect_cell_chars: 120,
            inspect_text_bytes: 16 * 1024,
            inspect_sort_rows: 1_000_000,
            inspect_timeout_ms: 10_000,
            inspect_give_up_ms: 5_000,
            start_timeout_ms: 30_000,
            stop_grace_ms: 3_000,
        }
    }
}

/// What `start` answers once the runner said it is ready.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    /// The guard's pid, which is also the session's process group.
    pub pid: u32,
    /// E.g. "R 4.4.1", "Python 3.13.5".
    pub program_version: String,
}

/// Where a piece of a cell's output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
    Message,
    Warning,
    Error,
}

/// How a cell ended in its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellOutcome {
    Done,
    Error,
    Interrupted,
}

/// An earlier cell's plot page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlotRef {
    pub cell: CellNo,
    pub page: u32,
}

/// One kept plot: a PNG file under the session's `state_dir`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlotFile {
    /// R: the session's page number (a redraw keeps the page's number); Python: 1.. per cell.
    pub page: u32,
    pub path: PathBuf,
    pub bytes: u64,
    pub sha256: String,
    /// R: the earlier cell's plot this one redrew (the same page).
    pub replaces: Option<PlotRef>,
}

/// One listed value of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    /// Its class (R) or type (Python), e.g. "data.frame", "DataFrame", "numeric", "int".
    #[serde(rename = "type")]
    pub type_name: String,
    /// Its shape: "1000000 x 3", "10", "1".
    pub size: String,
    /// One line, at most 100 characters.
    pub summary: String,
}

/// The session's values after a cell: the first `maxVariables` by name, the rest counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variables {
    pub list: Vec<Variable>,
    pub omitted: u64,
}

/// What a session streams, in printed order, each tagged with its cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum SessionEvent {
    Output {
        cell: CellNo,
        stream: Stream,
        text: String,
    },
    /// Sent once, just before `CellEnded`, when the cell printed more than `maxOutputBytes`:
    /// the bytes not kept.
    OutputCut {
        cell: CellNo,
        omitted_bytes: u64,
    },
    Plot {
        cell: CellNo,
        plot: PlotFile,
    },
    /// A plot not kept: over `maxPlots`, or a file over `maxPlotBytes` (deleted).
    PlotDropped {
        cell: CellNo,
        note: String,
    },
    CellEnded {
        cell: CellNo,
        outcome: CellOutcome,
        variables: Variables,
        /// Names the cell made or changed.
        defined: Vec<String>,
        /// Names the cell removed; `None` when either listing was cut.
        removed: Option<Vec<String>>,
    },
    /// The runner answered a reading, also one given up on (past `inspectGiveUpMs`): the
    /// session is free for the next cell again.
    ReadingEnded,
    /// The process ended (crash, stop, kill); the last printed text of both streams.
    Exited {
        status: String,
        printed_tail: String,
    },
}

/// How a table is sorted for an inspection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sort {
    pub column: String,
    #[serde(default)]
    pub descending: bool,
}

/// One value to read: a name, optionally followed by parts in the language's own syntax
/// (R `fit$coefficients`, `x[[2]]`, `x[["a"]]`; Python `x[2]`, `x["a"]`, `x.attr`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectRequest {
    pub name_or_path: String,
    #[serde(default)]
    pub offset: u64,
    /// Rows or elements in the page: 0 means `inspectRows`; at most `inspectRowsMax`.
    #[serde(default)]
    pub rows: u32,
    #[serde(default)]
    pub sort: Option<Sort>,
}

/// The value as its session describes it (see docs/notebook-runtime.md for the shape).
pub type InspectReply = serde_json::Value;
