//! The adapter's retention and cache limits, read once from the environment at start.

/// Limits of one adapter process (defaults from the seed's limits table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `RHO_MAX_RESULT_BYTES`: one reply, 16 MiB.
    pub max_result_bytes: u64,
    /// `RHO_MAX_RETAINED_RESULT_BYTES`: every retained result together, 64 MiB.
    pub max_retained_bytes: u64,
    /// `RHO_MAX_RESULTS`: retained results, 64.
    pub max_results: usize,
    /// `RHO_KNOWLEDGE_CACHE_ENTRIES`: complete cached bodies, 128 (a maximum: only lowered).
    pub cache_entries: usize,
    /// `RHO_KNOWLEDGE_CACHE_BYTES`: serialized bytes of cached bodies, 4 MiB.
    pub cache_bytes: u64,
    /// `RHO_MAX_AGENT_INTENTS`: managed intent records per project/session, 256.
    pub max_intents: usize,
}

/// The seed's maximum for `RHO_KNOWLEDGE_CACHE_ENTRIES`.
pub const MAX_CACHE_ENTRIES: usize = 128;
/// Knowledge and reply pages: the default size.
pub const DEFAULT_PAGE_BYTES: u64 = 16 * 1024;
/// Knowledge and reply pages: the largest `maxBytes`.
pub const MAX_PAGE_BYTES: u64 = 64 * 1024;
/// `rho_resolve`: operations per request.
pub const MAX_RESOLVE_OPERATIONS: usize = 16;
/// `rho_resolve`: `knownRefs` per request.
pub const MAX_KNOWN_REFS: usize = 128;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_result_bytes: 16 << 20,
            max_retained_bytes: 64 << 20,
            max_results: 64,
            cache_entries: MAX_CACHE_ENTRIES,
            cache_bytes: 4 << 20,
            max_intents: 256,
        }
    }
}

/// An environment value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}={value:?}: {reason}")]
pub struct LimitError {
    /// The variable.
    pub key: &'static str,
    /// What it held.
    pub value: String,
    /// Why it is refused.
    pub reason: &'static str,
}

impl Limits {
    /// Reads the limits through `get` (the process environment in production).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, LimitError> {
        let d = Limits::default();
        let num = |key: &'static str, default: u64| -> Result<u64, LimitError> {
            let Some(raw) = get(key) else {
                return Ok(default);
            };
            match raw.trim().parse::<u64>() {
                Ok(0) => Err(LimitError {
                    key,
                    value: raw,
                    reason: "must be a positive integer",
                }),
                Ok(n) => Ok(n),
                Err(_) => Err(LimitError {
                    key,
                    value: raw,
                    reason: "not a positive integer",
                }),
            }
        };
        let entries = num("RHO_KNOWLEDGE_CACHE_ENTRIES", d.cache_entries as u64)?;
        if entries > MAX_CACHE_ENTRIES as u64 {
            return Err(LimitError {
                key: "RHO_KNOWLEDGE_CACHE_ENTRIES",
                value: entries.to_string(),
                reason: "is a maximum of 128 and can only be lowered",
            });
        }
        Ok(Self {
            max_result_bytes: num("RHO_MAX_RESULT_BYTES", d.max_result_bytes)?,
            max_retained_bytes: num("RHO_MAX_RETAINED_RESULT_BYTES", d.max_retained_bytes)?,
            max_results: to_usize(num("RHO_MAX_RESULTS", d.max_results as u64)?),
            cache_entries: to_usize(entries),
            cache_bytes: num("RHO_KNOWLEDGE_CACHE_BYTES", d.cache_bytes)?,
            max_intents: to_usize(num("RHO_MAX_AGENT_INTENTS", d.max_intents as u64)?),
        })
    }

    /// Reads the limits from the process environment.
    pub fn from_env() -> Result<Self, LimitError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A `maxBytes` argument: default 16 KiB, at most 64 KiB.
pub fn page_bytes(asked: Option<u64>) -> Result<u64, super::refusal::Refusal> {
    match asked {
        None => Ok(DEFAULT_PAGE_BYTES),
        Some(0) => Err(super::refusal::Refusal::invalid(
            "maxBytes",
            "must be positive",
        )),
        Some(n) if n > MAX_PAGE_BYTES => Err(super::refusal::Refusal::invalid(
            "maxBytes",
            format!("{n} is over the maximum of {MAX_PAGE_BYTES} (64 KiB)"),
        )),
        Some(n) => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Result<Limits, LimitError> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Limits::from_lookup(|k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults_follow_the_seed() {
        let l = with(&[]).unwrap();
        assert_eq!(l.max_result_bytes, 16 << 20);
        assert_eq!(l.max_retained_bytes, 64 << 20);
        assert_eq!(l.max_results, 64);
        assert_eq!(l.cache_entries, 128);
        assert_eq!(l.cache_bytes, 4 << 20);
        assert_eq!(l.max_intents, 256);
    }

    #[test]
    fn values_are_read_and_checked() {
        assert_eq!(with(&[("RHO_MAX_RESULTS", "3")]).unwrap().max_results, 3);
        assert_eq!(
            with(&[("RHO_KNOWLEDGE_CACHE_ENTRIES", "129")])
                .unwrap_err()
                .key,
            "RHO_KNOWLEDGE_CACHE_ENTRIES"
        );
        assert_eq!(
            with(&[("RHO_MAX_RESULT_BYTES", "x")]).unwrap_err().key,
            "RHO_MAX_RESULT_BYTES"
        );
        assert!(with(&[("RHO_MAX_AGENT_INTENTS", "0")]).is_err());
    }

    #[test]
    fn page_sizes() {
        assert_eq!(page_bytes(None).unwrap(), 16 * 1024);
        assert_eq!(page_bytes(Some(65536)).unwrap(), 65536);
        assert_eq!(page_bytes(Some(65537)).unwrap_err().code, "invalid");
        assert_eq!(page_bytes(Some(0)).unwrap_err().code, "invalid");
    }
}
