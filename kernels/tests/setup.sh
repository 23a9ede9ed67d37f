#!/usr/bin/env bash
# Installs, idempotently, what the rho-kernels tests need: R (Rscript) from the distribution's
# packages, with the cairo png() device these tests use. A machine that has Rscript is left as
# it is. The tests FAIL (never skip) when Rscript is missing.
set -euo pipefail

if command -v Rscript >/dev/null 2>&1; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  sudo_cmd=""
  if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    r-base-core r-cran-jsonlite
elif command -v brew >/dev/null 2>&1; then
  brew install r
else
  echo "kernels/tests/setup.sh: install R (Rscript) for the Core Host tests" >&2
  exit 1
fi
Rscript -e 'stopifnot(capabilities("cairo"))'
