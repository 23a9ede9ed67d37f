//! What the native agent tests share: the scripted model endpoint, a model client for each
//! provider API pointed at it, a session with MCP servers from config text, and one turn run
//! to its end with a scripted person answering its questions.

use std::path::Path;
use std::time::Duration;

use rho_mcp::agent::{AgentEvent, NativeSession, NativeSetup, TurnEnd};
use rho_mcp::client::connect::ConnectOptions;
use rho_mcp::config::{parse_config, McpConfig};
use rho_mcp::model::{parse_model_config, Api, ModelClient, Part};
use rho_mcp::runtime::StartOptions;
use rho_mock_model::MockModel;

/// The scripted model endpoint, logging into a temp folder kept with it.
pub(crate) struct Mock {
    pub(crate) model: MockModel,
    _dir: tempfile::TempDir,
}

pub(crate) fn mock() -> Mock {
    let dir = tempfile::tempdir().unwrap();
    Mock {
        model: MockModel::start(dir.path()).unwrap(),
        _dir: dir,
    }
}

impl Mock {
    /// The model requests so far (side requests included).
    pub(crate) fn requests(&self) -> Vec<serde_json::Value> {
        self.model.requests()
    }
}

/// A `[model]` table for `api` at the mock.
pub(crate) fn model_toml(api: Api, mock: &Mock, extra: &str) -> String {
    let base = mock.model.base_url();
    let head = match api {
        Api::Anthropic => format!("provider = \"anthropic\"\nbase_url = \"{base}\""),
        Api::Responses => {
            format!("provider = \"openai\"\napi = \"responses\"\nbase_url = \"{base}/v1\"")
        }
        Api::Chat => format!("provider = \"openai\"\napi = \"chat\"\nbase_url = \"{base}/v1\""),
    };
    format!("[model]\n{head}\nmodel = \"mock-model\"\napi_key = \"none\"\nretry_base_ms = 20\n{extra}\n")
}

/// A client for `api` at the mock.
pub(crate) fn client(api: Api, mock: &Mock, extra: &str) -> ModelClient {
    let cfg = parse_model_config(&model_toml(api, mock, extra), Path::new("t.toml")).unwrap();
    ModelClient::new(cfg, None).unwrap()
}

/// Start options for test servers (a minute to start, a workspace root).
pub(crate) fn start_options() -> StartOptions {
    StartOptions {
        connect: ConnectOptions {
            startup_budget: Duration::from_secs(60),
            shutdown_grace: Duration::from_millis(500),
            workspace: Some("/work/ws".into()),
            ..ConnectOptions::default()
        },
        call_budget: Duration::from_secs(60),
        ..StartOptions::default()
    }
}

/// A session on `api` at the mock with the MCP servers of `mcp_toml` (may be empty).
pub(crate) async fn session(api: Api, mock: &Mock, mcp_toml: &str, can_ask: bool) -> NativeSession {
    session_with(api, mock, mcp_toml, can_ask, "").await
}

/// [`session`] with extra `[model]` lines.
pub(crate) async fn session_with(
    api: Api,
    mock: &Mock,
    mcp_toml: &str,
    can_ask: bool,
    model_extra: &str,
) -> NativeSession {
    let mcp: McpConfig = parse_config(mcp_toml, "t".as_ref()).unwrap();
    NativeSession::start(NativeSetup {
        model: client(api, mock, model_extra),
        mcp,
        start: start_options(),
        project: None,
        can_ask,
        max_steps: 8,
        system: None,
    })
    .await
}

/// A session's `server-everything` config (`extra` lines added to its table).
pub(crate) fn everything_toml(extra: &str) -> String {
    format!(
        "[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {}\n{extra}\n",
        crate::peers::q(&crate::peers::everything())
    )
}

/// Everything one turn reported.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    pub(crate) text: String,
    pub(crate) events: Vec<AgentEvent>,
    pub(crate) end: Option<TurnEnd>,
}

impl Turn {
    pub(crate) fn stop(&self) -> &str {
        self.end.as_ref().map_or("", |e| e.stop.as_str())
    }
}

/// Sends `text` and collects events until the turn's end; `person` sees every event and may
/// answer questions on the session.
pub(crate) async fn turn_with(
    s: &mut NativeSession,
    input: Vec<Part>,
    mut person: impl FnMut(&NativeSession, &AgentEvent),
) -> Turn {
    let message = s.prompt(input).unwrap();
    let mut t = Turn::default();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(60), s.next())
            .await
            .expect("the turn reports within a minute")
            .expect("the session is open");
        person(s, &ev);
        match &ev {
            AgentEvent::Text { text, .. } => t.text.push_str(text),
            AgentEvent::Finished { message: m, end } if *m == message => {
                t.end = Some(end.clone());
                t.events.push(ev);
                return t;
            }
            _ => {}
        }
        t.events.push(ev);
    }
}

/// One plain-text turn with nobody answering questions.
pub(crate) async fn turn(s: &mut NativeSession, text: &str) -> Turn {
    turn_with(s, vec![Part::Text(text.to_owned())], |_, _| {}).await
}

/// The exported name of server-everything tool `tool`.
pub(crate) fn ev_tool(s: &NativeSession, tool: &str) -> String {
    s.runtime()
        .unwrap()
        .registry()
        .exported_for("ev", tool)
        .unwrap_or_else(|| panic!("{tool} is not exported"))
        .to_owned()
}

/// The bodies of the model requests that offered tools (the turn's own, not side requests).
pub(crate) fn turn_requests(mock: &Mock) -> Vec<serde_json::Value> {
    mock.requests()
        .into_iter()
        .filter(|r| r["body"]["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .map(|r| r["body"].clone())
        .collect()
}
