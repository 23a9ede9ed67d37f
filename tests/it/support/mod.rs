//! The one support module of the root crate's test binary: the real `rho` binary, its one HTTP
//! client, one environment (a service with a project), waiting with a deadline, R and MCP peers.
//!
//! Tests import what they use from here (`use crate::support::{Env, Service, http};`); a helper
//! two modules need lives here, never copied into a test module.

#![allow(dead_code, unreachable_pub)]

pub mod agents;
pub mod browser;
pub mod console;
pub mod contract;
pub mod conversations;
pub mod env;
pub mod http;
pub mod mcp;
pub mod poll;
pub mod r;
pub mod service;
pub mod slurm;
pub mod sshd;
pub mod ws;

pub use env::{mode, rscript_spy, Env};
pub use http::{http, http_raw, Events};
pub use poll::until;
pub use r::local_repo;
pub use service::{listing, make_project, rho, run, segments, sha256_hex, text, Service};

/// A one-page 400 x 200 pt PDF (enough for `media.describe`; pdf.js is not asked to draw it).
pub const PDF_400X200: &[u8] = b"%PDF-1.3\n1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n\
2 0 obj\n<</Type/Pages/Count 1/Kids[3 0 R]/MediaBox[0 0 400 200]>>\nendobj\n\
3 0 obj\n<</Type/Page/Parent 2 0 R>>\nendobj\n\
trailer\n<</Root 1 0 R/Size 4>>\n%%EOF\n";
