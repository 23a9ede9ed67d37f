//! A single-node Slurm of the test's own (docs/remote.md, REMOTE.md): munged with its own key
//! and socket, slurmctld and slurmd in the foreground on a private config, ready when the node
//! is idle, stopped by PID with SIGTERM on drop. Run as root in `unshare -n` with lo up and
//! 127.0.0.2/8 added (scripts/test); a missing daemon fails the test: run
//! `kernels/tests/setup.sh`.

use super::sshd::free_port;
use rho_kernels::remote::SlurmClient;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Slurm {
    pub dir: tempfile::TempDir,
    munged: Option<Child>,
    ctld: Option<Child>,
    slurmd: Option<Child>,
    pub node: String,
}

fn daemon(program: &str, args: &[&str], log: &Path) -> Child {
    assert!(
        Path::new(program).is_file(),
        "{program} is missing: run bash kernels/tests/setup.sh (slurmctld slurmd munge)"
    );
    let out = std::fs::File::create(log).unwrap();
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap()
}

fn stop(child: &mut Option<Child>) {
    if let Some(mut c) = child.take() {
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = c.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = c.kill();
        let _ = c.wait();
    }
}

impl Slurm {
    pub fn start() -> Slurm {
        let dir = tempfile::Builder::new()
            .prefix("slurm")
            .tempdir_in("/tmp")
            .unwrap();
        let d = dir.path().to_path_buf();
        for sub in ["state", "spool", "munge"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        let node =
            String::from_utf8_lossy(&Command::new("hostname").arg("-s").output().unwrap().stdout)
                .trim()
                .to_string();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let key = d.join("munge/munge.key");
        let ok = Command::new("/usr/sbin/mungekey")
            .args(["-c", "-k"])
            .arg(&key)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mungekey failed");
        let socket = d.join("munge/munge.socket");
        let munged = daemon(
            "/usr/sbin/munged",
            &[
                "-F",
                "--force",
                &format!("--socket={}", socket.display()),
                &format!("--key-file={}", key.display()),
                &format!("--pid-file={}", d.join("munge/munged.pid").display()),
                &format!("--log-file={}", d.join("munge/munged.log").display()),
                &format!("--seed-file={}", d.join("munge/munged.seed").display()),
            ],
            &d.join("munged.out"),
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
            d = d.display()
        );
        std::fs::write(d.join("slurm.conf"), conf).unwrap();
        let mut s = Slurm {
            dir,
            munged: Some(munged),
            ctld: None,
            slurmd: None,
            node,
        };
        s.start_ctld(true);
        let conf = s.conf().display().to_string();
        s.slurmd = Some(daemon(
            "/usr/sbin/slurmd",
            &["-D", "-f", &conf],
            &s.dir.path().join("slurmd.out"),
        ));
        s.until_idle(Duration::from_secs(30));
        s
    }

    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// The client commands of this cluster (on this machine).
    pub fn client(&self) -> SlurmClient {
        SlurmClient {
            bin: None,
            conf: Some(self.conf()),
            partition: None,
        }
    }

    /// `slurmctld -D` (`clean`: `-c`, no recovery of saved state).
    pub fn start_ctld(&mut self, clean: bool) {
        let conf = self.conf().display().to_string();
        let mut args = vec!["-D", "-f", conf.as_str()];
        if clean {
            args.push("-c");
        }
        self.ctld = Some(daemon(
            "/usr/sbin/slurmctld",
            &args,
            &self.dir.path().join("ctld.out"),
        ));
    }

    /// kill -9 of slurmctld.
    pub fn kill_ctld(&mut self) {
        if let Some(mut c) = self.ctld.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// A Slurm command with this cluster's config, its stdout.
    pub fn cmd(&self, program: &str, args: &[&str]) -> String {
        let out = Command::new(program)
            .args(args)
            .env("SLURM_CONF", self.conf())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls `sinfo -h -N -o %t` (each call bounded) until the node is idle.
    pub fn until_idle(&self, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let out = Command::new("timeout")
                .args(["5", "sinfo", "-h", "-N", "-o", "%t"])
                .env("SLURM_CONF", self.conf())
                .output()
                .unwrap();
            let state = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if state == "idle" {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the node is not idle ({state:?}); ctld.log: {}",
                std::fs::read_to_string(self.dir.path().join("ctld.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        // Jobs still running are cancelled first, so no job process outlives the test.
        let _ = Command::new("timeout")
            .args(["10", "scancel", "--full", "--user=root"])
            .env("SLURM_CONF", self.conf())
            .status();
        stop(&mut self.slurmd);
        stop(&mut self.ctld);
        stop(&mut self.munged);
    }
}
