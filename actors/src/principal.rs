//! Principals: who did something, as recorded in authors, `requestedBy` and activity.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The caller a change is attributed to (CONVENTIONS, Principals).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Principal {
    /// The browser of the same OS user on this machine.
    Local,
    /// The holder of the token in `connection.json`.
    Operator,
    /// An Agent grant, by session name.
    Agent(String),
    /// A tab opened through a `--pair` link, by link id.
    Paired(String),
    /// Rho stopping in order.
    Shutdown,
    /// Rho's own actions.
    System,
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Principal::Local => f.write_str("local"),
            Principal::Operator => f.write_str("operator"),
            Principal::Agent(s) => write!(f, "agent:{s}"),
            Principal::Paired(s) => write!(f, "paired:{s}"),
            Principal::Shutdown => f.write_str("shutdown"),
            Principal::System => f.write_str("system"),
        }
    }
}

/// A principal string that names no principal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown principal {0:?}")]
pub struct BadPrincipal(pub String);

impl FromStr for Principal {
    type Err = BadPrincipal;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let named = |prefix: &str| {
            s.strip_prefix(prefix)
                .filter(|rest| !rest.is_empty())
                .map(str::to_string)
        };
        match s {
            "local" => Ok(Principal::Local),
            "operator" => Ok(Principal::Operator),
            "shutdown" => Ok(Principal::Shutdown),
            "system" => Ok(Principal::System),
            _ => named("agent:")
                .map(Principal::Agent)
                .or_else(|| named("paired:").map(Principal::Paired))
                .ok_or_else(|| BadPrincipal(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        for p in [
            Principal::Local,
            Principal::Operator,
            Principal::Agent("claude-code".into()),
            Principal::Paired("a1".into()),
            Principal::Shutdown,
            Principal::System,
        ] {
            assert_eq!(p.to_string().parse::<Principal>().unwrap(), p);
        }
        assert!("agent:".parse::<Principal>().is_err());
        assert!("root".parse::<Principal>().is_err());
    }
}
