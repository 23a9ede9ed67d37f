//! Tests of the fast read: its typed cells are exactly those of `type_text` field by field, and anything the exact reader would report makes it give up.

use super::super::csv;
use super::super::keys::KeyHasher;
use super::super::parallel;
use super::super::schema::{parse_integer, parse_number, type_text, Cell, Schema};
use super::{plain_decimal, plain_integer, quoted};
use crate::files::decl::TableDecl;

/// Columns `id` (string key), `x` number, `n` integer, `s` string, `b` boolean, `d` date,
/// `t` datetime; `missing` declared on all but the key (or none).
fn schema(missing: Option<&[&str]>) -> Schema {
    let mut cols = vec![serde_json::json!({"name": "id", "type": "string"})];
    for (name, ty) in [
        ("x", "number"),
        ("n", "integer"),
        ("s", "string"),
        ("b", "boolean"),
        ("d", "date"),
        ("t", "datetime"),
    ] {
        let mut c = serde_json::json!({"name": name, "type": ty});
        if let Some(m) = missing {
            c["missing"] = serde_json::json!(m);
        }
        cols.push(c);
    }
    let decl = serde_json::json!({"format": "csv", "columns": cols,
        "key": {"column": "id", "namespace": "row"}});
    let decl: TableDecl = serde_json::from_value(decl).unwrap();
    Schema::from_decl(&decl).unwrap()
}

/// Every field typed one by one (`None` when a cell does not fit or the text is not CSV).
fn oracle(schema: &Schema, text: &str) -> Option<Vec<Vec<Cell>>> {
    let mut rows = Vec::new();
    let mut header: Option<Vec<String>> = None;
    let mut ok = true;
    csv::for_each_record(text, |f| {
        let Some(h) = &header else {
            header = Some(f.iter().map(|c| c.to_string()).collect());
            return true;
        };
        if f.len() != h.len() {
            ok = false;
            return false;
        }
        let mut row = Vec::new();
        for c in &schema.columns {
            let Some(p) = h.iter().position(|n| *n == c.name) else {
                ok = false;
                return false;
            };
            match type_text(c, &f[p]) {
                Ok(cell) => row.push(cell),
                Err(_) => {
                    ok = false;
                    return false;
                }
            }
        }
        rows.push(row);
        true
    })
    .ok()?;
    (ok && header.is_some()).then_some(rows)
}

/// The fast read's cells, row by row, and each row's key hash checked against the hasher.
fn fast(schema: &Schema, text: &str) -> Option<Vec<Vec<Cell>>> {
    let hasher = KeyHasher::default();
    let f = parallel::read(schema, text.as_bytes(), 1_000_000, &hasher)?;
    assert_eq!(f.key_hashes.len(), f.rows);
    let mut rows = Vec::new();
    for r in 0..f.rows {
        let row: Vec<Cell> = f.columns.iter().map(|c| c.get(r).to_cell()).collect();
        if let Cell::Text(k) = &row[0] {
            assert_eq!(f.key_hashes[r], hasher.hash(k), "row {r}");
        }
        rows.push(row);
    }
    Some(rows)
}

/// Cell texts that sit at the edges of exact typing.
const TEXTS: &[&str] = &[
    "",
    "0",
    "-0",
    "+0",
    "001",
    "12",
    "-7",
    "+7",
    "1.5",
    "-0.0",
    ".5",
    "1.",
    "007.5",
    "1e5",
    "NA",
    "na",
    "true",
    "false",
    "TRUE",
    "2024-02-29",
    "2024-02-30",
    "2024-01-01T00:00:00Z",
    "9223372036854775807",
    "9223372036854775808",
    "123456789012345678",
    "1234567890123456789",
    "0.1234567890123456789012",
    "9007199254740993",
    "\"q\"",
    "\"a,b\"",
    "\"x\"\"y\"",
    "\"l1\nl2\"",
    "\"12\"",
    "\"NA\"",
    " 1",
    "w\u{e9}",
];

proptest::proptest! {
    /// Whatever the cells, the fast read either gives up or types every cell as `type_text`
    /// does; on a table every cell of which fits, it never gives up.
    #[test]
    fn the_fast_read_types_as_the_exact_reader_or_gives_up(
        cells in proptest::collection::vec(proptest::sample::select(TEXTS), 0..70),
        crlf in proptest::bool::ANY,
        missing in proptest::bool::ANY,
    ) {
        let s = schema(missing.then_some(&["NA", ""][..]));
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("b,t,d,s,n,x,id,extra{eol}");
        for (r, row) in cells.chunks(7).enumerate() {
            let mut f: Vec<String> = row.iter().map(|c| c.to_string()).collect();
            f.resize(7, "NA".into());
            // Column order of the header: b,t,d,s,n,x; then the key and a skipped field.
            f[6] = format!("k{r}");
            f.push(row.first().map_or("z", |c| *c).to_string());
            text.push_str(&f.join(","));
            text.push_str(eol);
        }
        // Both type in declaration order (id,x,n,s,b,d,t), whatever the header's order.
        let want = oracle(&s, &text);
        let got = fast(&s, &text);
        match (&want, &got) {
            (Some(w), Some(g)) => proptest::prop_assert_eq!(w, g),
            (None, Some(g)) => proptest::prop_assert!(false, "fast read typed {g:?} of {text:?}"),
            (Some(_), None) => proptest::prop_assert!(false, "fast read gave up on {text:?}"),
            (None, None) => {}
        }
    }

    /// An unquoted integer the fast path takes is what `parse_integer` reads, and it takes
    /// every such integer of at most 18 digits.
    #[test]
    fn plain_integers_are_parse_integer(t in "[+-]?[0-9]{0,20}", end in proptest::sample::select(vec!["", ",", "\n", "\r", "x", "\""])) {
        let b = format!("{t}{end}");
        let ours = plain_integer(b.as_bytes(), 0);
        let digits = t.trim_start_matches(['+', '-']).len();
        let field_ends = matches!(end, "" | "," | "\n" | "\r");
        match ours {
            Some((v, at)) => {
                proptest::prop_assert!(field_ends);
                proptest::prop_assert_eq!(at, t.len());
                proptest::prop_assert_eq!(Some(v), parse_integer(&t));
            }
            None => proptest::prop_assert!(!field_ends || digits > 18 || parse_integer(&t).is_none()),
        }
    }

    /// An unquoted decimal the fast path takes has the bits `parse_number` gives.
    #[test]
    fn plain_decimals_are_parse_number(t in "[+-]?[0-9]{0,20}(\\.[0-9]{0,24})?", end in proptest::sample::select(vec!["", ",", "\n", "e5", "\""])) {
        let b = format!("{t}{end}");
        match plain_decimal(b.as_bytes(), 0) {
            Some((v, at)) => {
                proptest::prop_assert!(matches!(end, "" | "," | "\n"));
                proptest::prop_assert_eq!(at, t.len());
                proptest::prop_assert_eq!(Some(v.to_bits()), parse_number(&t).map(f64::to_bits));
            }
            None => {
                // Taken whenever the plain division is exact (15 digits are below 2^53).
                let digits = t.chars().filter(char::is_ascii_digit).count();
                let field_ends = matches!(end, "" | "," | "\n");
                proptest::prop_assert!(!field_ends || !(1..=15).contains(&digits));
            }
        }
    }
}

#[test]
fn quoted_fields_unquote_as_the_csv_reader_does() {
    let mut scratch = String::new();
    assert_eq!(quoted("\"a,b\",x", 0, &mut scratch), Some(("a,b", 5)));
    assert_eq!(
        quoted("\"x\"\"y\"\"\"\n", 0, &mut scratch),
        Some(("x\"y\"", 8))
    );
    assert_eq!(
        quoted("\"l1\r\nl2\"", 0, &mut scratch),
        Some(("l1\r\nl2", 8))
    );
    // Never closed, or text after the closing quote: the exact reader reports these.
    assert_eq!(quoted("\"abc", 0, &mut scratch), None);
    assert_eq!(quoted("\"abc\"d,", 0, &mut scratch), None);
}

#[test]
fn what_the_exact_reader_reports_makes_the_fast_read_give_up() {
    let s = schema(Some(&["NA"]));
    let head = "id,x,n,s,b,d,t\n";
    let good = "k1,1.5,2,001,true,2024-02-29,2024-01-01T00:00:00Z\n";
    assert!(fast(&s, &format!("{head}{good}")).is_some());
    for bad in [
        // A cell that does not fit, a short and a long record, a stray and an open quote.
        "k2,1.5,02,a,true,2024-02-29,2024-01-01T00:00:00Z\n",
        "k2,1.5,2,a,true,2024-02-29\n",
        "k2,1.5,2,a,true,2024-02-29,2024-01-01T00:00:00Z,x\n",
        "k2,1.5,2,a\"b,true,2024-02-29,2024-01-01T00:00:00Z\n",
        "k2,1.5,2,\"open,true,2024-02-29,2024-01-01T00:00:00Z\n",
        "k2,1.5,2,a,yes,2024-02-29,2024-01-01T00:00:00Z\n",
    ] {
        assert!(fast(&s, &format!("{head}{good}{bad}")).is_none(), "{bad:?}");
    }
    // A header without a declared column, not UTF-8, and the row limit.
    assert!(fast(&s, &format!("id,x,n,s,b,d\n{good}")).is_none());
    let mut bytes = format!("{head}{good}").into_bytes();
    bytes[head.len() + 12] = 0xFF;
    assert!(parallel::read(&s, &bytes, 10, &KeyHasher::default()).is_none());
    let two = format!("{head}{good}{}", good.replacen("k1", "k2", 1));
    assert!(parallel::read(&s, two.as_bytes(), 1, &KeyHasher::default()).is_none());
    assert!(parallel::read(&s, two.as_bytes(), 2, &KeyHasher::default()).is_some());
}
