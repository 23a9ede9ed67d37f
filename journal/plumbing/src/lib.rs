//! Shared plumbing every Rho crate may use and that uses none of them: durable file writes,
//! hex and SHA-256, RFC 3339 time, and the one bounded child runner.

pub mod child;
pub mod fs;
pub mod hex;
pub mod time;

pub use hex::sha256_hex;
