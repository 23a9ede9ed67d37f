//! Black-box tests of the HTTP edge (issue 3): a real server on 127.0.0.1:0, raw HTTP/1.1 requests.

mod access;
mod client;
mod envelope;
mod events;
mod pairing;
mod util;
