//! The session's fixed MCP tool registry: exported names, allow/deny, and the descriptions
//! the model reads (server identity, title, `Server hint:` lines).

use std::collections::{BTreeMap, BTreeSet};

use rmcp::model::Tool;

use crate::client::naming::{assign_exported, full_name};

/// Where an exported name points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRef {
    /// Index of the server in the runtime.
    pub server: usize,
    /// Server identity.
    pub server_id: String,
    /// The raw tool name on that server.
    pub tool: String,
    /// `mcp__<server>__<tool>` before shortening.
    pub full_name: String,
}

/// Exported name -> tool, fixed when the session starts.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    by_exported: BTreeMap<String, ToolRef>,
    by_full: BTreeMap<String, String>,
}

impl Registry {
    /// Builds the registry from `(server index, server id, permitted raw tool names)`.
    pub fn build<'a>(servers: impl Iterator<Item = (usize, &'a str, Vec<String>)>) -> Self {
        let mut refs = Vec::new();
        for (idx, id, tools) in servers {
            for tool in tools {
                refs.push(ToolRef {
                    server: idx,
                    server_id: id.to_owned(),
                    full_name: full_name(id, &tool),
                    tool,
                });
            }
        }
        let fulls: BTreeSet<String> = refs.iter().map(|r| r.full_name.clone()).collect();
        let names = assign_exported(&fulls);
        let mut reg = Registry::default();
        for r in refs {
            let exported = names[&r.full_name].clone();
            reg.by_full.insert(r.full_name.clone(), exported.clone());
            reg.by_exported.insert(exported, r);
        }
        reg
    }

    /// Looks up an exported name.
    pub fn get(&self, exported: &str) -> Option<&ToolRef> {
        self.by_exported.get(exported)
    }

    /// The exported name of a server's tool, if it is registered.
    pub fn exported_for(&self, server_id: &str, tool: &str) -> Option<&str> {
        self.by_full
            .get(&full_name(server_id, tool))
            .map(String::as_str)
    }

    /// Every registered tool, by exported name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &ToolRef)> {
        self.by_exported.iter()
    }
}

/// The `Server hint:` labels a tool declares (hints never relax a permission).
pub fn hints(tool: &Tool) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(a) = &tool.annotations {
        if a.read_only_hint == Some(true) {
            out.push("readOnly".to_owned());
        }
        if a.destructive_hint == Some(true) {
            out.push("destructive".to_owned());
        }
        if a.open_world_hint == Some(true) {
            out.push("openWorld".to_owned());
        }
    }
    out
}

/// The tool's readable title (`title`, else `annotations.title`).
pub fn title(tool: &Tool) -> Option<String> {
    tool.title
        .clone()
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
}

/// The description the model reads for a tool.
pub fn describe(server_id: &str, tool: &Tool) -> String {
    let mut out = String::new();
    if let Some(t) = title(tool) {
        out.push_str(&t);
        out.push_str("\n\n");
    }
    if let Some(d) = &tool.description {
        out.push_str(d);
        out.push_str("\n\n");
    }
    out.push_str(&format!(
        "(MCP tool `{}` from server `{server_id}`)",
        tool.name
    ));
    for h in hints(tool) {
        let line = match h.as_str() {
            "readOnly" => "Server hint: read-only (does not modify its environment)",
            "destructive" => "Server hint: destructive (may delete or overwrite)",
            _ => "Server hint: open world (interacts with external entities)",
        };
        out.push('\n');
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_maps_both_ways_and_description_carries_server_and_hints() {
        let reg = Registry::build(
            [
                (0, "fs", vec!["read_file".to_owned()]),
                (1, "my-srv", vec!["x".to_owned()]),
            ]
            .into_iter(),
        );
        assert_eq!(
            reg.exported_for("fs", "read_file"),
            Some("mcp__fs__read_file")
        );
        let r = reg.get("mcp___rho_6d792d737276__x").unwrap();
        assert_eq!((r.server, r.tool.as_str()), (1, "x"));

        let tool: Tool = serde_json::from_value(serde_json::json!({
            "name": "read_file", "title": "Read File", "description": "Reads.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }))
        .unwrap();
        let d = describe("fs", &tool);
        assert!(d.starts_with("Read File\n\nReads."));
        assert!(d.contains("server `fs`"));
        assert!(d.contains("Server hint: read-only"));
        assert!(!d.contains("open world"));
    }
}
