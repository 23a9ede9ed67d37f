//! The journal's one integration-test binary: one module per area, `support` shared by all.
//!
//! Adding tests: put them in a module here named after the area (`tests/it/<area>.rs`, listed
//! below, alphabetically); shared helpers go in `support/`, never copied into a module. A module
//! that needs a feature is declared `#[cfg(feature = "...")]` here, and `scripts/test` runs that
//! feature. A test that must run in a process of its own (it kills one, or configures
//! process-global fail points) re-runs this binary with `--exact <module>::<test>`
//! (`support::child::spawn_writer`, `support::in_own_process`). See
//! `docs/decisions/0006-one-test-binary-per-crate.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod basic;
mod bulk;
#[cfg(feature = "failpoints")]
mod crash;
mod drill;
#[cfg(feature = "failpoints")]
mod failpoints;
mod recovery;
mod support;
