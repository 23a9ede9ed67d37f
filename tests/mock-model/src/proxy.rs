//! The deny-all proxy: every attempt (CONNECT or an absolute-URL request) is logged and refused.

use crate::{lock, Shared};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

pub(crate) fn run(listener: TcpListener, seen: &Shared) {
    for mut stream in listener.incoming().flatten() {
        let mut line = String::new();
        if BufReader::new(&stream).read_line(&mut line).is_err() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or_default();
        let target = parts.next().unwrap_or_default().to_string();
        let host = if method == "CONNECT" {
            target
        } else {
            target
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .unwrap_or(&target)
                .to_string()
        };
        lock(seen).connects.push(host);
        let _ = stream
            .write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    }
}
