//! `data.page` benchmark: a 100,000-row x 20-column CSV through the real service, next to pandas and Polars `read_csv` in the same run.
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin data_bench`
//! (`RHO_BIN` names another `rho`; pandas and Polars come from `pip install pandas polars`;
//! without them the driver says so instead of printing a number).

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::table::{csv, ROWS};
use rho_bench::{machine_line, memory, quantile_us, scratch, time_loop};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const ROUNDS: usize = 3;

fn call(c: &mut Conn, token: &str, op: &str, body: &Value) -> Value {
    let (status, bytes) = c
        .post(&format!("/api/v2/{op}"), Some(token), &body.to_string())
        .unwrap();
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "{op}: {v}");
    // Taken, not cloned: a copy of the reply would be the driver's cost, not the service's.
    v["value"].take()
}

/// The reference figures of one round, in ms: pandas read+slice, sort of the loaded frame,
/// cold read+sort+slice of the second file; Polars read+slice and cold read+sort+slice.
struct Reference {
    pd_read: f64,
    pd_sort: f64,
    pd_cold_sort: f64,
    pl_read: Option<f64>,
    pl_cold_sort: Option<f64>,
}

fn reference(path: &std::path::Path, cold: &std::path::Path) -> Option<Reference> {
    let script = format!(
        "import time, pandas\n\
         t=time.perf_counter()\n\
         df=pandas.read_csv({p:?}, keep_default_na=False, na_values=['NA'])\n\
         x=df.iloc[0:100]\n\
         a=time.perf_counter()-t\n\
         t=time.perf_counter()\n\
         y=df.sort_values('x0', kind='stable', na_position='last').iloc[90000:90100]\n\
         b=time.perf_counter()-t\n\
         t=time.perf_counter()\n\
         d2=pandas.read_csv({c:?}, keep_default_na=False, na_values=['NA'])\n\
         y=d2.sort_values('x0', kind='stable', na_position='last').iloc[90000:90100]\n\
         c=time.perf_counter()-t\n\
         d=e=-1\n\
         try:\n    import polars\n\
         \x20   t=time.perf_counter()\n\
         \x20   q=polars.read_csv({p:?}, null_values=['NA'])\n\
         \x20   x=q.slice(0,100)\n\
         \x20   d=time.perf_counter()-t\n\
         \x20   t=time.perf_counter()\n\
         \x20   q=polars.read_csv({c:?}, null_values=['NA'])\n\
         \x20   y=q.sort('x0', maintain_order=True, nulls_last=True).slice(90000,100)\n\
         \x20   e=time.perf_counter()-t\n\
         except ImportError:\n    pass\n\
         print(a*1000, b*1000, c*1000, d*1000, e*1000)",
        p = path.display().to_string(),
        c = cold.display().to_string()
    );
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<f64> = text
        .split_whitespace()
        .filter_map(|v| v.parse::<f64>().ok())
        .collect();
    let opt = |x: f64| (x >= 0.0).then_some(x);
    match v[..] {
        [a, b, c, d, e] => Some(Reference {
            pd_read: a,
            pd_sort: b,
            pd_cold_sort: c,
            pl_read: opt(d),
            pl_cold_sort: opt(e),
        }),
        _ => None,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let dir = scratch("data-bench");
    let rho = Rho::start(&dir);
    let mut c = Conn::open(rho.port).unwrap();
    let project = call(
        &mut c,
        &rho.token,
        "project.create",
        &json!({"name": "bench"}),
    );
    let pid = project["id"].as_str().unwrap().to_string();
    let pdir = std::path::PathBuf::from(project["path"].as_str().unwrap());
    let (mut cold, mut sorted_first, mut cold_sorted) = (vec![], vec![], vec![]);
    let (mut warm, mut warm_sorted) = (vec![], vec![]);
    let mut refs: Vec<Reference> = Vec::new();
    let mut pandas_missing = false;
    let mut bytes = 0;
    let mut mem_line = String::new();
    for round in 0..ROUNDS {
        let (text, decl) = csv(round);
        bytes = text.len();
        let name = format!("t{round}.csv");
        std::fs::write(pdir.join(&name), &text).unwrap();
        // A second file of other bytes, first asked for sorted (nothing cached).
        let (text2, _) = csv(round + 100);
        let name2 = format!("c{round}.csv");
        std::fs::write(pdir.join(&name2), &text2).unwrap();
        // Making the files (and the previous round's pandas run) can outlast the server's
        // keep-alive on a loaded machine: each round measures on a fresh connection.
        c = Conn::open(rho.port).unwrap();
        let mut register = |name: &str| {
            let r = call(
                &mut c,
                &rho.token,
                "resource.register",
                &json!({"projectId": pid, "changeId": name, "path": name, "kind": "table", "format": "csv", "table": decl}),
            );
            json!({"id": r["id"], "version": r["version"]})
        };
        let rref = register(&name);
        let rref2 = register(&name2);
        let page = |rref: &Value, offset: u64, sort: bool| {
            let mut q = json!({"projectId": pid, "resource": rref, "offset": offset, "limit": 100});
            if sort {
                q["sort"] = json!([{"column": "x0"}]);
            }
            q
        };
        let before = memory(&rho.child.id().to_string());
        let t = Instant::now();
        let first = call(&mut c, &rho.token, "data.page", &page(&rref, 0, false));
        cold.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(first["total"], ROWS);
        if round == 0 {
            let after = memory(&rho.child.id().to_string());
            let mb = |b: u64| b as f64 / 1e6;
            mem_line = format!(
                "memory of the first cold read (process RSS, MB): before {:.1}, after {:.1} (+{:.1} held: table and cached file state), peak {:.1} (+{:.1}); file {:.1} MB",
                mb(before.0),
                mb(after.0),
                mb(after.0.saturating_sub(before.0)),
                mb(after.1),
                mb(after.1.saturating_sub(before.0)),
                mb(bytes as u64)
            );
        }
        let t = Instant::now();
        call(&mut c, &rho.token, "data.page", &page(&rref, 90_000, true));
        sorted_first.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        call(&mut c, &rho.token, "data.page", &page(&rref2, 90_000, true));
        cold_sorted.push(t.elapsed().as_secs_f64() * 1000.0);
        warm.extend(time_loop(Duration::from_millis(500), 20, || {
            call(&mut c, &rho.token, "data.page", &page(&rref, 90_000, false));
        }));
        warm_sorted.extend(time_loop(Duration::from_millis(500), 20, || {
            call(&mut c, &rho.token, "data.page", &page(&rref, 90_000, true));
        }));
        match reference(&pdir.join(&name), &pdir.join(&name2)) {
            Some(r) => refs.push(r),
            None => pandas_missing = true,
        }
    }
    println!("{}", machine_line());
    println!("table: {ROWS} rows x 20 columns (1 key, 7 number, 6 integer, 6 string), {:.1} MB CSV; {ROUNDS} rounds, medians; page = 100 rows over HTTP", bytes as f64 / 1e6);
    println!("{mem_line}");
    println!();
    println!("| measure | rho | pandas | rho/pandas | Polars | rho/Polars |");
    println!("|---|---|---|---|---|---|");
    let pd = |f: fn(&Reference) -> Option<f64>| {
        let v: Vec<f64> = refs.iter().filter_map(f).collect();
        (!pandas_missing && !v.is_empty()).then(|| median(v))
    };
    let row = |label: &str, ours: f64, pandas: Option<f64>, polars: Option<f64>| {
        let cmp = |theirs: Option<f64>| match theirs {
            Some(p) => format!("{p:.1} ms | {:.2}x", ours / p),
            None => "- | -".to_string(),
        };
        println!(
            "| {label} | {ours:.1} ms | {} | {} |",
            cmp(pandas),
            cmp(polars)
        );
    };
    if pandas_missing {
        println!("(pandas not installed: pip install pandas polars)");
    }
    row(
        "cold first page (read + full validation) vs read_csv + first 100 rows",
        median(cold.clone()),
        pd(|r| Some(r.pd_read)),
        pd(|r| r.pl_read),
    );
    row(
        "cold sorted deep page (sort by x0, offset 90,000) vs read_csv + sort + slice",
        median(cold_sorted.clone()),
        pd(|r| Some(r.pd_cold_sort)),
        pd(|r| r.pl_cold_sort),
    );
    row(
        "first sorted deep page of the read table vs sort_values + iloc[90000:90100]",
        median(sorted_first.clone()),
        pd(|r| Some(r.pd_sort)),
        None,
    );
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        format!("{lo:.1}-{hi:.1} ms")
    };
    println!(
        "| ranges over rounds: cold first page {}, cold sorted {}, first sorted {} | | | | | |",
        range(&cold),
        range(&cold_sorted),
        range(&sorted_first)
    );
    println!(
        "| warm page at offset 90,000, unsorted, p50 | {:.3} ms | | | | |",
        quantile_us(&warm, 0.5) / 1000.0
    );
    println!(
        "| warm page at offset 90,000, sorted, p50 | {:.3} ms | | | | |",
        quantile_us(&warm_sorted, 0.5) / 1000.0
    );
    drop(rho);
    let _ = std::fs::remove_dir_all(&dir);
}
