//! The actors' one integration-test binary: one module per area, `support` shared by all.
//!
//! Adding tests: put them in a module here named after the area (`tests/it/<area>.rs`, listed
//! below, alphabetically); shared helpers (configs, services over temp folders, `until` and
//! `released` instead of sleeps) go in `support/`, never copied into a module. A module that
//! needs a feature is declared `#[cfg(feature = "...")]` here, and `scripts/test` runs it with
//! that feature (`save_crash` and `write_failed` need `failpoints`). A test that kills a process of its own re-runs this binary as the child with
//! `--exact <module>::<test>` and an env var that turns the test into the child (`drill`,
//! `save_crash`). See `docs/decisions/0006-one-test-binary-per-crate.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod conversation_acp_claude;
mod conversation_acp_codex;
mod conversation_acp_session;
mod documents_evict;
mod drill;
mod fail_closed;
mod golden;
mod project_actor;
mod runs_journal;
#[cfg(feature = "failpoints")]
mod save_crash;
mod support;
#[cfg(feature = "failpoints")]
mod write_failed;
