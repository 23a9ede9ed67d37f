//! `data.page` benchmark: a 100,000-row x 20-column CSV through the real service, next to pandas `read_csv` + slice in the same run.
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin data_bench`
//! (`RHO_BIN` names another `rho`; pandas comes from `pip install pandas`; without it the
//! driver says so instead of printing a number).

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, quantile_us, scratch, time_loop};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const ROWS: usize = 100_000;
const ROUNDS: usize = 3;

fn csv(round: usize) -> (String, Value) {
    let mut s = String::with_capacity(ROWS * 120);
    let mut cols = vec![json!({"name": "id", "type": "string"})];
    let mut header = vec!["id".to_string()];
    for c in 0..19 {
        let (name, ty) = match c % 3 {
            0 => (format!("x{c}"), "number"),
            1 => (format!("n{c}"), "integer"),
            _ => (format!("s{c}"), "string"),
        };
        header.push(name.clone());
        cols.push(json!({"name": name, "type": ty, "missing": ["NA"]}));
    }
    s.push_str(&header.join(","));
    s.push('\n');
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ round as u64;
    for r in 0..ROWS {
        s.push_str(&format!("k{r}"));
        for c in 0..19 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x % 100_000;
            match c % 3 {
                0 => s.push_str(&format!(",{}.{:03}", v, x % 1000)),
                1 => s.push_str(&format!(",{}", v as i64 - 50_000)),
                _ => s.push_str(&format!(",word{}", v % 997)),
            }
        }
        s.push('\n');
    }
    let decl =
        json!({"format": "csv", "key": {"column": "id", "namespace": "row"}, "columns": cols});
    (s, decl)
}

fn call(c: &mut Conn, token: &str, op: &str, body: &Value) -> Value {
    let (status, bytes) = c
        .post(&format!("/api/v2/{op}"), Some(token), &body.to_string())
        .unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "{op}: {v}");
    v["value"].clone()
}

fn pandas(path: &std::path::Path) -> Option<(f64, f64)> {
    let script = format!(
        "import time, pandas\nt=time.perf_counter()\ndf=pandas.read_csv({p:?}, keep_default_na=False, na_values=['NA'])\nx=df.iloc[0:100]\na=time.perf_counter()-t\nt=time.perf_counter()\ny=df.sort_values('x0', kind='stable', na_position='last').iloc[90000:90100]\nb=time.perf_counter()-t\nprint(a*1000, b*1000)",
        p = path.display().to_string()
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
    let mut it = text.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some((it.next()??, it.next()??))
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
    let (mut cold, mut sorted_first, mut pd_read, mut pd_sort) = (vec![], vec![], vec![], vec![]);
    let (mut warm, mut warm_sorted) = (vec![], vec![]);
    let mut pandas_missing = false;
    let mut bytes = 0;
    for round in 0..ROUNDS {
        let (text, decl) = csv(round);
        bytes = text.len();
        let name = format!("t{round}.csv");
        std::fs::write(pdir.join(&name), &text).unwrap();
        let r = call(
            &mut c,
            &rho.token,
            "resource.register",
            &json!({"projectId": pid, "changeId": name, "path": name, "kind": "table", "format": "csv", "table": decl}),
        );
        let rref = json!({"id": r["id"], "version": r["version"]});
        let page = |offset: u64, sort: bool| {
            let mut q = json!({"projectId": pid, "resource": rref, "offset": offset, "limit": 100});
            if sort {
                q["sort"] = json!([{"column": "x0"}]);
            }
            q
        };
        let t = Instant::now();
        let first = call(&mut c, &rho.token, "data.page", &page(0, false));
        cold.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(first["total"], ROWS);
        let t = Instant::now();
        call(&mut c, &rho.token, "data.page", &page(90_000, true));
        sorted_first.push(t.elapsed().as_secs_f64() * 1000.0);
        warm.extend(time_loop(Duration::from_millis(500), 20, || {
            call(&mut c, &rho.token, "data.page", &page(90_000, false));
        }));
        warm_sorted.extend(time_loop(Duration::from_millis(500), 20, || {
            call(&mut c, &rho.token, "data.page", &page(90_000, true));
        }));
        match pandas(&pdir.join(&name)) {
            Some((a, b)) => {
                pd_read.push(a);
                pd_sort.push(b);
            }
            None => pandas_missing = true,
        }
    }
    println!("{}", machine_line());
    println!("table: {ROWS} rows x 20 columns (1 key, 7 number, 6 integer, 6 string), {:.1} MB CSV; {ROUNDS} rounds, medians; page = 100 rows over HTTP", bytes as f64 / 1e6);
    println!();
    println!("| measure | rho | pandas | rho/pandas |");
    println!("|---|---|---|---|");
    let pd = |v: &Vec<f64>| {
        if pandas_missing || v.is_empty() {
            None
        } else {
            Some(median(v.clone()))
        }
    };
    let row = |label: &str, ours: f64, theirs: Option<f64>| match theirs {
        Some(p) => println!("| {label} | {ours:.1} ms | {p:.1} ms | {:.2}x |", ours / p),
        None => {
            println!("| {label} | {ours:.1} ms | pandas not installed (pip install pandas) | - |")
        }
    };
    row(
        "cold first page (read + full validation) vs read_csv + iloc[0:100]",
        median(cold),
        pd(&pd_read),
    );
    row(
        "first sorted deep page (sort by x0) vs sort_values + iloc[90000:90100]",
        median(sorted_first),
        pd(&pd_sort),
    );
    println!(
        "| warm page at offset 90,000, unsorted, p50 | {:.3} ms | | |",
        quantile_us(&warm, 0.5) / 1000.0
    );
    println!(
        "| warm page at offset 90,000, sorted, p50 | {:.3} ms | | |",
        quantile_us(&warm_sorted, 0.5) / 1000.0
    );
    drop(rho);
    let _ = std::fs::remove_dir_all(&dir);
}
