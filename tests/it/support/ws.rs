//! A minimal WebSocket client for the calls socket (`/api/v2/calls`): the upgrade with chosen headers, masked text frames out, frames in.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An open socket, or the refused upgrade's status and JSON body.
pub enum Upgrade {
    Open(Socket),
    Refused(u16, Value),
}

pub struct Socket {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// Asks for the calls socket with `headers` (Origin, Authorization, Cookie, ...).
pub fn connect(port: u16, headers: &[(&str, &str)]) -> Upgrade {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!(
        "GET /api/v2/calls HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    let mut writer = s.try_clone().unwrap();
    writer.write_all(req.as_bytes()).unwrap();
    let mut reader = BufReader::new(s);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    if status != 101 {
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        return Upgrade::Refused(status, serde_json::from_slice(&body).unwrap_or(Value::Null));
    }
    Upgrade::Open(Socket { reader, writer })
}

impl Socket {
    /// Sends one text frame (masked, as a client must).
    pub fn send(&mut self, text: &str) {
        let data = text.as_bytes();
        let mut frame = vec![0x81];
        match data.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n < 65536 => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x12, 0x34, 0x56, 0x78];
        frame.extend_from_slice(&mask);
        frame.extend(data.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.writer.write_all(&frame).unwrap();
    }

    /// The next text frame as JSON (`None` once the service closed the socket).
    pub fn recv(&mut self) -> Option<Value> {
        loop {
            let mut head = [0u8; 2];
            self.reader.read_exact(&mut head).ok()?;
            let mut len = u64::from(head[1] & 0x7f);
            if len == 126 {
                let mut b = [0u8; 2];
                self.reader.read_exact(&mut b).ok()?;
                len = u64::from(u16::from_be_bytes(b));
            } else if len == 127 {
                let mut b = [0u8; 8];
                self.reader.read_exact(&mut b).ok()?;
                len = u64::from_be_bytes(b);
            }
            let mut data = vec![0u8; len as usize];
            self.reader.read_exact(&mut data).ok()?;
            match head[0] & 0x0f {
                0x1 => return Some(serde_json::from_slice(&data).expect("a JSON answer")),
                0x8 => return None,
                _ => continue,
            }
        }
    }

    /// Sends a call and returns its answer (`{id, status, envelope}`).
    pub fn call(&mut self, id: u64, op: &str, body: Value) -> Value {
        self.send(&serde_json::json!({"id": id, "op": op, "body": body}).to_string());
        self.recv().expect("an answer")
    }
}
