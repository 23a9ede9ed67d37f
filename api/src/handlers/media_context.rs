//! A media rectangle context: the media's facts are read from the exact version's bytes, then page, units and bounds are checked.

use super::data::resource_id;
use super::services::Services;
use crate::envelope::ApiError;
use crate::ops::Ctx;
use rho_actors::contexts::contract::MediaSpec;
use rho_actors::contexts::Frozen;

fn bad(reason: impl Into<String>) -> ApiError {
    ApiError::invalid(Some("media"), reason)
}

/// Validates `spec` against the media's facts and freezes it.
pub(super) async fn freeze(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
    spec: &MediaSpec,
) -> Result<Frozen, ApiError> {
    let id = resource_id(&spec.resource.id)?;
    let facts = super::media::facts(s, ctx, project_id, &spec.resource.id, spec.resource.version)
        .await?
        .map_err(|e| bad(e.to_string()))?;
    let pdf = facts.format == "pdf";
    let want = if pdf { "pt" } else { "px" };
    if spec.units != want {
        return Err(bad(format!(
            "a {} is measured in {want}, not {:?}",
            facts.format, spec.units
        )));
    }
    let (w, h) = match (&facts.pages, pdf) {
        (Some(pages), true) => {
            let page = usize::try_from(spec.page)
                .ok()
                .filter(|p| *p >= 1 && *p <= pages.len())
                .ok_or_else(|| {
                    bad(format!(
                        "page {} does not exist (the PDF has {} pages)",
                        spec.page,
                        pages.len()
                    ))
                })?;
            (Some(pages[page - 1].width), Some(pages[page - 1].height))
        }
        _ => {
            if spec.page != 1 {
                return Err(bad(format!(
                    "a {} has one page; page {} does not exist",
                    facts.format, spec.page
                )));
            }
            (facts.width, facts.height)
        }
    };
    let (Some(w), Some(h)) = (w, h) else {
        return Err(bad("the media has no absolute size (an SVG sized relatively), so a rectangle cannot be checked"));
    };
    let r = &spec.rect;
    let finite = [r.x, r.y, r.width, r.height].iter().all(|v| v.is_finite());
    if !finite || r.x < 0.0 || r.y < 0.0 || r.width <= 0.0 || r.height <= 0.0 {
        return Err(bad(
            "a rectangle has a non-negative origin and a positive size",
        ));
    }
    if r.x + r.width > w + 1e-9 || r.y + r.height > h + 1e-9 {
        return Err(bad(format!(
            "the rectangle leaves the page ({w} x {h} {want})"
        )));
    }
    let milli = |v: f64| (v * 1000.0).round() as i64;
    Ok(Frozen::Media {
        resource_id: id,
        version: spec.resource.version,
        format: facts.format,
        page: spec.page,
        units: spec.units.clone(),
        rect_milli: [milli(r.x), milli(r.y), milli(r.width), milli(r.height)],
    })
}
