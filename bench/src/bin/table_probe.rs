//! Profiling probe of the cold table read: the data benchmark's file through the service's read path (`read_version`), then one page built and JSON-encoded, timed by phase (and the read's parts: file, digest, parse), and the first read's memory peak in this process.
//!
//! Usage: `cargo run --release -p rho-bench --bin table_probe [ITERATIONS]`; for instruction
//! counts that load on the machine does not change, run the built binary under
//! `valgrind --tool=callgrind` with 1 iteration (SHA-256 then runs without SHA-NI, which
//! valgrind does not emulate).

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_actors::files::decl::TableDecl;
use rho_actors::files::VersionFacts;
use rho_actors::tables::handlers::page_rows;
use rho_actors::tables::load::{read_version, TableBounds};
use rho_actors::tables::query::{select, Sort};
use rho_actors::tables::read::read;
use rho_actors::tables::schema::Schema;
use rho_bench::{machine_line, memory, scratch, table};
use std::time::Instant;

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let (text, decl) = table::csv(0);
    let decl: TableDecl = serde_json::from_value(decl).unwrap();
    let dir = scratch("table-probe");
    std::fs::write(dir.join("t.csv"), &text).unwrap();
    let facts = VersionFacts {
        kind: "table".into(),
        format: "csv".into(),
        bytes: text.len() as u64,
        sha256: rho_plumbing::sha256_hex(text.as_bytes()),
        captured: false,
        partial: false,
        operation_id: None,
        table: Some(decl.clone()),
        media: None,
    };
    let bounds = TableBounds {
        max_file_bytes: 64 << 20,
        max_rows: 1_000_000,
    };
    println!("{}", machine_line());
    println!(
        "file {:.1} MB, {} rows; ms per phase",
        text.len() as f64 / 1e6,
        table::ROWS
    );
    let file_mb = text.len() as f64 / 1e6;
    drop(text);
    // The first read alone: the peak is reset (`5` > clear_refs) once the file is written.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let (before, _) = memory("self");
    let schema = Schema::from_decl(&decl).unwrap();
    let table = read_version(&dir, "t.csv", &facts, &schema, bounds).unwrap();
    let (after, peak) = memory("self");
    drop(table);
    let mb = |b: u64| b as f64 / 1e6;
    match reset {
        true => println!(
            "first read_version alone (RSS, MB): before {:.1}, after {:.1}, peak {:.1} (+{:.1} = {:.2}x the file)",
            mb(before),
            mb(after),
            mb(peak),
            mb(peak.saturating_sub(before)),
            mb(peak.saturating_sub(before)) / file_mb
        ),
        false => println!("first read_version alone: the peak could not be reset, not measured"),
    }
    for _ in 0..iterations {
        // The cold read's parts one after another on this thread (the service overlaps the
        // digest with the parse, and skips it for a file verified unchanged since).
        let schema = Schema::from_decl(&decl).unwrap();
        let t = Instant::now();
        let bytes = std::fs::read(dir.join("t.csv")).unwrap();
        let file = t.elapsed();
        let t = Instant::now();
        let digest = rho_plumbing::sha256_hex(&bytes);
        let hash = t.elapsed();
        assert_eq!(digest, facts.sha256);
        let t = Instant::now();
        let parsed = read(&schema, &bytes, bounds.max_rows).unwrap();
        let parse = t.elapsed();
        drop((bytes, parsed));
        println!(
            "parts: file read {:.2} | sha256 {:.2} | parse+validate {:.2}",
            file.as_secs_f64() * 1e3,
            hash.as_secs_f64() * 1e3,
            parse.as_secs_f64() * 1e3
        );
        let t = Instant::now();
        let schema = Schema::from_decl(&decl).unwrap();
        let table = read_version(&dir, "t.csv", &facts, &schema, bounds).unwrap();
        let read = t.elapsed();
        let all: Vec<usize> = (0..table.schema.columns.len()).collect();
        let t = Instant::now();
        let order = select(&table, &[], &[]);
        let first = serde_json::to_vec(&page_rows(&table, &order[0..100], &all)).unwrap();
        let page = t.elapsed();
        let t = Instant::now();
        let x0 = schema.column("x0").unwrap();
        let sort = [Sort {
            column: x0,
            descending: false,
        }];
        let order = select(&table, &[], &sort);
        let deep = serde_json::to_vec(&page_rows(&table, &order[90_000..90_100], &all)).unwrap();
        let sorted = t.elapsed();
        println!(
            "read+validate {:.2} | first page {:.3} ({} B) | sort+deep page {:.2} ({} B) | table {:.1} MB",
            read.as_secs_f64() * 1e3,
            page.as_secs_f64() * 1e3,
            first.len(),
            sorted.as_secs_f64() * 1e3,
            deep.len(),
            table.heap_bytes() as f64 / 1e6
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
