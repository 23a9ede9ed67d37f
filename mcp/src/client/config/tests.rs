//! Tests of config parsing: valid entries, per-entry errors and whole-file errors.

use std::path::Path;

use super::*;

fn parse(text: &str) -> McpConfig {
    parse_config(text, Path::new("t.toml")).expect("parses")
}

fn error_of(cfg: &McpConfig, id: &str) -> String {
    match &cfg.entry(id).expect("entry").state {
        EntryState::Malformed { error, .. } => error.clone(),
        EntryState::Valid(_) => panic!("{id} should be malformed"),
    }
}

#[test]
fn stdio_entry_with_everything() {
    let cfg = parse(
        r#"
[mcp.servers.filesystem]
transport = "stdio"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/work/project"]
cwd = "/work/project"
env = { A = "1" }
env_from_env = { GITHUB_PERSONAL_ACCESS_TOKEN = "GITHUB_TOKEN" }
log_level = "info"
sampling = "ask"
[mcp.servers.filesystem.tools]
allow = ["read_file", "list_directory"]
deny = ["list_directory"]
"#,
    );
    let EntryState::Valid(s) = &cfg.entries[0].state else {
        panic!("valid")
    };
    let TransportConfig::Stdio(st) = &s.transport else {
        panic!("stdio")
    };
    assert_eq!(st.command, "npx");
    assert_eq!(st.args.len(), 3);
    assert_eq!(
        st.env_from_env["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "GITHUB_TOKEN"
    );
    assert_eq!(s.log_level, Some(LogLevel::Info));
    assert_eq!(s.sampling, SamplingPolicy::Ask);
    assert!(s.tools.permits("read_file"));
    assert!(!s.tools.permits("list_directory"), "deny wins");
    assert!(!s.tools.permits("write_file"), "not allowed");
    assert_eq!(cfg.max_output_bytes, DEFAULT_MAX_OUTPUT_BYTES);
}

#[test]
fn http_entry_and_max_output_bytes() {
    let cfg = parse(
        r#"
[mcp]
max_output_bytes = 100
[mcp.servers.remote]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
headers_from_env = { Authorization = "MCP_AUTHORIZATION" }
headers = { X-Tenant = "public-tenant" }
[mcp.servers.remote.oauth]
scopes = ["read"]
"#,
    );
    assert_eq!(cfg.max_output_bytes, 100);
    let EntryState::Valid(s) = &cfg.entries[0].state else {
        panic!("valid")
    };
    let TransportConfig::StreamableHttp(h) = &s.transport else {
        panic!("http")
    };
    assert_eq!(h.headers["X-Tenant"], "public-tenant");
    assert_eq!(
        h.oauth.as_ref().and_then(|o| o.scopes.clone()),
        Some(vec!["read".into()])
    );
}

#[test]
fn bad_entries_disable_only_themselves() {
    let cfg = parse(
        r#"
[mcp.servers.good]
transport = "stdio"
command = "x"
[mcp.servers.sse]
transport = "sse"
url = "http://x"
[mcp.servers.unknown]
transport = "stdio"
command = "x"
colour = "red"
[mcp.servers.wrongtype]
transport = "stdio"
command = "x"
args = "a b"
[mcp.servers.mixed]
transport = "stdio"
command = "x"
url = "http://x"
[mcp.servers.notransport]
command = "x"
[mcp.servers."bad id"]
transport = "stdio"
command = "x"
[mcp.servers.level]
transport = "stdio"
command = "x"
log_level = "loud"
[mcp.servers.off]
transport = "stdio"
command = "x"
enabled = false
"#,
    );
    assert_eq!(
        cfg.enabled().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    assert!(error_of(&cfg, "sse").contains("unsupported transport `sse`"));
    assert!(error_of(&cfg, "unknown").contains("unknown key `colour`"));
    assert!(error_of(&cfg, "wrongtype").contains("`args` must be an array of strings"));
    assert!(error_of(&cfg, "mixed").contains("`url` is not valid for transport `stdio`"));
    assert!(error_of(&cfg, "notransport").contains("missing key `transport`"));
    assert!(error_of(&cfg, "bad id").contains("invalid server identity"));
    assert!(error_of(&cfg, "level").contains("unknown level"));
    assert!(matches!(&cfg.entry("off").unwrap().state, EntryState::Valid(s) if !s.enabled));
}

#[test]
fn whole_file_errors_name_line_and_column() {
    let err = parse_config("a = 1\n[mcp\n", Path::new("t.toml")).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("line 2"), "{msg}");
    assert!(matches!(err, ConfigError::Syntax { line: 2, .. }));
    let err = parse_config("[mcp]\nservers = 3\n", Path::new("t.toml")).unwrap_err();
    assert!(err.to_string().contains("`mcp.servers` must be a table"));
    let err = parse_config("[mcp]\nbogus = 3\n", Path::new("t.toml")).unwrap_err();
    assert!(err.to_string().contains("unknown key `mcp.bogus`"));
}

#[test]
fn no_mcp_table_means_no_servers() {
    let cfg = parse("[other]\nx = 1\n");
    assert!(cfg.entries.is_empty());
    assert_eq!(cfg.enabled().count(), 0);
}

#[test]
fn missing_default_file_is_empty_but_missing_explicit_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("none.toml");
    assert!(load_config_file(&p, false).unwrap().entries.is_empty());
    assert!(matches!(
        load_config_file(&p, true),
        Err(ConfigError::Read { .. })
    ));
}

fn oauth_of(cfg: &McpConfig, id: &str) -> OAuthConfig {
    let EntryState::Valid(s) = &cfg.entry(id).expect("entry").state else {
        panic!("{id} should be valid")
    };
    let TransportConfig::StreamableHttp(h) = &s.transport else {
        panic!("http")
    };
    h.oauth.clone().expect("oauth")
}

#[test]
fn machine_grants_parse_and_name_what_they_lack() {
    let cfg = parse(
        r#"
[mcp.servers.cc]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.cc.oauth]
grant = "client_credentials"
client_id = "svc"
private_key_from_env = "SVC_KEY"

[mcp.servers.ent]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.ent.oauth]
grant = "enterprise"
client_id = "mcp-client"
client_secret_from_env = "MCP_SECRET"
[mcp.servers.ent.oauth.enterprise]
issuer = "https://idp.example"
token_endpoint = "https://idp.example/token"
client_id = "idp-client"
id_token_from_env = "ENTERPRISE_ID_TOKEN"

[mcp.servers.both]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.both.oauth]
grant = "client_credentials"
client_id = "svc"
private_key_from_env = "K"
client_secret_from_env = "S"

[mcp.servers.noid]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.noid.oauth]
grant = "client_credentials"
client_secret_from_env = "S"

[mcp.servers.odd]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.odd.oauth]
grant = "implicit"

[mcp.servers.stray]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.stray.oauth]
private_key_from_env = "K"

[mcp.servers.noidp]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.noidp.oauth]
grant = "enterprise"
client_id = "c"
client_secret_from_env = "S"
[mcp.servers.noidp.oauth.enterprise]
issuer = "https://idp.example"
token_endpoint = "https://idp.example/token"
client_id = "idp-client"
"#,
    );
    let cc = oauth_of(&cfg, "cc");
    assert_eq!(cc.grant, OAuthGrant::ClientCredentials);
    assert_eq!(cc.private_key_from_env.as_deref(), Some("SVC_KEY"));
    let ent = oauth_of(&cfg, "ent");
    assert_eq!(ent.grant, OAuthGrant::Enterprise);
    assert_eq!(
        ent.enterprise
            .as_ref()
            .map(|e| e.id_token_from_env.as_str()),
        Some("ENTERPRISE_ID_TOKEN")
    );
    assert!(error_of(&cfg, "both").contains("exactly one of"));
    assert!(error_of(&cfg, "noid").contains("needs `client_id`"));
    assert!(error_of(&cfg, "odd").contains("`grant` must be"));
    assert!(error_of(&cfg, "stray").contains("need a machine `grant`"));
    assert!(error_of(&cfg, "noidp").contains("id_token_from_env"));
}

#[test]
fn the_workload_identity_grant_needs_its_assertion_and_nothing_else() {
    let cfg = parse(
        r#"
[mcp.servers.wif]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.wif.oauth]
grant = "workload_identity"
client_id = "workload"
assertion_from_env = "WORKLOAD_JWT"

[mcp.servers.bare]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.bare.oauth]
grant = "workload_identity"

[mcp.servers.secret]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.secret.oauth]
grant = "workload_identity"
assertion_from_env = "WORKLOAD_JWT"
client_secret_from_env = "S"

[mcp.servers.stray]
transport = "streamable_http"
url = "https://mcp.example.com/mcp"
[mcp.servers.stray.oauth]
assertion_from_env = "WORKLOAD_JWT"
"#,
    );
    let wif = oauth_of(&cfg, "wif");
    assert_eq!(wif.grant, OAuthGrant::WorkloadIdentity);
    assert_eq!(wif.assertion_from_env.as_deref(), Some("WORKLOAD_JWT"));
    assert!(error_of(&cfg, "bare").contains("needs `assertion_from_env`"));
    assert!(error_of(&cfg, "secret").contains("the workload's JWT alone"));
    assert!(error_of(&cfg, "stray").contains("only it may use it"));
}
