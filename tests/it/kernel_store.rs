//! The Notebook's files beside the journal through the real `rho` with real R (issue 15):
//! maxCells evicts the oldest ended cell and its plots (a digest another cell still names
//! stays), and no second copy of a plot stays in the session's folder.

use crate::support::poll::until;
use crate::support::Env;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn done(e: &Env, change: &str, code: &str) -> Value {
    let c = e.ok(
        "kernel.run",
        json!({"language": "r", "code": code, "changeId": change, "waitMs": 60_000}),
    );
    assert_eq!(c["end"]["outcome"], "done", "{c}");
    c
}

fn plot_file(e: &Env, digest: &Value) -> PathBuf {
    let hex = digest.as_str().unwrap().trim_start_matches("sha256:");
    e.dir
        .join(".rho/plugins/kernel/plots")
        .join(format!("{hex}.png"))
}

/// Every PNG under `dir`, at any depth.
fn pngs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(pngs(&p));
        } else if p.extension().is_some_and(|x| x == "png") {
            out.push(p);
        }
    }
    out
}

#[test]
fn max_cells_evicts_the_oldest_ended_cell_and_its_plots() {
    let e = Env::start(
        &[],
        Some(json!({"kernel": {"maxCells": 3}})),
        "notebook-cells",
    );
    let a = done(&e, "a", "plot(1:10)");
    let b = done(&e, "b", "plot(1:10, main = 'b')\nplot(1:10)");
    let (da, db0, db1) = (
        &a["plots"][0]["digest"],
        &b["plots"][0]["digest"],
        &b["plots"][1]["digest"],
    );
    for d in [da, db0, db1] {
        assert!(plot_file(&e, d).is_file(), "{d} kept");
    }
    // The session's folder keeps no second copy of a kept plot.
    let sessions = e.dir.join(".rho/plugins/kernel/sessions");
    assert_eq!(pngs(&sessions), Vec::<PathBuf>::new());
    done(&e, "c", "1");
    // The fourth cell evicts `a`: its plot goes unless `b` draws the same bytes.
    done(&e, "d", "2");
    let read = e.ok("kernel.read", json!({}));
    assert!(
        read["cells"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["cellId"] != a["cellId"]),
        "{read}"
    );
    if da != db1 {
        until("a's plot file is gone", Duration::from_secs(10), || {
            !plot_file(&e, da).exists()
        });
    }
    assert!(
        plot_file(&e, db0).is_file() && plot_file(&e, db1).is_file(),
        "b's stay"
    );
    // The fifth evicts `b`: both its plots go.
    done(&e, "e", "3");
    until("b's plot files are gone", Duration::from_secs(10), || {
        !plot_file(&e, db0).exists() && !plot_file(&e, db1).exists()
    });
    assert_eq!(
        pngs(&e.dir.join(".rho/plugins/kernel")),
        Vec::<PathBuf>::new()
    );
}
