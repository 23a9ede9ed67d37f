//! Resources for the `@` picker: the listing held per session, and reads that arrive as an
//! attachment per the seed's table (text, one image, other blobs described, several joined).

use rmcp::model::ReadResourceRequestParams;
use tokio_util::sync::CancellationToken;

use crate::client::errors::CallError;
use crate::client::mrtr::with_input_rounds;
use crate::client::render::{cap, decoded_len, human_size};
use crate::client::runtime::McpRuntime;

/// One row of the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceEntry {
    /// Server identity.
    pub server: String,
    /// URI, or URI template (RFC 6570) for templates.
    pub uri: String,
    /// The server's name for it.
    pub name: String,
    /// Templates are inserted as text, never read.
    pub template: bool,
}

/// What a read attaches to the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attachment {
    /// A text attachment (capped by `max_output_bytes`).
    Text(String),
    /// A single image, exactly as the server encoded it.
    Image {
        /// MIME type.
        mime_type: String,
        /// Base64 data.
        data: String,
    },
}

impl McpRuntime {
    /// Resources first, then templates, of every live server.
    pub fn resource_entries(&self) -> Vec<ResourceEntry> {
        let mut out = Vec::new();
        let mut templates = Vec::new();
        for i in 0..self.slots().len() {
            let Some(l) = self.live(i) else { continue };
            let st = l.snapshot();
            out.extend(st.resources.iter().map(|r| ResourceEntry {
                server: l.config.id.clone(),
                uri: r.uri.to_string(),
                name: r.name.to_string(),
                template: false,
            }));
            templates.extend(st.templates.iter().map(|t| ResourceEntry {
                server: l.config.id.clone(),
                uri: t.uri_template.to_string(),
                name: t.name.to_string(),
                template: true,
            }));
        }
        out.extend(templates);
        out
    }

    /// `resources/read`, cancellable (Backspace on the attachment).
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        cancel: CancellationToken,
    ) -> Result<Attachment, CallError> {
        let live = self.server(server).ok_or_else(|| CallError::NotOffered {
            server: server.to_owned(),
            what: format!("resource `{uri}` (server not running)"),
        })?;
        let budget = crate::client::budget::Budget::new(self.options().call_budget);
        let params = ReadResourceRequestParams::new(uri.to_owned());
        let work = with_input_rounds(live, params, None, &budget, &cancel);
        let result = tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(CallError::Cancelled),
            _ = budget.expired() => Err(CallError::Timeout(budget.total())),
            r = work => r,
        }?;
        Ok(attachment(&result, self.max_output_bytes()))
    }
}

/// Maps `resources/read` contents onto one attachment.
pub fn attachment(result: &serde_json::Value, max: usize) -> Attachment {
    let contents: Vec<&serde_json::Value> = result["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    if let [single] = contents.as_slice() {
        let mime = single["mimeType"].as_str().unwrap_or("");
        if let (Some(blob), true) = (single["blob"].as_str(), mime.starts_with("image/")) {
            return Attachment::Image {
                mime_type: mime.to_owned(),
                data: blob.to_owned(),
            };
        }
    }
    let bodies: Vec<String> = contents
        .iter()
        .map(|c| {
            let uri = c["uri"].as_str().unwrap_or("");
            match (c["text"].as_str(), c["blob"].as_str()) {
                (Some(t), _) if contents.len() == 1 => t.to_owned(),
                (Some(t), _) => format!("[resource {uri}]\n{t}"),
                (None, Some(b)) => format!(
                    "[resource {}, {}]",
                    c["mimeType"].as_str().unwrap_or("application/octet-stream"),
                    human_size(decoded_len(b))
                ),
                (None, None) => format!("[resource {uri}: empty]"),
            }
        })
        .collect();
    Attachment::Text(cap(&bodies.join("\n\n"), max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_arrives() {
        let text = json!({"contents": [{"uri": "a://1", "text": "body"}]});
        assert_eq!(attachment(&text, 100), Attachment::Text("body".into()));
        let img = json!({"contents": [{"uri": "a://1", "mimeType": "image/png", "blob": "aGk="}]});
        assert!(matches!(attachment(&img, 100), Attachment::Image { .. }));
        let pdf = json!({"contents": [{"uri": "a://1", "mimeType": "application/pdf", "blob": "aGVsbG8="}]});
        assert_eq!(
            attachment(&pdf, 100),
            Attachment::Text("[resource application/pdf, 5 B]".into())
        );
        let many =
            json!({"contents": [{"uri": "a://1", "text": "x"}, {"uri": "a://2", "text": "y"}]});
        assert_eq!(
            attachment(&many, 100),
            Attachment::Text("[resource a://1]\nx\n\n[resource a://2]\ny".into())
        );
        assert_eq!(
            attachment(&text, 2),
            Attachment::Text("bo[... 2 bytes omitted]".into())
        );
    }
}
