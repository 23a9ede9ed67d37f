//! SVG: the root element's absolute `width`/`height` in CSS pixels, else null with the `viewBox` reported.

use super::error::MediaError;

/// What the root `<svg>` element says about its size.
#[derive(Debug, Clone, PartialEq)]
pub struct SvgSize {
    pub width: Option<f64>,
    pub height: Option<f64>,
    /// `[minX, minY, width, height]`.
    pub view_box: Option<[f64; 4]>,
}

fn text(bytes: &[u8]) -> Option<&str> {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(b).ok()
}

/// Whether the bytes are UTF-8 markup whose first element is `<svg`.
pub fn looks_like_svg(bytes: &[u8]) -> bool {
    text(bytes).is_some_and(|t| root_tag(t).is_some())
}

/// The attributes text of the first `<svg` start tag, skipping the prolog (declaration, comments, doctype).
fn root_tag(t: &str) -> Option<&str> {
    let mut rest = t.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            rest = r.split_once("?>")?.1.trim_start();
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.split_once("-->")?.1.trim_start();
        } else if let Some(r) = rest.strip_prefix("<!") {
            rest = r.split_once('>')?.1.trim_start();
        } else {
            let r = rest.strip_prefix("<svg")?;
            let next = r.chars().next()?;
            if !(next.is_whitespace() || next == '>' || next == '/') {
                return None;
            }
            return Some(&r[..r.find('>')?]);
        }
    }
}

/// `name="value"` pairs of a start tag's attribute text.
fn attributes(mut s: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start();
        let Some(eq) = s.find('=') else { return out };
        let name = s[..eq].trim();
        let v = s[eq + 1..].trim_start();
        let Some(q) = v.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            return out;
        };
        let Some(end) = v[1..].find(q) else {
            return out;
        };
        out.push((name, &v[1..1 + end]));
        s = &v[end + 2..];
    }
}

/// An absolute CSS length in px; relative units (`%`, `em`, ...) are `None`.
pub fn absolute_px(v: &str) -> Option<f64> {
    let v = v.trim();
    let split = v
        .find(|c: char| c.is_ascii_alphabetic() || c == '%')
        .unwrap_or(v.len());
    let n: f64 = v[..split].trim().parse().ok()?;
    let per = match &v[split..] {
        "" | "px" => 1.0,
        "in" => 96.0,
        "cm" => 96.0 / 2.54,
        "mm" => 96.0 / 25.4,
        "pt" => 96.0 / 72.0,
        "pc" => 16.0,
        _ => return None,
    };
    (n.is_finite() && n >= 0.0).then_some(n * per)
}

/// Reads the root element's size.
pub fn size(bytes: &[u8]) -> Result<SvgSize, MediaError> {
    let tag = text(bytes)
        .and_then(root_tag)
        .ok_or_else(|| MediaError::malformed("svg", "no root <svg> element"))?;
    let attrs = attributes(tag);
    let get = |n: &str| attrs.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
    let view_box = match get("viewBox") {
        None => None,
        Some(v) => {
            let nums: Vec<f64> = v
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|p| !p.is_empty())
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| MediaError::malformed("svg", "viewBox is not four numbers"))?;
            let vb: [f64; 4] = nums
                .try_into()
                .map_err(|_| MediaError::malformed("svg", "viewBox is not four numbers"))?;
            Some(vb)
        }
    };
    Ok(SvgSize {
        width: get("width").and_then(absolute_px),
        height: get("height").and_then(absolute_px),
        view_box,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_sizes_in_px() {
        let s = size(br#"<?xml version="1.0"?><!-- c --><svg xmlns="http://www.w3.org/2000/svg" width="200" height='1in'><rect/></svg>"#).unwrap();
        assert_eq!(
            (s.width, s.height, s.view_box),
            (Some(200.0), Some(96.0), None)
        );
        assert_eq!(absolute_px("72pt"), Some(96.0));
        assert_eq!(absolute_px("10px"), Some(10.0));
    }

    #[test]
    fn relative_sizes_are_null_with_the_view_box() {
        let s = size(b"<svg width=\"100%\" viewBox=\"0 0 300,150\">").unwrap();
        assert_eq!((s.width, s.height), (None, None));
        assert_eq!(s.view_box, Some([0.0, 0.0, 300.0, 150.0]));
        assert!(size(b"<svg viewBox=\"0 0 1\">").is_err());
        assert!(!looks_like_svg(b"<html><svg></svg></html>"));
        assert!(!looks_like_svg(b"<svgx>"));
    }
}
