//! A keep-alive HTTP/1.1 client over loopback for load drivers, and a helper that starts the real `rho`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// One keep-alive connection.
pub struct Conn {
    reader: BufReader<TcpStream>,
    port: u16,
}

impl Conn {
    pub fn open(port: u16) -> std::io::Result<Conn> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        Ok(Conn {
            reader: BufReader::new(s),
            port,
        })
    }

    /// The service's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// POSTs `body` to `path`; returns the status and the body.
    pub fn post(
        &mut self,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> std::io::Result<(u16, Vec<u8>)> {
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        self.reader.get_mut().write_all(req.as_bytes())?;
        let mut status = 0u16;
        let mut len = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(std::io::Error::other("connection closed"));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if status == 0 {
                status = l
                    .split_whitespace()
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
            } else if let Some(v) = l.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body)?;
        Ok((status, body))
    }
}

/// A running `rho` on scratch folders.
pub struct Rho {
    pub child: Child,
    pub port: u16,
    pub token: String,
    pub dir: PathBuf,
}

impl Rho {
    /// Starts the release `rho` (`$RHO_BIN`, else `target/release/rho`).
    pub fn start(dir: &Path) -> Rho {
        Rho::start_with_env(dir, &[])
    }

    /// [`Rho::start`] with more environment for the service.
    pub fn start_with_env(dir: &Path, env: &[(String, String)]) -> Rho {
        let bin = std::env::var_os("RHO_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/rho")
            });
        let root = dir.join("projects");
        let state = dir.join("state");
        std::fs::create_dir_all(&root).unwrap();
        let mut child = Command::new(&bin)
            .arg("--root")
            .arg(&root)
            .arg("--state-dir")
            .arg(&state)
            .arg("--port")
            .arg("0")
            .env("RUST_LOG", "error")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {} ({e}); build it with cargo build --release",
                    bin.display()
                )
            });
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut port = 0;
        for _ in 0..3 {
            let mut l = String::new();
            out.read_line(&mut l).unwrap();
            if let Some(rest) = l.trim().strip_prefix("http://127.0.0.1:") {
                port = rest.trim_end_matches('/').parse().unwrap();
            }
        }
        let conn: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(state.join("connection.json")).unwrap())
                .unwrap();
        Rho {
            child,
            port,
            token: conn["token"].as_str().unwrap().to_string(),
            dir: dir.to_path_buf(),
        }
    }
}

impl Drop for Rho {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}
