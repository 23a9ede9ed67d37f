#!/usr/bin/env bash
# Adapter benchmark (issue 7): starts a service on temporary folders, creates a project, grants
# it with `rho --grant`, then times `rho_call project.entries` through `rho --mcp FILE` from the
# Python MCP SDK next to a direct HTTP call with the same token (bench/mcp/adapter_bench.py).
#
#   bash bench/mcp/adapter_bench.sh <path-to-rho-binary> [calls]
set -euo pipefail
RHO="$(cd "$(dirname "${1:?usage: adapter_bench.sh <rho-binary> [calls]}")" && pwd)/$(basename "$1")"
CALLS="${2:-500}"
PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
HERE="$(cd "$(dirname "$0")" && pwd)"
TMP="$(mktemp -d)"
mkdir -p "$TMP/root" "$TMP/state"
"$RHO" --root "$TMP/root" --state-dir "$TMP/state" --port 0 > "$TMP/out" 2> "$TMP/err" &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 200); do grep -q "service ready" "$TMP/err" && break; sleep 0.1; done
URL=$(python3 -c "import json;print(json.load(open('$TMP/state/connection.json'))['url'])")
TOKEN=$(python3 -c "import json;print(json.load(open('$TMP/state/connection.json'))['token'])")
curl -s -X POST "$URL/api/v2/project.create" -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' -d '{"name":"bench"}' > "$TMP/project.json"
PROJECT=$(python3 -c "import json;print(json.load(open('$TMP/project.json'))['value']['id'])")
DIR=$(python3 -c "import json;print(json.load(open('$TMP/project.json'))['value']['path'])")
for i in $(seq 20); do echo "row $i" > "$DIR/file$i.txt"; done
FILE=$("$RHO" --grant "$TMP/state/connection.json" --project-id "$PROJECT" --session bench \
  | python3 -c "import json,sys;print(json.load(sys.stdin)['mcp']['args'][1])")
echo "machine: $(nproc) cores, $(uname -srm), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PEERS/venv/bin/python" "$HERE/adapter_bench.py" "$RHO" "$FILE" "$CALLS"
