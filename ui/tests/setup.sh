#!/usr/bin/env bash
# Installs, idempotently, what the browser suites run the app's "copy as" code with: R's readr
# and dplyr from the distribution's packages, and pandas in a venv beside the MCP peers
# ($RHO_MCP_PEERS/venv-pandas). The e2e FAILS (never skips) when either is missing.
set -euo pipefail

if ! Rscript -e 'library(readr); library(dplyr)' >/dev/null 2>&1; then
  sudo_cmd=""
  if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends r-cran-readr r-cran-dplyr >/dev/null \
    || { $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends r-cran-readr r-cran-dplyr >/dev/null; }
fi

PEERS="${RHO_MCP_PEERS:-$HOME/.cache/rho-test/mcp-peers}"
PANDAS_VERSION="3.1.1"
STAMP="$PEERS/.pandas-$PANDAS_VERSION"
if [ ! -f "$STAMP" ]; then
  mkdir -p "$PEERS"
  python3 -m venv "$PEERS/venv-pandas"
  "$PEERS/venv-pandas/bin/pip" install --quiet "pandas==$PANDAS_VERSION"
  touch "$STAMP"
fi
