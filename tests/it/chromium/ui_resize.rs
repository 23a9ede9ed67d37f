//! The resize pass in Chromium (issue 14): 1600 -> 700 -> 1600 px with the same checks at every width (a live
//! Agent edit through `rho --mcp`, shared undo, table paging, a table selection, a PDF rectangle read back by
//! the Agent, a run's log), axe and no overflow at each, the docked groups back after the strip.

use crate::support::{browser, mcp, Env};
use serde_json::json;
use std::fmt::Write as _;

const ROWS: usize = 20_000;

/// Prints four numbered lines with pauses, so the log grows while the panel follows it.
const SCRIPT: &str =
    "for (i in 1:4) {\n  cat(\"line\", i, \"\\n\")\n  flush(stdout())\n  Sys.sleep(0.8)\n}\n";

#[test]
fn a_resize_pass_keeps_every_panel_working_at_700_px() {
    let env = Env::start(&[], None, "p");
    std::fs::write(env.dir.join("analysis.R"), SCRIPT).unwrap();
    let mut csv = String::from("id,x,n\n");
    for i in 0..ROWS {
        writeln!(csv, "k{i:06},{},{}", (i * 37) % 1000, i % 10).unwrap();
    }
    std::fs::write(env.dir.join("big.csv"), csv).unwrap();
    env.ok(
        "resource.register",
        json!({"changeId": "big", "path": "big.csv", "kind": "table", "format": "csv",
        "table": {"format": "csv", "key": {"column": "id", "namespace": "big"},
        "columns": [{"name": "id", "type": "string"}, {"name": "x", "type": "integer"},
        {"name": "n", "type": "integer"}]}}),
    );
    std::fs::write(env.dir.join("report.pdf"), crate::chromium::ui_work::pdf()).unwrap();
    env.ok(
        "resource.register",
        json!({"changeId": "pdf", "path": "report.pdf", "kind": "figure", "format": "pdf",
        "media": {"format": "pdf"}}),
    );
    let (grant, _) = mcp::grant_file(&env, "claude-code");
    let python = mcp::python();
    let client = mcp::script();
    let rows = ROWS.to_string();
    let artifacts = browser::artifacts("resize");
    let facts = browser::run_e2e(
        "e2e-resize.mjs",
        &env,
        "",
        &artifacts,
        &[
            ("RHO_ROWS", &rows),
            ("RHO_MCP_PYTHON", python.to_str().unwrap()),
            ("RHO_MCP_CLIENT", client.to_str().unwrap()),
            ("RHO_BIN", env!("CARGO_BIN_EXE_rho")),
            ("RHO_MCP_FILE", grant.to_str().unwrap()),
        ],
    );
    let f = &facts["facts"];
    for width in ["1600", "700", "1600_again"] {
        for panel in ["table", "media", "runs"] {
            assert_eq!(
                f[format!("axe_{panel}_{width}")],
                0,
                "{panel} at {width}: {f}"
            );
        }
        assert!(
            f[format!("dom_rows_{width}")]
                .as_u64()
                .is_some_and(|n| n < 150),
            "{f}"
        );
    }
    assert_eq!(f["axe_access_700"], 0, "{f}");
    assert_eq!(f["groups_after"], f["groups_1600"], "{f}");
    // Three runs of the buffer, each to its end; the Agent's three lines were undone.
    let runs = env.ok("action.list", json!({}));
    let finished = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["exit"]["exitCode"] == 0)
        .count();
    assert_eq!(finished, 3, "{runs}");
    let text = std::fs::read_to_string(env.dir.join("analysis.R")).unwrap();
    assert_eq!(
        text, SCRIPT,
        "the file on disk is untouched (nothing saved)"
    );
}
