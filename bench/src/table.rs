//! The data benchmark's table: a 100,000-row x 20-column CSV and its declaration, shared by the HTTP driver and the read probe.

use serde_json::{json, Value};

/// Rows of the benchmark table.
pub const ROWS: usize = 100_000;

/// The CSV text of round `round` (fresh bytes each round) and its `table:{...}` declaration:
/// a string key, 7 number, 6 integer and 6 string columns, `NA` declared missing.
pub fn csv(round: usize) -> (String, Value) {
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
