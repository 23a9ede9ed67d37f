//! `rho mcp list|show` without `--connect`: config only, nothing started.

use std::process::ExitCode;

use crate::util::{run_cli, write_config};

const CONFIG: &str = r#"
[mcp.servers.fs]
transport = "stdio"
command = "definitely-not-a-real-command-rho"
[mcp.servers.remote]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
headers = { X-Tenant = "public-tenant" }
enabled = false
[mcp.servers.broken]
transport = "sse"
url = "http://x"
"#;

#[test]
fn list_json_reports_every_entry_without_starting_anything() {
    let (_d, path) = write_config(CONFIG);
    let run = run_cli(&path, &["list", "--json"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let servers = v["servers"].as_array().unwrap();
    let by_id = |id: &str| servers.iter().find(|s| s["id"] == id).unwrap().clone();
    assert_eq!(by_id("fs")["status"], "configured");
    assert_eq!(by_id("fs")["transport"], "stdio");
    assert_eq!(by_id("remote")["status"], "disabled");
    assert_eq!(by_id("broken")["status"], "malformed");
    assert!(by_id("broken")["error"].as_str().unwrap().contains("sse"));
    for key in [
        "id",
        "source",
        "transport",
        "enabled",
        "status",
        "era",
        "error",
        "tools",
        "toolsNeedingRestart",
        "prompts",
        "resources",
        "lastPing",
    ] {
        assert!(by_id("fs").get(key).is_some(), "missing {key}");
    }
    assert!(
        !run.stdout.contains("public-tenant"),
        "header values never printed"
    );
}

#[test]
fn list_text_and_show() {
    let (_d, path) = write_config(CONFIG);
    let run = run_cli(&path, &["list"]);
    assert_eq!(run.code, ExitCode::SUCCESS);
    assert!(run.stdout.contains("fs") && run.stdout.contains("configured"));
    let run = run_cli(&path, &["show", "broken"]);
    assert_eq!(run.code, ExitCode::SUCCESS);
    assert!(run.stdout.contains("malformed"));
}

#[test]
fn show_unknown_id_exits_1() {
    let (_d, path) = write_config(CONFIG);
    let run = run_cli(&path, &["show", "nope"]);
    assert_eq!(run.code, ExitCode::from(1));
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("no MCP server `nope`"));
}

#[test]
fn toml_error_exits_1_with_line_and_column() {
    let (_d, path) = write_config("[mcp.servers.x]\ntransport = \n");
    let run = run_cli(&path, &["list"]);
    assert_eq!(run.code, ExitCode::from(1));
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}
