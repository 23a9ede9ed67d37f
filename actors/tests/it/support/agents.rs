//! The real Agent CLIs and ACP adapters against the scripted model endpoint, one isolated
//! environment per test (`rho_mock_model::isolation`), and `SKIP` when they are missing (the
//! one visible exception to no-skips).

use rho_actors::agent::conversation::{AgentSession, Backend, RecordLimits, Runtimes, TurnEvent};
use rho_mock_model::isolation::{cli_env, installed, Cli};
use rho_mock_model::MockModel;
use std::path::PathBuf;
use std::time::Duration;

/// Real-agent tests run one at a time (2 cores, and each CLI is heavy).
pub async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// One test's isolated Agent environment.
pub struct AgentEnv {
    pub dir: tempfile::TempDir,
    pub mock: MockModel,
    pub runtimes: Runtimes,
}

impl AgentEnv {
    /// The project folder the adapter runs in.
    pub fn cwd(&self) -> PathBuf {
        self.dir.path().join("project")
    }
}

/// The environment for `backend`, or `None` (after printing `SKIP`) when a binary is missing.
/// `retries`: the CLI's own retries of a failed model request.
pub fn agent_env(test: &str, backend: Backend, retries: u32) -> Option<AgentEnv> {
    let i = installed();
    let runtimes = Runtimes {
        node: i.node,
        adapters: i.adapters,
        claude: i.claude,
        codex: i.codex,
        env: Vec::new(),
    };
    if let Err(e) = runtimes.check(backend) {
        assert!(
            std::env::var_os("RHO_REQUIRE_AGENTS").is_none(),
            "{e}; run bash mcp/tests/setup.sh"
        );
        eprintln!("SKIP {test}: {e}; run bash mcp/tests/setup.sh");
        return None;
    }
    // A child process of a kill test makes its folders in the parent's (which removes them).
    let dir = match std::env::var_os("RHO_ACP_OWNER") {
        Some(base) => tempfile::tempdir_in(base).unwrap(),
        None => tempfile::tempdir().unwrap(),
    };
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let mock = MockModel::start(dir.path()).unwrap();
    let cli = match backend {
        Backend::ClaudeAgentAcp | Backend::ClaudeCli => Cli::Claude,
        Backend::CodexAcp => Cli::Codex,
    };
    let env = cli_env(cli, &mock, dir.path(), &runtimes.node, retries).unwrap();
    Some(AgentEnv {
        dir,
        mock,
        runtimes: Runtimes { env, ..runtimes },
    })
}

/// Starts a new session of `backend` in the test's project folder.
pub async fn start(env: &AgentEnv, backend: Backend) -> AgentSession {
    let s = AgentSession::start(
        &env.runtimes,
        backend,
        &env.cwd(),
        Vec::new(),
        None,
        RecordLimits::default(),
    )
    .await;
    match s {
        Ok(s) => s,
        Err(e) => panic!("session did not start: {e}"),
    }
}

/// Runs the turn to its end, answering permissions with `choose` (an option kind, or None to
/// leave it pending); returns the final event and how many permissions were asked.
pub async fn finish(s: &mut AgentSession, choose: Option<&str>) -> (TurnEvent, usize) {
    let mut asked = 0;
    loop {
        let e = tokio::time::timeout(Duration::from_secs(90), s.next())
            .await
            .expect("the turn ended within 90 s");
        match e {
            TurnEvent::Changed => {}
            TurnEvent::Permission(p) => {
                asked += 1;
                if let Some(kind) = choose {
                    let id = p.option(kind).expect("the option was offered").to_string();
                    assert!(s.answer(&p, &id));
                    assert!(!s.answer(&p, &id), "a stale request is refused");
                }
            }
            other => return (other, asked),
        }
    }
}

/// The proxy saw no attempt to reach another host.
pub fn assert_offline(env: &AgentEnv) {
    assert_eq!(
        env.mock.connect_attempts(),
        Vec::<String>::new(),
        "no foreign hosts"
    );
}

/// Asserts that the turn finished with `reason`.
pub fn assert_finished(end: &TurnEvent, reason: &str) {
    assert!(
        matches!(end, TurnEvent::Finished(r) if r == reason),
        "expected {reason}: {end:?}"
    );
}

/// Sends `text` and asserts a plain answer (`end_turn`, the scripted greeting).
pub async fn plain_turn(s: &mut AgentSession, text: &str) {
    s.prompt(text);
    let (end, _) = finish(s, None).await;
    assert_finished(&end, "end_turn");
    assert!(
        s.message.text.contains(rho_mock_model::script::PLAIN),
        "{:?}",
        s.message.text
    );
}

/// Sends `[[slow]]`, cancels at the first streamed text and returns how the turn ended.
pub async fn stop_while_streaming(s: &mut AgentSession) -> TurnEvent {
    s.prompt("[[slow]]");
    loop {
        match tokio::time::timeout(Duration::from_secs(90), s.next())
            .await
            .expect("the turn ended within 90 s")
        {
            TurnEvent::Changed if !s.message.text.is_empty() => s.cancel(),
            TurnEvent::Changed | TurnEvent::Permission(_) => {}
            other => return other,
        }
    }
}
