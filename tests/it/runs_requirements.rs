//! Issue 6: requirements.check / requirements.prepare against real R and a local package repository, and the Core selection at startup.

use crate::support;
use crate::support::{local_repo, Env};
use serde_json::json;

#[test]
fn check_reports_present_missing_and_old_packages_and_refuses_duplicates() {
    let e = Env::runs(&[], &[]);
    let v = e.ok("requirements.check", json!({"requirements": []}));
    assert_eq!(v["probe"], "complete", "{v}");
    assert!(v["r"]["version"].as_str().unwrap().starts_with('4'), "{v}");
    assert!(!v["r"]["libraryPaths"].as_array().unwrap().is_empty());
    assert!(v["time"].as_str().unwrap().ends_with('Z'));

    let v = e.ok(
        "requirements.check",
        json!({"requirements": [
            {"package": "jsonlite", "source": "cran"},
            {"package": "jsonlite.not.here", "source": "cran"},
            {"package": "base", "source": "cran", "minimumVersion": "99.0"},
        ]}),
    );
    let p = &v["packages"];
    assert_eq!(p[0]["state"], "present", "{v}");
    assert_eq!(p[0]["meetsMinimum"], true);
    assert!(p[0]["version"].as_str().is_some());
    assert_eq!(p[1]["state"], "missing");
    assert_eq!(p[2]["state"], "present");
    assert_eq!(p[2]["meetsMinimum"], false);
    assert_eq!(v["satisfied"], false);

    let (status, err) = e.err(
        "requirements.check",
        json!({"requirements": [{"package": "a", "source": "cran"}, {"package": "a", "source": "cran"}]}),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("invalid")),
        "{err}"
    );
    let (status, err) = e.err(
        "requirements.check",
        json!({"requirements": [{"package": "a; system('x')", "source": "cran"}]}),
    );
    assert_eq!(status, 400, "{err}");
    let (status, _) = e.err(
        "requirements.check",
        json!({"requirements": [{"package": "a", "source": "pypi"}]}),
    );
    assert_eq!(status, 400);
}

#[test]
fn prepare_installs_into_the_project_library_once_per_change_id() {
    let repo_dir = tempfile::tempdir().unwrap();
    let url = local_repo(repo_dir.path(), "0.2.0");
    let repos = json!({"cran": [url]}).to_string();
    let e = Env::runs(&["--r-repos", &repos], &[]);
    let want = json!({"requirements": [{"package": "rhotiny", "source": "cran", "minimumVersion": "0.2"}]});
    let v = e.ok("requirements.check", want.clone());
    assert_eq!(v["packages"][0]["state"], "missing", "{v}");

    let mut body = want.clone();
    body["changeId"] = json!("prep-1");
    let first = e.ok("requirements.prepare", body.clone());
    assert_eq!(first["attempted"], json!(["rhotiny"]), "{first}");
    assert_eq!(first["satisfied"], true, "{first}");
    assert_eq!(first["check"]["packages"][0]["version"], "0.2.0");
    assert!(e.dir.join(".rho/library/rhotiny/DESCRIPTION").exists());

    // The same identity answers the original outcome without installing again.
    std::fs::remove_dir_all(e.dir.join(".rho/library/rhotiny")).unwrap();
    let again = e.ok("requirements.prepare", body.clone());
    assert_eq!(again, first);
    assert!(!e.dir.join(".rho/library/rhotiny").exists());

    // Changed input under the same id conflicts.
    let mut other = body.clone();
    other["requirements"][0]["minimumVersion"] = json!("0.1");
    let (status, err) = e.err("requirements.prepare", other);
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("conflict")),
        "{err}"
    );

    // A new id installs again, and a satisfied declaration installs nothing.
    body["changeId"] = json!("prep-2");
    let v = e.ok("requirements.prepare", body.clone());
    assert_eq!(v["attempted"], json!(["rhotiny"]));
    body["changeId"] = json!("prep-3");
    let v = e.ok("requirements.prepare", body);
    assert_eq!(v["attempted"], json!([]), "{v}");
    assert_eq!(v["satisfied"], true);
}

#[test]
fn prepare_without_repositories_is_unavailable_and_changes_nothing() {
    let e = Env::runs(&[], &[("RHO_R_REPOS", "")]);
    let (status, err) = e.err(
        "requirements.prepare",
        json!({"changeId": "p", "requirements": [{"package": "rhotiny", "source": "cran"}]}),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (503, Some("unavailable")),
        "{err}"
    );
    assert!(err["message"].as_str().unwrap().contains("cran"), "{err}");
    assert!(!e.dir.join(".rho/library").exists());
}

#[test]
fn without_rscript_the_probe_is_unknown_and_the_rest_works() {
    let e = Env::runs(&[], &[("PATH", "/nonexistent-bin")]);
    let v = e.ok(
        "requirements.check",
        json!({"requirements": [{"package": "jsonlite", "source": "cran"}]}),
    );
    assert_eq!(v["probe"], "unknown", "{v}");
    assert_eq!(v["packages"][0]["state"], "unknown");
    assert!(v["reason"].as_str().unwrap().contains("Rscript"));
    // Other owners keep working.
    std::fs::write(e.dir.join("a.txt"), "x").unwrap();
    e.ok(
        "resource.register",
        json!({"changeId": "r", "path": "a.txt", "kind": "file", "format": "txt"}),
    );
}

#[test]
fn startup_refuses_a_missing_core_and_malformed_repositories() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let base = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
        "--port",
        "0",
    ];
    let mut args = base.to_vec();
    args.extend(["--core", "/nonexistent/rho-core"]);
    let out = support::run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", support::text(&out.stderr));
    assert!(support::text(&out.stderr).contains("/nonexistent/rho-core"));

    let out = support::rho()
        .args(base)
        .env("RHO_CORE_BINARY", "/nonexistent/core-env")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(support::text(&out.stderr).contains("/nonexistent/core-env"));

    let mut args = base.to_vec();
    args.extend(["--r-repos", "[not json"]);
    let out = support::run(&args);
    assert_eq!(out.status.code(), Some(2), "{}", support::text(&out.stderr));
    assert!(support::text(&out.stderr).contains("--r-repos"));
}

#[test]
fn prepare_announces_its_phases_on_the_event_stream() {
    let repo_dir = tempfile::tempdir().unwrap();
    let url = local_repo(repo_dir.path(), "0.2.0");
    let repos = json!({"cran": [url]}).to_string();
    let e = Env::runs(&["--r-repos", &repos], &[]);
    let query = format!("?projectId={}", e.project);
    let mut events = support::Events::open(e.service.port(), &query, None);
    let body =
        json!({"changeId": "phases-1", "requirements": [{"package": "rhotiny", "source": "cran"}]});
    let v = e.ok("requirements.prepare", body.clone());
    assert_eq!(v["satisfied"], true, "{v}");
    let mut phases = Vec::new();
    while phases.last().map(String::as_str) != Some("finished") {
        let Some((_, kind, data)) = events.next_frame() else {
            panic!("the stream ended after {phases:?}");
        };
        if kind == "requirements.progress" {
            assert_eq!(data["changeId"], "phases-1", "{data}");
            if data["phase"] == "installing" {
                assert_eq!(data["packages"], json!(["rhotiny"]), "{data}");
            }
            phases.push(data["phase"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(phases, ["checking", "installing", "rechecking", "finished"]);
    // The same identity again is answered from the journal: no phase is announced.
    let again = e.ok("requirements.prepare", body);
    assert_eq!(again, v);
    let other = e.ok(
        "requirements.prepare",
        json!({"changeId": "phases-2", "requirements": [{"package": "rhotiny", "source": "cran"}]}),
    );
    assert_eq!(other["attempted"], json!([]), "{other}");
    let mut next: Vec<String> = Vec::new();
    while !next.last().is_some_and(|p| p.ends_with(":finished")) {
        let Some((_, kind, data)) = events.next_frame() else {
            panic!("the stream ended after {next:?}");
        };
        if kind == "requirements.progress" {
            next.push(format!(
                "{}:{}",
                data["changeId"].as_str().unwrap(),
                data["phase"].as_str().unwrap()
            ));
        }
    }
    // Nothing to install: checking, then finished; and nothing from the repeat of phases-1.
    assert_eq!(next, ["phases-2:checking", "phases-2:finished"]);
}
