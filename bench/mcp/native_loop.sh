#!/usr/bin/env bash
# Rho's own agent (issue 18): the loop's own time per tool round trip (model answer parsed to
# tool result handed back) next to the MCP call itself in the same run, and Rho's own memory per
# open session (MCP server children excluded). Goals: under 1 ms added per round trip, at most
# 20 MB per open conversation.
#
#   bash bench/mcp/native_loop.sh [round-trips] [sessions]
set -euo pipefail
TRIPS="${1:-200}"
SESSIONS="${2:-8}"
PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
EV="$PEERS/node_modules/.bin/mcp-server-everything"
HERE="$(cd "$(dirname "$0")" && pwd)"
[ -x "$EV" ] || { echo "$EV is missing: run bash mcp/tests/setup.sh" >&2; exit 1; }
echo "machine: $(nproc) cores, $(uname -srm)"
(cd "$HERE/../../mcp" && cargo run --quiet --release --example native_loop -- "$EV" "$TRIPS" "$SESSIONS")
