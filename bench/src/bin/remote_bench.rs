//! Places benchmark (issue 19): `1+1` round trips of a Notebook session on an ssh place and in a
//! Slurm allocation next to a bare line protocol over the same route (the same multiplexed ssh,
//! an `srun --unbuffered` of its own) in the same run, samples interleaved (goal: within 2 ms);
//! and a managed `r.execute` run on a Slurm place through the real `rho`, from submit to an
//! observed end, next to `sbatch --wait` of the same command line (goal: within 0.5 s).
//!
//! It starts its own private sshd and single-node Slurm, so it runs as root in a loopback
//! namespace (docs/remote.md):
//! `cargo build --release -p rho -p rho-bench && unshare -n sh -c 'ip link set lo up && ip addr
//! add 127.0.0.2/8 dev lo && exec "$@"' sh target/release/remote_bench [N] [RUNS]`
//! (N round trips per figure, default 200; RUNS Slurm runs per side, default 10; `RHO_BIN` names
//! another `rho`, `RHO_BENCH_PYTHON` another Python, `RHO_BENCH_ONLY=ssh|allocation|runs` one part).

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::places::{Slurm, Sshd};
use rho_bench::{machine_line, quantile_us, scratch};
use rho_kernels::notebook::{Language, RuntimeLimits, Session, SessionEvent};
use rho_kernels::remote::ssh::quote;
use rho_kernels::remote::{start_session, RemoteSpec, Route};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const WARM: usize = 5;

/// The interpreter's real path (the server's PATH varies; a shim needs the caller's environment).
fn which(name: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .unwrap();
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!path.is_empty(), "{name} is not installed");
    std::fs::canonicalize(&path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or(path)
}

fn program(language: Language) -> String {
    match (language, std::env::var("RHO_BENCH_PYTHON")) {
        (Language::R, _) => which("Rscript"),
        (Language::Python, Ok(p)) => p,
        (Language::Python, Err(_)) => which("python3"),
    }
}

/// A session of Rho's runner over `route`.
struct Live {
    session: Session,
    events: Receiver<SessionEvent>,
    next: u64,
}

impl Live {
    fn start(route: Route, language: Language, local: &Path) -> Live {
        let (tx, events) = channel();
        let spec = RemoteSpec {
            language,
            program: program(language),
            folder: None,
            route,
            local_dir: local.to_path_buf(),
            limits: RuntimeLimits {
                start_timeout_ms: 120_000,
                ..Default::default()
            },
            signal_timeout: Duration::from_secs(15),
            fetch_timeout: Duration::from_secs(30),
        };
        let (session, _) = start_session(spec, tx).unwrap();
        Live {
            session,
            events,
            next: 0,
        }
    }

    fn round(&mut self) -> Duration {
        self.next += 1;
        let t = Instant::now();
        self.session.run(self.next, "1+1").unwrap();
        loop {
            match self.events.recv_timeout(Duration::from_secs(120)).unwrap() {
                SessionEvent::CellEnded { cell, .. } if cell == self.next => return t.elapsed(),
                SessionEvent::Exited { .. } => panic!("the session ended"),
                _ => {}
            }
        }
    }
}

/// The floor: the same interpreter over the same route reading a line, evaluating it, printing.
struct Bare {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Bare {
    fn start(route: &Route, language: Language) -> Bare {
        let code = match language {
            Language::R => "con <- file('stdin', 'r'); while (length(l <- readLines(con, n = 1)) > 0) { cat(eval(parse(text = l)), '\\n', sep = ''); flush(stdout()) }",
            Language::Python => "import sys; [print(eval(l), flush=True) for l in iter(sys.stdin.readline, '')]",
        };
        let flag = match language {
            Language::R => "-e",
            Language::Python => "-c",
        };
        let line = format!(
            "exec {} {flag} {}",
            quote(&program(language)).unwrap(),
            quote(code).unwrap()
        );
        let mut child = route
            .session(&line, Duration::from_secs(30))
            .unwrap()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Bare { child, stdin, out }
    }

    fn round(&mut self) -> Duration {
        let t = Instant::now();
        self.stdin.write_all(b"1+1\n").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "2", "{line:?}");
        t.elapsed()
    }

    fn end(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn ms(us: f64) -> f64 {
    us / 1000.0
}

/// Interleaved round trips of a session and the bare floor over routes of the same kind.
fn pair(label: &str, session: Route, bare: Route, language: Language, n: usize, local: &Path) {
    let mut live = Live::start(session, language, local);
    let mut floor = Bare::start(&bare, language);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..n + WARM {
        let (x, y) = (live.round(), floor.round());
        if i >= WARM {
            a.push(x);
            b.push(y);
        }
    }
    live.session.stop();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(SessionEvent::Exited { .. }) = live.events.recv_timeout(Duration::from_secs(1)) {
            break;
        }
    }
    floor.end();
    let (a50, b50) = (quantile_us(&a, 0.5), quantile_us(&b, 0.5));
    println!(
        "| {label} {language:?} `1+1`, session | {:.2} ms | {:.2} ms |",
        ms(a50),
        ms(quantile_us(&a, 0.95))
    );
    println!(
        "| {label} {language:?} `1+1`, bare line protocol | {:.2} ms | {:.2} ms |",
        ms(b50),
        ms(quantile_us(&b, 0.95))
    );
    let over = ms(a50 - b50);
    println!(
        "| {label} {language:?}: session over bare (p50) | {over:+.2} ms | goal <= 2 ms: {} |",
        if over <= 2.0 { "met" } else { "NOT met" }
    );
}

fn post(c: &mut Conn, token: &str, op: &str, body: &Value) -> Value {
    let (status, bytes) = c
        .post(&format!("/api/v2/{op}"), Some(token), &body.to_string())
        .unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "{op}: {v}");
    v["value"].clone()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use std::io::Write as _;
    let mut ch = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    ch.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = ch.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

/// A run on the Slurm place through `rho` against `sbatch --wait` of the same line.
fn runs(slurm: &Slurm, dir: &Path, n: usize) {
    let rho = Rho::start(dir);
    let mut c = Conn::open(rho.port).unwrap();
    let t = rho.token.clone();
    let project = post(
        &mut c,
        &t,
        "project.create",
        &json!({"name": "remote-bench"}),
    );
    let pid = project["id"].as_str().unwrap().to_string();
    let pdir = std::path::PathBuf::from(project["path"].as_str().unwrap());
    let rscript = program(Language::R);
    post(
        &mut c,
        &t,
        "kernel.place.set",
        &json!({"projectId": pid, "place": "hpc",
                "define": {"slurm": {"conf": slurm.conf().display().to_string()}, "rscript": rscript}}),
    );
    let script = "x <- 1\n";
    std::fs::write(pdir.join("t.R"), script).unwrap();
    let digest = sha256_hex(script.as_bytes());
    let port = rho.port;
    let mut submit_and_wait = |op: &str| -> Duration {
        // A fresh connection: the service closes one left idle during the references.
        c = Conn::open(port).unwrap();
        let start = Instant::now();
        let body = json!({"projectId": pid, "operationId": op, "action": "r.execute", "actionVersion": "0.2.0",
            "input": {"script": {"kind": "disk", "path": "t.R", "digest": digest}, "place": "hpc",
                      "args": [], "requirements": [], "artifacts": [], "completion": null}});
        let r = post(&mut c, &t, "action.submit", &body);
        assert_eq!(r["delivery"], "sent", "{r}");
        loop {
            let r = post(
                &mut c,
                &t,
                "action.lookup",
                &json!({"projectId": pid, "operationId": op}),
            );
            assert_ne!(r["execution"], "unknown", "{r}");
            if r["execution"] == "exited" {
                assert_eq!(r["exit"]["exitCode"], 0, "{r}");
                return start.elapsed();
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    };
    // The same line a run's job runs, in the same project folder.
    let out_dir = pdir.join("reference");
    std::fs::create_dir_all(&out_dir).unwrap();
    let text = |p: &Path| p.display().to_string();
    let line = rho_kernels::remote::slurm::rscript_line(
        &text(&pdir),
        &text(&pdir.join(".rho/library")),
        &rscript,
        &text(&pdir.join("t.R")),
        &text(&out_dir),
        &[],
    )
    .unwrap();
    let sbatch_wait = || -> Duration {
        let start = Instant::now();
        let out = Command::new("sbatch")
            .args(["--wait", "--parsable", "--nodes=1", "--ntasks=1"])
            .arg("--job-name=reference")
            .arg(format!("--chdir={}", pdir.display()))
            .arg("--output=/dev/null")
            .arg(format!("--wrap={line}"))
            .env("SLURM_CONF", slurm.conf())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        start.elapsed()
    };
    // For scale: `srun` of the same line waits without polling (sbatch --wait polls).
    let srun = || -> Duration {
        let start = Instant::now();
        let out = Command::new("srun")
            .args(["--quiet", "--nodes=1", "--ntasks=1", "--job-name=reference"])
            .arg(format!("--chdir={}", pdir.display()))
            .args(["sh", "-c", &line])
            .env("SLURM_CONF", slurm.conf())
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        start.elapsed()
    };
    // The same batch job followed as closely as one can: sbatch, then scontrol every 20 ms.
    let sbatch_poll = || -> Duration {
        let start = Instant::now();
        let out = Command::new("sbatch")
            .args(["--parsable", "--nodes=1", "--ntasks=1"])
            .arg("--job-name=reference")
            .arg(format!("--chdir={}", pdir.display()))
            .arg("--output=/dev/null")
            .arg(format!("--wrap={line}"))
            .env("SLURM_CONF", slurm.conf())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
        loop {
            let out = Command::new("scontrol")
                .args(["show", "job", "-o", &id])
                .env("SLURM_CONF", slurm.conf())
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(!text.contains("JobState=FAILED"), "{text}");
            if text.contains("JobState=COMPLETED") {
                return start.elapsed();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    submit_and_wait("warm");
    sbatch_wait();
    sbatch_poll();
    srun();
    let (mut a, mut b, mut polled, mut direct) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        a.push(submit_and_wait(&format!("run-{i}")));
        b.push(sbatch_wait());
        polled.push(sbatch_poll());
        direct.push(srun());
    }
    let (a50, b50) = (quantile_us(&a, 0.5), quantile_us(&b, 0.5));
    println!(
        "| Slurm run through rho, submit to observed end | {:.0} ms | {:.0} ms |",
        ms(a50),
        ms(quantile_us(&a, 0.95))
    );
    println!(
        "| `sbatch --wait` of the same line | {:.0} ms | {:.0} ms |",
        ms(b50),
        ms(quantile_us(&b, 0.95))
    );
    println!(
        "| sbatch of the same line, scontrol every 20 ms | {:.0} ms | {:.0} ms |",
        ms(quantile_us(&polled, 0.5)),
        ms(quantile_us(&polled, 0.95))
    );
    println!(
        "| `srun` of the same line (for scale: no polling) | {:.0} ms | {:.0} ms |",
        ms(quantile_us(&direct, 0.5)),
        ms(quantile_us(&direct, 0.95))
    );
    println!(
        "| Slurm run: rho over sbatch + 20 ms polling (p50) | {:+.3} s | |",
        (a50 - quantile_us(&polled, 0.5)) / 1e6
    );
    let over = (a50 - b50) / 1e6;
    println!(
        "| Slurm run: rho over sbatch --wait (p50) | {over:+.3} s | goal <= 0.5 s: {} |",
        if over <= 0.5 { "met" } else { "NOT met" }
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(200, |a| a.parse().unwrap());
    let n_runs: usize = args.next().map_or(10, |a| a.parse().unwrap());
    let dir = scratch("remote-bench");
    println!("machine: {}", machine_line());
    println!("| figure (same run, {n} round trips, interleaved) | p50 | p95 |");
    println!("| --- | --- | --- |");
    // `RHO_BENCH_ONLY=ssh|allocation|runs` measures one part.
    let only = std::env::var("RHO_BENCH_ONLY").ok();
    let part = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if part("ssh") {
        ssh_pairs(&dir, n);
    }
    if !part("allocation") && !part("runs") {
        return;
    }
    let slurm = Slurm::start();
    let srun = |name: &str| Route::Srun {
        login: None,
        slurm: slurm.client(),
        job_name: name.into(),
    };
    if part("allocation") {
        for language in [Language::R, Language::Python] {
            pair(
                "Slurm allocation",
                srun("rho-session-bench"),
                srun("bare-bench"),
                language,
                n,
                &dir,
            );
        }
    }
    if part("runs") {
        runs(&slurm, &dir.join("rho"), n_runs);
    }
}

fn ssh_pairs(dir: &Path, n: usize) {
    let sshd = Sshd::start();
    // ssh's control socket path must stay under 108 bytes: a short folder of its own.
    let control = std::path::PathBuf::from(format!("/tmp/rho-bench-ssh-{}", std::process::id()));
    let place = sshd.place(&control);
    place.prepare().unwrap();
    for language in [Language::R, Language::Python] {
        pair(
            "ssh place",
            Route::Ssh(place.clone()),
            Route::Ssh(place.clone()),
            language,
            n,
            dir,
        );
    }
    place.close();
    drop(sshd);
    let _ = std::fs::remove_dir_all(&control);
}
