//! A private sshd on 127.0.0.1 for the ssh place tests: its own host key, one user key,
//! key-only login (REMOTE.md), killed on drop. Missing sshd fails the test: run
//! `kernels/tests/setup.sh`.

use rho_kernels::remote::SshPlace;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
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
        // The privilege separation folder sshd was built with.
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let config = format!(
            "ListenAddress 127.0.0.1\nPort {port}\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\nAuthorizedKeysFile {d}/authorized/%u\nAuthenticationMethods publickey\nPubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nAllowUsers {user}\nSubsystem sftp internal-sftp\nClientAliveInterval 5\nClientAliveCountMax 2\n",
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

    /// The client arguments: no user config, this key only, this server's host key only.
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

    /// The place as Rho reaches it.
    pub fn place(&self, control: &Path) -> SshPlace {
        SshPlace {
            program: PathBuf::from("ssh"),
            destination: format!("{}@127.0.0.1", whoami()),
            args: self.args(),
            control_dir: control.to_path_buf(),
        }
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn whoami() -> String {
    let out = Command::new("id").arg("-un").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
