//! A service start: check options and folders, lock the state, open every project, serve HTTP, stop in order.

use crate::cli::ServeArgs;
use crate::start::connection::{new_token, rewrite_agent_files, Connection};
use crate::start::example;
use crate::start::folders::{resolve, Folders};
use crate::start::port::{choose, Bound};
use crate::start::runtimes::Runtimes;
use crate::start::which::which;
use actix::Actor;
use rho_actors::events::{BusConfig, EventBus};
use rho_actors::limits::Limits;
use rho_actors::open::ProjectConfig;
use rho_actors::owners::Selection;
use rho_actors::registry::Registry;
use rho_actors::service::{CloseAll, CreateProject, OpenAll, ServiceActor};
use rho_api::handlers::{register_service_operations, Services};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// Everything checked before the service starts.
struct Plan {
    folders: Folders,
    limits: Limits,
    selection: Selection,
    runtimes: Runtimes,
    r: rho_actors::runs::config::RConfig,
    registry: Registry,
    fresh_state: bool,
    bound: Bound,
    /// `--agent NAME --project FOLDER`: connect that Agent once the service is ready.
    agent: Option<(String, std::path::PathBuf)>,
    /// `--agent-backend` / `RHO_AGENT_BACKEND`: the conversations' default backend.
    agent_backend: rho_actors::agent::conversation::Backend,
    _lock: File,
}

fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("rho: {message}");
    ExitCode::from(code)
}

/// Takes `<state>/service.lock`; a second start on a running state is refused with its address.
fn lock_state(state: &Path) -> Result<File, String> {
    let path = state.join("service.lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("opening {}: {e}", path.display()))?;
    if fs2::FileExt::try_lock_exclusive(&file).is_err() {
        let running = Connection::read(&state.join("connection.json"))
            .map(|c| format!(" at {}/", c.url))
            .unwrap_or_default();
        return Err(format!(
            "Rho is already running on the state folder {}{running}",
            state.display()
        ));
    }
    Ok(file)
}

fn plan(args: &ServeArgs) -> Result<Plan, ExitCode> {
    let limits = match &args.limits {
        Some(p) => Limits::from_file(p).map_err(|e| fail(2, e))?,
        None => Limits::default(),
    };
    let selection = match &args.plugins {
        Some(list) => {
            let selection = Selection::parse(list).map_err(|e| fail(2, e))?;
            for owner in not_built(&selection) {
                tracing::warn!(
                    owner = owner.name(),
                    "selected owner is not built yet: it serves no operations"
                );
            }
            selection
        }
        None => Selection::all(),
    };
    let folders =
        resolve(args.root.as_deref(), args.state_dir.as_deref()).map_err(|e| fail(1, e))?;
    let runtimes = Runtimes::resolve(
        args.rscript.as_deref(),
        args.claude.as_deref(),
        args.codex.as_deref(),
        args.python.as_deref(),
    )
    .map_err(|e| fail(1, e))?;
    let agent_backend = crate::start::conversations::backend(args.agent_backend.as_deref())
        .map_err(|e| fail(2, e))?;
    let r =
        crate::start::runtimes::r_config(&runtimes, args.core.as_deref(), args.r_repos.as_deref())
            .map_err(|(code, e)| fail(code, e))?;
    let lock = lock_state(&folders.state).map_err(|e| fail(1, e))?;
    let (registry, fresh_state) = Registry::open(&folders.state).map_err(|e| fail(1, e))?;
    let last = registry.last_port().map_err(|e| fail(1, e))?;
    let bound = choose(args.port, last).map_err(|e| fail(1, e))?;
    Ok(Plan {
        folders,
        limits,
        selection,
        runtimes,
        r,
        registry,
        fresh_state,
        bound,
        agent: args.agent.clone().zip(args.project.clone()),
        agent_backend,
        _lock: lock,
    })
}

pub(crate) fn run(args: &ServeArgs) -> ExitCode {
    let plan = match plan(args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let system = actix::System::new();
    system.block_on(serve(plan))
}

/// The uid of this process (the owner of `/proc/self`): the local browser principal's OS user.
fn service_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

async fn serve(plan: Plan) -> ExitCode {
    let Plan {
        folders,
        limits,
        selection,
        runtimes,
        r,
        registry,
        fresh_state,
        bound,
        agent,
        agent_backend,
        _lock,
    } = plan;
    // Installed before anything is announced, so a signal right after "ready" stops in order.
    let signals = Signals::install();
    let url = format!("http://127.0.0.1:{}", bound.port);
    let events = EventBus::new(BusConfig::from_limits(&limits));
    let holder = format!("pid {} at {url}/", std::process::id());
    let mut found = Vec::new();
    if r.core.is_some() {
        found.push(rho_actors::contract::actions::Runtime::Core);
    }
    if r.rscript.is_some() {
        found.push(rho_actors::contract::actions::Runtime::Rscript);
    }
    let kernel = crate::start::runtimes::kernel_runtime(&runtimes, r.rscript.clone());
    let config = ProjectConfig {
        kernel: Arc::new(kernel),
        r: Arc::new(r),
        selection: Arc::new(selection.clone()),
        ..ProjectConfig::from_limits(&limits, holder, Some(events.clone()))
    };
    let (service, hosts) = match ServiceActor::new(config, registry.clone(), folders.root.clone()) {
        Ok(s) => {
            let hosts = s.started_hosts();
            (s.start(), hosts)
        }
        Err(e) => return fail(1, e),
    };
    for (id, res) in service.send(OpenAll).await.unwrap_or_default() {
        if let Err(e) = res {
            tracing::warn!(project = %id, reason = %e, "project unavailable");
        }
    }
    if folders.defaults && fresh_state {
        ship_example(&service).await;
    }

    let token = new_token();
    let conn = Connection {
        api_version: "2.0".into(),
        url: url.clone(),
        token: token.clone(),
        pid: std::process::id(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    if let Err(e) = conn.write(&folders.state) {
        return fail(1, format!("writing the connection file: {e}"));
    }
    if let Some(old) = bound.moved_from {
        let old_url = format!("http://127.0.0.1:{old}");
        let rewritten = rewrite_agent_files(&folders.state, &old_url, &url);
        tracing::warn!(old_port = old, new_port = bound.port, agent_files = rewritten.len(), "the last port was taken by another program; Agent connection files now name the new port");
    }
    if let Err(e) = registry.set_last_port(bound.port) {
        return fail(1, e);
    }

    let mut table = rho_api::OpTable::new();
    let grants = match rho_actors::agent::grants::GrantRegistry::load(registry.clone()) {
        Ok(g) => g,
        Err(e) => return fail(1, e),
    };
    let services = Arc::new(
        Services::new(
            service.clone(),
            folders.root.clone(),
            selection.clone(),
            limits.clone(),
            events.clone(),
            url.clone(),
        )
        .with_runtimes(found)
        .with_conversations(crate::start::conversations::setup(
            &folders.state,
            &runtimes,
            agent_backend,
            &limits.conversations,
        ))
        .with_agent(crate::connect::start(
            &folders.state,
            &runtimes,
            grants.clone(),
            rho_actors::agent::access::AccessConfig {
                service: service.clone(),
                root: folders.root.clone(),
                selection: selection.clone(),
                max_methods: limits.layered_grant_limits.max_methods,
                url: url.clone(),
                events: Some(events.clone()),
            },
        )),
    );
    if let Err(e) = register_service_operations(&mut table, services.clone()) {
        return fail(1, e);
    }
    let mut app = rho_api::AppConfig::new(
        env!("CARGO_PKG_VERSION"),
        token,
        service_uid(),
        limits.clone(),
        events.clone(),
    );
    app.status = status_facts(&registry, &folders, &selection, &limits);
    app.selection = Arc::new(selection.clone());
    app.grants = Arc::new(grants);
    app.activity = Arc::new(rho_api::handlers::ProjectActivity::start(
        service.clone(),
        limits.max_activities,
    ));
    let root = folders.root.clone();
    app.folder_scope = Arc::new(move |folder, id| {
        registry_path(&registry, id).is_some_and(|p| p.starts_with(folder) && p.starts_with(&root))
    });
    let state = rho_api::AppState::new(app);
    let server = match rho_api::serve(bound.listener, state.clone(), table) {
        Ok(s) => s,
        Err(e) => return fail(1, format!("starting the HTTP server: {e}")),
    };
    let handle = server.handle();
    let running = actix::spawn(server);

    print_banner(&folders, &runtimes, &url);
    tracing::info!(%url, "service ready");
    if folders.defaults && std::io::stdout().is_terminal() {
        open_browser(&url);
    }
    if let Some((name, folder)) = agent {
        actix::spawn(crate::connect::at_start(services, name, folder));
    }

    signals.wait().await;
    tracing::info!("stopping: refusing new requests, finishing those in flight");
    state.begin_shutdown();
    handle.stop(true).await;
    let _ = running.await;
    crate::start::hosts::stop_owned(&service, &hosts).await;
    let mut code = ExitCode::SUCCESS;
    for (id, res) in service.send(CloseAll).await.unwrap_or_default() {
        if let Err(e) = res {
            tracing::error!(project = %id, error = %e, "project did not close cleanly");
            code = ExitCode::from(1);
        }
    }
    tracing::info!("stopped");
    code
}

fn registry_path(registry: &Registry, id: uuid::Uuid) -> Option<std::path::PathBuf> {
    registry.project(id).ok().flatten().map(|p| p.path)
}

async fn ship_example(service: &actix::Addr<ServiceActor>) {
    match service
        .send(CreateProject {
            name: "example".into(),
            principal: rho_actors::Principal::System,
        })
        .await
    {
        Ok(Ok(info)) => {
            if let Err(e) = example::write_files(&info.dir) {
                tracing::warn!(error = %e, "could not write the example project's files");
            }
        }
        Ok(Err(e)) => tracing::warn!(error = %e, "could not create the example project"),
        Err(e) => tracing::warn!(error = %e, "could not create the example project"),
    }
}

fn status_facts(
    registry: &Registry,
    folders: &Folders,
    selection: &Selection,
    limits: &Limits,
) -> rho_api::state::StatusFacts {
    let registry = registry.clone();
    let root = folders.root.display().to_string();
    let owners: Vec<serde_json::Value> = rho_actors::owners::Owner::ALL
        .iter()
        .map(|o| serde_json::json!({"name": o.name(), "selected": selection.is_selected(*o), "available": selection.is_available(*o)}))
        .collect();
    let limits = serde_json::to_value(limits).unwrap_or_default();
    Arc::new(move || {
        let projects: Vec<serde_json::Value> = registry
            .projects()
            .unwrap_or_default()
            .into_iter()
            .map(|p| serde_json::json!({"id": p.id.to_string(), "name": p.name, "path": p.path}))
            .collect();
        serde_json::json!({
            "service": {"name": "rho", "version": env!("CARGO_PKG_VERSION"), "root": root},
            "projects": projects,
            "owners": owners,
            "limits": limits,
        })
    })
}

#[allow(clippy::print_stdout)]
fn print_banner(folders: &Folders, runtimes: &Runtimes, url: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "rho {} {}/{} pid {}",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        std::env::consts::ARCH,
        std::process::id()
    );
    let _ = writeln!(out, "{url}/");
    let _ = writeln!(
        out,
        "connection file: {}",
        folders.state.join("connection.json").display()
    );
    if folders.defaults {
        let _ = writeln!(out, "projects: {}", folders.root.display());
        let _ = writeln!(out, "state: {}", folders.state.display());
        for line in runtimes.report() {
            let _ = writeln!(out, "{line}");
        }
    } else {
        for line in runtimes.report() {
            tracing::info!("{line}");
        }
    }
    let _ = out.flush();
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Some(bin) = which(opener) {
        let _ = std::process::Command::new(bin)
            .arg(format!("{url}/"))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
    }
}

/// SIGINT and SIGTERM, installed once.
struct Signals {
    int: Option<tokio::signal::unix::Signal>,
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn install() -> Signals {
        use tokio::signal::unix::{signal, SignalKind};
        Signals {
            int: signal(SignalKind::interrupt()).ok(),
            term: signal(SignalKind::terminate()).ok(),
        }
    }

    async fn wait(mut self) {
        match (&mut self.int, &mut self.term) {
            (Some(int), Some(term)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

/// Selected owners that no operation of this build belongs to (annotations until its issue
/// lands): selecting them enables nothing, and a start says so.
fn not_built(selection: &Selection) -> Vec<rho_actors::owners::Owner> {
    let ops = rho_actors::contract::registry::all();
    selection
        .selected()
        .filter(|o| !ops.iter().any(|op| op.owner == Some(*o)))
        .collect()
}
