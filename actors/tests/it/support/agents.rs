//! The real Agent CLIs and ACP adapters against the scripted model endpoint, one isolated
//! environment per test (`rho_mock_model::isolation`), and `SKIP` when they are missing (the
//! one visible exception to no-skips).

use rho_actors::agent::conversation::{Backend, Runtimes};
use rho_mock_model::isolation::{cli_env, installed, Cli};
use rho_mock_model::MockModel;
use std::path::PathBuf;

/// Real-agent tests run one at a time (2 cores, and each CLI is heavy).
pub async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// One test's isolated Agent environment.
pub struct AgentEnv {
    pub dir: tempfile::TempDir,
    pub mock: MockModel,
    pub runtimes: Runtimes,
}

impl AgentEnv {
    /// The project folder the adapter runs in.
    pub fn cwd(&self) -> PathBuf {
        self.dir.path().join("project")
    }
}

/// The environment for `backend`, or `None` (after printing `SKIP`) when a binary is missing.
/// `retries`: the CLI's own retries of a failed model request.
pub fn agent_env(test: &str, backend: Backend, retries: u32) -> Option<AgentEnv> {
    let i = installed();
    let runtimes = Runtimes {
        node: i.node,
        adapters: i.adapters,
        claude: i.claude,
        codex: i.codex,
        env: Vec::new(),
    };
    if let Err(e) = runtimes.check(backend) {
        assert!(
            std::env::var_os("RHO_REQUIRE_AGENTS").is_none(),
            "{e}; run bash mcp/tests/setup.sh"
        );
        eprintln!("SKIP {test}: {e}; run bash mcp/tests/setup.sh");
        return None;
    }
    // A child process of a kill test makes its folders in the parent's (which removes them).
    let dir = match std::env::var_os("RHO_ACP_OWNER") {
        Some(base) => tempfile::tempdir_in(base).unwrap(),
        None => tempfile::tempdir().unwrap(),
    };
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let mock = MockModel::start(dir.path()).unwrap();
    let cli = match backend {
        Backend::ClaudeAgentAcp => Cli::Claude,
        Backend::CodexAcp => Cli::Codex,
    };
    let env = cli_env(cli, &mock, dir.path(), &runtimes.node, retries).unwrap();
    Some(AgentEnv {
        dir,
        mock,
        runtimes: Runtimes { env, ..runtimes },
    })
}
