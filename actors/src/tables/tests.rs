//! Tests of the typed reader: the parallel and columnar read agree cell for cell with one typed cell per field, problems and limits stay exact, memory stays bounded.

use super::csv;
use super::read::{read, Problem};
use super::schema::{type_text, Cell, Schema};
use super::TablesError;
use crate::error::ActorError;
use crate::files::decl::TableDecl;

fn schema(key: bool) -> Schema {
    let mut cols = vec![serde_json::json!({"name": "id", "type": "string"})];
    for (name, ty) in [
        ("x", "number"),
        ("n", "integer"),
        ("s", "string"),
        ("b", "boolean"),
        ("d", "date"),
        ("t", "datetime"),
    ] {
        cols.push(serde_json::json!({"name": name, "type": ty, "missing": ["NA"]}));
    }
    let mut decl = serde_json::json!({"format": "csv", "columns": cols});
    if key {
        decl["key"] = serde_json::json!({"column": "id", "namespace": "row"});
    }
    let decl: TableDecl = serde_json::from_value(decl).unwrap();
    Schema::from_decl(&decl).unwrap()
}

/// A table of `rows` rows, with quoted fields (commas, doubled quotes, line breaks) every 7th row.
fn text(rows: usize) -> String {
    let mut s = String::from("id,x,n,s,b,d,t\r\n");
    for r in 0..rows {
        let str_cell = match r % 7 {
            0 => format!("\"multi\nline, \"\"{r}\"\"\""),
            3 => "NA".to_string(),
            4 => "001".to_string(),
            _ => format!("w{}", r % 13),
        };
        let x = if r % 11 == 0 {
            "NA".to_string()
        } else {
            format!("{}.{}", r % 1000, r % 7)
        };
        s.push_str(&format!(
            "k{r},{x},{},{str_cell},{},2024-02-{:02},2024-01-01T00:00:{:02}Z\r\n",
            r as i64 - 5000,
            r % 2 == 0,
            r % 28 + 1,
            r % 60
        ));
    }
    s
}

/// One typed cell per field, as the reader typed them before it was columnar.
fn oracle(schema: &Schema, text: &str) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    let mut header = true;
    csv::for_each_record(text, |f| {
        if !std::mem::take(&mut header) {
            let row = schema
                .columns
                .iter()
                .zip(f)
                .map(|(c, t)| type_text(c, t).unwrap())
                .collect();
            rows.push(row);
        }
        true
    })
    .unwrap();
    rows
}

fn problems(r: Result<super::read::Table, TablesError>) -> Vec<Problem> {
    match r {
        Err(TablesError::Problems(p)) => p,
        other => panic!("expected problems, got {other:?}"),
    }
}

#[test]
fn a_large_table_reads_in_parallel_exactly_as_cell_by_cell() {
    let s = schema(true);
    let t = text(60_000);
    assert!(t.len() > 2 << 20, "large enough for two chunks");
    // The fast read takes it (quoted line breaks and all) in several pieces.
    let hasher = super::keys::KeyHasher::default();
    assert!(super::parallel::read(&s, t.as_bytes(), 1_000_000, &hasher).is_some());
    let table = read(&s, t.as_bytes(), 1_000_000).unwrap();
    let want = oracle(&s, &t);
    assert_eq!(table.rows, want.len());
    for (r, row) in want.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            assert_eq!(&table.cell(c, r).to_cell(), cell, "row {r} column {c}");
        }
    }
    assert_eq!(table.key_row("k12345"), Some(12345));
    assert_eq!(table.key_row("nope"), None);
    assert!(
        table.heap_bytes() <= 2 * t.len(),
        "{} bytes for a {}-byte file",
        table.heap_bytes(),
        t.len()
    );
}

#[test]
fn problems_deep_in_a_large_table_keep_their_rows_and_order() {
    let s = schema(true);
    let mut t = text(60_000);
    // Row 50,001 gets a bad integer and a duplicate key; row 59,000 the wrong field count.
    t = t.replacen("\r\nk50000,", "\r\nk7,", 1);
    let at = t.find("\r\nk59000,").unwrap() + 2;
    t.insert_str(at, "extra,");
    let p = problems(read(&s, t.as_bytes(), 1_000_000));
    assert_eq!(
        p,
        vec![
            Problem {
                row: 59_001,
                column: None,
                reason: "8 fields where the header has 7".into()
            },
            Problem {
                row: 50_001,
                column: Some("id".into()),
                reason: "duplicate key \"k7\" (first at row 8)".into()
            },
            Problem {
                row: 59_001,
                column: Some("id".into()),
                reason: "the key is missing".into()
            },
        ]
    );
    let bad = text(60_000).replacen(",-4000,", ",-04000,", 1);
    let p = problems(read(&s, bad.as_bytes(), 1_000_000));
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].row, 1001);
    assert_eq!(p[0].reason, "\"-04000\" is not an integer");
}

#[test]
fn csv_errors_and_the_row_limit_deep_in_a_large_table_are_exact() {
    let s = schema(false);
    let t = text(60_000);
    assert!(matches!(
        read(&s, t.as_bytes(), 59_999),
        Err(TablesError::Files(crate::files::FilesError::Actor(
            ActorError::Limit { value: 59_999, .. }
        )))
    ));
    // A stray quote in row 40,001: its line counts the quoted line breaks before it.
    let at = t.find("\r\nk40000,").unwrap() + 2;
    let mut bad = t.clone();
    bad.insert(at + 1, '"');
    let p = problems(read(&s, bad.as_bytes(), 1_000_000));
    let line = 1 + 40_000 + (0..40_000).filter(|r| r % 7 == 0).count() + 1;
    assert_eq!(p.last().unwrap().row, 40_001);
    assert_eq!(
        p.last().unwrap().reason,
        format!("line {line}: a quote inside an unquoted field, or text after a closing quote")
    );
}
