//! Issue 16 against the real `rho`: a command runs with the person's `$SHELL -c` (`/bin/sh`
//! when it is unset or empty) and the service's environment, and maxRecords never evicts a
//! running command (with every retained record running, another is refused, named).

use crate::support::Env;
use serde_json::{json, Value};

fn stdout_of(e: &Env, command: &str, change: &str) -> String {
    let r = e.console_run(change, command);
    let id = r["commandId"].as_str().unwrap().to_string();
    let done = e.console_wait(&id, &["exited"], 20);
    assert_eq!(done["exitCode"], 0, "{done}");
    e.console_text(&id).0
}

#[test]
fn a_command_runs_with_the_shell_named_by_shell_and_the_services_environment() {
    let work = tempfile::tempdir().unwrap();
    let shell = work.path().join("my-shell");
    std::fs::write(
        &shell,
        "#!/bin/sh\necho \"my-shell $1\"\nexec /bin/sh \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shell, std::fs::Permissions::from_mode(0o755)).unwrap();
    let e = Env::start_with_env(
        &[],
        &[
            ("SHELL", shell.to_str().unwrap()),
            ("CONSOLE_TEST_MARK", "from the service"),
        ],
        None,
        "console-shell",
    );
    let out = stdout_of(&e, "echo \"mark: $CONSOLE_TEST_MARK\"", "a");
    assert_eq!(out, "my-shell -c\nmark: from the service\n");
}

#[test]
fn without_shell_a_command_runs_with_bin_sh() {
    // An empty SHELL is no shell named (a service started without one has none).
    let e = Env::start_with_env(&[], &[("SHELL", "")], None, "console-sh");
    assert_eq!(stdout_of(&e, "echo \"$0\"", "a"), "/bin/sh\n");
}

fn change_ids(e: &Env) -> Vec<String> {
    let (status, list) = e.local("console.list", json!({}));
    assert_eq!(status, 200, "{list}");
    list["value"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["changeId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn max_records_never_evicts_a_running_command() {
    let e = Env::start(
        &[],
        Some(json!({"console": {"maxRecords": 2}})),
        "console-records",
    );
    let long = e.console_run("long", "sleep 30");
    let finish = |change: &str| {
        let r = e.console_run(change, "true");
        e.console_wait(r["commandId"].as_str().unwrap(), &["exited"], 20);
    };
    finish("a");
    // Full: the oldest finished record ("a") makes room, the older running one stays.
    finish("b");
    assert_eq!(change_ids(&e), ["long", "b"]);
    let second = e.console_run("second", "sleep 30");
    assert_eq!(change_ids(&e), ["long", "second"]);
    // Every retained record runs: another is refused, named, and nothing is evicted.
    let (status, v) = e.local("console.run", json!({"changeId": "c", "command": "true"}));
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["details"]["limit"], "console.maxRecords", "{v}");
    assert_eq!(change_ids(&e), ["long", "second"]);
    for r in [&long, &second] {
        let id: &Value = &r["commandId"];
        e.local("console.stop", json!({"commandId": id}));
        e.console_wait(id.as_str().unwrap(), &["exited"], 20);
    }
}
