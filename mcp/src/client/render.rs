//! Rendering MCP content for the model: text as text, binaries as short descriptors (the
//! first image within 4 MiB kept as the card's asset), structured content preferred over its
//! text mirror, everything capped by `max_output_bytes`.

use serde_json::Value;

/// The card keeps one image up to this many encoded (base64) bytes.
pub const IMAGE_ASSET_BUDGET: usize = 4 * 1024 * 1024;

/// An image kept for the tool card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageAsset {
    /// MIME type.
    pub mime_type: String,
    /// Base64 exactly as the server encoded it.
    pub data: String,
}

/// A rendered result.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// What the model reads.
    pub text: String,
    /// The first image within budget.
    pub image: Option<ImageAsset>,
}

/// Decoded byte size of base64 text.
pub fn decoded_len(b64: &str) -> usize {
    let trimmed = b64.trim_end_matches('=');
    let clean = trimmed.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    clean * 3 / 4
}

/// Sizes in decimal units with one decimal: `512 B`, `41.2 KB`, `1.1 MB`.
pub fn human_size(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// Caps text at `max` bytes (on a char boundary) with `[... N bytes omitted]`.
pub fn cap(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}[... {} bytes omitted]", &text[..end], text.len() - end)
}

fn descriptor(kind: &str, mime: &str, data: &str) -> String {
    format!("[{kind} {mime}, {}]", human_size(decoded_len(data)))
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Accumulates the first image within budget.
#[derive(Debug, Default)]
pub struct ImageKeeper {
    kept: Option<ImageAsset>,
}

impl ImageKeeper {
    fn offer(&mut self, mime: &str, data: &str) {
        if self.kept.is_none() && data.len() <= IMAGE_ASSET_BUDGET {
            self.kept = Some(ImageAsset {
                mime_type: mime.to_owned(),
                data: data.to_owned(),
            });
        }
    }

    /// The kept image.
    pub fn take(self) -> Option<ImageAsset> {
        self.kept
    }
}

/// Renders one content block (JSON form) for the model.
pub fn render_block(block: &Value, images: &mut ImageKeeper) -> String {
    match str_of(block, "type") {
        "text" => str_of(block, "text").to_owned(),
        "image" => {
            let (mime, data) = (str_of(block, "mimeType"), str_of(block, "data"));
            images.offer(mime, data);
            descriptor("image", mime, data)
        }
        "audio" => descriptor("audio", str_of(block, "mimeType"), str_of(block, "data")),
        "resource" => {
            let r = block.get("resource").unwrap_or(&Value::Null);
            render_resource_contents(r, images)
        }
        "resource_link" => {
            let mut s = format!(
                "[resource_link {}] {}",
                str_of(block, "uri"),
                str_of(block, "name")
            );
            let d = str_of(block, "description");
            if !d.is_empty() {
                s.push_str(": ");
                s.push_str(d);
            }
            s
        }
        other => format!("[unsupported content block `{other}`]"),
    }
}

/// Renders one embedded resource body (`text` or `blob`).
pub fn render_resource_contents(r: &Value, images: &mut ImageKeeper) -> String {
    let uri = str_of(r, "uri");
    if let Some(text) = r.get("text").and_then(Value::as_str) {
        return format!("[resource {uri}]\n{text}");
    }
    let mime = r
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("application/octet-stream");
    let blob = str_of(r, "blob");
    if mime.starts_with("image/") {
        images.offer(mime, blob);
    }
    format!("[resource {uri}] {}", descriptor("resource", mime, blob))
}

/// Replaces binary payloads inside structured content by descriptors (after validation).
pub fn strip_binaries(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mime = map.get("mimeType").and_then(Value::as_str);
            if let (Some(mime), Some(Value::String(data))) = (mime, map.get("data")) {
                let kind = if mime.starts_with("audio/") {
                    "audio"
                } else {
                    "image"
                };
                return Value::String(descriptor(kind, mime, data));
            }
            if let (Some(mime), Some(Value::String(blob))) = (mime, map.get("blob")) {
                return Value::String(descriptor("resource", mime, blob));
            }
            Value::Object(
                map.iter()
                    .map(|(k, x)| (k.clone(), strip_binaries(x)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(strip_binaries).collect()),
        other => other.clone(),
    }
}

/// Renders a tool result: structured content (binaries described) preferred, its text
/// mirror dropped, other blocks rendered, all capped at `max` bytes.
pub fn render_result(content: &[Value], structured: Option<&Value>, max: usize) -> Rendered {
    let mut images = ImageKeeper::default();
    let mut parts = Vec::new();
    if let Some(s) = structured {
        parts.push(strip_binaries(s).to_string());
    }
    for block in content {
        if let (Some(s), "text") = (structured, str_of(block, "type")) {
            let mirrored = serde_json::from_str::<Value>(str_of(block, "text")).ok();
            if mirrored.as_ref() == Some(s) {
                continue;
            }
        }
        parts.push(render_block(block, &mut images));
    }
    Rendered {
        text: cap(&parts.join("\n"), max),
        image: images.take(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_use_decimal_units_with_one_decimal() {
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(41_234), "41.2 KB");
        assert_eq!(human_size(1_100_000), "1.1 MB");
        assert_eq!(decoded_len("aGVsbG8="), 5);
    }

    #[test]
    fn blocks_render_per_the_table() {
        let content = vec![
            json!({"type": "text", "text": "hello"}),
            json!({"type": "image", "mimeType": "image/png", "data": "aGVsbG8="}),
            json!({"type": "image", "mimeType": "image/gif", "data": "aGk="}),
            json!({"type": "audio", "mimeType": "audio/wav", "data": "aGVsbG8="}),
            json!({"type": "resource", "resource": {"uri": "x://t", "text": "body"}}),
            json!({"type": "resource", "resource": {"uri": "x://b", "mimeType": "application/pdf", "blob": "aGVsbG8="}}),
            json!({"type": "resource_link", "uri": "x://l", "name": "L", "description": "a link"}),
        ];
        let r = render_result(&content, None, 10_000);
        assert_eq!(
            r.text,
            "hello\n[image image/png, 5 B]\n[image image/gif, 2 B]\n[audio audio/wav, 5 B]\n[resource x://t]\nbody\n[resource x://b] [resource application/pdf, 5 B]\n[resource_link x://l] L: a link"
        );
        assert_eq!(r.image.unwrap().mime_type, "image/png", "first image kept");
    }

    #[test]
    fn oversized_first_image_is_described_not_kept() {
        let big = "A".repeat(IMAGE_ASSET_BUDGET + 4);
        let content = vec![
            json!({"type": "image", "mimeType": "image/png", "data": big}),
            json!({"type": "image", "mimeType": "image/jpeg", "data": "aGk="}),
        ];
        let r = render_result(&content, None, 10_000);
        assert_eq!(r.image.unwrap().mime_type, "image/jpeg");
        assert!(r.text.starts_with("[image image/png, 3.1 MB]"));
    }

    #[test]
    fn structured_content_preferred_and_mirror_dropped() {
        let s = json!({"a": 1, "pic": {"mimeType": "image/png", "data": "aGVsbG8="}});
        let content = vec![
            json!({"type": "text", "text": s.to_string()}),
            json!({"type": "text", "text": "extra"}),
        ];
        let r = render_result(&content, Some(&s), 10_000);
        assert_eq!(
            r.text,
            "{\"a\":1,\"pic\":\"[image image/png, 5 B]\"}\nextra"
        );
    }

    #[test]
    fn output_is_capped_with_a_marker() {
        let content = vec![json!({"type": "text", "text": "é".repeat(10)})];
        let r = render_result(&content, None, 5);
        assert_eq!(r.text, "éé[... 16 bytes omitted]");
    }
}
