#!/usr/bin/env bash
# MCP client benchmark (issue 8): cold `rho mcp list --connect --json` against three stdio
# servers, and the per-call overhead of a trivial tool call through Rho's client next to the
# Python SDK client calling the same server in the same run.
#
#   bash bench/mcp/run.sh <path-to-rho-binary> [calls]
set -euo pipefail
RHO="${1:?usage: run.sh <rho-binary> [calls]}"
CALLS="${2:-500}"
PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
EV="$PEERS/node_modules/.bin/mcp-server-everything"
FS="$PEERS/node_modules/.bin/mcp-server-filesystem"
HERE="$(cd "$(dirname "$0")" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/config.toml" <<TOML
[mcp.servers.one]
transport = "stdio"
command = "$EV"
[mcp.servers.two]
transport = "stdio"
command = "$EV"
[mcp.servers.three]
transport = "stdio"
command = "$FS"
args = ["$TMP"]
TOML

echo "machine: $(nproc) cores, $(uname -srm)"
start=$(date +%s%N)
RHO_HOME="$TMP/home" "$RHO" mcp list --connect --json --config "$TMP/config.toml" > "$TMP/list.json"
end=$(date +%s%N)
echo "{\"bench\": \"cold list --connect --json, 3 stdio servers\", \"ms\": $(( (end - start) / 1000000 ))}"

(cd "$HERE/.." && cargo run --quiet --release --example call_overhead -- "$EV" "$CALLS")
"$PEERS/venv/bin/python" "$HERE/python_client.py" "$EV" "$CALLS"
