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

    /// The table this page reads.
    pub fn table(&self) -> &Table {
        &self.entry.table
    }

    /// The page's columns, in the order their names sort.
    pub fn columns(&self) -> &[usize] {
        &self.by_name
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
