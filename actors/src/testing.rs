//! A test-only owner (cargo feature `test-owner`) whose contract a test changes at runtime: `testing.echo`, `testing.revise`, `testing.large`.
//!
//! `testing.revise` bumps the revision that `testing.echo`'s request schema states, so its
//! contract hash changes while the service runs: the "contract changed between resolve and call"
//! path is testable black-box. `testing.large` has a contract over 64 KiB.

use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

static REVISION: AtomicU64 = AtomicU64::new(1);

/// The current revision of `testing.echo`'s contract.
pub fn revision() -> u64 {
    REVISION.load(Ordering::SeqCst)
}

/// Bumps the revision (and with it `testing.echo`'s contract hash).
pub fn revise() -> u64 {
    // The catalog's published forms follow the revision (`agent::catalog`).
    REVISION.fetch_add(1, Ordering::SeqCst) + 1
}

/// `testing.echo` / `testing.revise` / `testing.large` request.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EchoRequest {
    pub project_id: String,
    pub text: Option<String>,
}

/// `testing.echo` reply: the text and the contract revision.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EchoReply {
    pub revision: u64,
    pub text: Option<String>,
}

/// `testing.revise` reply: the new revision.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReviseReply {
    pub revision: u64,
}

/// `testing.large` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LargeReply {
    /// Always true.
    pub large: bool,
}

fn echo_request() -> schemars::Schema {
    let mut s = schema::<EchoRequest>();
    s.insert(
        "description".into(),
        format!("testing.echo request, contract revision {}", revision()).into(),
    );
    s
}

fn large_request() -> schemars::Schema {
    let mut s = schema::<EchoRequest>();
    s.insert("description".into(), "x".repeat(70 * 1024).into());
    s
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "testing.echo",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Test owner: echoes text; its contract changes with testing.revise.",
        request: echo_request,
        response: reply::<EchoReply>,
        errors: &["invalid", "stale"],
        events: &[],
    },
    OperationSpec {
        name: "testing.revise",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Test owner: bump testing.echo's contract revision.",
        request: schema::<EchoRequest>,
        response: reply::<ReviseReply>,
        errors: &["invalid"],
        events: &[],
    },
    OperationSpec {
        name: "testing.large",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Test owner: an operation whose contract is over 64 KiB.",
        request: large_request,
        response: reply::<LargeReply>,
        errors: &["invalid"],
        events: &[],
    },
];
