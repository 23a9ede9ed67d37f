//! Plugin-provided servers through the CLI: listed with the config's, started the same way,
//! `${PLUGIN_DATA}` created just before start, failures isolated.

use std::process::ExitCode;

use crate::peers::everything;
use crate::util::run_cli_home;

fn write_plugin(home: &std::path::Path, name: &str, json: &str) {
    let root = home.join("plugins").join(name);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("mcp.json"), json).unwrap();
}

#[test]
fn plugin_servers_are_listed_started_and_isolated() {
    let home = tempfile::tempdir().unwrap();
    let ev = everything().display().to_string();
    write_plugin(
        home.path(),
        "acme",
        &format!(
            r#"{{"mcpServers": {{"ev": {{"command": "{ev}", "env": {{"DATA": "${{PLUGIN_DATA}}"}}}}}}}}"#
        ),
    );
    write_plugin(
        home.path(),
        "blocked",
        &format!(r#"{{"mcpServers": {{"ev": {{"command": "{ev}"}}}}}}"#),
    );
    // The data folder of `blocked` cannot be created: a file stands in its way.
    std::fs::create_dir_all(home.path().join("plugin-data")).unwrap();
    std::fs::write(home.path().join("plugin-data/blocked"), "x").unwrap();

    let run = run_cli_home(None, home.path(), &["list", "--json"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.stderr);
    assert!(
        !home.path().join("plugin-data/acme").exists(),
        "listing creates nothing"
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["servers"][0]["id"], "acme/ev");
    assert_eq!(v["servers"][0]["source"], "plugin:acme");

    let run = run_cli_home(None, home.path(), &["list", "--connect", "--json"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let acme = &v["servers"][0];
    assert_eq!(acme["status"], "connected", "{acme}");
    let echo = acme["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(
        echo["exported"], "mcp___rho_61636d652f6576__echo",
        "the `/` forces encoding"
    );
    assert!(
        home.path().join("plugin-data/acme").is_dir(),
        "created just before start"
    );
    let blocked = &v["servers"][1];
    assert_eq!(blocked["status"], "failed");
    assert!(
        blocked["error"]
            .as_str()
            .unwrap()
            .contains("plugin data folder"),
        "{blocked}"
    );
}
