//! `rho_read`: selections of a retained result (pointer, container page, UTF-16 text range) and
//! its release. It never invokes the original operation.

use serde::Deserialize;
use serde_json::{json, Value};

use super::core::{lock, parse_args, Adapter};
use super::limits;
use super::refusal::{self, Refusal};
use super::select::{outline, select, Page, Selection, TextRange};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ReadArgs {
    #[serde(rename = "ref")]
    reference: String,
    pointer: Option<String>,
    page: Option<Page>,
    text_range: Option<TextRange>,
    #[serde(default)]
    release: bool,
    max_bytes: Option<u64>,
}

impl Adapter {
    /// `rho_read`.
    pub async fn read(&self, args: Value) -> Result<Value, Refusal> {
        let a: ReadArgs = parse_args(args)?;
        let max = limits::page_bytes(a.max_bytes)?;
        if a.release {
            if a.pointer.is_some() || a.page.is_some() || a.text_range.is_some() {
                return Err(Refusal::invalid(
                    "release",
                    "release takes only ref; read first, then release",
                ));
            }
            let bytes = lock(&self.store.results).release(&a.reference)?;
            return Ok(refusal::ok(
                json!({"released": a.reference, "bytes": bytes}),
            ));
        }
        let value = lock(&self.store.results).load(&a.reference)?;
        let selected = select(
            &value,
            &Selection {
                pointer: a.pointer,
                page: a.page,
                text_range: a.text_range,
            },
        )?;
        let answer = refusal::ok(selected);
        let size = serde_json::to_vec(&answer).map_or(u64::MAX, |b| b.len() as u64);
        if size > max {
            let at = answer["value"].get("value").unwrap_or(&answer["value"]);
            return Err(Refusal::new(
                "limit",
                format!("the selection needs {size} bytes, over maxBytes {max}; select a smaller part, a page or a text range"),
                json!({"limit": "maxBytes", "value": max, "requiredBytes": size, "outline": outline(at)}),
            ));
        }
        Ok(answer)
    }
}
