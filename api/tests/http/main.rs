//! Black-box tests of the HTTP edge (issue 3): a real server on 127.0.0.1:0, raw HTTP/1.1 requests.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod client;
mod envelope;
mod events;
mod pairing;
mod util;
