//! Raw HTTP/1.1 client for the tests: any Host/Origin, whole replies by Content-Length, and an SSE reader.

#![allow(dead_code, unreachable_pub)]

use crate::util::Service;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
    /// The envelope's error code (asserting the envelope's shape).
    pub fn code(&self) -> String {
        let v = self.json();
        assert_eq!(v["apiVersion"], "2.0", "{v}");
        assert_eq!(v["ok"], false, "{v}");
        assert!(v["error"]["message"].is_string(), "{v}");
        assert!(v["error"]["details"].is_object(), "{v}");
        v["error"]["code"].as_str().unwrap().to_string()
    }
}

impl Service {
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `head` (request line + headers, without the blank line) and `body`, reads the reply.
    pub fn raw(&self, head: &str, body: &[u8]) -> Response {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut req = format!("{head}\r\nConnection: close\r\n");
        if !body.is_empty() {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let _ = s.write_all(body);
        read_response(&mut s)
    }

    /// Sends only a request head and reads the reply (the server must answer before a body).
    pub fn head_only(&self, head: &str) -> Response {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(format!("{head}\r\nConnection: close\r\n\r\n").as_bytes())
            .unwrap();
        read_response(&mut s)
    }

    /// Sends a head and a body as given (no Content-Length added), writing from another thread.
    pub fn raw_no_length(&self, head: &str, body: &[u8]) -> Response {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut w = s.try_clone().unwrap();
        let mut data = format!("{head}\r\nConnection: close\r\n\r\n").into_bytes();
        data.extend_from_slice(body);
        let writer = std::thread::spawn(move || {
            let _ = w.write_all(&data);
        });
        let r = read_response(&mut s);
        drop(s);
        let _ = writer.join();
        r
    }

    /// `GET path` with `Host: 127.0.0.1:PORT` and extra header lines.
    pub fn get(&self, path: &str, headers: &[&str]) -> Response {
        let mut head = format!("GET {path} HTTP/1.1\r\nHost: {}", self.host());
        for h in headers {
            head.push_str("\r\n");
            head.push_str(h);
        }
        self.raw(&head, b"")
    }

    /// `POST /api/v2/<op>` with the right Host and extra header lines.
    pub fn post(&self, op: &str, body: &str, headers: &[&str]) -> Response {
        let mut head = format!(
            "POST /api/v2/{op} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json",
            self.host()
        );
        for h in headers {
            head.push_str("\r\n");
            head.push_str(h);
        }
        self.raw(&head, body.as_bytes())
    }

    /// Opens `GET /api/v2/events<query>` and reads the head; the body is read as it streams.
    pub fn events(&self, query: &str, headers: &[&str]) -> Sse {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut req = format!(
            "GET /api/v2/events{query} HTTP/1.0\r\nHost: {}\r\n",
            self.host()
        );
        for h in headers {
            req.push_str(h);
            req.push_str("\r\n");
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut reader = BufReader::new(s);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).unwrap();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("0")
            .parse()
            .unwrap_or(0);
        let mut chunked = false;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
            chunked |= line
                .to_ascii_lowercase()
                .starts_with("transfer-encoding: chunked");
        }
        let body = Dechunk {
            inner: reader,
            chunked,
            left: 0,
            done: false,
        };
        Sse {
            status,
            reader: BufReader::new(body),
        }
    }
}

/// Reads one response: the head, then `Content-Length` bytes (or to EOF without a length).
pub fn read_response(s: &mut TcpStream) -> Response {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = parse_response(&out[..end + 4]);
            if let Some(len) = head
                .header("content-length")
                .and_then(|v| v.parse::<usize>().ok())
            {
                if out.len() >= end + 4 + len {
                    return parse_response(&out[..end + 4 + len]);
                }
            }
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return parse_response(&out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
}

pub fn parse_response(bytes: &[u8]) -> Response {
    let text = String::from_utf8_lossy(bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Response {
        status,
        headers,
        body: body.to_string(),
    }
}

/// One SSE frame (comments skipped).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    pub id: Option<String>,
    pub event: String,
    pub data: String,
}

impl Frame {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

pub struct Sse {
    pub status: u16,
    reader: BufReader<Dechunk>,
}

/// Undoes `Transfer-Encoding: chunked` (or passes the bytes through).
pub struct Dechunk {
    inner: BufReader<TcpStream>,
    chunked: bool,
    left: usize,
    done: bool,
}

impl Read for Dechunk {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.chunked {
            return self.inner.read(buf);
        }
        if self.done {
            return Ok(0);
        }
        if self.left == 0 {
            let mut line = String::new();
            if self.inner.read_line(&mut line)? == 0 {
                return Ok(0);
            }
            if line.trim().is_empty() {
                line.clear();
                if self.inner.read_line(&mut line)? == 0 {
                    return Ok(0);
                }
            }
            self.left = usize::from_str_radix(line.trim(), 16).unwrap_or(0);
            if self.left == 0 {
                self.done = true;
                return Ok(0);
            }
        }
        let n = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..n])?;
        self.left -= n;
        if self.left == 0 {
            let mut crlf = [0u8; 2];
            self.inner.read_exact(&mut crlf)?;
        }
        Ok(n)
    }
}

impl Sse {
    /// The next frame, or `None` at the end of the stream (or after the read timeout).
    pub fn next(&mut self) -> Option<Frame> {
        let mut frame = Frame::default();
        let mut any = false;
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if any {
                    return Some(frame);
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            any = true;
            if let Some(v) = line.strip_prefix("id: ") {
                frame.id = Some(v.to_string());
            } else if let Some(v) = line.strip_prefix("event: ") {
                frame.event = v.to_string();
            } else if let Some(v) = line.strip_prefix("data: ") {
                frame.data = v.to_string();
            }
        }
    }

    /// The rest of the body as text (for error replies).
    pub fn rest(mut self) -> String {
        let mut s = String::new();
        let _ = self.reader.read_to_string(&mut s);
        s
    }
}
