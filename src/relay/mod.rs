//! `rho --acp /absolute/project --acp-agent claude|codex`: an ACP agent executable for an external
//! ACP client (Zed, ...). Starts the chosen adapter in the project folder, forwards stdio bytes
//! unchanged both ways, and records selected updates through the running service (decision 0710).

mod report;
mod tap;

use report::{Note, Reporter};
use rho_actors::agent::conversation::{Backend, Runtimes};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::Sender;
use std::time::Duration;
use tap::{Lines, Tap};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The usage text of `rho --acp`.
pub(crate) const USAGE: &str =
    "usage: rho --acp /absolute/project --acp-agent claude|codex [--state-dir DIR] [--claude PATH] [--codex PATH]";

/// What `rho --acp` was given.
pub(crate) struct RelayArgs<'a> {
    pub(crate) project: &'a Path,
    pub(crate) agent: &'a str,
    pub(crate) state_dir: Option<&'a Path>,
    pub(crate) claude: Option<&'a Path>,
    pub(crate) codex: Option<&'a Path>,
}

/// How long the adapter may take to exit once the client closed its input.
const EXIT_GRACE: Duration = Duration::from_secs(5);
/// How long the relay tries to deliver its last facts before it exits.
const FINISH: Duration = Duration::from_secs(3);

/// The runtimes the relay starts, found as a service start finds them
/// (`start::conversations::service_setup`): the person's CLI by option, variable or PATH (an explicit one
/// must exist), Node 22 and the adapters by `RHO_NODE` and `RHO_ACP_ADAPTERS`.
fn runtimes(args: &RelayArgs<'_>, state: &Path, backend: Backend) -> Result<Runtimes, String> {
    let found = crate::start::runtimes::Runtimes::resolve(None, args.claude, args.codex, None)?;
    let limits = rho_actors::limits::ConversationLimits::default();
    Ok(crate::start::conversations::service_setup(state, &found, backend, &limits).runtimes)
}

fn state_dir(given: Option<&Path>) -> Option<PathBuf> {
    given.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join("Rho/state"))
    })
}

pub(crate) fn run(args: &RelayArgs<'_>) -> ExitCode {
    if !args.project.is_absolute() {
        eprintln!("rho: --acp takes the project folder as an absolute path\n{USAGE}");
        return ExitCode::from(2);
    }
    let project = match std::fs::canonicalize(args.project) {
        Ok(p) if p.is_dir() => p,
        _ => {
            eprintln!(
                "rho: the project folder {} does not exist",
                args.project.display()
            );
            return ExitCode::from(1);
        }
    };
    let Some(state) = state_dir(args.state_dir) else {
        eprintln!("rho: HOME is not set; pass --state-dir");
        return ExitCode::from(1);
    };
    let (backend, agent) = match args.agent {
        "codex" => (Backend::CodexAcp, "codex"),
        _ => (Backend::ClaudeAgentAcp, "claude"),
    };
    let runtimes = match runtimes(args, &state, backend) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = runtimes.check(backend) {
        eprintln!("rho: {e}");
        return ExitCode::from(1);
    }
    let pid = std::process::id();
    let reporter = Reporter {
        state,
        project: project.clone(),
        relay_id: uuid::Uuid::new_v4().to_string(),
        agent: agent.to_string(),
        pid,
        proc_start: i32::try_from(pid)
            .ok()
            .and_then(rho_kernels::console::files::proc_start)
            .unwrap_or_default(),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let reporting = std::thread::spawn(move || reporter.run(rx));
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let code = rt.block_on(relay(&runtimes, backend, &project, &tx));
    // The blocking stdin reader may still wait for input nobody sends.
    rt.shutdown_background();
    let _ = tx.send(Note::Finish(FINISH));
    drop(tx);
    let _ = reporting.join();
    code
}

/// Feeds `bytes` to a direction's line splitter and sends the facts the tap reads from them.
fn tap_bytes(
    lines: &mut Lines,
    bytes: &[u8],
    tap: &RefCell<Tap>,
    tx: &Sender<Note>,
    read: fn(&mut Tap, &[u8]) -> Vec<rho_actors::agent::relay::contract::FactWire>,
) {
    lines.feed(bytes, |line| {
        for fact in read(&mut tap.borrow_mut(), line) {
            let _ = tx.send(Note::Fact(fact));
        }
    });
}

async fn relay(
    runtimes: &Runtimes,
    backend: Backend,
    project: &Path,
    tx: &Sender<Note>,
) -> ExitCode {
    let mut adapter = match runtimes.spawn(backend, project) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let Some((mut to_agent, mut from_agent)) = adapter.take_stdio() else {
        eprintln!("rho: the adapter's pipes are missing");
        return ExitCode::from(1);
    };
    let tap = RefCell::new(Tap::new(rho_plumbing::time::now_ms));
    let up = async {
        let mut stdin = tokio::io::stdin();
        let mut lines = Lines::default();
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = stdin.read(&mut buf).await {
            if to_agent.write_all(&buf[..n]).await.is_err() || to_agent.flush().await.is_err() {
                break;
            }
            tap_bytes(&mut lines, &buf[..n], &tap, tx, Tap::client_line);
        }
        // The client closed its input: so does the relay, towards the adapter.
        drop(to_agent);
    };
    let down = async {
        let mut stdout = tokio::io::stdout();
        let mut lines = Lines::default();
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = from_agent.read(&mut buf).await {
            if stdout.write_all(&buf[..n]).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
            tap_bytes(&mut lines, &buf[..n], &tap, tx, Tap::agent_line);
        }
    };
    tokio::pin!(up, down);
    let stop = stop_signal();
    tokio::pin!(stop);
    let code = tokio::select! {
        () = &mut up => {
            // Let the adapter answer what it was asked and exit on its own.
            let _ = tokio::time::timeout(EXIT_GRACE, &mut down).await;
            ExitCode::SUCCESS
        }
        () = &mut down => {
            eprintln!("rho: the {} adapter exited: {}", backend.name(), adapter.stderr_tail());
            ExitCode::from(1)
        }
        () = &mut stop => ExitCode::from(1),
    };
    let _ = tx.send(Note::Fact(tap.borrow_mut().closed()));
    // Dropping the adapter ends its whole process group.
    drop(adapter);
    code
}

/// SIGTERM, SIGINT or SIGHUP: the client ended the relay; the adapter ends with it.
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
}
