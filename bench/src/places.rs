//! The places the remote benchmark measures on, started by the benchmark itself: a private sshd
//! on 127.0.0.1 with its own host and user keys, and a single-node Slurm (munged, slurmctld,
//! slurmd from Debian's packages) on a private config. Both need root inside `unshare -n` with
//! lo up and 127.0.0.2/8 added (docs/remote.md); they are stopped by PID when dropped.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A loopback port nobody listens on (just now).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn need(program: &str) {
    assert!(
        Path::new(program).is_file(),
        "{program} is missing: run bash kernels/tests/setup.sh"
    );
}

fn whoami() -> String {
    let out = Command::new("id").arg("-un").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
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

fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A private sshd with key-only login for this user.
pub struct Sshd {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
}

impl Sshd {
    pub fn start(dir: &Path) -> Sshd {
        need("/usr/sbin/sshd");
        std::fs::create_dir_all(dir.join("authorized")).unwrap();
        keygen(&dir.join("host_key"));
        keygen(&dir.join("user_key"));
        let user = whoami();
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized").join(&user)).unwrap();
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let d = dir.display();
        std::fs::write(
            dir.join("sshd_config"),
            format!(
                "ListenAddress 127.0.0.1\nPort {port}\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\nAuthorizedKeysFile {d}/authorized/%u\nAuthenticationMethods publickey\nPubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nAllowUsers {user}\n"
            ),
        )
        .unwrap();
        let host_pub = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
        std::fs::write(
            dir.join("known_hosts"),
            format!("[127.0.0.1]:{port} {host_pub}"),
        )
        .unwrap();
        let child = Command::new("/usr/sbin/sshd")
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
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
        Sshd {
            child,
            port,
            dir: dir.to_path_buf(),
        }
    }

    /// The place as Rho reaches it: the person's ssh with these keys, multiplexed under `control`.
    pub fn place(&self, control: &Path) -> rho_kernels::remote::SshPlace {
        let d = self.dir.display();
        rho_kernels::remote::SshPlace {
            program: PathBuf::from("ssh"),
            destination: format!("{}@127.0.0.1", whoami()),
            args: vec![
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
            ],
            control_dir: control.to_path_buf(),
        }
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// A single-node Slurm on a private config (jobcomp to a file, no accounting).
pub struct Slurm {
    pub dir: PathBuf,
    daemons: Vec<Child>,
}

fn daemon(program: &str, args: &[&str], log: &Path) -> Child {
    need(program);
    let out = std::fs::File::create(log).unwrap();
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap()
}

impl Slurm {
    pub fn start(dir: &Path) -> Slurm {
        for sub in ["state", "spool", "munge"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let node =
            String::from_utf8_lossy(&Command::new("hostname").arg("-s").output().unwrap().stdout)
                .trim()
                .to_string();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let key = dir.join("munge/munge.key");
        need("/usr/sbin/mungekey");
        assert!(Command::new("/usr/sbin/mungekey")
            .args(["-c", "-k"])
            .arg(&key)
            .status()
            .unwrap()
            .success());
        let socket = dir.join("munge/munge.socket");
        let d = dir.display();
        let munged = daemon(
            "/usr/sbin/munged",
            &[
                "-F",
                "--force",
                &format!("--socket={}", socket.display()),
                &format!("--key-file={}", key.display()),
                &format!("--pid-file={d}/munge/munged.pid"),
                &format!("--log-file={d}/munge/munged.log"),
                &format!("--seed-file={d}/munge/munged.seed"),
            ],
            &dir.join("munged.out"),
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while !socket.exists() {
            assert!(Instant::now() < deadline, "munged did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        let (ctld_port, slurmd_port) = (free_port(), free_port());
        let conf = format!(
            "ClusterName=rho\nSlurmctldHost={node}(127.0.0.1)\nSlurmctldPort={ctld_port}\nSlurmdPort={slurmd_port}\n\
AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={socket}\n\
SlurmUser=root\nSlurmdUser=root\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
SlurmctldPidFile={d}/ctld.pid\nSlurmdPidFile={d}/slurmd.pid\nSlurmctldLogFile={d}/ctld.log\nSlurmdLogFile={d}/slurmd.log\n\
TaskPlugin=task/none\nProctrackType=proctrack/linuxproc\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
MpiDefault=none\nReturnToService=2\nSchedulerParameters=batch_sched_delay=0\nMailProg=/bin/true\n\
JobCompType=jobcomp/filetxt\nJobCompLoc={d}/jobcomp.txt\nMinJobAge=300\nKillWait=2\n\
JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n\
PartitionName=main Nodes={node} Default=YES MaxTime=INFINITE State=UP\n",
            socket = socket.display(),
        );
        std::fs::write(dir.join("slurm.conf"), conf).unwrap();
        let conf = dir.join("slurm.conf").display().to_string();
        let ctld = daemon(
            "/usr/sbin/slurmctld",
            &["-D", "-c", "-f", &conf],
            &dir.join("ctld.out"),
        );
        let slurmd = daemon(
            "/usr/sbin/slurmd",
            &["-D", "-f", &conf],
            &dir.join("slurmd.out"),
        );
        let s = Slurm {
            dir: dir.to_path_buf(),
            daemons: vec![slurmd, ctld, munged],
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = Command::new("timeout")
                .args(["5", "sinfo", "-h", "-N", "-o", "%t"])
                .env("SLURM_CONF", s.conf())
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout).trim() == "idle" {
                return s;
            }
            assert!(Instant::now() < deadline, "the Slurm node is not idle");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// The cluster's client commands as Rho runs them.
    pub fn client(&self) -> rho_kernels::remote::SlurmClient {
        rho_kernels::remote::SlurmClient {
            bin: None,
            conf: Some(self.conf()),
            partition: None,
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = Command::new("timeout")
            .args(["10", "scancel", "--full", "--user=root"])
            .env("SLURM_CONF", self.conf())
            .status();
        for d in &mut self.daemons {
            stop(d);
        }
    }
}
