//! `kernel.place.list` on an ssh place or a serverctl server: one folder's entries in name
//! order, at most `remoteEntries` of them read from at most `remoteListBytes`, the rest counted
//! and the cut marked.

use super::shell::{Shell, MISSING};
use super::ssh::quote;
use super::PlaceError;
use rho_plumbing::child::{self, Cut};
use std::time::Duration;

/// One entry of a listed folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// `file`, `dir`, `link` or `other`.
    pub kind: &'static str,
    pub size: u64,
    /// Modification time, seconds since the epoch.
    pub modified_s: i64,
}

/// A listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The folder as the server resolved it.
    pub path: String,
    pub entries: Vec<Entry>,
    /// Entries in the folder that are not in `entries`.
    pub omitted: u64,
    /// Set when not every entry is listed.
    pub cut: bool,
}

/// The bounds of one listing.
#[derive(Debug, Clone, Copy)]
pub struct ListBounds {
    pub entries: usize,
    pub bytes: u64,
    pub timeout: Duration,
}

fn kind(c: &str) -> &'static str {
    match c {
        "f" => "file",
        "d" => "dir",
        "l" => "link",
        _ => "other",
    }
}

fn parse(out: &[u8], max: usize) -> Result<Listing, PlaceError> {
    let text = String::from_utf8_lossy(out);
    let mut head = text.splitn(3, '\n');
    let (Some(path), Some(count)) = (head.next(), head.next()) else {
        return Err(PlaceError::Remote("the listing did not start".into()));
    };
    let total: u64 = count.trim().parse().unwrap_or(0);
    let body = head.next().unwrap_or_default();
    // Records end in NUL; the last one may be cut by the byte bound.
    let mut records: Vec<&str> = body.split('\0').collect();
    records.pop();
    let entries: Vec<Entry> = records
        .into_iter()
        .filter_map(|r| {
            let mut f = r.splitn(4, '\t');
            let (k, size, mtime, name) = (f.next()?, f.next()?, f.next()?, f.next()?);
            Some(Entry {
                name: name.to_string(),
                kind: kind(k),
                size: size.parse().unwrap_or(0),
                modified_s: mtime.split('.').next()?.parse().unwrap_or(0),
            })
        })
        .take(max)
        .collect();
    let omitted = total.saturating_sub(entries.len() as u64);
    Ok(Listing {
        path: path.trim().to_string(),
        cut: omitted > 0,
        entries,
        omitted,
    })
}

/// Lists `path` (absolute, or relative to the login's folder) on the place. Records are
/// sorted on their fourth field, the name, to the end of the record (a name may hold a tab).
pub fn list(place: &dyn Shell, path: &str, bounds: ListBounds) -> Result<Listing, PlaceError> {
    place.ready()?;
    let script = format!(
        "cd -- {} || exit {MISSING}\npwd\nfind . -mindepth 1 -maxdepth 1 -printf . | wc -c\nfind . -mindepth 1 -maxdepth 1 -printf '%y\\t%s\\t%T@\\t%P\\0' | LC_ALL=C sort -z -t \"$(printf '\\t')\" -k4",
        quote(path)?
    );
    let run = child::run(
        place.script(&script, bounds.timeout),
        bounds.timeout,
        bounds.bytes,
    )
    .map_err(|e| place.spawn_failed(e.to_string()))?;
    match (run.cut, run.exit_code) {
        (Some(Cut::Timeout), _) => Err(PlaceError::Timeout {
            ms: u64::try_from(bounds.timeout.as_millis()).unwrap_or(u64::MAX),
            printed: run.stderr_tail(400),
        }),
        // Cut by the byte bound: what was read is the listing, marked cut.
        (Some(Cut::OutputLimit), _) | (None, Some(0)) => {
            parse(&run.stdout, bounds.entries).map(|mut l| {
                l.cut |= run.cut.is_some();
                l
            })
        }
        (None, Some(MISSING)) => Err(PlaceError::NotFound(format!(
            "no folder {path} on the place"
        ))),
        (None, code) => Err(place.failure(&run.stderr, code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_read_up_to_the_bound_and_the_rest_counted() {
        let out = b"/d\n3\nf\t5\t1.5\ta.csv\0d\t4096\t2.0\tsub\0f\t1\t3.0\tz\0";
        let l = parse(out, 2).unwrap();
        assert_eq!(l.path, "/d");
        assert_eq!(l.entries.len(), 2);
        assert_eq!(
            (l.entries[1].name.as_str(), l.entries[1].kind),
            ("sub", "dir")
        );
        assert_eq!((l.omitted, l.cut), (1, true));
        let cut = parse(b"/d\n3\nf\t5\t1.5\ta.csv\0d\t40", 10).unwrap();
        assert_eq!((cut.entries.len(), cut.omitted), (1, 2));
    }
}
