//! A first start (issue 14): `rho` on empty default folders, its stdout a terminal, hands the browser
//! opener its address (the banner prints it too), and that address lands in the example project with
//! its script and table open.

use crate::support::browser;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn wait_for(path: &Path, what: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            if !s.trim().is_empty() {
                return s.trim().to_string();
            }
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_first_start_opens_the_browser_on_the_example_project() {
    let (node, ui) = browser::tools();
    let home = tempfile::tempdir().unwrap();
    // The browser opener on PATH: it records the address it is handed.
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let opened = home.path().join("opened");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\nprintf '%s\\n' \"$1\" > {}\n", opened.display()),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&opener).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&opener, perms).unwrap();
    let banner = home.path().join("banner");
    // `script` gives rho a terminal for its stdout (and copies what it printed to `banner`).
    let mut child = Command::new("script")
        .args(["-qefc", env!("CARGO_BIN_EXE_rho")])
        .arg(&banner)
        .env("HOME", home.path())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = wait_for(&opened, "the browser opener");
    let printed = std::fs::read_to_string(&banner).unwrap_or_default();
    let state = home.path().join("Rho/state/connection.json");
    let pid = serde_json::from_str::<serde_json::Value>(&wait_for(&state, "the connection file"))
        .unwrap()["pid"]
        .as_u64()
        .unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert!(
        printed.contains(&url),
        "the banner prints {url} too: {printed}"
    );
    let path = format!(
        "{}:{}",
        node.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let artifacts = browser::artifacts("first");
    let out = Command::new(node.join("node"))
        .arg(ui.join("tests/e2e-first.mjs"))
        .current_dir(&ui)
        .env("PATH", path)
        .env("RHO_URL", &url)
        .env("RHO_ARTIFACTS", &artifacts)
        .output()
        .unwrap();
    let _ = Command::new("kill").arg(pid.to_string()).status();
    let _ = child.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "e2e-first.mjs failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let facts: serde_json::Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap()).unwrap();
    assert_eq!(facts["facts"]["axe_first_1600"], 0, "{facts}");
}
