//! A private sshd on 127.0.0.1 for the place tests through the real `rho`: its own host key,
//! one user key, key-only login (docs/remote.md), killed on drop, and the place definition that
//! reaches it. A missing sshd fails the test: run `kernels/tests/setup.sh`.

use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const SSHD: &str = "/usr/sbin/sshd";

pub struct Sshd {
    child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "ssh-keygen failed");
}

/// A loopback port nobody listens on (just now).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn whoami() -> String {
    let out = Command::new("id").arg("-un").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl Sshd {
    pub fn start() -> Sshd {
        assert!(
            Path::new(SSHD).is_file(),
            "{SSHD} is missing: run bash kernels/tests/setup.sh (openssh-server)"
        );
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("user_key"));
        std::fs::create_dir_all(d.join("authorized")).unwrap();
        let user = whoami();
        std::fs::copy(d.join("user_key.pub"), d.join("authorized").join(&user)).unwrap();
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let config = format!(
            "ListenAddress 127.0.0.1\nPort {port}\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\nAuthorizedKeysFile {d}/authorized/%u\nAuthenticationMethods publickey\nPubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nAllowUsers {user}\nClientAliveInterval 5\nClientAliveCountMax 2\n",
            d = d.display()
        );
        std::fs::write(d.join("sshd_config"), config).unwrap();
        let host_pub = std::fs::read_to_string(d.join("host_key.pub")).unwrap();
        std::fs::write(
            d.join("known_hosts"),
            format!("[127.0.0.1]:{port} {host_pub}"),
        )
        .unwrap();
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(d.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "sshd did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Sshd { child, port, dir }
    }

    /// The ssh options of the place: no user config, this key only, this host key only.
    pub fn args(&self) -> Vec<String> {
        let d = self.dir.path().display();
        vec![
            "-F".into(),
            "/dev/null".into(),
            "-p".into(),
            self.port.to_string(),
            "-i".into(),
            format!("{d}/user_key"),
            "-o".into(),
            "IdentitiesOnly=yes".into(),
            "-o".into(),
            format!("UserKnownHostsFile={d}/known_hosts"),
            "-o".into(),
            "StrictHostKeyChecking=yes".into(),
        ]
    }

    /// `kernel.place.set`'s `define` for this server.
    pub fn definition(&self) -> Value {
        json!({"ssh": {"destination": format!("{}@127.0.0.1", whoami()), "args": self.args()}})
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Pids of live (not zombie) processes whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie
                && String::from_utf8_lossy(&cmd)
                    .replace('\0', " ")
                    .contains(needle)
        })
        .collect()
}
