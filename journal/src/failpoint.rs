//! Named fail points (the `fail` crate, active only with the `failpoints` feature).
//!
//! `hit(name)` returns `Some(arg)` when the point is configured with `return(arg)`; the argument
//! `abort` crashes the process on the spot (`std::process::abort`), which is how tests simulate a
//! crash at a named point in a child process (`FAILPOINTS=journal::before_write=return(abort)`).

pub(crate) const BEFORE_WRITE: &str = "journal::before_write";
pub(crate) const AFTER_WRITE_BEFORE_SYNC: &str = "journal::after_write_before_sync";
pub(crate) const AFTER_SYNC_BEFORE_ACK: &str = "journal::after_sync_before_ack";
pub(crate) const AFTER_SEGMENT_CREATE_BEFORE_DIR_SYNC: &str =
    "journal::after_segment_create_before_dir_sync";
pub(crate) const AFTER_SNAPSHOT_WRITE_BEFORE_RENAME: &str =
    "journal::after_snapshot_write_before_rename";
pub(crate) const WRITE_ERROR: &str = "journal::write_error";
pub(crate) const SYNC_ERROR: &str = "journal::sync_error";
pub(crate) const TRUNCATE_ERROR: &str = "journal::truncate_error";

/// Evaluates the fail point `name`; `Some(arg)` when it fired with `return(arg)`.
#[cfg(feature = "failpoints")]
pub(crate) fn hit(name: &str) -> Option<String> {
    let fired = fail::eval(name, |arg| arg.unwrap_or_default());
    if fired.as_deref() == Some("abort") {
        std::process::abort();
    }
    fired
}

/// Fail points compile to nothing without the `failpoints` feature.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn hit(_name: &str) -> Option<String> {
    None
}

/// A crash-only point: fires side effects (abort, panic, sleep) and ignores any return value.
#[inline(always)]
pub(crate) fn point(name: &str) {
    let _ = hit(name);
}
