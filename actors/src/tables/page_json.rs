//! A `data.page` reply that serializes straight from the table's columns: the JSON of `PageReply`, without building its rows.
//!
//! `PageReply` (the contract) holds each row as a `serde_json::Map` of owned names and values;
//! building one costs a name and a value allocation per cell. [`Page`] keeps the cached table
//! and row order and writes the same JSON (same fields in the same order, cells by column name
//! in the map's sorted order, the same typed values) while the reply is serialized.

use super::cache::Entry;
use super::column::CellRef;
use super::contract::{PageQuery, PageReply};
use super::read::Table;
use serde::ser::{SerializeMap, SerializeSeq, SerializeStruct, Serializer};
use serde::Serialize;
use std::ops::Range;
use std::sync::Arc;

/// One page of a cached table: the query it answers, the total, and rows `range` of `order`.
pub struct Page {
    pub query: PageQuery,
    pub total: u64,
    pub namespace: Option<String>,
    entry: Arc<Entry>,
    order: Arc<Vec<u32>>,
    range: Range<usize>,
    /// The page's column indices in the order their names sort (the order of `PageReply`'s cell maps).
    by_name: Vec<usize>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("query", &self.query)
            .field("total", &self.total)
            .field("rows", &self.range.len())
            .finish_non_exhaustive()
    }
}

impl Page {
    /// Rows `range` of `order` over the table of `entry`, with the cells of `columns`.
    pub fn new(
        query: PageQuery,
        entry: Arc<Entry>,
        order: Arc<Vec<u32>>,
        range: Range<usize>,
        columns: Vec<usize>,
    ) -> Page {
        let t = &entry.table;
        let mut by_name = columns;
        by_name.sort_by(|&a, &b| t.schema.columns[a].name.cmp(&t.schema.columns[b].name));
        Page {
            query,
            total: order.len() as u64,
            namespace: t.schema.key.as_ref().map(|(_, ns)| ns.clone()),
            range: range.start.min(order.len())..range.end.min(order.len()),
            entry,
            order,
            by_name,
        }
    }

    /// The table rows of this page, in page order.
    pub fn rows(&self) -> &[u32] {
        &self.order[self.range.clone()]
    }

    /// The contract form of this page (owned rows), as its JSON reads back.
    pub fn to_reply(&self) -> Result<PageReply, serde_json::Error> {
        serde_json::from_slice(&serde_json::to_vec(self)?)
    }
}

impl Serialize for Page {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The fields of `PageReply`, in its declaration order.
        let mut m = s.serialize_struct("PageReply", 4)?;
        m.serialize_field("query", &self.query)?;
        m.serialize_field("total", &self.total)?;
        match &self.namespace {
            Some(ns) => m.serialize_field("namespace", ns)?,
            None => m.skip_field("namespace")?,
        }
        m.serialize_field("rows", &Rows(self))?;
        m.end()
    }
}

struct Rows<'a>(&'a Page);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let page = self.0;
        let rows = page.rows();
        let mut seq = s.serialize_seq(Some(rows.len()))?;
        for &r in rows {
            seq.serialize_element(&RowJson {
                table: &page.entry.table,
                by_name: &page.by_name,
                row: r as usize,
            })?;
        }
        seq.end()
    }
}

/// One row as `Row` serializes: `key` (keyed tables), then `cells` by column name.
struct RowJson<'a> {
    table: &'a Table,
    by_name: &'a [usize],
    row: usize,
}

impl Serialize for RowJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Row", 2)?;
        match self.table.key(self.row) {
            Some(k) => m.serialize_field("key", k)?,
            None => m.skip_field("key")?,
        }
        m.serialize_field("cells", &Cells(self))?;
        m.end()
    }
}

struct Cells<'a>(&'a RowJson<'a>);

impl Serialize for Cells<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let RowJson {
            table,
            by_name,
            row,
        } = self.0;
        let mut m = s.serialize_map(Some(by_name.len()))?;
        for &c in *by_name {
            m.serialize_entry(
                &table.schema.columns[c].name,
                &CellJson(table.cell(c, *row)),
            )?;
        }
        m.end()
    }
}

/// A cell as `query::cell_ref_json` makes it: integers beyond +/-2^53 as strings, non-finite
/// numbers as null.
struct CellJson<'a>(CellRef<'a>);

impl Serialize for CellJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        const SAFE: i64 = 1 << 53;
        match self.0 {
            CellRef::Missing => s.serialize_unit(),
            CellRef::Text(t) | CellRef::Time(_, t) => s.serialize_str(t),
            CellRef::Int(i) if (-SAFE..=SAFE).contains(&i) => s.serialize_i64(i),
            CellRef::Int(i) => s.collect_str(&i),
            CellRef::Num(n) if n.is_finite() => s.serialize_f64(n),
            CellRef::Num(_) => s.serialize_unit(),
            CellRef::Bool(b) => s.serialize_bool(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::contract::ResourceRef;
    use crate::files::decl::TableDecl;
    use crate::tables::cache::TableCache;
    use crate::tables::contract::SortSpec;
    use crate::tables::page::page_rows;
    use crate::tables::query::{select, Sort};
    use crate::tables::read::read;
    use crate::tables::schema::Schema;

    fn table(keyed: bool) -> Arc<Entry> {
        let cols = serde_json::json!([
            {"name": "zid", "type": "string"},
            {"name": "big", "type": "integer", "missing": ["NA"]},
            {"name": "x", "type": "number", "missing": ["NA"]},
            {"name": "Name", "type": "string", "missing": ["NA"]},
            {"name": "b", "type": "boolean", "missing": ["NA"]},
            {"name": "d", "type": "date"},
            {"name": "t", "type": "datetime", "missing": [""]}
        ]);
        let mut decl = serde_json::json!({"format": "csv", "columns": cols});
        if keyed {
            decl["key"] = serde_json::json!({"column": "zid", "namespace": "ns \"q\""});
        }
        let decl: TableDecl = serde_json::from_value(decl).unwrap();
        let schema = Schema::from_decl(&decl).unwrap();
        let text = "zid,big,x,Name,b,d,t\n\
            a,9007199254740993,-0.0,\"say \"\"hi\"\"\",true,2024-02-29,2024-01-01T00:00:00Z\n\
            \"b\u{e9}\",-9007199254740992,1e300,\"two\r\nlines\\\\ \u{1F600}\",false,2024-03-01,\n\
            c,NA,NA,NA,NA,2024-03-02,2024-01-01T10:20:30+02:00\n\
            d,1,0.1,001,true,2024-03-03,2024-01-01T00:00:00.5Z\n";
        let t = read(&schema, text.as_bytes(), 100).unwrap();
        TableCache::default().put("k".into(), t)
    }

    /// The bytes `PageReply` serializes to, built the owned way.
    fn reply_bytes(page: &Page) -> Vec<u8> {
        let reply = PageReply {
            query: page.query.clone(),
            total: page.total,
            namespace: page.namespace.clone(),
            rows: page_rows(&page.entry.table, page.rows(), &page.by_name),
        };
        serde_json::to_vec(&reply).unwrap()
    }

    fn query(offset: u64, limit: u64, sort: Vec<SortSpec>) -> PageQuery {
        PageQuery {
            resource: ResourceRef {
                id: "r".into(),
                version: 3,
            },
            offset,
            limit,
            sort,
            filter: vec![],
            columns: None,
        }
    }

    #[test]
    fn a_page_writes_the_json_of_its_owned_reply_byte_for_byte() {
        for keyed in [true, false] {
            let entry = table(keyed);
            let all = Arc::new(select(&entry.table, &[], &[]));
            let x = entry.table.schema.column("x").unwrap();
            let sort = [Sort {
                column: x,
                descending: true,
            }];
            let sorted = Arc::new(select(&entry.table, &[], &sort));
            for (order, range) in [
                (&all, 0..100),
                (&all, 1..3),
                (&sorted, 0..4),
                (&sorted, 2..2),
                (&all, 4..10),
            ] {
                let spec = vec![SortSpec {
                    column: "x".into(),
                    descending: true,
                }];
                let q = query(range.start as u64, range.len() as u64, spec);
                let every: Vec<usize> = (0..entry.table.schema.columns.len()).collect();
                let page = Page::new(q.clone(), entry.clone(), order.clone(), range.clone(), every);
                let bytes = serde_json::to_vec(&page).unwrap();
                assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    String::from_utf8(reply_bytes(&page)).unwrap(),
                    "keyed {keyed}, rows {range:?}"
                );
                // A column choice writes only those cells, still as the owned reply would.
                let chosen = vec![x, entry.table.schema.column("Name").unwrap()];
                let some = Page::new(q, entry.clone(), order.clone(), range.clone(), chosen);
                assert_eq!(
                    String::from_utf8(serde_json::to_vec(&some).unwrap()).unwrap(),
                    String::from_utf8(reply_bytes(&some)).unwrap(),
                    "keyed {keyed}, rows {range:?}, two columns"
                );
                assert_eq!(page.total, 4);
                assert_eq!(page.to_reply().unwrap().rows.len(), page.rows().len());
            }
        }
    }

    #[test]
    fn cells_keep_their_types_in_the_page_json() {
        let entry = table(true);
        let order = Arc::new(select(&entry.table, &[], &[]));
        let every: Vec<usize> = (0..entry.table.schema.columns.len()).collect();
        let page = Page::new(query(0, 10, vec![]), entry, order, 0..10, every);
        let v: serde_json::Value = serde_json::to_value(&page).unwrap();
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(v["namespace"], "ns \"q\"");
        assert_eq!(rows[0]["key"], "a");
        assert_eq!(rows[0]["cells"]["big"], "9007199254740993");
        assert_eq!(rows[0]["cells"]["Name"], "say \"hi\"");
        assert_eq!(rows[1]["cells"]["big"], -9007199254740992i64);
        assert_eq!(rows[1]["cells"]["t"], serde_json::Value::Null);
        assert_eq!(rows[2]["cells"]["x"], serde_json::Value::Null);
        assert_eq!(rows[3]["cells"]["Name"], "001");
        assert_eq!(rows[3]["cells"]["big"], 1);
    }
}
