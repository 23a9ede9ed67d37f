//! outputSchema contracts against a server that breaks them: an invalid result fails with
//! the JSON pointer, a missing one fails, an error result is not validated.

use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::runtime::{McpRuntime, StartOptions};

use crate::peers::{fixture, python, q};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_schema_contracts_are_enforced_on_non_error_results() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[mcp.servers.old]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("lenient_legacy.py")),
        q(&dir.path().join("events"))
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let bad = rt.call("mcp__old__bad", None, CallContext::default()).await;
    let Err(rho_mcp::call::CallError::Contract(rho_mcp::schema::OutputContractError::Invalid {
        pointer,
        ..
    })) = &bad
    else {
        panic!("{bad:?}")
    };
    assert_eq!(pointer, "/n");
    let bare = rt
        .call("mcp__old__bare", None, CallContext::default())
        .await;
    assert!(
        matches!(
            bare,
            Err(rho_mcp::call::CallError::Contract(
                rho_mcp::schema::OutputContractError::Missing
            ))
        ),
        "{bare:?}"
    );
    let failing = rt
        .call("mcp__old__failing", None, CallContext::default())
        .await
        .unwrap();
    assert!(failing.is_error);
    assert_eq!(failing.text, "it broke");
    rt.shutdown().await;
}
