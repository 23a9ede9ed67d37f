//! Starting Rho as a service on its folders: lock the state, open every project, close in order on a signal.

use crate::cli::ServeArgs;
use rho_actors::open::ProjectConfig;
use rho_actors::service::{CloseAll, OpenDir, ServiceActor};
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The folders a start uses.
struct Folders {
    root: PathBuf,
    state: PathBuf,
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn resolve(args: &ServeArgs) -> Result<Folders, String> {
    let defaults = home().map(|h| h.join("Rho"));
    let root = match &args.root {
        Some(r) => {
            if !r.is_dir() {
                return Err(format!(
                    "the projects folder {} does not exist; create it first",
                    r.display()
                ));
            }
            r.clone()
        }
        None => {
            let r = defaults
                .as_ref()
                .ok_or("HOME is not set; pass --root")?
                .join("projects");
            fs::create_dir_all(&r).map_err(|e| format!("creating {}: {e}", r.display()))?;
            r
        }
    };
    let state = match &args.state_dir {
        Some(s) => s.clone(),
        None => defaults
            .as_ref()
            .ok_or("HOME is not set; pass --state-dir")?
            .join("state"),
    };
    fs::create_dir_all(&state).map_err(|e| format!("creating {}: {e}", state.display()))?;
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let state = state
        .canonicalize()
        .map_err(|e| format!("{}: {e}", state.display()))?;
    if state.starts_with(&root) {
        return Err(format!(
            "the state folder {} must be outside the projects folder {}",
            state.display(),
            root.display()
        ));
    }
    Ok(Folders { root, state })
}

/// Takes `<state>/service.lock`; a second start on a running state is refused.
fn lock_state(state: &Path) -> Result<File, String> {
    let path = state.join("service.lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("opening {}: {e}", path.display()))?;
    fs2::FileExt::try_lock_exclusive(&file).map_err(|_| {
        format!(
            "another Rho is already running on the state folder {}",
            state.display()
        )
    })?;
    Ok(file)
}

/// Project folders under the root: those with a journal.
fn project_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| rho_actors::open::journal_dir(p).is_dir())
        .collect();
    dirs.sort();
    dirs
}

pub(crate) fn run(args: &ServeArgs) -> ExitCode {
    let folders = match resolve(args) {
        Ok(f) => f,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let _lock = match lock_state(&folders.state) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let system = actix::System::new();
    system.block_on(serve(folders))
}

async fn serve(folders: Folders) -> ExitCode {
    use actix::Actor;
    #[allow(clippy::print_stdout)]
    {
        println!(
            "rho {} {}/{} pid {}",
            env!("CARGO_PKG_VERSION"),
            std::env::consts::OS,
            std::env::consts::ARCH,
            std::process::id()
        );
        println!("projects: {}", folders.root.display());
        println!("state: {}", folders.state.display());
    }
    let config = ProjectConfig {
        holder: format!(
            "pid {} (state {})",
            std::process::id(),
            folders.state.display()
        ),
        ..ProjectConfig::default()
    };
    let service = ServiceActor::new(config).start();
    for dir in project_dirs(&folders.root) {
        match service.send(OpenDir { dir: dir.clone() }).await {
            Ok(Ok(id)) => tracing::info!(project = %id, dir = %dir.display(), "project ready"),
            Ok(Err(e)) => tracing::warn!(dir = %dir.display(), error = %e, "project unavailable"),
            Err(e) => tracing::error!(error = %e, "service actor stopped"),
        }
    }
    tracing::info!(root = %folders.root.display(), "service ready");
    wait_for_signal().await;
    tracing::info!("stopping: closing every project");
    let mut code = ExitCode::SUCCESS;
    if let Ok(results) = service.send(CloseAll).await {
        for (id, res) in results {
            if let Err(e) = res {
                tracing::error!(project = %id, error = %e, "project did not close cleanly");
                code = ExitCode::from(1);
            }
        }
    }
    actix::System::current().stop();
    code
}

async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
        }
        _ => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
