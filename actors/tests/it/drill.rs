//! Kill -9 drill against a real writer process: acknowledged transactions survive, none is half-applied.
//!
//! Each test re-runs the test binary as a writer (the same test, selected with `--exact`, told
//! by `RHO_DRILL_WRITER=<project dir>`), kills it with SIGKILL at random moments, reopens the
//! project and checks the state against what the writer said was acknowledged. The writer prints `ack <writer> <n>` only after its reply, which comes only
//! after the transaction is durable. Each transaction sets three keys of its writer to `n`, so a
//! half-applied one shows as unequal keys.

#![allow(clippy::print_stdout)] // the writer child reports on stdout

use crate::support;

use rand::Rng;
use rho_actors::open::{open_project, ProjectConfig};
use rho_actors::project::{ProjectCommand, ProjectEntity};
use rho_actors::project_actor::ProjectWrite;
use rho_actors::replay::replay;
use rho_actors::service::{GetProject, OpenFolder};
use rho_actors::Principal;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WRITERS: usize = 4;
const KILLS: usize = 30;
const BUDGET: Duration = Duration::from_secs(60);

const DRILL: &str = "drill::kill_9_drill_keeps_every_acknowledged_transaction";
const CONTROL: &str = "drill::the_drills_checker_reports_lost_data_when_the_journal_is_cut";

#[test]
fn kill_9_drill_keeps_every_acknowledged_transaction() {
    writer_mode();
    drill().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_drills_checker_reports_lost_data_when_the_journal_is_cut() {
    writer_mode();
    negative_control().unwrap_or_else(|e| panic!("{e}"));
}

/// In a writer child (`RHO_DRILL_WRITER` set) the test is the writer, until it is killed.
fn writer_mode() {
    if let Some(dir) = std::env::var_os("RHO_DRILL_WRITER") {
        writer(PathBuf::from(dir));
        std::process::exit(0);
    }
}

fn drill_config() -> ProjectConfig {
    ProjectConfig {
        snapshot_every_events: 200,
        holder: format!("drill pid {}", std::process::id()),
        ..ProjectConfig::default()
    }
}

fn command(w: usize, n: u64) -> ProjectCommand {
    let values = ["a", "b", "c"]
        .iter()
        .map(|k| (format!("w{w}.{k}"), Some(n.to_string())))
        .collect();
    ProjectCommand::SetSettings { values }
}

/// The writer process: several concurrent writers, each printing what was acknowledged.
fn writer(dir: PathBuf) {
    let system = actix::System::new();
    system.block_on(async move {
        let state = std::env::var_os("RHO_DRILL_STATE").expect("RHO_DRILL_STATE");
        let service = support::service_at(dir.parent().unwrap(), Path::new(&state), drill_config());
        let id = service
            .send(OpenFolder {
                dir,
                principal: Principal::Local,
            })
            .await
            .unwrap()
            .unwrap()
            .id;
        let project = service.send(GetProject { id }).await.unwrap().unwrap();
        let state = project
            .send(rho_actors::project_actor::ProjectRead)
            .await
            .unwrap()
            .unwrap();
        let mut tasks = Vec::new();
        for w in 0..WRITERS {
            let project = project.clone();
            let start = last_value(&state, w).unwrap_or(0) + 1;
            tasks.push(actix::spawn(async move {
                for n in start.. {
                    let ctx = support::ctx(Principal::Agent(format!("w{w}")));
                    match project
                        .send(ProjectWrite {
                            command: command(w, n),
                            ctx,
                        })
                        .await
                    {
                        Ok(Ok(_)) => {
                            let mut out = std::io::stdout().lock();
                            let _ = writeln!(out, "ack {w} {n}");
                            let _ = out.flush();
                        }
                        Ok(Err(e)) if e.code() == "limit" => {
                            actix::clock::sleep(Duration::from_millis(1)).await
                        }
                        other => panic!("write failed: {other:?}"),
                    }
                }
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
}

fn last_value(state: &ProjectEntity, w: usize) -> Option<u64> {
    state
        .settings
        .get(&format!("w{w}.a"))
        .and_then(|v| v.parse().ok())
}

/// Checks a replayed state against the acknowledged transactions of each writer.
fn check(state: &ProjectEntity, acked: &BTreeMap<usize, u64>) -> Result<(), String> {
    for w in 0..WRITERS {
        let vals: Vec<Option<&String>> = ["a", "b", "c"]
            .iter()
            .map(|k| state.settings.get(&format!("w{w}.{k}")))
            .collect();
        if vals.iter().any(|v| v != &vals[0]) {
            return Err(format!(
                "writer {w}: a transaction is half-applied: {vals:?}"
            ));
        }
        let have = last_value(state, w).unwrap_or(0);
        let want = acked.get(&w).copied().unwrap_or(0);
        if have < want {
            return Err(format!(
                "writer {w}: acknowledged {want} but the journal holds only {have}: lost data"
            ));
        }
    }
    Ok(())
}

fn new_project(root: &Path, state: &Path) -> PathBuf {
    let system = actix::System::new();
    let dir = system.block_on(async {
        let service = support::service_at(root, state, drill_config());
        let info = support::create(&service, "drill").await;
        service.send(rho_actors::service::CloseAll).await.unwrap();
        info.dir
    });
    drop(system);
    dir
}

/// Runs the writer (test `test` of this binary, in writer mode) until killed at a random moment
/// after its first acknowledgement; records the highest acknowledged n per writer.
fn run_and_kill(
    test: &str,
    (dir, state): (&Path, &Path),
    acked: &mut BTreeMap<usize, u64>,
    kill_after: Duration,
) -> Result<(), String> {
    // `--quiet`: libtest writes nothing in front of the writer's first `ack` line.
    let mut child = Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
        .args([
            "--exact",
            test,
            "--nocapture",
            "--quiet",
            "--test-threads=1",
        ])
        .env("RHO_DRILL_WRITER", dir)
        .env("RHO_DRILL_STATE", state)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (writing, first_ack) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("ack ") {
                let _ = writing.send(());
            }
            lines.push(line);
        }
        lines
    });
    // The random moment counts from the writer's first acknowledgement (the child is writing),
    // not from its start, which takes longer than the kill window on a loaded machine.
    let _ = first_ack.recv_timeout(Duration::from_secs(20));
    std::thread::sleep(kill_after);
    child.kill().map_err(|e| e.to_string())?; // SIGKILL
    let _ = child.wait();
    for line in reader.join().map_err(|_| "reader panicked")? {
        let mut parts = line.split_whitespace();
        if parts.next() != Some("ack") {
            continue;
        }
        let w: usize = parts
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or("bad ack line")?;
        let n: u64 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or("bad ack line")?;
        let e = acked.entry(w).or_default();
        *e = (*e).max(n);
    }
    Ok(())
}

/// Reopens the project as the service would and checks it; also replays twice and against the snapshot.
fn verify(dir: &Path, acked: &BTreeMap<usize, u64>) -> Result<(), String> {
    let opened = open_project(dir, &drill_config()).map_err(|e| format!("reopen failed: {e}"))?;
    check(&opened.state.project, acked)?;
    let (full, _) = replay(&opened.journal, false).map_err(|e| e.to_string())?;
    let (again, _) = replay(&opened.journal, false).map_err(|e| e.to_string())?;
    let (snap, _) = replay(&opened.journal, true).map_err(|e| e.to_string())?;
    if full.hash() != again.hash() {
        return Err("replaying twice gave different states".into());
    }
    if full.hash() != snap.hash() {
        return Err("snapshot + tail differs from a full replay".into());
    }
    if full.project != opened.state.project {
        return Err("the opened state differs from a full replay".into());
    }
    Ok(())
}

fn drill() -> Result<(), String> {
    let root = tempfile::tempdir().map_err(|e| e.to_string())?;
    let state = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = new_project(root.path(), state.path());
    let mut acked = BTreeMap::new();
    let started = Instant::now();
    let mut rng = rand::thread_rng();
    let mut kills = 0;
    while kills < KILLS && started.elapsed() < BUDGET {
        run_and_kill(
            DRILL,
            (&dir, state.path()),
            &mut acked,
            Duration::from_millis(rng.gen_range(30..250)),
        )?;
        kills += 1;
        verify(&dir, &acked).map_err(|e| format!("after kill {kills}: {e}"))?;
    }
    let total: u64 = acked.values().sum();
    println!("drill: {kills} kills, {total} acknowledged transactions checked");
    if kills < 25 {
        return Err(format!("only {kills} kills fitted in the time budget"));
    }
    if total == 0 {
        return Err("the writer never acknowledged anything; the drill checked nothing".into());
    }
    Ok(())
}

/// The checker must catch lost data: cut the journal below what was acknowledged.
fn negative_control() -> Result<(), String> {
    let root = tempfile::tempdir().map_err(|e| e.to_string())?;
    let state = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = new_project(root.path(), state.path());
    let mut acked = BTreeMap::new();
    // Under load a writer may need several runs to acknowledge enough (bounded in time).
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked.values().sum::<u64>() < 10 && Instant::now() < deadline {
        run_and_kill(
            CONTROL,
            (&dir, state.path()),
            &mut acked,
            Duration::from_millis(400),
        )?;
    }
    verify(&dir, &acked)?;
    if acked.values().sum::<u64>() < 10 {
        return Err("too few acknowledgements for a meaningful control".into());
    }
    // Cut the newest segment well below the durable end, mid-frame, as a lying disk would.
    let jdir = rho_actors::open::journal_dir(&dir);
    let newest = std::fs::read_dir(&jdir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .max()
        .ok_or("no segment")?;
    let len = std::fs::metadata(&newest).map_err(|e| e.to_string())?.len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&newest)
        .map_err(|e| e.to_string())?;
    f.set_len(len - len / 3 - 3).map_err(|e| e.to_string())?;
    drop(f);
    match verify(&dir, &acked) {
        Err(e) if e.contains("lost data") || e.contains("reopen failed") => Ok(()),
        Err(e) => Err(format!("the checker failed for another reason: {e}")),
        Ok(()) => Err("the checker did not notice that acknowledged data was cut away".into()),
    }
}
