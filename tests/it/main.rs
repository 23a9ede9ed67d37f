//! The root crate's one integration-test binary: black-box tests of the real `rho` binary, one
//! module per area, `support` shared by all.
//!
//! Adding tests: put them in a module here named after the area (`tests/it/<area>.rs`, listed
//! below, alphabetically); start services through `support` (`Env`, `Service`), talk HTTP with
//! `support::http` and `support::Events`, and wait with `support::until` or a readiness signal,
//! never a bare sleep. A helper two modules need goes in `support/`, never copied into a module.
//! A module that needs a feature is declared `#[cfg(feature = "...")]` here, and `scripts/test`
//! runs it with that feature. See `docs/decisions/0006-one-test-binary-per-crate.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

mod acp_relay;
mod agent_activity;
mod agent_connect;
mod agent_connect_clis;
mod agent_grants;
mod agent_index;
mod agent_mcp;
#[cfg(feature = "test-owner")]
mod agent_mcp_contract;
mod agent_native;
#[cfg(feature = "test-owner")]
mod agent_stale;
mod calls_socket;
mod capabilities;
mod chromium;
mod console;
mod console_drills;
mod console_shell;
mod contexts;
mod conversations;
mod core_host;
mod data_links;
mod data_owners;
mod data_views;
mod docs_truth;
mod document_bursts;
mod document_history;
mod documents;
mod http_ops;
mod inspect;
mod kernel;
mod kernel_ends;
mod kernel_live;
mod kernel_readings;
mod kernel_store;
mod kernel_waits;
mod mcp_login;
mod owner_gate;
mod places;
mod protocol;
mod resource_bytes;
#[cfg(feature = "failpoints")]
mod runs_crash;
mod runs_drills;
mod runs_execute;
mod runs_limits;
mod runs_outputs;
mod runs_requirements;
mod serve;
mod service;
mod support;
mod tidy;
mod work_events;
