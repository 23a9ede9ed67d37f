//! Typed column storage of a parsed table: one value vector per column, texts in one arena with offsets, missing cells in a bitmap.

use super::schema::{Cell, ColumnType};

/// One cell read in place from its column (no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CellRef<'a> {
    Missing,
    Text(&'a str),
    Int(i64),
    Num(f64),
    Bool(bool),
    /// A datetime: its instant (ns since the epoch) and its text.
    Time(i64, &'a str),
}

impl CellRef<'_> {
    /// The owned cell.
    pub fn to_cell(self) -> Cell {
        match self {
            CellRef::Missing => Cell::Missing,
            CellRef::Text(t) => Cell::Text(t.into()),
            CellRef::Int(i) => Cell::Int(i),
            CellRef::Num(n) => Cell::Num(n),
            CellRef::Bool(b) => Cell::Bool(b),
            CellRef::Time(ns, t) => Cell::Time(ns, t.into()),
        }
    }

    /// The value of a numeric cell.
    pub fn number(self) -> Option<f64> {
        match self {
            CellRef::Int(i) => Some(i as f64),
            CellRef::Num(n) => Some(n),
            _ => None,
        }
    }
}

/// Texts of one column: cell `r` is `arena[ends[r-1]..ends[r]]`.
#[derive(Debug, Default)]
pub struct Texts {
    arena: String,
    ends: Vec<u32>,
}

impl Texts {
    fn push(&mut self, t: &str) {
        self.arena.push_str(t);
        // A table is bounded by `resources.maxFileBytes` (at most 64 MiB), far below 4 GiB.
        self.ends
            .push(u32::try_from(self.arena.len()).unwrap_or(u32::MAX));
    }

    pub fn get(&self, r: usize) -> &str {
        let start = if r == 0 { 0 } else { self.ends[r - 1] as usize };
        self.arena.get(start..self.ends[r] as usize).unwrap_or("")
    }

    fn append(&mut self, other: Texts) {
        let base = u32::try_from(self.arena.len()).unwrap_or(u32::MAX);
        self.arena.push_str(&other.arena);
        self.ends
            .extend(other.ends.iter().map(|e| e.saturating_add(base)));
    }

    fn bytes(&self) -> usize {
        self.arena.capacity() + self.ends.capacity() * 4
    }
}

/// The values of one column by its declared type.
#[derive(Debug)]
pub enum Values {
    /// `string` and `date` columns.
    Text(Texts),
    Int(Vec<i64>),
    Num(Vec<f64>),
    Bool(Vec<bool>),
    Time(Vec<i64>, Texts),
}

/// One typed column: a value per row (a placeholder where missing) and the missing rows.
#[derive(Debug)]
pub struct ColumnData {
    pub values: Values,
    missing: Vec<u64>,
    len: usize,
}

impl ColumnData {
    pub fn new(ty: ColumnType, rows: usize) -> ColumnData {
        let values = match ty {
            ColumnType::String | ColumnType::Date => Values::Text(Texts {
                arena: String::new(),
                ends: Vec::with_capacity(rows),
            }),
            ColumnType::Integer => Values::Int(Vec::with_capacity(rows)),
            ColumnType::Number => Values::Num(Vec::with_capacity(rows)),
            ColumnType::Boolean => Values::Bool(Vec::with_capacity(rows)),
            ColumnType::DateTime => Values::Time(Vec::with_capacity(rows), Texts::default()),
        };
        ColumnData {
            values,
            missing: Vec::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_missing(&self, r: usize) -> bool {
        self.missing
            .get(r / 64)
            .is_some_and(|w| w & (1 << (r % 64)) != 0)
    }

    /// Reserves arena room for about `bytes` more text.
    pub fn reserve_text(&mut self, bytes: usize) {
        if let Values::Text(t) | Values::Time(_, t) = &mut self.values {
            t.arena.reserve(bytes);
        }
    }

    pub fn push_missing(&mut self) {
        let r = self.len;
        if self.missing.len() <= r / 64 {
            self.missing.resize(r / 64 + 1, 0);
        }
        self.missing[r / 64] |= 1 << (r % 64);
        match &mut self.values {
            Values::Text(t) => t.push(""),
            Values::Int(v) => v.push(0),
            Values::Num(v) => v.push(0.0),
            Values::Bool(v) => v.push(false),
            Values::Time(v, t) => {
                v.push(0);
                t.push("");
            }
        }
        self.len += 1;
    }

    /// Pushes a text (`string` or `date` column, already checked).
    pub fn push_text(&mut self, s: &str) {
        if let Values::Text(t) = &mut self.values {
            t.push(s);
            self.len += 1;
        }
    }

    pub fn push_int(&mut self, i: i64) {
        if let Values::Int(v) = &mut self.values {
            v.push(i);
            self.len += 1;
        }
    }

    pub fn push_num(&mut self, n: f64) {
        if let Values::Num(v) = &mut self.values {
            v.push(n);
            self.len += 1;
        }
    }

    pub fn push_bool(&mut self, b: bool) {
        if let Values::Bool(v) = &mut self.values {
            v.push(b);
            self.len += 1;
        }
    }

    /// Pushes a datetime: its instant and its text.
    pub fn push_time(&mut self, ns: i64, s: &str) {
        if let Values::Time(v, t) = &mut self.values {
            v.push(ns);
            t.push(s);
            self.len += 1;
        }
    }

    /// Pushes an owned cell of this column's type (anything else is stored as missing).
    pub fn push_cell(&mut self, c: &Cell) {
        match (c, &mut self.values) {
            (Cell::Text(s), Values::Text(t)) => t.push(s),
            (Cell::Int(i), Values::Int(v)) => v.push(*i),
            (Cell::Num(n), Values::Num(v)) => v.push(*n),
            (Cell::Bool(b), Values::Bool(v)) => v.push(*b),
            (Cell::Time(ns, s), Values::Time(v, t)) => {
                v.push(*ns);
                t.push(s);
            }
            _ => return self.push_missing(),
        }
        self.len += 1;
    }

    /// Appends all of `other` (a column of the same type, e.g. the next chunk of the file).
    pub fn append(&mut self, other: ColumnData) {
        let base = self.len;
        for (w, &word) in other.missing.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let r = base + w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if self.missing.len() <= r / 64 {
                    self.missing.resize(r / 64 + 1, 0);
                }
                self.missing[r / 64] |= 1 << (r % 64);
            }
        }
        match (&mut self.values, other.values) {
            (Values::Text(a), Values::Text(b)) => a.append(b),
            (Values::Int(a), Values::Int(b)) => a.extend_from_slice(&b),
            (Values::Num(a), Values::Num(b)) => a.extend_from_slice(&b),
            (Values::Bool(a), Values::Bool(b)) => a.extend_from_slice(&b),
            (Values::Time(a, at), Values::Time(b, bt)) => {
                a.extend_from_slice(&b);
                at.append(bt);
            }
            _ => {}
        }
        self.len += other.len;
    }

    pub fn get(&self, r: usize) -> CellRef<'_> {
        if self.is_missing(r) {
            return CellRef::Missing;
        }
        match &self.values {
            Values::Text(t) => CellRef::Text(t.get(r)),
            Values::Int(v) => CellRef::Int(v[r]),
            Values::Num(v) => CellRef::Num(v[r]),
            Values::Bool(v) => CellRef::Bool(v[r]),
            Values::Time(v, t) => CellRef::Time(v[r], t.get(r)),
        }
    }

    /// Reserves room for exactly the columns `others` more (same type).
    pub fn reserve_for<'a>(&mut self, others: impl Iterator<Item = &'a ColumnData> + Clone) {
        let rows: usize = others.clone().map(|o| o.len).sum();
        let text: usize = others
            .map(|o| match &o.values {
                Values::Text(t) | Values::Time(_, t) => t.arena.len(),
                _ => 0,
            })
            .sum();
        match &mut self.values {
            Values::Text(t) => {
                t.arena.reserve_exact(text);
                t.ends.reserve_exact(rows);
            }
            Values::Int(v) => v.reserve_exact(rows),
            Values::Num(v) => v.reserve_exact(rows),
            Values::Bool(v) => v.reserve_exact(rows),
            Values::Time(v, t) => {
                v.reserve_exact(rows);
                t.arena.reserve_exact(text);
                t.ends.reserve_exact(rows);
            }
        }
    }

    /// Gives back spare capacity.
    pub fn shrink(&mut self) {
        fn texts(t: &mut Texts) {
            t.arena.shrink_to_fit();
            t.ends.shrink_to_fit();
        }
        self.missing.shrink_to_fit();
        match &mut self.values {
            Values::Text(t) => texts(t),
            Values::Int(v) => v.shrink_to_fit(),
            Values::Num(v) => v.shrink_to_fit(),
            Values::Bool(v) => v.shrink_to_fit(),
            Values::Time(v, t) => {
                v.shrink_to_fit();
                texts(t);
            }
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.missing.capacity() * 8
            + match &self.values {
                Values::Text(t) => t.bytes(),
                Values::Int(v) => v.capacity() * 8,
                Values::Num(v) => v.capacity() * 8,
                Values::Bool(v) => v.capacity(),
                Values::Time(v, t) => v.capacity() * 8 + t.bytes(),
            }
    }
}
