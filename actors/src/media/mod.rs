//! Owner Media: `media.describe`, the format and size of a PNG, JPEG, SVG or PDF read from its bytes.
//!
//! The parsers are pure functions over bytes (no decoding, no image crates): PNG's IHDR, JPEG's
//! SOFn marker (EXIF orientation not applied), SVG's root `width`/`height`/`viewBox`, and each
//! PDF page's MediaBox. Bytes come through Files' read path, so a stale version is refused there.

pub mod contract;
pub mod entry;
pub mod error;
pub mod handlers;
pub mod jpeg;
pub mod pdf;
mod pdf_lex;
pub mod png;
pub mod svg;

use contract::{DescribeReply, PageSize};
pub use error::MediaError;

use crate::owner_table::OwnerSpec;
use crate::owners::Owner;

/// Owner Media in the owner table (stateless).
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Media,
    requires: &[Owner::Files],
    operations: &[contract::OPERATIONS],
    entries: &[entry::ENTRY],
    actions: &[],
    kinds: &[],
    recover: None,
};

/// The format the bytes begin as, if it is one Media describes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(png::SIGNATURE) {
        Some("png")
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        Some("jpeg")
    } else if bytes.starts_with(b"%PDF-") {
        Some("pdf")
    } else if svg::looks_like_svg(bytes) {
        Some("svg")
    } else {
        None
    }
}

/// Describes `bytes`; a declared media format (`media.format`) must match what the bytes are.
pub fn describe(bytes: &[u8], declared: Option<&str>) -> Result<DescribeReply, MediaError> {
    let format = sniff(bytes).ok_or(MediaError::Unsupported)?;
    if let Some(d) = declared {
        let d_norm = if d.eq_ignore_ascii_case("jpg") {
            "jpeg"
        } else {
            d
        };
        if !d_norm.eq_ignore_ascii_case(format) {
            return Err(MediaError::Mismatch {
                declared: d.to_string(),
                found: format,
            });
        }
    }
    let px = |(w, h): (u32, u32)| DescribeReply {
        format: format.into(),
        width: Some(f64::from(w)),
        height: Some(f64::from(h)),
        units: "px".into(),
        pages: None,
        view_box: None,
    };
    Ok(match format {
        "png" => px(png::size(bytes)?),
        "jpeg" => px(jpeg::size(bytes)?),
        "svg" => {
            let s = svg::size(bytes)?;
            DescribeReply {
                format: format.into(),
                width: s.width,
                height: s.height,
                units: "px".into(),
                pages: None,
                view_box: s.view_box,
            }
        }
        _ => {
            let pages = pdf::pages(bytes)?;
            let first = pages[0];
            DescribeReply {
                format: format.into(),
                width: Some(first.0),
                height: Some(first.1),
                units: "pt".into(),
                pages: Some(
                    pages
                        .into_iter()
                        .map(|(width, height)| PageSize { width, height })
                        .collect(),
                ),
                view_box: None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_and_refuses_what_it_does_not_describe() {
        assert_eq!(describe(b"GIF89a....", None), Err(MediaError::Unsupported));
        assert_eq!(describe(b"", None), Err(MediaError::Unsupported));
        let png = png::tests::minimal(3, 2);
        assert_eq!(describe(&png, Some("png")).unwrap().width, Some(3.0));
        assert!(matches!(
            describe(&png, Some("jpeg")),
            Err(MediaError::Mismatch { found: "png", .. })
        ));
    }
}
