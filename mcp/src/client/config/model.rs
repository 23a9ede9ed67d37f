//! The validated MCP configuration model that every other module reads.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Default cap on tool output, prompt text and resource text, in bytes.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 65_536;

/// Everything MCP-related that one run reads from the selected config file and plugins.
#[derive(Debug, Clone, PartialEq)]
pub struct McpConfig {
    /// Every configured entry, valid or not, in a stable order (config file first, by id).
    pub entries: Vec<ServerEntry>,
    /// `[mcp] max_output_bytes`.
    pub max_output_bytes: usize,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

impl McpConfig {
    /// Entries that are valid and enabled: the only ones a runtime ever starts.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerConfig> {
        self.entries.iter().filter_map(|e| match &e.state {
            EntryState::Valid(cfg) if cfg.enabled => Some(&**cfg),
            _ => None,
        })
    }

    /// The entry with this identity, if configured.
    pub fn entry(&self, id: &str) -> Option<&ServerEntry> {
        self.entries.iter().find(|e| e.id == id)
    }
}

/// Where an entry came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The selected config file.
    Config,
    /// `mcp.json` of the named plugin.
    Plugin(String),
}

impl Source {
    /// Stable label used in list/show output.
    pub fn label(&self) -> String {
        match self {
            Source::Config => "config".to_owned(),
            Source::Plugin(name) => format!("plugin:{name}"),
        }
    }
}

/// One configured server: its identity, origin and either its config or why it is malformed.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    /// Stable identity (`<id>`, or `<plugin>/<server>` for plugin servers).
    pub id: String,
    /// Where the entry came from.
    pub source: Source,
    /// The validated config or the reason the entry is disabled.
    pub state: EntryState,
}

/// A parsed entry: valid, or malformed with the reason (which disables only this server).
#[derive(Debug, Clone, PartialEq)]
pub enum EntryState {
    /// A usable entry.
    Valid(Box<ServerConfig>),
    /// A malformed entry; the message names the offending key.
    Malformed {
        /// The transport named by the entry, when it could be read.
        transport: Option<String>,
        /// Human-readable reason.
        error: String,
    },
}

/// A valid server entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// Stable identity.
    pub id: String,
    /// Where it came from.
    pub source: Source,
    /// `enabled` (default true).
    pub enabled: bool,
    /// Transport and its settings.
    pub transport: TransportConfig,
    /// `[tools] allow/deny`.
    pub tools: ToolFilter,
    /// `log_level`.
    pub log_level: Option<LogLevel>,
    /// `sampling` (only `ask` from the selected config file opens gate one).
    pub sampling: SamplingPolicy,
    /// A plugin data folder to create right before a stdio start.
    pub plugin_data_dir: Option<PathBuf>,
}

/// Transport settings.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdio.
    Stdio(StdioConfig),
    /// Streamable HTTP.
    StreamableHttp(HttpConfig),
}

impl TransportConfig {
    /// The config spelling of this transport.
    pub fn name(&self) -> &'static str {
        match self {
            TransportConfig::Stdio(_) => "stdio",
            TransportConfig::StreamableHttp(_) => "streamable_http",
        }
    }
}

/// `transport = "stdio"` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioConfig {
    /// Executable (bare names are found on PATH).
    pub command: String,
    /// Separate arguments; never a shell line.
    pub args: Vec<String>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Literal environment overlay.
    pub env: BTreeMap<String, String>,
    /// Child variable name -> ambient variable name.
    pub env_from_env: BTreeMap<String, String>,
}

/// `transport = "streamable_http"` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// Endpoint URL (HTTPS unless loopback).
    pub url: String,
    /// Literal headers.
    pub headers: BTreeMap<String, String>,
    /// Header name -> ambient variable name.
    pub headers_from_env: BTreeMap<String, String>,
    /// The `[oauth]` table, when declared.
    pub oauth: Option<OAuthConfig>,
}

/// `[mcp.servers.<id>.oauth]`: nothing secret.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OAuthConfig {
    /// Pre-registered client id.
    pub client_id: Option<String>,
    /// Requested scopes.
    pub scopes: Option<Vec<String>>,
    /// Client ID Metadata Document URL.
    pub client_metadata_url: Option<String>,
    /// Ambient variable holding a client secret.
    pub client_secret_from_env: Option<String>,
    /// How a token is obtained: a person's browser login (the default), or a machine grant.
    pub grant: OAuthGrant,
    /// Ambient variable holding a PKCS#8 PEM EC P-256 key for `private_key_jwt` (ES256).
    pub private_key_from_env: Option<String>,
    /// Enterprise-managed authorization: the identity provider's side.
    pub enterprise: Option<EnterpriseIdp>,
    /// Ambient variable holding the workload's identity JWT (grant `workload_identity`).
    pub assertion_from_env: Option<String>,
}

impl OAuthConfig {
    /// What each grant needs, and nothing it cannot use (the reason names the keys).
    pub(crate) fn check_grant(&self) -> Result<(), String> {
        let cfg = self;
        if (cfg.grant == OAuthGrant::WorkloadIdentity) != cfg.assertion_from_env.is_some() {
            return Err(
            "oauth: grant \"workload_identity\" needs `assertion_from_env`, and only it may use it"
                .to_owned(),
        );
        }
        match cfg.grant {
            OAuthGrant::AuthorizationCode => {
                if cfg.private_key_from_env.is_some() || cfg.enterprise.is_some() {
                    return Err("oauth: `private_key_from_env` and `enterprise` need a machine `grant` (\"client_credentials\" or \"enterprise\")".to_owned());
                }
            }
            OAuthGrant::ClientCredentials => {
                if cfg.client_id.is_none() {
                    return Err("oauth: grant \"client_credentials\" needs `client_id`".to_owned());
                }
                if cfg.client_secret_from_env.is_some() == cfg.private_key_from_env.is_some() {
                    return Err("oauth: grant \"client_credentials\" needs exactly one of `client_secret_from_env` and `private_key_from_env`".to_owned());
                }
                if cfg.enterprise.is_some() {
                    return Err("oauth: `enterprise` belongs to grant \"enterprise\"".to_owned());
                }
            }
            OAuthGrant::WorkloadIdentity => {
                if cfg.client_secret_from_env.is_some()
                    || cfg.private_key_from_env.is_some()
                    || cfg.enterprise.is_some()
                {
                    return Err("oauth: grant \"workload_identity\" authenticates with the workload's JWT alone (no client secret, key or `enterprise`)".to_owned());
                }
            }
            OAuthGrant::Enterprise => {
                if cfg.client_id.is_none() || cfg.client_secret_from_env.is_none() {
                    return Err("oauth: grant \"enterprise\" needs `client_id` and `client_secret_from_env` (client_secret_basic at the authorization server)".to_owned());
                }
                if cfg.enterprise.is_none() {
                    return Err(
                        "oauth: grant \"enterprise\" needs an `[oauth.enterprise]` table"
                            .to_owned(),
                    );
                }
            }
        }
        Ok(())
    }
}

/// The OAuth grant a server entry uses (`grant = "..."`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OAuthGrant {
    /// `authorization_code`: PKCE S256 with a loopback redirect (a person logs in).
    #[default]
    AuthorizationCode,
    /// `client_credentials` (SEP-1046): the client authenticates as itself, with
    /// `client_secret_basic` or `private_key_jwt`; no person, no browser.
    ClientCredentials,
    /// `enterprise` (SEP-990): an enterprise ID token is exchanged at the identity provider
    /// for an ID-JAG (RFC 8693), which the authorization server redeems (RFC 7523).
    Enterprise,
    /// `workload_identity` (SEP-1933): the workload's own identity JWT (issued by its
    /// platform) is redeemed with the JWT-bearer grant (RFC 7523); no person, no secret.
    WorkloadIdentity,
}

/// The identity provider of an enterprise-managed grant (nothing secret).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EnterpriseIdp {
    /// The IdP's issuer.
    pub issuer: String,
    /// The IdP's token endpoint (token exchange).
    pub token_endpoint: String,
    /// Rho's client id at the IdP.
    pub client_id: String,
    /// Ambient variable holding the person's enterprise ID token.
    pub id_token_from_env: String,
}

/// `[tools]` allow/deny lists of raw tool names; deny wins.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolFilter {
    /// Optional allowlist.
    pub allow: Option<Vec<String>>,
    /// Denylist.
    pub deny: Vec<String>,
}

impl ToolFilter {
    /// Whether a raw tool name is exported.
    pub fn permits(&self, tool: &str) -> bool {
        if self.deny.iter().any(|d| d == tool) {
            return false;
        }
        match &self.allow {
            Some(allow) => allow.iter().any(|a| a == tool),
            None => true,
        }
    }
}

/// `sampling` policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SamplingPolicy {
    /// Default: the server never sees sampling declared.
    #[default]
    Deny,
    /// Ask the person per request (gate two), when the run has a model.
    Ask,
}

/// MCP log levels (RFC 5424 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// debug
    Debug,
    /// info
    Info,
    /// notice
    Notice,
    /// warning
    Warning,
    /// error
    Error,
    /// critical
    Critical,
    /// alert
    Alert,
    /// emergency
    Emergency,
}

impl LogLevel {
    /// Parse the config spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "debug" => Self::Debug,
            "info" => Self::Info,
            "notice" => Self::Notice,
            "warning" => Self::Warning,
            "error" => Self::Error,
            "critical" => Self::Critical,
            "alert" => Self::Alert,
            "emergency" => Self::Emergency,
            _ => return None,
        })
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
}

/// Whether a string is a valid server identity component (`[A-Za-z0-9_-]+`).
pub fn is_valid_identity(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
