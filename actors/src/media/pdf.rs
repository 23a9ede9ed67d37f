//! PDF: each page's MediaBox in points, walking the page tree from the catalog (inherited boxes
//! included), or every `/Type /Page` object when no catalog is readable. `/Rotate` and
//! `/UserUnit` are not applied; compressed object streams are refused as unreadable.

use super::error::MediaError;
use super::pdf_lex::{objects, Obj};
use std::collections::{HashMap, HashSet};

/// Page tree depth (and reference chains) followed at most.
const MAX_DEPTH: usize = 64;

struct Doc {
    objs: HashMap<u32, Obj>,
}

impl Doc {
    fn resolve<'a>(&'a self, mut o: &'a Obj) -> Option<&'a Obj> {
        for _ in 0..MAX_DEPTH {
            match o {
                Obj::Ref(n) => o = self.objs.get(n)?,
                other => return Some(other),
            }
        }
        None
    }

    fn get<'a>(&'a self, dict: &'a Obj, key: &str) -> Option<&'a Obj> {
        self.resolve(dict.get(key)?)
    }

    fn is_type(&self, dict: &Obj, ty: &str) -> bool {
        matches!(self.get(dict, "Type"), Some(Obj::Name(n)) if n == ty)
    }

    fn media_box(&self, dict: &Obj) -> Result<Option<(f64, f64)>, MediaError> {
        let Some(b) = self.get(dict, "MediaBox") else {
            return Ok(None);
        };
        let bad = || MediaError::malformed("pdf", "a MediaBox is not an array of four numbers");
        let Obj::Array(items) = b else {
            return Err(bad());
        };
        let nums: Vec<f64> = items
            .iter()
            .map(|i| match self.resolve(i) {
                Some(Obj::Num(n)) => Ok(*n),
                _ => Err(bad()),
            })
            .collect::<Result<_, _>>()?;
        match nums[..] {
            [x0, y0, x1, y1] => Ok(Some(((x1 - x0).abs(), (y1 - y0).abs()))),
            _ => Err(bad()),
        }
    }

    /// A page's box: its own, else the nearest ancestor's through `/Parent`.
    fn inherited(&self, page: &Obj) -> Result<Option<(f64, f64)>, MediaError> {
        let mut node = page;
        for _ in 0..MAX_DEPTH {
            if let Some(b) = self.media_box(node)? {
                return Ok(Some(b));
            }
            match self.get(node, "Parent") {
                Some(p) => node = p,
                None => return Ok(None),
            }
        }
        Ok(None)
    }

    fn walk(
        &self,
        node: &Obj,
        inherited: Option<(f64, f64)>,
        depth: usize,
        seen: &mut HashSet<*const Obj>,
        out: &mut Vec<(f64, f64)>,
    ) -> Result<(), MediaError> {
        if depth > MAX_DEPTH || !seen.insert(node as *const Obj) {
            return Err(MediaError::malformed(
                "pdf",
                "the page tree loops or is too deep",
            ));
        }
        let here = self.media_box(node)?.or(inherited);
        if self.is_type(node, "Pages") || node.get("Kids").is_some() {
            let Some(Obj::Array(kids)) = self.get(node, "Kids") else {
                return Err(MediaError::malformed(
                    "pdf",
                    "a Pages node has no Kids array",
                ));
            };
            for k in kids {
                let kid = self
                    .resolve(k)
                    .ok_or_else(|| MediaError::malformed("pdf", "a page object is missing"))?;
                self.walk(kid, here, depth + 1, seen, out)?;
            }
            return Ok(());
        }
        out.push(here.ok_or_else(|| MediaError::malformed("pdf", "a page has no MediaBox"))?);
        Ok(())
    }
}

/// `(width, height)` in points of every page, in page order; at least one.
pub fn pages(bytes: &[u8]) -> Result<Vec<(f64, f64)>, MediaError> {
    let (objs, trailers) = objects(bytes);
    let doc = Doc { objs };
    let catalog = trailers
        .iter()
        .rev()
        .find_map(|t| doc.get(t, "Root"))
        .or_else(|| {
            let mut nums: Vec<&u32> = doc.objs.keys().collect();
            nums.sort();
            nums.into_iter()
                .map(|n| &doc.objs[n])
                .find(|o| doc.is_type(o, "Catalog"))
        });
    let mut out = Vec::new();
    if let Some(root) = catalog.and_then(|c| doc.get(c, "Pages")) {
        doc.walk(root, None, 0, &mut HashSet::new(), &mut out)?;
    } else {
        let mut nums: Vec<&u32> = doc.objs.keys().collect();
        nums.sort();
        for n in nums {
            let o = &doc.objs[n];
            if doc.is_type(o, "Page") {
                let b = doc
                    .inherited(o)?
                    .ok_or_else(|| MediaError::malformed("pdf", "a page has no MediaBox"))?;
                out.push(b);
            }
        }
    }
    if out.is_empty() {
        return Err(MediaError::malformed(
            "pdf",
            "no page objects found (compressed object streams are not supported)",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-page PDF: page 1 inherits Letter from /Pages, page 2 is A4 landscape with an offset box.
    const TWO_PAGES: &str = "%PDF-1.4\n%\u{e2}\u{e3}\n\
1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n\
2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>\nendobj\n\
3 0 obj\n<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>\nendobj\n\
4 0 obj\n<</Type/Page/Parent 2 0 R/MediaBox[10 10 851.89 605.28]/Annots[(a \\) paren)]>>\nendobj\n\
5 0 obj\n<< /Length 20 >>\nstream\nBT endobj obj ET x\nendstream\nendobj\n\
trailer\n<< /Size 6 /Root 1 0 R >>\n%%EOF\n";

    #[test]
    fn pages_in_tree_order_with_inherited_boxes() {
        let p = pages(TWO_PAGES.as_bytes()).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0], (612.0, 792.0));
        assert!((p[1].0 - 841.89).abs() < 1e-9 && (p[1].1 - 595.28).abs() < 1e-9);
    }

    #[test]
    fn without_a_trailer_the_catalog_or_page_objects_are_found() {
        let no_trailer = TWO_PAGES.split("trailer").next().unwrap();
        assert_eq!(pages(no_trailer.as_bytes()).unwrap().len(), 2);
        let no_catalog = no_trailer.replace("/Type /Catalog", "/Type /Other");
        let p = pages(no_catalog.as_bytes()).unwrap();
        assert_eq!(p[0], (612.0, 792.0));
        let indirect =
            "%PDF-1.7\n1 0 obj [0 0 200 100] endobj 2 0 obj <</Type /Page /MediaBox 1 0 R>> endobj";
        assert_eq!(pages(indirect.as_bytes()).unwrap(), vec![(200.0, 100.0)]);
    }

    #[test]
    fn every_truncation_and_corruption_is_refused_or_read_without_panicking() {
        let b = TWO_PAGES.as_bytes();
        for end in 0..b.len() {
            let _ = pages(&b[..end]);
        }
        for i in 0..b.len() {
            for c in [b'(', b'<', b'[', b'/', b'%', b'>', b')'] {
                let mut m = b.to_vec();
                m[i] = c;
                let _ = pages(&m);
            }
        }
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(pages(
            b"%PDF-1.5\n1 0 obj <</Type /ObjStm /N 3 /Length 3>> stream\nxyz\nendstream endobj"
        )
        .is_err());
        assert!(pages(b"%PDF-1.4\n1 0 obj <</Type /Page /MediaBox [0 0 1]>> endobj").is_err());
        assert!(pages(b"%PDF-1.4\n1 0 obj <</Type /Page>> endobj").is_err());
        let looped = "%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj 2 0 obj <</Type /Pages /Kids [2 0 R]>> endobj";
        assert!(pages(looped.as_bytes()).is_err());
    }
}
