//! Parses the `[mcp]` part of a Rho TOML config file into the validated model.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::model::{
    is_valid_identity, EnterpriseIdp, EntryState, HttpConfig, LogLevel, McpConfig, OAuthConfig,
    OAuthGrant, SamplingPolicy, ServerConfig, ServerEntry, Source, StdioConfig, ToolFilter,
    TransportConfig, DEFAULT_MAX_OUTPUT_BYTES,
};

/// A config file that cannot be used at all (the CLI exits 1 with this line).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The selected file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("config file {path} is not valid TOML at line {line}, column {column}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The `[mcp]` table itself is malformed (not one server: the whole MCP section).
    #[error("config file {path}: {message}")]
    McpTable {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the key.
        message: String,
    },
}

/// Reads and parses a config file. `required` = the file was named by `--config`.
pub fn load_config_file(path: &Path, required: bool) -> Result<McpConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(McpConfig::default())
        }
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    parse_config(&text, path)
}

/// Parses config text; `path` is used in messages only.
pub fn parse_config(text: &str, path: &Path) -> Result<McpConfig, ConfigError> {
    let table: Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        ConfigError::Syntax {
            path: path.to_owned(),
            line,
            column,
            message: e.message().to_owned(),
        }
    })?;
    let mcp_err = |message: String| ConfigError::McpTable {
        path: path.to_owned(),
        message,
    };
    let mut config = McpConfig::default();
    let Some(mcp) = table.get("mcp") else {
        return Ok(config);
    };
    let mcp = mcp
        .as_table()
        .ok_or_else(|| mcp_err("`mcp` must be a table".to_owned()))?;
    for (key, value) in mcp {
        match key.as_str() {
            "servers" => {
                let servers = value
                    .as_table()
                    .ok_or_else(|| mcp_err("`mcp.servers` must be a table".to_owned()))?;
                for (id, raw) in servers {
                    config.entries.push(parse_entry(id, raw, Source::Config));
                }
            }
            "max_output_bytes" => {
                let n = value.as_integer().filter(|n| *n > 0).ok_or_else(|| {
                    mcp_err("`mcp.max_output_bytes` must be a positive integer".to_owned())
                })?;
                config.max_output_bytes = usize::try_from(n).unwrap_or(DEFAULT_MAX_OUTPUT_BYTES);
            }
            other => return Err(mcp_err(format!("unknown key `mcp.{other}`"))),
        }
    }
    Ok(config)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Parses one server entry; any problem disables only this entry.
pub(super) fn parse_entry(id: &str, raw: &Value, source: Source) -> ServerEntry {
    let transport_name = raw
        .get("transport")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let state = match parse_server(id, raw, source.clone()) {
        Ok(cfg) => EntryState::Valid(Box::new(cfg)),
        Err(error) => EntryState::Malformed {
            transport: transport_name,
            error,
        },
    };
    ServerEntry {
        id: id.to_owned(),
        source,
        state,
    }
}

const COMMON_KEYS: &[&str] = &["transport", "enabled", "tools", "log_level", "sampling"];
const STDIO_KEYS: &[&str] = &["command", "args", "cwd", "env", "env_from_env"];
const HTTP_KEYS: &[&str] = &["url", "headers", "headers_from_env", "oauth"];

fn parse_server(id: &str, raw: &Value, source: Source) -> Result<ServerConfig, String> {
    let id_ok = match &source {
        Source::Config => is_valid_identity(id),
        Source::Plugin(_) => id
            .split_once('/')
            .is_some_and(|(p, s)| is_valid_identity(p) && is_valid_identity(s)),
    };
    if !id_ok {
        return Err(format!(
            "invalid server identity `{}`: use ASCII letters, digits, `-` and `_`",
            id.escape_default()
        ));
    }
    let t = raw
        .as_table()
        .ok_or_else(|| "server entry must be a table".to_owned())?;
    let transport = match t.get("transport") {
        None => return Err("missing key `transport` (\"stdio\" or \"streamable_http\")".to_owned()),
        Some(v) => v
            .as_str()
            .ok_or_else(|| "key `transport` must be a string".to_owned())?,
    };
    let allowed: &[&str] = match transport {
        "stdio" => STDIO_KEYS,
        "streamable_http" => HTTP_KEYS,
        other => {
            return Err(format!(
                "unsupported transport `{}`: use \"stdio\" or \"streamable_http\"",
                other.escape_default()
            ))
        }
    };
    for key in t.keys() {
        if COMMON_KEYS.contains(&key.as_str()) || allowed.contains(&key.as_str()) {
            continue;
        }
        if STDIO_KEYS.contains(&key.as_str()) || HTTP_KEYS.contains(&key.as_str()) {
            return Err(format!(
                "key `{key}` is not valid for transport `{transport}`"
            ));
        }
        return Err(format!("unknown key `{}`", key.escape_default()));
    }
    let enabled = opt_bool(t, "enabled")?.unwrap_or(true);
    let tools = parse_tools(t.get("tools"))?;
    let log_level =
        match opt_str(t, "log_level")? {
            None => None,
            Some(s) => Some(LogLevel::parse(&s).ok_or_else(|| {
                format!("key `log_level`: unknown level `{}`", s.escape_default())
            })?),
        };
    let sampling = match opt_str(t, "sampling")?.as_deref() {
        None | Some("deny") => SamplingPolicy::Deny,
        Some("ask") => match source {
            Source::Config => SamplingPolicy::Ask,
            Source::Plugin(_) => {
                return Err("key `sampling`: plugin servers cannot opt into sampling".to_owned())
            }
        },
        Some(other) => {
            return Err(format!(
                "key `sampling` must be \"ask\" or \"deny\", not `{}`",
                other.escape_default()
            ))
        }
    };
    let transport = if transport == "stdio" {
        let command = opt_str(t, "command")?.ok_or_else(|| "missing key `command`".to_owned())?;
        if command.is_empty() {
            return Err("key `command` must not be empty".to_owned());
        }
        TransportConfig::Stdio(StdioConfig {
            command,
            args: opt_str_list(t, "args")?.unwrap_or_default(),
            cwd: opt_str(t, "cwd")?.map(PathBuf::from),
            env: opt_str_map(t, "env")?,
            env_from_env: opt_str_map(t, "env_from_env")?,
        })
    } else {
        let url = opt_str(t, "url")?.ok_or_else(|| "missing key `url`".to_owned())?;
        TransportConfig::StreamableHttp(HttpConfig {
            url,
            headers: opt_str_map(t, "headers")?,
            headers_from_env: opt_str_map(t, "headers_from_env")?,
            oauth: parse_oauth(t.get("oauth"))?,
        })
    };
    Ok(ServerConfig {
        id: id.to_owned(),
        source,
        enabled,
        transport,
        tools,
        log_level,
        sampling,
        plugin_data_dir: None,
    })
}

fn parse_tools(v: Option<&Value>) -> Result<ToolFilter, String> {
    let Some(v) = v else {
        return Ok(ToolFilter::default());
    };
    let t = v
        .as_table()
        .ok_or_else(|| "key `tools` must be a table".to_owned())?;
    for key in t.keys() {
        if key != "allow" && key != "deny" {
            return Err(format!("unknown key `tools.{}`", key.escape_default()));
        }
    }
    Ok(ToolFilter {
        allow: opt_str_list(t, "allow").map_err(|e| format!("tools: {e}"))?,
        deny: opt_str_list(t, "deny")
            .map_err(|e| format!("tools: {e}"))?
            .unwrap_or_default(),
    })
}

fn parse_oauth(v: Option<&Value>) -> Result<Option<OAuthConfig>, String> {
    let Some(v) = v else {
        return Ok(None);
    };
    let t = v
        .as_table()
        .ok_or_else(|| "key `oauth` must be a table".to_owned())?;
    for key in t.keys() {
        if ![
            "client_id",
            "scopes",
            "client_metadata_url",
            "client_secret_from_env",
            "grant",
            "private_key_from_env",
            "enterprise",
            "assertion_from_env",
        ]
        .contains(&key.as_str())
        {
            return Err(format!("unknown key `oauth.{}`", key.escape_default()));
        }
    }
    let ctx = |e: String| format!("oauth: {e}");
    let grant = match opt_str(t, "grant").map_err(ctx)?.as_deref() {
        None | Some("authorization_code") => OAuthGrant::AuthorizationCode,
        Some("client_credentials") => OAuthGrant::ClientCredentials,
        Some("enterprise") => OAuthGrant::Enterprise,
        Some("workload_identity") => OAuthGrant::WorkloadIdentity,
        Some(other) => {
            return Err(format!(
                "oauth: `grant` must be \"authorization_code\", \"client_credentials\", \"enterprise\" or \"workload_identity\", not {:?}",
                other
            ))
        }
    };
    let cfg = OAuthConfig {
        client_id: opt_str(t, "client_id").map_err(ctx)?,
        scopes: opt_str_list(t, "scopes").map_err(ctx)?,
        client_metadata_url: opt_str(t, "client_metadata_url").map_err(ctx)?,
        client_secret_from_env: opt_str(t, "client_secret_from_env").map_err(ctx)?,
        grant,
        private_key_from_env: opt_str(t, "private_key_from_env").map_err(ctx)?,
        enterprise: parse_enterprise(t.get("enterprise"))?,
        assertion_from_env: opt_str(t, "assertion_from_env").map_err(ctx)?,
    };
    cfg.check_grant()?;
    Ok(Some(cfg))
}

/// `[mcp.servers.<id>.oauth.enterprise]`: the identity provider of an enterprise grant.
fn parse_enterprise(v: Option<&Value>) -> Result<Option<EnterpriseIdp>, String> {
    let Some(v) = v else {
        return Ok(None);
    };
    let t = v
        .as_table()
        .ok_or_else(|| "key `oauth.enterprise` must be a table".to_owned())?;
    const KEYS: [&str; 4] = ["issuer", "token_endpoint", "client_id", "id_token_from_env"];
    if let Some(key) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key `oauth.enterprise.{}`",
            key.escape_default()
        ));
    }
    let need = |key: &str| -> Result<String, String> {
        opt_str(t, key)
            .map_err(|e| format!("oauth.enterprise: {e}"))?
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("oauth.enterprise: missing or empty key `{key}`"))
    };
    Ok(Some(EnterpriseIdp {
        issuer: need("issuer")?,
        token_endpoint: need("token_endpoint")?,
        client_id: need("client_id")?,
        id_token_from_env: need("id_token_from_env")?,
    }))
}

fn opt_bool(t: &Table, key: &str) -> Result<Option<bool>, String> {
    t.get(key)
        .map(|v| {
            v.as_bool()
                .ok_or_else(|| format!("key `{key}` must be a boolean"))
        })
        .transpose()
}

fn opt_str(t: &Table, key: &str) -> Result<Option<String>, String> {
    t.get(key)
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("key `{key}` must be a string"))
        })
        .transpose()
}

fn opt_str_list(t: &Table, key: &str) -> Result<Option<Vec<String>>, String> {
    let Some(v) = t.get(key) else {
        return Ok(None);
    };
    let err = || format!("key `{key}` must be an array of strings");
    let arr = v.as_array().ok_or_else(err)?;
    arr.iter()
        .map(|x| x.as_str().map(str::to_owned).ok_or_else(err))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn opt_str_map(t: &Table, key: &str) -> Result<BTreeMap<String, String>, String> {
    let Some(v) = t.get(key) else {
        return Ok(BTreeMap::new());
    };
    let err = || format!("key `{key}` must be a table of strings");
    let tab = v.as_table().ok_or_else(err)?;
    tab.iter()
        .map(|(k, x)| Ok((k.clone(), x.as_str().ok_or_else(err)?.to_owned())))
        .collect()
}
