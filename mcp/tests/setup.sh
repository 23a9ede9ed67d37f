#!/usr/bin/env bash
# Installs the real MCP peers the rho-mcp integration tests talk to, idempotently.
#
# Peers go into $RHO_MCP_PEERS (default: $HOME/.cache/rho-test/mcp-peers):
#   $RHO_MCP_PEERS/node_modules/.bin/mcp-server-everything   (@modelcontextprotocol/server-everything)
#   $RHO_MCP_PEERS/node_modules/.bin/mcp-server-filesystem   (@modelcontextprotocol/server-filesystem)
#   $RHO_MCP_PEERS/venv/bin/python                           (PyPI `mcp`, the 2026-07-28 era server)
# The tests read RHO_MCP_PEERS (same default) and FAIL when a peer is missing.
# A second run with everything in place only checks the stamp files and returns.
set -euo pipefail

PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
EVERYTHING_VERSION="2026.8.31"
FILESYSTEM_VERSION="2026.8.31"
PY_MCP_VERSION="2.3.0"

mkdir -p "$PEERS"
NODE_STAMP="$PEERS/.node-$EVERYTHING_VERSION-$FILESYSTEM_VERSION"
if [ ! -f "$NODE_STAMP" ]; then
  npm install --silent --no-audit --no-fund --prefix "$PEERS" \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
    "@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION"
  touch "$NODE_STAMP"
fi

PY_STAMP="$PEERS/.py-mcp-$PY_MCP_VERSION"
if [ ! -f "$PY_STAMP" ]; then
  python3 -m venv "$PEERS/venv"
  "$PEERS/venv/bin/pip" install --quiet "mcp==$PY_MCP_VERSION"
  touch "$PY_STAMP"
fi

echo "rho-mcp test peers ready in $PEERS"
