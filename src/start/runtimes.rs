//! Runtimes Rho uses (Rscript, Claude Code, Codex, Python): explicit selections must exist; others are looked up on PATH.

use std::path::{Path, PathBuf};

use super::which::{is_executable, which};

/// One runtime's selection and what was found.
#[derive(Debug, Clone)]
pub(crate) struct Runtime {
    /// Display name, e.g. `R (Rscript)`.
    pub(crate) label: &'static str,
    /// The path in use, if found.
    pub(crate) path: Option<PathBuf>,
    /// Selected by option or environment (then it must exist).
    pub(crate) explicit: bool,
}

/// All runtimes of a start.
#[derive(Debug, Clone)]
pub(crate) struct Runtimes {
    pub(crate) rscript: Runtime,
    pub(crate) claude: Runtime,
    pub(crate) codex: Runtime,
    pub(crate) python: Runtime,
}

fn select(
    label: &'static str,
    option: Option<&Path>,
    env: &str,
    binary: &str,
) -> Result<Runtime, String> {
    let chosen = option.map(Path::to_path_buf).or_else(|| {
        std::env::var_os(env)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    match chosen {
        Some(p) => {
            let found = if p.components().count() == 1 {
                which(&p.to_string_lossy())
            } else {
                Some(p.clone())
            };
            match found.filter(|f| is_executable(f)) {
                Some(f) => Ok(Runtime {
                    label,
                    path: Some(f),
                    explicit: true,
                }),
                None => Err(format!(
                    "the selected {label} {} does not exist or is not executable",
                    p.display()
                )),
            }
        }
        None => Ok(Runtime {
            label,
            path: which(binary),
            explicit: false,
        }),
    }
}

impl Runtimes {
    /// Resolves every runtime from options and environment; an explicit missing one is an error naming it.
    pub(crate) fn resolve(
        rscript: Option<&Path>,
        claude: Option<&Path>,
        codex: Option<&Path>,
        python: Option<&Path>,
    ) -> Result<Runtimes, String> {
        Ok(Runtimes {
            rscript: select("R (Rscript)", rscript, "RHO_RSCRIPT", "Rscript")?,
            claude: select("Claude Code (claude)", claude, "RHO_CLAUDE", "claude")?,
            codex: select("Codex (codex)", codex, "RHO_CODEX", "codex")?,
            python: select("Python (python3)", python, "RHO_PYTHON", "python3")?,
        })
    }

    pub(crate) fn all(&self) -> [&Runtime; 4] {
        [&self.rscript, &self.claude, &self.codex, &self.python]
    }

    /// One line per runtime: found (where) or not found.
    pub(crate) fn report(&self) -> Vec<String> {
        self.all()
            .iter()
            .map(|r| match &r.path {
                Some(p) if r.explicit => format!("{}: {} (selected)", r.label, p.display()),
                Some(p) => format!("{}: found at {}", r.label, p.display()),
                None => format!("{}: not found on PATH", r.label),
            })
            .collect()
    }
}

/// The R runtime of a start: the Rscript found, the repositories (`--r-repos` / `RHO_R_REPOS`,
/// JSON; usage error 2 when malformed) and the Core (`--core` / `RHO_CORE_BINARY`; an explicit
/// missing one fails startup with 1).
pub(crate) fn r_config(
    runtimes: &Runtimes,
    core: Option<&Path>,
    repos: Option<&str>,
) -> Result<rho_actors::runs::config::RConfig, (u8, String)> {
    let repos_text = repos
        .map(str::to_string)
        .or_else(|| std::env::var("RHO_R_REPOS").ok().filter(|v| !v.is_empty()));
    let repos = match repos_text {
        Some(t) => rho_actors::requirements::Repos::parse(&t)
            .map_err(|e| (2, format!("--r-repos: {e}")))?,
        None => rho_actors::requirements::Repos::default(),
    };
    let core = super::core::select(core).map_err(|e| (1, e))?;
    Ok(rho_actors::runs::config::RConfig {
        rscript: runtimes.rscript.path.clone(),
        repos,
        core: Some(core),
    })
}

/// The programs of Notebook sessions and their guard (this executable's `core guard`, which
/// kills a session's process group when the service dies).
pub(crate) fn kernel_runtime(
    runtimes: &Runtimes,
    rscript: Option<PathBuf>,
    remote: rho_actors::kernel::places::RemoteRuntime,
) -> rho_actors::kernel::live::KernelRuntime {
    rho_actors::kernel::live::KernelRuntime {
        remote,
        rscript,
        python: runtimes.python.path.clone(),
        guard: std::env::current_exe()
            .ok()
            .map(|program| rho_kernels::notebook::GuardCommand {
                program,
                args: vec!["core".into(), "guard".into(), "--".into()],
            }),
    }
}
