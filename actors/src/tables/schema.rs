//! Validating a stored table declaration into a typed schema, and typing one cell by its column.

use crate::error::ActorError;
use crate::files::decl::TableDecl;

/// A column type of the table declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    String,
    Integer,
    Number,
    Boolean,
    Date,
    DateTime,
}

impl ColumnType {
    fn parse(name: &str) -> Option<ColumnType> {
        Some(match name {
            "string" => ColumnType::String,
            "integer" => ColumnType::Integer,
            "number" => ColumnType::Number,
            "boolean" => ColumnType::Boolean,
            "date" => ColumnType::Date,
            "datetime" => ColumnType::DateTime,
            _ => return None,
        })
    }

    pub fn numeric(self) -> bool {
        matches!(self, ColumnType::Integer | ColumnType::Number)
    }
}

/// The on-disk encoding of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    JsonRows,
}

/// One typed column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub ty: ColumnType,
    /// Exact texts meaning missing; `None` when the column declares none.
    pub missing: Option<Vec<String>>,
}

/// A validated table declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    pub format: TableFormat,
    pub columns: Vec<Column>,
    /// Index of the key column, and the namespace of its entity keys.
    pub key: Option<(usize, String)>,
}

impl Schema {
    /// Checks a declaration's meaning (Files stored only its shape).
    pub fn from_decl(d: &TableDecl) -> Result<Schema, ActorError> {
        let format = match d.format.as_str() {
            "csv" => TableFormat::Csv,
            "json-rows" => TableFormat::JsonRows,
            _ => return Err(ActorError::invalid("table.format", "csv or json-rows")),
        };
        if d.columns.is_empty() {
            return Err(ActorError::invalid(
                "table.columns",
                "declare at least one column",
            ));
        }
        let mut columns = Vec::with_capacity(d.columns.len());
        for (i, c) in d.columns.iter().enumerate() {
            let bad = |reason: String| ActorError::Invalid {
                field: Some("table.columns".into()),
                index: Some(i as u64),
                reason,
            };
            if c.name.is_empty() || d.columns[..i].iter().any(|o| o.name == c.name) {
                return Err(bad(format!(
                    "column names are non-empty and unique ({:?})",
                    c.name
                )));
            }
            let ty = ColumnType::parse(&c.column_type).ok_or_else(|| {
                bad(format!(
                    "unknown type {:?} (string, integer, number, boolean, date, datetime)",
                    c.column_type
                ))
            })?;
            columns.push(Column {
                name: c.name.clone(),
                ty,
                missing: c.missing.clone(),
            });
        }
        let key = match &d.key {
            None => None,
            Some(k) => {
                let idx = columns
                    .iter()
                    .position(|c| c.name == k.column)
                    .ok_or_else(|| {
                        ActorError::invalid("table.key.column", format!("no column {:?}", k.column))
                    })?;
                if columns[idx].ty != ColumnType::String {
                    return Err(ActorError::invalid(
                        "table.key.column",
                        "the key column must be of type string",
                    ));
                }
                if k.namespace.is_empty() {
                    return Err(ActorError::invalid(
                        "table.key.namespace",
                        "a key namespace is non-empty",
                    ));
                }
                Some((idx, k.namespace.clone()))
            }
        };
        Ok(Schema {
            format,
            columns,
            key,
        })
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// One typed cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Missing,
    Text(Box<str>),
    Int(i64),
    Num(f64),
    Bool(bool),
    /// A datetime: its instant (ns since the epoch, for order) and its text.
    Time(i64, Box<str>),
}

/// Types the text of one CSV cell, or says why it does not fit.
pub fn type_text(col: &Column, text: &str) -> Result<Cell, String> {
    if col
        .missing
        .as_ref()
        .is_some_and(|m| m.iter().any(|t| t == text))
    {
        return Ok(Cell::Missing);
    }
    match col.ty {
        ColumnType::String => Ok(Cell::Text(text.into())),
        ColumnType::Integer => parse_integer(text)
            .map(Cell::Int)
            .ok_or_else(|| format!("{text:?} is not an integer")),
        ColumnType::Number => parse_number(text)
            .map(Cell::Num)
            .ok_or_else(|| format!("{text:?} is not a finite number")),
        ColumnType::Boolean => match text {
            "true" => Ok(Cell::Bool(true)),
            "false" => Ok(Cell::Bool(false)),
            _ => Err(format!("{text:?} is not true or false")),
        },
        ColumnType::Date => {
            if is_date(text) {
                Ok(Cell::Text(text.into()))
            } else {
                Err(format!("{text:?} is not a date (YYYY-MM-DD)"))
            }
        }
        ColumnType::DateTime => datetime_ns(text)
            .map(|ns| Cell::Time(ns, text.into()))
            .ok_or_else(|| format!("{text:?} is not an RFC 3339 datetime")),
    }
}

/// Whether `text` is exactly a `YYYY-MM-DD` calendar date.
pub(super) fn is_date(text: &str) -> bool {
    text.len() == 10 && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

/// The instant (ns since the epoch) of an RFC 3339 datetime.
pub(super) fn datetime_ns(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
}

/// Optional sign, digits without leading zeros, within 64 bits.
pub(super) fn parse_integer(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    let (negative, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    if negative {
        // -2^63 is the one magnitude beyond i64::MAX that fits.
        (v <= 1 << 63).then(|| (v as i64).wrapping_neg())
    } else {
        i64::try_from(v).ok()
    }
}

/// A finite decimal or exponent form (no `inf`, `nan`, hex or blanks).
///
/// A plain decimal of at most 2^53 as an integer of its digits, with at most 22 digits after
/// the point, is that integer divided by a power of ten: both exact in `f64`, so the one
/// division is the correctly rounded value `str::parse` gives. Anything else goes to `parse`.
pub(super) fn parse_number(t: &str) -> Option<f64> {
    const EXACT: u64 = 1 << 53;
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let b = t.as_bytes();
    let negative = b.first() == Some(&b'-');
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int_start = i;
    let mut m: u64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        m = m.wrapping_mul(10).wrapping_add(u64::from(b[i] - b'0'));
        i += 1;
    }
    let mut digits = i - int_start;
    let mut frac = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            m = m.wrapping_mul(10).wrapping_add(u64::from(b[i] - b'0'));
            i += 1;
        }
        frac = i - f;
        digits += frac;
    }
    if digits == 0 {
        return None;
    }
    if i == b.len() && digits <= 19 && m <= EXACT {
        if let Some(p) = POW10.get(frac) {
            let v = m as f64 / p;
            return Some(if negative { -v } else { v });
        }
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        i += 1;
        if i < b.len() && matches!(b[i], b'-' | b'+') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(ty: ColumnType, missing: Option<&[&str]>) -> Column {
        Column {
            name: "c".into(),
            ty,
            missing: missing.map(|m| m.iter().map(|s| s.to_string()).collect()),
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_paths_agree_with_std_parse(
            int in "[+-]?[0-9]{0,21}",
            dec in "[+-]?[0-9]{0,18}(\\.[0-9]{0,24})?",
            n in proptest::num::i64::ANY,
            x in proptest::num::f64::NORMAL,
        ) {
            let digits = int.trim_start_matches(['+', '-']);
            let std_int = (digits.len() < 2 || !digits.starts_with('0'))
                .then(|| int.strip_prefix('+').unwrap_or(&int).parse::<i64>().ok())
                .flatten();
            proptest::prop_assert_eq!(parse_integer(&int), std_int);
            proptest::prop_assert_eq!(parse_integer(&n.to_string()), Some(n));
            let std_num = dec.parse::<f64>().ok().filter(|v| v.is_finite());
            let ours = parse_number(&dec);
            proptest::prop_assert_eq!(ours.map(f64::to_bits), std_num.map(f64::to_bits), "{}", dec);
            proptest::prop_assert_eq!(parse_number(&x.to_string()).map(f64::to_bits), Some(x.to_bits()));
        }
    }

    #[test]
    fn cells_are_typed_exactly_never_coerced() {
        let s = col(ColumnType::String, None);
        assert_eq!(type_text(&s, "001"), Ok(Cell::Text("001".into())));
        assert_eq!(type_text(&s, "NA"), Ok(Cell::Text("NA".into())));
        let s = col(ColumnType::String, Some(&["NA"]));
        assert_eq!(type_text(&s, "NA"), Ok(Cell::Missing));
        let i = col(ColumnType::Integer, None);
        assert_eq!(type_text(&i, "-42"), Ok(Cell::Int(-42)));
        assert_eq!(type_text(&i, "+7"), Ok(Cell::Int(7)));
        assert_eq!(
            type_text(&i, "9223372036854775807"),
            Ok(Cell::Int(i64::MAX))
        );
        for bad in ["001", "", "1.0", "9223372036854775808", "-", "1e3", " 1"] {
            assert!(type_text(&i, bad).is_err(), "{bad:?}");
        }
        let n = col(ColumnType::Number, Some(&["NA", ""]));
        assert_eq!(type_text(&n, ""), Ok(Cell::Missing));
        assert_eq!(type_text(&n, "1.5e-3"), Ok(Cell::Num(0.0015)));
        assert_eq!(type_text(&n, ".5"), Ok(Cell::Num(0.5)));
        for bad in ["inf", "NaN", "1e999", "0x10", "1.", "e5", "1e"] {
            if bad == "1." {
                assert_eq!(type_text(&n, bad), Ok(Cell::Num(1.0)));
                continue;
            }
            assert!(type_text(&n, bad).is_err(), "{bad:?}");
        }
        let b = col(ColumnType::Boolean, None);
        assert!(type_text(&b, "TRUE").is_err());
        let d = col(ColumnType::Date, None);
        assert!(type_text(&d, "2024-02-30").is_err());
        assert!(type_text(&d, "2024-02-29").is_ok());
        let t = col(ColumnType::DateTime, None);
        assert!(matches!(
            type_text(&t, "2024-01-01T00:00:00+01:00"),
            Ok(Cell::Time(..))
        ));
        assert!(type_text(&t, "2024-01-01").is_err());
    }
}
