//! Unix milliseconds now, and their RFC 3339 form (UTC, `Z`) as the wire and the CLI print it.

use chrono::{DateTime, SecondsFormat};
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now (0 before the epoch, saturating far after it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// RFC 3339 of Unix milliseconds with millisecond precision (`2026-01-02T03:04:05.678Z`);
/// `None` outside the representable range.
pub fn rfc3339_ms_opt(ms: i64) -> Option<String> {
    DateTime::from_timestamp_millis(ms).map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// [`rfc3339_ms_opt`], empty outside the representable range.
pub fn rfc3339_ms(ms: i64) -> String {
    rfc3339_ms_opt(ms).unwrap_or_default()
}

/// RFC 3339 of Unix milliseconds with whole seconds (`2026-01-02T03:04:05Z`, truncated);
/// empty outside the representable range.
pub fn rfc3339_secs(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_with_the_asked_precision() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_767_323_045_678), "2026-01-02T03:04:05.678Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_secs(1_767_323_045_678), "2026-01-02T03:04:05Z");
        assert_eq!(rfc3339_ms_opt(i64::MAX), None);
        assert_eq!(rfc3339_ms(i64::MAX), "");
        assert_eq!(rfc3339_secs(i64::MIN), "");
        let now = now_ms();
        assert!(now > 1_700_000_000_000, "{now}");
    }
}
