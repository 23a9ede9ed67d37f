//! Finding and starting an ACP adapter: `node <adapter>/dist/index.js` in the project folder,
//! in its own process group (killed with its handle), pointed at the person's CLI, stderr kept.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The pinned adapter versions (decision 0701).
pub const CLAUDE_AGENT_ACP_VERSION: &str = "0.101.0";
pub const CODEX_ACP_VERSION: &str = "2.6.0";
/// Lines of adapter stderr kept for errors.
const STDERR_TAIL_LINES: usize = 20;

/// Which adapter drives which CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// Claude Code through `@agentclientprotocol/claude-agent-acp` (the default).
    ClaudeAgentAcp,
    /// Codex through `@agentclientprotocol/codex-acp`.
    CodexAcp,
    /// Claude Code's own non-interactive CLI, one `claude -p` per message (`cli.rs`).
    ClaudeCli,
}

impl Backend {
    /// The name `--agent-backend` and `conversation.start` use.
    pub fn name(self) -> &'static str {
        match self {
            Backend::ClaudeAgentAcp => "claude-agent-acp",
            Backend::CodexAcp => "codex-acp",
            Backend::ClaudeCli => "claude-cli",
        }
    }

    /// Parses a backend name.
    pub fn parse(name: &str) -> Option<Backend> {
        match name {
            "claude-agent-acp" => Some(Backend::ClaudeAgentAcp),
            "codex-acp" => Some(Backend::CodexAcp),
            "claude-cli" => Some(Backend::ClaudeCli),
            _ => None,
        }
    }

    /// The ACP adapter's npm package and its pinned version (`None`: no adapter).
    pub fn package(self) -> Option<(&'static str, &'static str)> {
        match self {
            Backend::ClaudeAgentAcp => Some((
                "@agentclientprotocol/claude-agent-acp",
                CLAUDE_AGENT_ACP_VERSION,
            )),
            Backend::CodexAcp => Some(("@agentclientprotocol/codex-acp", CODEX_ACP_VERSION)),
            Backend::ClaudeCli => None,
        }
    }

    /// The variable that points the adapter at the person's CLI.
    fn cli_variable(self) -> &'static str {
        match self {
            Backend::ClaudeAgentAcp | Backend::ClaudeCli => "CLAUDE_CODE_EXECUTABLE",
            Backend::CodexAcp => "CODEX_PATH",
        }
    }
}

/// The adapters' packages and pins, for the install command.
const ADAPTERS: [(&str, &str); 2] = [
    (
        "@agentclientprotocol/claude-agent-acp",
        CLAUDE_AGENT_ACP_VERSION,
    ),
    ("@agentclientprotocol/codex-acp", CODEX_ACP_VERSION),
];

/// Where the runtimes are: Node 22, the adapters' npm prefix and the person's CLIs.
#[derive(Debug, Clone)]
pub struct Runtimes {
    /// The `node` executable (22 or later).
    pub node: PathBuf,
    /// The npm prefix the adapters are installed into (`<prefix>/node_modules/@agentclientprotocol/...`).
    pub adapters: PathBuf,
    /// The Claude Code CLI (`--claude`, `RHO_CLAUDE`, else `claude` on PATH).
    pub claude: PathBuf,
    /// The Codex CLI (`--codex`, `RHO_CODEX`, else `codex` on PATH).
    pub codex: PathBuf,
    /// Extra environment for the adapter (tests: the scripted endpoint, a fresh HOME).
    pub env: Vec<(String, String)>,
}

/// Why a conversation could not start.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LaunchError {
    /// Something the backend needs is not installed; nothing is installed implicitly.
    #[error("{backend} is unavailable: missing {}; install the pinned adapters with: {install}", missing.join(", "))]
    Unavailable {
        backend: &'static str,
        missing: Vec<String>,
        install: String,
    },
    /// The adapter process could not be started.
    #[error("could not start {program}: {message}")]
    Spawn { program: String, message: String },
}

impl Runtimes {
    /// The one command that installs the pinned adapters (without their bundled CLIs).
    pub fn install_command(&self) -> String {
        let [(claude, cv), (codex, xv)] = ADAPTERS;
        format!(
            "npm install --omit=optional --prefix {} {claude}@{cv} {codex}@{xv}",
            self.adapters.display()
        )
    }

    /// The adapter's entry point (the CLI itself for `claude-cli`).
    pub fn entry(&self, backend: Backend) -> PathBuf {
        match backend.package() {
            Some((package, _)) => self
                .adapters
                .join("node_modules")
                .join(package)
                .join("dist/index.js"),
            None => self.claude.clone(),
        }
    }

    /// The person's CLI a backend drives.
    pub fn cli(&self, backend: Backend) -> &Path {
        match backend {
            Backend::ClaudeAgentAcp | Backend::ClaudeCli => &self.claude,
            Backend::CodexAcp => &self.codex,
        }
    }

    /// What is missing of Node and the pinned adapters (for the note at start), if anything.
    pub fn missing_adapters(&self) -> Vec<String> {
        let mut missing = Vec::new();
        if !self.node.is_file() {
            missing.push(format!("node at {}", self.node.display()));
        }
        for backend in [Backend::ClaudeAgentAcp, Backend::CodexAcp] {
            let entry = self.entry(backend);
            if !entry.is_file() {
                missing.push(format!("{} at {}", backend.name(), entry.display()));
            }
        }
        missing
    }

    /// Checks that node, the adapter and the CLI exist.
    pub fn check(&self, backend: Backend) -> Result<(), LaunchError> {
        let entry = self.entry(backend);
        let mut needed = vec![("node", self.node.as_path())];
        if backend.package().is_some() {
            needed.push((backend.name(), entry.as_path()));
        }
        needed.push(("the CLI", self.cli(backend)));
        let missing: Vec<String> = needed
            .iter()
            .filter(|(_, p)| !p.is_file())
            .map(|(what, p)| format!("{what} at {}", p.display()))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(LaunchError::Unavailable {
            backend: backend.name(),
            missing,
            install: self.install_command(),
        })
    }

    /// Starts the adapter in `cwd` (the project folder).
    pub fn spawn(&self, backend: Backend, cwd: &Path) -> Result<Adapter, LaunchError> {
        self.check(backend)?;
        let mut cmd = Command::new(&self.node);
        cmd.arg(self.entry(backend))
            .current_dir(cwd)
            // Truthy, it makes the adapter pass --allow-dangerously-skip-permissions (bypass_root as root).
            .env_remove("IS_SANDBOX")
            .env(backend.cli_variable(), self.cli(backend))
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        launch(cmd, &self.node)
    }

    /// Starts the person's Claude Code CLI in `cwd` with `args` (the `claude-cli` driver), Node's
    /// folder first on its PATH (the CLI is a Node program).
    pub fn spawn_cli(&self, cwd: &Path, args: &[String]) -> Result<Adapter, LaunchError> {
        self.check(Backend::ClaudeCli)?;
        let path = self
            .env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var("PATH").ok())
            .unwrap_or_default();
        let path = match self.node.parent() {
            Some(dir) => format!("{}:{path}", dir.display()),
            None => path,
        };
        let mut cmd = Command::new(&self.claude);
        cmd.args(args)
            .current_dir(cwd)
            .env_remove("IS_SANDBOX")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("PATH", path);
        launch(cmd, &self.claude)
    }
}

/// Starts `cmd` with piped stdio in its own process group (killed with the handle), keeping the
/// tail of its stderr.
fn launch(mut cmd: Command, program: &Path) -> Result<Adapter, LaunchError> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let program = program.display().to_string();
    let mut child = cmd.spawn().map_err(|e| LaunchError::Spawn {
        program: program.clone(),
        message: e.to_string(),
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(LaunchError::Spawn {
            program,
            message: "stdio pipes missing".into(),
        });
    };
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    if let Some(stderr) = child.stderr.take() {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(target: "rho::agent::adapter", stderr = %line);
                let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                if t.len() == STDERR_TAIL_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
    }
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    Ok(Adapter {
        child,
        pgid,
        stdio: Some((stdin, stdout)),
        tail,
    })
}

/// A running adapter process, the leader of its own process group; dropping it kills the group.
pub struct Adapter {
    child: Child,
    pgid: Option<i32>,
    stdio: Option<(ChildStdin, ChildStdout)>,
    tail: Arc<Mutex<VecDeque<String>>>,
}

impl Adapter {
    /// The adapter's pipes (taken once, to connect).
    pub fn take_stdio(&mut self) -> Option<(ChildStdin, ChildStdout)> {
        self.stdio.take()
    }

    /// The process group id.
    pub fn pgid(&self) -> Option<i32> {
        self.pgid
    }

    /// The last lines the adapter wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let t = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        t.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// Whether the adapter has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}
