//! The real Claude Code and Codex for the root crate's tests: where `mcp/tests/setup.sh` installed them, or a `SKIP`
//! that fails under `RHO_REQUIRE_AGENTS` (scripts/test sets it).

use rho_actors::agent::conversation::{Backend, Runtimes};
use rho_mock_model::isolation::installed;

/// The installed runtimes for `backend`, or `None` after printing why `test` is skipped.
pub fn runtimes_or_skip(test: &str, backend: Backend) -> Option<Runtimes> {
    let i = installed();
    let runtimes = Runtimes {
        node: i.node,
        adapters: i.adapters,
        claude: i.claude,
        codex: i.codex,
        env: Vec::new(),
    };
    if let Err(e) = runtimes.check(backend) {
        assert!(
            std::env::var_os("RHO_REQUIRE_AGENTS").is_none(),
            "{e}; run bash mcp/tests/setup.sh"
        );
        eprintln!("SKIP {test}: {e}; run bash mcp/tests/setup.sh");
        return None;
    }
    Some(runtimes)
}
