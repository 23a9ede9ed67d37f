//! The `[model]` table of Rho's config file (`~/.rho/config.toml` or `--config`): which provider
//! API, endpoint and model Rho's own agent uses, and where its key comes from (an environment
//! variable named here, Rho's credential store, or none for a local server; never the file).

use std::path::{Path, PathBuf};

use toml::{Table, Value};

/// The wire API a provider is spoken to with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// Anthropic Messages (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI Responses (`POST {base}/responses`).
    Responses,
    /// Chat Completions (`POST {base}/chat/completions`), for OpenAI-compatible local servers.
    Chat,
}

impl Api {
    /// `anthropic`, `responses` or `chat`.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::Responses => "responses",
            Api::Chat => "chat",
        }
    }
}

/// Where the key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `api_key = "env:NAME"`.
    Env(String),
    /// `api_key = "store"` (the default): Rho's 0600 credential store, entry `model:<provider>`.
    Store,
    /// `api_key = "none"`: a local server that needs none.
    None,
}

/// A usable `[model]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// `anthropic` or `openai`.
    pub provider: String,
    /// The API spoken.
    pub api: Api,
    /// The endpoint base (Anthropic's without `/v1`, OpenAI's with it, as their SDKs take them).
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// Where the key comes from.
    pub key: KeySource,
    /// The output ceiling of one request.
    pub max_tokens: u32,
    /// How many times a failed request is sent again (each announced).
    pub max_retries: u32,
    /// The first retry's wait when the provider names none (doubled each time).
    pub retry_base_ms: u64,
}

/// Why the model is not usable: the backend answers `unavailable` with this text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelSetupError {
    /// Something required is not there.
    #[error("Rho's own agent is unavailable: missing {}", missing.join(", "))]
    Missing {
        /// Each missing piece, named.
        missing: Vec<String>,
    },
    /// The table is there but a value cannot be used.
    #[error("Rho's own agent is unavailable: {file}: [model] {key}: {message}")]
    Invalid {
        /// The config file.
        file: PathBuf,
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The file cannot be read or parsed.
    #[error("Rho's own agent is unavailable: {0}")]
    File(String),
}

/// The defaults of a provider: `(base_url, api)`.
fn defaults(provider: &str) -> Option<(&'static str, Api)> {
    match provider {
        "anthropic" => Some(("https://api.anthropic.com", Api::Anthropic)),
        "openai" => Some(("https://api.openai.com/v1", Api::Responses)),
        _ => None,
    }
}

/// Reads the `[model]` table of the selected config file (`--config`, else `<home>/config.toml`;
/// never both).
pub fn load_model_config(
    config: Option<&Path>,
    home: &Path,
) -> Result<ModelConfig, ModelSetupError> {
    let path = config.map_or_else(|| home.join("config.toml"), Path::to_owned);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if config.is_none() && e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ModelSetupError::Missing {
                missing: vec![format!("a [model] table in {}", path.display())],
            })
        }
        Err(e) => {
            return Err(ModelSetupError::File(format!(
                "cannot read config file {}: {e}",
                path.display()
            )))
        }
    };
    parse_model_config(&text, &path)
}

/// Parses the `[model]` table of config text (`path` is named in messages only).
pub fn parse_model_config(text: &str, path: &Path) -> Result<ModelConfig, ModelSetupError> {
    let table: Table = text.parse().map_err(|e: toml::de::Error| {
        ModelSetupError::File(format!(
            "config file {} is not valid TOML: {}",
            path.display(),
            e.message()
        ))
    })?;
    let Some(model) = table.get("model") else {
        return Err(ModelSetupError::Missing {
            missing: vec![format!("a [model] table in {}", path.display())],
        });
    };
    let invalid = |key: &str, message: String| ModelSetupError::Invalid {
        file: path.to_owned(),
        key: key.to_owned(),
        message,
    };
    let Value::Table(model) = model else {
        return Err(invalid("", "must be a table".to_owned()));
    };
    for key in model.keys() {
        if ![
            "provider",
            "api",
            "base_url",
            "model",
            "api_key",
            "max_tokens",
            "max_retries",
            "retry_base_ms",
        ]
        .contains(&key.as_str())
        {
            return Err(invalid(key, "is not a [model] key".to_owned()));
        }
    }
    let string = |key: &str| -> Result<Option<String>, ModelSetupError> {
        match model.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
            Some(_) => Err(invalid(key, "must be a non-empty string".to_owned())),
        }
    };
    let number = |key: &str, default: u64, max: u64| -> Result<u64, ModelSetupError> {
        match model.get(key) {
            None => Ok(default),
            Some(Value::Integer(n)) if *n >= 0 && (*n as u64) <= max => Ok(*n as u64),
            Some(_) => Err(invalid(
                key,
                format!("must be a whole number from 0 to {max}"),
            )),
        }
    };
    let provider = string("provider")?;
    let name = string("model")?;
    let mut missing = Vec::new();
    if provider.is_none() {
        missing.push(format!("[model] provider in {}", path.display()));
    }
    if name.is_none() {
        missing.push(format!("[model] model in {}", path.display()));
    }
    let (Some(provider), Some(name)) = (provider, name) else {
        return Err(ModelSetupError::Missing { missing });
    };
    let Some((base_default, api_default)) = defaults(&provider) else {
        return Err(invalid(
            "provider",
            format!("`{provider}` is not a provider Rho speaks (anthropic or openai)"),
        ));
    };
    let api = match (provider.as_str(), string("api")?.as_deref()) {
        (_, None) => api_default,
        ("openai", Some("responses")) => Api::Responses,
        ("openai", Some("chat")) => Api::Chat,
        ("anthropic", Some("messages")) => Api::Anthropic,
        (_, Some(other)) => {
            return Err(invalid(
                "api",
                format!("`{other}` is not an API of {provider} (openai: responses or chat; anthropic: messages)"),
            ))
        }
    };
    let base_url = string("base_url")?.unwrap_or_else(|| base_default.to_owned());
    check_base_url(&base_url).map_err(|m| invalid("base_url", m))?;
    let key = match string("api_key")?.as_deref() {
        None | Some("store") => KeySource::Store,
        Some("none") => KeySource::None,
        Some(s) => match s.strip_prefix("env:") {
            Some(var) if !var.is_empty() && !var.contains(char::is_whitespace) => {
                KeySource::Env(var.to_owned())
            }
            _ => {
                return Err(invalid(
                    "api_key",
                    "must be \"env:NAME\", \"store\" or \"none\"; the key itself never goes in the config file".to_owned(),
                ))
            }
        },
    };
    Ok(ModelConfig {
        provider,
        api,
        base_url: base_url.trim_end_matches('/').to_owned(),
        model: name,
        key,
        max_tokens: number("max_tokens", 8192, 1_000_000)? as u32,
        max_retries: number("max_retries", 2, 10)? as u32,
        retry_base_ms: number("retry_base_ms", 500, 60_000)?,
    })
}

/// The key may only travel over HTTPS, or plain HTTP to this machine.
fn check_base_url(base: &str) -> Result<(), String> {
    let url = url::Url::parse(base).map_err(|e| format!("`{base}` is not a URL: {e}"))?;
    match url.scheme() {
        "https" => Ok(()),
        "http" => {
            let loopback = match url.host() {
                Some(url::Host::Domain(d)) => d == "localhost",
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                None => false,
            };
            if loopback {
                Ok(())
            } else {
                Err(format!(
                    "`{base}` must use https (plain http only to this machine)"
                ))
            }
        }
        other => Err(format!("`{other}` is not http or https")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ModelConfig, ModelSetupError> {
        parse_model_config(text, Path::new("c.toml"))
    }

    #[test]
    fn a_full_table_and_its_defaults() {
        let c = parse("[model]\nprovider = \"anthropic\"\nmodel = \"m\"\napi_key = \"env:K\"\n")
            .unwrap();
        assert_eq!(c.api, Api::Anthropic);
        assert_eq!(c.base_url, "https://api.anthropic.com");
        assert_eq!(c.key, KeySource::Env("K".into()));
        assert_eq!((c.max_tokens, c.max_retries), (8192, 2));
        let c = parse("[model]\nprovider = \"openai\"\napi = \"chat\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:8080/v1/\"\napi_key = \"none\"\n").unwrap();
        assert_eq!(c.api, Api::Chat);
        assert_eq!(c.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(c.key, KeySource::None);
        assert_eq!(
            parse("[model]\nprovider = \"openai\"\nmodel = \"m\"\n")
                .unwrap()
                .key,
            KeySource::Store
        );
    }

    #[test]
    fn what_is_missing_is_named() {
        let e = parse("[mcp]\n").unwrap_err();
        assert!(e.to_string().contains("missing a [model] table"), "{e}");
        let e = parse("[model]\nprovider = \"openai\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "Rho's own agent is unavailable: missing [model] model in c.toml"
        );
    }

    #[test]
    fn unusable_values_are_refused_naming_the_key() {
        for (text, key) in [
            ("provider = \"x\"\nmodel = \"m\"", "provider"),
            (
                "provider = \"openai\"\nmodel = \"m\"\napi = \"soap\"",
                "api",
            ),
            (
                "provider = \"openai\"\nmodel = \"m\"\napi_key = \"sk-123\"",
                "api_key",
            ),
            (
                "provider = \"openai\"\nmodel = \"m\"\nbase_url = \"http://example.com/v1\"",
                "base_url",
            ),
            (
                "provider = \"openai\"\nmodel = \"m\"\nmax_retries = 99",
                "max_retries",
            ),
            (
                "provider = \"openai\"\nmodel = \"m\"\ntemperature = 1",
                "temperature",
            ),
        ] {
            match parse(&format!("[model]\n{text}\n")) {
                Err(ModelSetupError::Invalid { key: k, .. }) => assert_eq!(k, key, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let e = parse("[model]\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"sk-123\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            !e.contains("sk-123"),
            "the rejected value is not repeated: {e}"
        );
    }
}
