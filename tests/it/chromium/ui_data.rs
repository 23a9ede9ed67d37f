//! The data panels in Chromium (issue 14): a 100,000-row keyed CSV registered through the form, paged, sorted and
//! filtered under 150 DOM rows; brush and typed-range selection in the scatter linked to the table by key; the
//! object tree; axe and no horizontal overflow at 1600 and 390 px.

use crate::support::{browser, Env};
use serde_json::json;
use std::fmt::Write as _;

const ROWS: usize = 100_000;

/// big.csv: row i as `ui/tests/e2e-data.mjs` (rowOf) computes it; `group` is missing (NA) every
/// 10th row and an empty string the row after.
fn big_csv() -> String {
    let mut s = String::from("id,x,y,n,group\n");
    for i in 0..ROWS {
        let x = ((i * 7919) % 100_000) as f64 / 100.0;
        let y = (((i * 104_729) % 100_003) % 1000) as f64 / 10.0;
        let group = match i % 10 {
            0 => "NA".to_string(),
            1 => String::new(),
            _ => format!("g{}", i % 7),
        };
        writeln!(s, "k{i:06},{x},{y},{},{group}", i % 1000).unwrap();
    }
    s
}

#[test]
fn the_data_panels_in_chromium_page_link_and_pass_axe() {
    let env = Env::start(&[], None, "p");
    std::fs::write(env.dir.join("big.csv"), big_csv()).unwrap();
    // An object as R's export writes it, registered as its producer would.
    let snapshot = json!({"schemaVersion": 1, "classes": ["summary.lm", "list"],
        "provenance": {"producer": "rho.export", "r": "4.4.1"},
        "value": {"call": "lm(y ~ x)", "coefficients": [[3.25, 0.5], [1.75, 0.25]], "r.squared": 0.82}});
    std::fs::write(env.dir.join("fit.json"), snapshot.to_string()).unwrap();
    env.ok(
        "resource.register",
        json!({"changeId": "fit", "path": "fit.json", "kind": "object", "format": "json"}),
    );
    // A table whose cells do not fit its declaration: the first read's problems are shown.
    std::fs::write(env.dir.join("bad.csv"), "id,n\na,1\nb,x\nc,3\n").unwrap();
    env.ok(
        "resource.register",
        json!({"changeId": "bad", "path": "bad.csv", "kind": "table", "format": "csv",
        "table": {"format": "csv", "key": {"column": "id", "namespace": "bad"},
        "columns": [{"name": "id", "type": "string"}, {"name": "n", "type": "integer"}]}}),
    );
    let rows = ROWS.to_string();
    let facts = browser::run_e2e(
        "e2e-data.mjs",
        &env,
        "",
        &browser::artifacts(""),
        &[("RHO_ROWS", &rows)],
    );
    let f = &facts["facts"];
    for name in [
        "axe_table_1600",
        "axe_scatter_1600",
        "axe_object_1600",
        "axe_problems_1600",
        "axe_table_390",
        "axe_scatter_390",
        "axe_object_390",
    ] {
        assert_eq!(f[name], 0, "{name}");
    }
    for name in ["dom_rows_top", "dom_rows_end", "dom_rows_390"] {
        assert!(f[name].as_u64().is_some_and(|n| n < 150), "{name}: {f}");
    }
    // The table was registered through the form: the declaration the person confirmed.
    let list = env.ok("resource.list", json!({}));
    let big = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == "big.csv")
        .unwrap()
        .clone();
    assert_eq!(big["kind"], "table", "{big}");
    assert_eq!(
        big["table"]["key"],
        json!({"column": "id", "namespace": "big"})
    );
    let group = &big["table"]["columns"][4];
    assert_eq!(
        (group["name"].clone(), group["missing"].clone()),
        (json!("group"), json!(["NA"]))
    );
}
