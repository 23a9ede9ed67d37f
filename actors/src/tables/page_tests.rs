//! Tests of `Page`: its JSON is byte for byte what serializing the owned `PageReply` of `page_rows` gives.

use super::cache::{Entry, TableCache};
use super::contract::{PageQuery, PageReply};
use super::page_json::Page;
use crate::files::contract::ResourceRef;
use crate::files::decl::TableDecl;
use crate::tables::contract::SortSpec;
use crate::tables::handlers::page_rows;
use crate::tables::query::{select, Sort};
use crate::tables::read::read;
use crate::tables::schema::Schema;
use std::sync::Arc;

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
        rows: page_rows(page.table(), page.rows(), page.columns()),
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
            let page = Page::new(
                q.clone(),
                entry.clone(),
                order.clone(),
                range.clone(),
                every,
            );
            let bytes = serde_json::to_vec(&page).unwrap();
            assert_eq!(
                String::from_utf8(bytes).unwrap(),
                String::from_utf8(reply_bytes(&page)).unwrap(),
                "keyed {keyed}, rows {range:?}"
            );
            assert_eq!(page.total, 4);
            assert_eq!(page.to_reply().unwrap().rows.len(), page.rows().len());
            // A column choice writes only those cells, still as the owned reply would.
            let chosen = vec![x, entry.table.schema.column("Name").unwrap()];
            let some = Page::new(q, entry.clone(), order.clone(), range.clone(), chosen);
            assert_eq!(
                String::from_utf8(serde_json::to_vec(&some).unwrap()).unwrap(),
                String::from_utf8(reply_bytes(&some)).unwrap(),
                "keyed {keyed}, rows {range:?}, two columns"
            );
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
