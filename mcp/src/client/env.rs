//! The sanitized environment a stdio server starts with: an allowlisted base plus the
//! entry's `env` literals and `env_from_env` mappings (later wins).

use std::collections::BTreeMap;
use std::ffi::OsString;

use crate::client::config::StdioConfig;

/// Ambient variables every child inherits: paths, home, user, shell, temp, time zone, locale.
const BASE: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "LANG", "LANGUAGE",
];

/// A variable named by `env_from_env` or `headers_from_env` is not set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable `{ambient}` (for `{key}`) is not set")]
pub struct MissingEnv {
    /// The child variable or header name it was meant to fill.
    pub key: String,
    /// The ambient variable that is unset.
    pub ambient: String,
}

/// A child's environment plus the values that came from the ambient environment by
/// explicit mapping (so they can be redacted from anything shown).
#[derive(Debug, Clone, Default)]
pub struct ChildEnv {
    /// Every variable the child gets.
    pub vars: BTreeMap<String, OsString>,
    /// Values copied by `env_from_env` (never to be printed or logged).
    pub secrets: Vec<String>,
}

/// Builds the child environment from an ambient lookup (`std::env::var_os` in production).
pub fn child_env(
    cfg: &StdioConfig,
    ambient: impl Fn(&str) -> Option<OsString>,
    ambient_names: impl Iterator<Item = String>,
) -> Result<ChildEnv, MissingEnv> {
    let mut env = ChildEnv::default();
    for name in BASE {
        if let Some(v) = ambient(name) {
            env.vars.insert((*name).to_owned(), v);
        }
    }
    for name in ambient_names.filter(|n| n.starts_with("LC_")) {
        if let Some(v) = ambient(&name) {
            env.vars.insert(name, v);
        }
    }
    for (k, v) in &cfg.env {
        env.vars.insert(k.clone(), OsString::from(v));
    }
    for (child, amb) in &cfg.env_from_env {
        let v = ambient(amb).ok_or_else(|| MissingEnv {
            key: child.clone(),
            ambient: amb.clone(),
        })?;
        if let Some(s) = v.to_str().filter(|s| !s.is_empty()) {
            env.secrets.push(s.to_owned());
        }
        env.vars.insert(child.clone(), v);
    }
    Ok(env)
}

/// [`child_env`] against the real process environment.
pub fn child_env_from_process(cfg: &StdioConfig) -> Result<ChildEnv, MissingEnv> {
    child_env(
        cfg,
        |n| std::env::var_os(n),
        std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()),
    )
}

/// Replaces every secret value inside `text` with `[redacted]`.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for s in secrets.iter().filter(|s| s.len() >= 3) {
        out = out.replace(s.as_str(), "[redacted]");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ambient(n: &str) -> Option<OsString> {
        let v = match n {
            "PATH" => "/bin",
            "HOME" => "/home/u",
            "LC_ALL" => "C.UTF-8",
            "AWS_SECRET_ACCESS_KEY" => "nope",
            "GITHUB_TOKEN" => "ghp_secret",
            _ => return None,
        };
        Some(v.into())
    }

    fn names() -> impl Iterator<Item = String> {
        [
            "PATH",
            "HOME",
            "LC_ALL",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
        ]
        .into_iter()
        .map(str::to_owned)
    }

    #[test]
    fn base_allowlist_only_and_overlay_after() {
        let cfg = StdioConfig {
            command: "x".into(),
            args: vec![],
            cwd: None,
            env: [("A".into(), "1".into()), ("PATH".into(), "/custom".into())].into(),
            env_from_env: [("GITHUB_PERSONAL_ACCESS_TOKEN".into(), "GITHUB_TOKEN".into())].into(),
        };
        let env = child_env(&cfg, ambient, names()).unwrap();
        let keys: Vec<&str> = env.vars.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "A",
                "GITHUB_PERSONAL_ACCESS_TOKEN",
                "HOME",
                "LC_ALL",
                "PATH"
            ]
        );
        assert_eq!(env.vars["PATH"], "/custom");
        assert_eq!(env.vars["GITHUB_PERSONAL_ACCESS_TOKEN"], "ghp_secret");
        assert_eq!(env.secrets, ["ghp_secret"]);
        assert_eq!(
            redact("token=ghp_secret!", &env.secrets),
            "token=[redacted]!"
        );
    }

    #[test]
    fn env_from_env_wins_over_literal_and_unset_ambient_fails() {
        let mut cfg = StdioConfig {
            command: "x".into(),
            args: vec![],
            cwd: None,
            env: [("T".into(), "literal".into())].into(),
            env_from_env: [("T".into(), "GITHUB_TOKEN".into())].into(),
        };
        assert_eq!(
            child_env(&cfg, ambient, names()).unwrap().vars["T"],
            "ghp_secret"
        );
        cfg.env_from_env = [("T".into(), "UNSET_VAR".into())].into();
        let err = child_env(&cfg, ambient, names()).unwrap_err();
        assert_eq!(err.ambient, "UNSET_VAR");
        assert!(err.to_string().contains("UNSET_VAR"));
    }
}
