//! Plugin-provided servers: `<home>/plugins/<plugin>/mcp.json` (`{"mcpServers": {...}}`)
//! translated into the same config model as `<plugin>/<server>`, with `${PLUGIN_ROOT}` and
//! `${PLUGIN_DATA}` expanded. Discovery creates nothing.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use toml::Value;

use super::model::{is_valid_identity, EntryState, ServerEntry, Source};
use super::parse::parse_entry;

/// Every plugin's servers, sorted by plugin then server name.
pub fn load_plugin_servers(home: &Path) -> Vec<ServerEntry> {
    let Ok(dir) = std::fs::read_dir(home.join("plugins")) else {
        return Vec::new();
    };
    let mut plugins: Vec<(String, PathBuf)> = dir
        .filter_map(Result::ok)
        .filter(|e| e.path().join("mcp.json").is_file())
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    plugins.sort();
    let mut out = Vec::new();
    for (name, root) in plugins {
        let data = home.join("plugin-data").join(&name);
        out.extend(plugin_entries(&name, &root, &data));
    }
    out
}

fn malformed(id: String, plugin: &str, error: String) -> ServerEntry {
    ServerEntry {
        id,
        source: Source::Plugin(plugin.to_owned()),
        state: EntryState::Malformed {
            transport: None,
            error,
        },
    }
}

/// One plugin's entries from its `mcp.json`.
pub fn plugin_entries(plugin: &str, root: &Path, data: &Path) -> Vec<ServerEntry> {
    let file = root.join("mcp.json");
    let parsed: Result<Json, String> = std::fs::read_to_string(&file)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()));
    let servers = match parsed {
        Ok(Json::Object(mut o)) => match o.remove("mcpServers") {
            Some(Json::Object(s)) => s,
            _ => {
                return vec![malformed(
                    format!("{plugin}/mcp.json"),
                    plugin,
                    "mcp.json has no `mcpServers` object".to_owned(),
                )]
            }
        },
        Ok(_) => {
            return vec![malformed(
                format!("{plugin}/mcp.json"),
                plugin,
                "mcp.json is not an object".to_owned(),
            )]
        }
        Err(e) => {
            return vec![malformed(
                format!("{plugin}/mcp.json"),
                plugin,
                format!("cannot read mcp.json: {e}"),
            )]
        }
    };
    let root_s = root.display().to_string();
    let data_s = data.display().to_string();
    let mut out = Vec::new();
    for (server, raw) in servers {
        let id = format!("{plugin}/{server}");
        if !is_valid_identity(plugin) || !is_valid_identity(&server) {
            out.push(malformed(
                id,
                plugin,
                "plugin and server names may contain ASCII letters, digits, `-` and `_`".to_owned(),
            ));
            continue;
        }
        let value = match translate(&raw, &root_s, &data_s) {
            Ok(v) => v,
            Err(e) => {
                out.push(malformed(id, plugin, e));
                continue;
            }
        };
        let mut entry = parse_entry(&id, &value, Source::Plugin(plugin.to_owned()));
        if let EntryState::Valid(cfg) = &mut entry.state {
            if cfg.transport.name() == "stdio" {
                cfg.plugin_data_dir = Some(data.to_owned());
            }
        }
        out.push(entry);
    }
    out
}

fn expand(s: &str, root: &str, data: &str) -> String {
    s.replace("${PLUGIN_ROOT}", root)
        .replace("${PLUGIN_DATA}", data)
}

/// The common `mcpServers` entry shape -> a `[mcp.servers.<id>]` table.
fn translate(raw: &Json, root: &str, data: &str) -> Result<Value, String> {
    let obj = raw.as_object().ok_or("server entry must be an object")?;
    let mut t = toml::Table::new();
    let transport = match obj.get("type").and_then(Json::as_str) {
        Some("stdio") => "stdio".to_owned(),
        Some("http" | "streamable_http" | "streamable-http" | "streamableHttp") => {
            "streamable_http".to_owned()
        }
        Some(other) => other.to_owned(),
        None if obj.contains_key("url") => "streamable_http".to_owned(),
        None => "stdio".to_owned(),
    };
    t.insert("transport".into(), Value::String(transport));
    for (k, v) in obj {
        if k == "type" {
            continue;
        }
        t.insert(
            k.clone(),
            to_toml(v, root, data).ok_or_else(|| format!("key `{k}` holds a null"))?,
        );
    }
    Ok(Value::Table(t))
}

fn to_toml(v: &Json, root: &str, data: &str) -> Option<Value> {
    Some(match v {
        Json::Null => return None,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64()?),
        },
        Json::String(s) => Value::String(expand(s, root, data)),
        Json::Array(a) => Value::Array(
            a.iter()
                .map(|x| to_toml(x, root, data))
                .collect::<Option<_>>()?,
        ),
        Json::Object(o) => Value::Table(
            o.iter()
                .map(|(k, x)| Some((k.clone(), to_toml(x, root, data)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::config::model::TransportConfig;

    #[test]
    fn plugin_servers_translate_and_expand() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("plugins/acme");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("mcp.json"),
            r#"{"mcpServers": {
                "db": {"command": "${PLUGIN_ROOT}/bin/db", "args": ["--data", "${PLUGIN_DATA}"], "env": {"K": "v"}},
                "web": {"type": "http", "url": "https://x.example/mcp"},
                "old": {"type": "sse", "url": "https://x.example/sse"},
                "greedy": {"command": "x", "sampling": "ask"},
                "bad name": {"command": "x"}
            }}"#,
        )
        .unwrap();
        let entries = load_plugin_servers(home.path());
        let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "acme/bad name",
                "acme/db",
                "acme/greedy",
                "acme/old",
                "acme/web"
            ]
        );
        let EntryState::Valid(db) = &entries[1].state else {
            panic!()
        };
        let TransportConfig::Stdio(s) = &db.transport else {
            panic!()
        };
        assert_eq!(s.command, format!("{}/bin/db", root.display()));
        let data = home.path().join("plugin-data/acme");
        assert_eq!(s.args[1], data.display().to_string());
        assert_eq!(db.plugin_data_dir.as_deref(), Some(data.as_path()));
        assert!(!data.exists(), "discovery creates nothing");
        assert!(
            matches!(&entries[4].state, EntryState::Valid(c) if c.transport.name() == "streamable_http")
        );
        assert!(
            matches!(&entries[3].state, EntryState::Malformed { error, .. } if error.contains("sse"))
        );
        assert!(
            matches!(&entries[2].state, EntryState::Malformed { error, .. } if error.contains("cannot opt into sampling"))
        );
        assert!(matches!(&entries[0].state, EntryState::Malformed { .. }));
    }

    #[test]
    fn broken_mcp_json_is_one_malformed_entry() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("plugins/p");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("mcp.json"), "{nope").unwrap();
        let entries = load_plugin_servers(home.path());
        assert_eq!(entries.len(), 1);
        assert!(matches!(entries[0].state, EntryState::Malformed { .. }));
    }
}
