//! Opening and creating a project on disk: lease, journal, replay. Blocking; run off the actor threads.

use crate::replay::{replay, ReplayError, ReplayStats};
use crate::state::ProjectState;
use rho_journal::{Journal, JournalConfig, JournalError, LeaseError, OpenReport, WriterLease};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use uuid::Uuid;

/// How a project actor runs: journal numbers, snapshot cadence, queue bound, lease holder text.
#[derive(Debug, Clone)]
pub struct ProjectConfig {
    pub journal: JournalConfig,
    /// Snapshot after this many events since the last one (`journal.snapshotEveryEvents`).
    pub snapshot_every_events: u64,
    /// Snapshot after this many journal bytes since the last one (`journal.snapshotEveryBytes`).
    pub snapshot_every_bytes: u64,
    /// Writes waiting for the serializer before new ones are refused (`maxQueue`).
    pub max_queue: usize,
    /// Written into the lease file so a refused second writer can name the holder.
    pub holder: String,
    /// Where changes are announced to observers (none in tools and tests that do not observe).
    pub events: Option<crate::events::EventBus>,
    /// Every limit in force (owners read theirs).
    pub limits: std::sync::Arc<crate::limits::Limits>,
    /// An open buffer unused this long leaves memory (its journal keeps it; the next use rebuilds it).
    pub document_idle: std::time::Duration,
    /// The R runtime of this service run (Rscript, package repositories, Core); the runs and
    /// requirements owners read it, so no command carries it.
    pub r: Arc<crate::runs::config::RConfig>,
    /// What this project shares with the other projects of its service (a `ServiceActor`
    /// replaces it with its own).
    pub service: crate::service_state::ServiceState,
    /// The service's `--plugins` selection: new work needing an unselected owner is refused
    /// after its identity lookup (CONVENTIONS, Owner selection).
    pub selection: Arc<crate::owners::Selection>,
    /// The programs and guard of Notebook sessions (kernel owner).
    pub kernel: Arc<crate::kernel::live::KernelRuntime>,
}

impl ProjectConfig {
    /// The journal and queue numbers of `limits`, for a service run whose lease names `holder`.
    pub fn from_limits(
        limits: &crate::limits::Limits,
        holder: String,
        events: Option<crate::events::EventBus>,
    ) -> Self {
        let j = &limits.journal;
        ProjectConfig {
            journal: JournalConfig {
                segment_bytes: j.segment_bytes,
                max_record_bytes: u32::try_from(j.max_record_bytes).unwrap_or(u32::MAX),
                ..JournalConfig::default()
            },
            snapshot_every_events: j.snapshot_every_events,
            snapshot_every_bytes: j.snapshot_every_bytes,
            max_queue: usize::try_from(limits.max_queue).unwrap_or(usize::MAX),
            holder,
            events,
            limits: std::sync::Arc::new(limits.clone()),
            document_idle: std::time::Duration::from_secs(15 * 60),
            r: Arc::default(),
            service: Default::default(),
            selection: Arc::default(),
            kernel: Arc::default(),
        }
    }
}

impl Default for ProjectConfig {
    fn default() -> Self {
        ProjectConfig {
            journal: JournalConfig::default(),
            snapshot_every_events: 100_000,
            snapshot_every_bytes: 64 * 1024 * 1024,
            max_queue: 32,
            holder: format!("pid {}", std::process::id()),
            events: None,
            limits: std::sync::Arc::new(crate::limits::Limits::default()),
            document_idle: std::time::Duration::from_secs(15 * 60),
            r: Arc::default(),
            service: Default::default(),
            selection: Arc::default(),
            kernel: Arc::default(),
        }
    }
}

/// Where a project's journal and lease live.
pub fn journal_dir(project: &Path) -> PathBuf {
    project.join(".rho").join("journal")
}

pub fn lease_path(project: &Path) -> PathBuf {
    project.join(".rho").join("lease")
}

/// A project could not be opened or created.
#[derive(Debug, Clone, thiserror::Error)]
pub enum OpenError {
    #[error("project folder {0} is missing")]
    FolderMissing(PathBuf),
    #[error("project journal {0} is missing; it is never recreated empty")]
    JournalMissing(PathBuf),
    #[error("a journal already exists in {0}")]
    AlreadyExists(PathBuf),
    #[error("project is held by another Rho process ({holder})")]
    Held { holder: String },
    #[error("lease: {0}")]
    Lease(String),
    #[error("journal: {0}")]
    Journal(#[from] JournalError),
    #[error("replay: {0}")]
    Replay(#[from] ReplayError),
}

impl From<LeaseError> for OpenError {
    fn from(e: LeaseError) -> Self {
        match e {
            LeaseError::Held { holder } => OpenError::Held { holder },
            other => OpenError::Lease(other.to_string()),
        }
    }
}

/// A project whose lease is held, journal open and state rebuilt.
pub struct OpenedProject {
    pub dir: PathBuf,
    pub journal: Arc<Journal>,
    pub lease: WriterLease,
    pub state: ProjectState,
    pub stats: ReplayStats,
    pub report: Option<OpenReport>,
}

/// Opens an existing project: takes the lease, verifies the journal, replays it. Creates nothing
/// but the lease file inside an existing `.rho/`.
pub fn open_project(dir: &Path, config: &ProjectConfig) -> Result<OpenedProject, OpenError> {
    if !dir.is_dir() {
        return Err(OpenError::FolderMissing(dir.to_path_buf()));
    }
    let jdir = journal_dir(dir);
    if !jdir.is_dir() {
        return Err(OpenError::JournalMissing(jdir));
    }
    let lease = WriterLease::acquire(&lease_path(dir), &config.holder)?;
    let (journal, report) = Journal::open(&jdir, config.journal.clone())?;
    let journal = Arc::new(journal);
    let (state, stats) = replay(&journal, true)?;
    if let Some(torn) = &report.torn_tail {
        tracing::warn!(project = %dir.display(), ?torn, "a torn journal tail was truncated");
    }
    Ok(OpenedProject {
        dir: dir.to_path_buf(),
        journal,
        lease,
        state,
        stats,
        report: Some(report),
    })
}

/// Creates the journal of a new project in an existing folder and takes its lease.
/// The project entity itself is created by the first command, through the actor.
pub fn create_project(
    dir: &Path,
    id: Uuid,
    config: &ProjectConfig,
) -> Result<OpenedProject, OpenError> {
    if !dir.is_dir() {
        return Err(OpenError::FolderMissing(dir.to_path_buf()));
    }
    let jdir = journal_dir(dir);
    if jdir.exists() {
        return Err(OpenError::AlreadyExists(jdir));
    }
    let journal = Journal::create(&jdir, id, config.journal.clone())?;
    let lease = WriterLease::acquire(&lease_path(dir), &config.holder)?;
    Ok(OpenedProject {
        dir: dir.to_path_buf(),
        journal: Arc::new(journal),
        lease,
        state: ProjectState::default(),
        stats: ReplayStats::default(),
        report: None,
    })
}
