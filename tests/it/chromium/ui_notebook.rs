//! The Notebook panel in Chromium (issue 15) with real R and Python: output in printed order, a data frame
//! sorted in the table view, a plot, an interrupt with the queue behind it, an Agent's cell; axe at 1600 and 390.

use crate::support::{browser, Env};
use serde_json::json;

#[test]
fn the_notebook_panel_streams_cells_opens_values_shows_plots_and_interrupts() {
    let env = Env::start(&[], None, "nb");
    let (code, _, stderr) = env.grant_cli(&["--project-id", &env.project]);
    assert_eq!(code, 0, "{stderr}");
    let token = env.token("claude-code");
    let artifacts = browser::artifacts("notebook");
    let facts = browser::run_e2e("e2e-notebook.mjs", &env, &token, &artifacts, &[]);
    for size in ["1600", "390"] {
        assert_eq!(facts["facts"][format!("axe_notebook_{size}")], 0, "{size}");
    }
    assert!(artifacts.join("notebook-390x844.png").exists());

    // What the panel showed is what the owner recorded.
    let read = env.ok("kernel.read", json!({}));
    let cells = read["cells"].as_array().unwrap();
    let by_no = |n: u64| cells.iter().find(|c| c["no"] == n).unwrap();
    assert_eq!(by_no(5)["end"]["outcome"], "interrupted", "{read}");
    assert_eq!(by_no(5)["by"], "local", "{read}");
    assert_eq!(by_no(1)["by"], "local", "{read}");
    let agent = facts["facts"]["agent_cell"].as_u64().unwrap();
    assert_eq!(by_no(agent)["by"], "agent:claude-code", "{read}");
    assert!(by_no(6)["output"].to_string().contains("42"), "{read}");
    assert_eq!(
        by_no(3)["plots"].as_array().map(Vec::len),
        Some(1),
        "{read}"
    );
    // The redraw names the earlier cell's plot by its place in that cell (`<cellId>#<index>`).
    let replaces = format!("{}#0", by_no(3)["cellId"].as_str().unwrap());
    assert_eq!(by_no(agent + 1)["plots"][0]["replaces"], replaces, "{read}");
}
