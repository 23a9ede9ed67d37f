//! `data.plot`'s sampling: the points of two numeric columns of a validated table, by stride.

use super::contract::{PlotReply, Point, Sampling};
use crate::error::ActorError;
use crate::tables::read::Table;

fn numeric_column(t: &Table, field: &str, name: &str) -> Result<usize, ActorError> {
    t.schema
        .column(name)
        .filter(|&c| t.schema.columns[c].ty.numeric())
        .ok_or_else(|| {
            ActorError::invalid(
                field,
                format!("{name:?} is not an integer or number column of the table"),
            )
        })
}

/// The points of columns `x` and `y`: rows missing either dropped, then every
/// `ceil(n / max_points)`-th remaining row in file order.
pub fn plot(t: &Table, x: &str, y: &str, max_points: u64) -> Result<PlotReply, ActorError> {
    let (xc, yc) = (numeric_column(t, "x", x)?, numeric_column(t, "y", y)?);
    let rows: Vec<(usize, f64, f64)> = (0..t.rows)
        .filter_map(|r| Some((r, t.number(xc, r)?, t.number(yc, r)?)))
        .collect();
    let total = rows.len() as u64;
    let step = total.div_ceil(max_points.max(1)).max(1);
    let points: Vec<Point> = rows
        .iter()
        .step_by(step as usize)
        .map(|&(r, x, y)| Point {
            x,
            y,
            key: t.key(r).map(str::to_string),
        })
        .collect();
    Ok(PlotReply {
        sampling: Sampling {
            sampled: step > 1,
            total,
            returned: points.len() as u64,
            method: "stride".into(),
            step,
        },
        points,
        dropped: (t.rows - rows.len()) as u64,
        namespace: t.schema.key.as_ref().map(|(_, ns)| ns.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::decl::{ColumnDecl, KeyDecl, TableDecl};
    use crate::tables::schema::Schema;

    fn table(csv: &str) -> Table {
        let col = |name: &str, ty: &str| ColumnDecl {
            name: name.into(),
            column_type: ty.into(),
            missing: Some(vec!["NA".into()]),
        };
        let decl = TableDecl {
            format: "csv".into(),
            columns: vec![col("id", "string"), col("a", "integer"), col("b", "number")],
            key: Some(KeyDecl {
                column: "id".into(),
                namespace: "n".into(),
            }),
        };
        crate::tables::read::read(&Schema::from_decl(&decl).unwrap(), csv.as_bytes(), 100).unwrap()
    }

    #[test]
    fn drops_missing_and_strides_in_file_order() {
        let t = table("id,a,b\nr1,1,0.5\nr2,NA,1\nr3,3,NA\nr4,4,4e1\nr5,5,5\nr6,6,6\nr7,7,7\n");
        let all = plot(&t, "a", "b", 100).unwrap();
        assert_eq!(
            (all.dropped, all.sampling.total, all.sampling.step),
            (2, 5, 1)
        );
        assert!(!all.sampling.sampled);
        assert_eq!(
            all.points[1],
            Point {
                x: 4.0,
                y: 40.0,
                key: Some("r4".into())
            }
        );
        // 5 plottable rows, at most 2 points: step ceil(5/2) = 3 keeps the 1st and 4th.
        let s = plot(&t, "a", "b", 2).unwrap();
        assert_eq!(
            (s.sampling.step, s.sampling.returned, s.sampling.sampled),
            (3, 2, true)
        );
        let keys: Vec<_> = s.points.iter().map(|p| p.key.clone().unwrap()).collect();
        assert_eq!(keys, ["r1", "r6"]);
        assert_eq!(s.namespace.as_deref(), Some("n"));
    }

    #[test]
    fn only_numeric_columns_plot() {
        let t = table("id,a,b\nr1,1,2\n");
        assert!(
            matches!(plot(&t, "id", "b", 10), Err(ActorError::Invalid { field: Some(f), .. }) if f == "x")
        );
        assert!(
            matches!(plot(&t, "a", "nope", 10), Err(ActorError::Invalid { field: Some(f), .. }) if f == "y")
        );
    }
}
