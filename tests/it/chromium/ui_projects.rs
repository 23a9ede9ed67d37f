//! Projects in Chromium (issue 14): an empty projects folder says how to create or open a project, a project is
//! created and a folder opened from the Projects panel (refusals said, nothing changed), at 1600 and 390 px.

use crate::support::{browser, Service};
use serde_json::json;

#[test]
fn an_empty_projects_folder_then_a_created_and_an_opened_project() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    // A folder inside the projects folder that is not a project yet: the person opens it.
    let beta = root.path().join("beta");
    std::fs::create_dir(&beta).unwrap();
    std::fs::write(beta.join("notes.R"), "# beta's notes\nx <- 1\n").unwrap();
    let service = Service::start(root.path(), state.path());
    let (_, list) = service.call("project.list", json!({}));
    assert_eq!(list["value"]["projects"], json!([]), "{list}");
    let url = format!("http://127.0.0.1:{}", service.port());
    let artifacts = browser::artifacts("projects");
    let facts = browser::run_script(
        "e2e-projects.mjs",
        &[
            ("RHO_URL", &url),
            ("RHO_ARTIFACTS", artifacts.to_str().unwrap()),
        ],
    );
    let f = &facts["facts"];
    for name in [
        "axe_empty_1600",
        "axe_empty_390",
        "axe_created_1600",
        "axe_opened_1600",
    ] {
        assert_eq!(f[name], 0, "{name}: {f}");
    }
    // What the person made and opened is what the service holds.
    let (_, list) = service.call("project.list", json!({}));
    let mut names: Vec<String> = list["value"]["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["alpha", "beta"], "{list}");
    assert!(root.path().join("alpha").is_dir());
    assert!(!root.path().join("nowhere").exists());
}
