//! `data.page` and `data.compare` as project-actor messages: a validated table, then a filtered, sorted page or a keyed join.

use crate::error::ActorError;
use crate::files::contract::ResourceRef;
use crate::project_actor::ProjectActor;
use crate::tables::contract::{
    CompareCounts, CompareReply, FieldValue, FilterSpec, Matched, PageQuery, Row, SortSpec,
};
use crate::tables::keyset::{in_rows, projection};
use crate::tables::load::{compute, read_table, TableBounds};
use crate::tables::page_json::Page;
use crate::tables::query::{cell_ref_json, filter_value, select, Filter, Op, Sort};
use crate::tables::read::Table;
use crate::tables::schema::Cell;
use crate::tables::TablesError;
use actix::prelude::*;
use uuid::Uuid;

/// `data.page` for the actor (the request without `projectId`); the reply serializes as `PageReply`.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Page, TablesError>")]
pub struct DataPage {
    pub id: Uuid,
    pub resource: ResourceRef,
    pub offset: u64,
    pub limit: u64,
    pub sort: Vec<SortSpec>,
    pub filter: Vec<FilterSpec>,
    pub columns: Option<Vec<String>>,
    pub bounds: TableBounds,
}

impl Handler<DataPage> for ProjectActor {
    type Result = ResponseFuture<Result<Page, TablesError>>;

    fn handle(&mut self, msg: DataPage, _: &mut Context<Self>) -> Self::Result {
        let reading = read_table(self, msg.id, msg.resource.version, msg.bounds);
        Box::pin(async move {
            let (_, entry) = reading.await?;
            let (filters, sort) = query(&entry.table, &msg.sort, &msg.filter)?;
            let columns = projection(&entry.table, msg.columns.as_deref())?;
            let key = serde_json::to_string(&(&msg.sort, &msg.filter)).unwrap_or_default();
            // A cached order pages on this thread (at most `maxPageRows` rows); a new one is
            // computed on a blocking thread.
            let order = match entry.cached_order(&key) {
                Some(order) => order,
                None => {
                    let entry = entry.clone();
                    compute(move || Ok(entry.order(&key, || select(&entry.table, &filters, &sort))))
                        .await?
                }
            };
            let start = (msg.offset as usize).min(order.len());
            let end = start.saturating_add(msg.limit as usize);
            let query = PageQuery {
                resource: msg.resource,
                offset: msg.offset,
                limit: msg.limit,
                sort: msg.sort,
                filter: msg.filter,
                columns: msg.columns,
            };
            Ok(Page::new(query, entry, order, start..end, columns))
        })
    }
}

/// The typed filters and sort keys of a page request (`invalid` naming the first bad one).
fn query(
    t: &Table,
    sort_specs: &[SortSpec],
    filter_specs: &[FilterSpec],
) -> Result<(Vec<Filter>, Vec<Sort>), TablesError> {
    let col = |name: &str, field: &str, i: usize| {
        t.schema.column(name).ok_or_else(|| ActorError::Invalid {
            field: Some(field.into()),
            index: Some(i as u64),
            reason: format!("no column {name:?}"),
        })
    };
    let mut sort = Vec::new();
    for (i, s) in sort_specs.iter().enumerate() {
        sort.push(Sort {
            column: col(&s.column, "sort", i)?,
            descending: s.descending,
        });
    }
    let mut filters = Vec::new();
    for (i, f) in filter_specs.iter().enumerate() {
        let column = col(&f.column, "filter", i)?;
        let op = Op::parse(&f.op).ok_or_else(|| ActorError::Invalid {
            field: Some("filter".into()),
            index: Some(i as u64),
            reason: format!("unknown op {:?}", f.op),
        })?;
        let (value, rows) = match op {
            Op::In => (Cell::Missing, in_rows(t, column, f.value.as_ref(), i)?),
            _ => (
                filter_value(t.schema.columns[column].ty, op, f.value.as_ref(), i)?,
                Vec::new(),
            ),
        };
        filters.push(Filter {
            column,
            op,
            value,
            rows,
        });
    }
    Ok((filters, sort))
}

/// The reply rows of table rows `rows`, in that order, with the cells of `columns`, as owned
/// contract rows ([`Page`] writes the same JSON without building them).
pub fn page_rows(t: &Table, rows: &[u32], columns: &[usize]) -> Vec<Row> {
    rows.iter()
        .map(|&r| Row {
            key: t.key(r as usize).map(str::to_string),
            cells: columns
                .iter()
                .map(|&c| {
                    let name = t.schema.columns[c].name.clone();
                    (name, cell_ref_json(t.cell(c, r as usize)))
                })
                .collect(),
        })
        .collect()
}

/// How a comparison joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    Left,
    Inner,
    Full,
}

/// `data.compare` for the actor: fields already in the multi-field form.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<CompareReply, TablesError>")]
pub struct DataCompare {
    pub left: (Uuid, u64),
    pub right: (Uuid, u64),
    pub fields: Vec<(String, String)>,
    pub join: Join,
    pub offset: u64,
    pub page: u64,
    pub bounds: TableBounds,
}

impl Handler<DataCompare> for ProjectActor {
    type Result = ResponseFuture<Result<CompareReply, TablesError>>;

    fn handle(&mut self, msg: DataCompare, _: &mut Context<Self>) -> Self::Result {
        let left = read_table(self, msg.left.0, msg.left.1, msg.bounds);
        let right = read_table(self, msg.right.0, msg.right.1, msg.bounds);
        Box::pin(async move {
            let (_, l) = left.await?;
            let (_, r) = right.await?;
            compute(move || {
                let (lt, rt) = (&l.table, &r.table);
                let (Some((_, lns)), Some((_, rns))) = (&lt.schema.key, &rt.schema.key) else {
                    return Err(ActorError::invalid(
                        "left",
                        "both tables must be keyed (table.key)",
                    )
                    .into());
                };
                if lns != rns {
                    return Err(ActorError::invalid(
                        "right",
                        format!("key namespaces differ ({lns:?} and {rns:?})"),
                    )
                    .into());
                }
                let mut cols = Vec::new();
                for (i, (lf, rf)) in msg.fields.iter().enumerate() {
                    let find = |t: &Table, name: &str, side: &str| {
                        t.schema
                            .column(name)
                            .filter(|&c| t.schema.columns[c].ty.numeric())
                            .ok_or_else(|| ActorError::Invalid {
                                field: Some(format!("fields.{side}")),
                                index: Some(i as u64),
                                reason: format!(
                                    "{name:?} is not a numeric column of the {side} table"
                                ),
                            })
                    };
                    cols.push((lf.clone(), find(lt, lf, "left")?, find(rt, rf, "right")?));
                }
                let mut counts = CompareCounts::default();
                let mut matched = Vec::new();
                let mut left_only = Vec::new();
                for row in 0..lt.rows {
                    let key = lt.key(row).unwrap_or_default();
                    match rt.key_row(key) {
                        Some(rrow) => {
                            counts.matched += 1;
                            matched.push((key.to_string(), row, rrow));
                        }
                        None => {
                            counts.left_only += 1;
                            left_only.push(key.to_string());
                        }
                    }
                }
                let mut right_only = Vec::new();
                for row in 0..rt.rows {
                    let key = rt.key(row).unwrap_or_default();
                    if lt.key_row(key).is_none() {
                        counts.right_only += 1;
                        right_only.push(key.to_string());
                    }
                }
                if msg.join == Join::Inner {
                    left_only.clear();
                }
                if msg.join != Join::Full {
                    right_only.clear();
                }
                // One page over matched, then leftOnly, then rightOnly.
                let (mut skip, mut room) = (msg.offset as usize, msg.page as usize);
                let total = matched.len() + left_only.len() + right_only.len();
                let mut take = |n: usize| {
                    let s = skip.min(n);
                    skip -= s;
                    let t = room.min(n - s);
                    room -= t;
                    s..s + t
                };
                let mr = take(matched.len());
                let lr = take(left_only.len());
                let rr = take(right_only.len());
                let end = msg.offset as usize + msg.page as usize;
                Ok(CompareReply {
                    namespace: lns.clone(),
                    counts,
                    matched: matched[mr]
                        .iter()
                        .map(|(key, lrow, rrow)| Matched {
                            key: key.clone(),
                            values: cols
                                .iter()
                                .map(|(name, lc, rc)| {
                                    let a = lt.number(*lc, *lrow);
                                    let b = rt.number(*rc, *rrow);
                                    FieldValue {
                                        field: name.clone(),
                                        left: a,
                                        right: b,
                                        diff: a.zip(b).map(|(a, b)| b - a),
                                    }
                                })
                                .collect(),
                        })
                        .collect(),
                    left_only: left_only[lr].to_vec(),
                    right_only: right_only[rr].to_vec(),
                    next: (end < total).then(|| end.to_string()),
                })
            })
            .await
        })
    }
}
