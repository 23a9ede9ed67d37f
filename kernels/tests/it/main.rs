//! The kernels' one integration-test binary: one module per area, `support` shared by all.
//!
//! Adding tests: put them in a module here named after the area (`tests/it/<area>.rs`, listed
//! below, alphabetically); shared helpers (the Host process, polling with a deadline) go in
//! `support/`, never copied into a module. R comes from `kernels/tests/setup.sh`. See
//! `docs/decisions/0006-one-test-binary-per-crate.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod console_guard;
mod core_cli;
mod host_lifecycle;
mod host_runs;
mod notebook_inspect;
mod notebook_life;
mod notebook_plots;
mod notebook_py;
mod notebook_r;
mod remote_serverctl;
mod remote_session;
mod remote_ssh;
mod slurm_batch;
mod slurm_session;
mod support;
