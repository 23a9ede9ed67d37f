#!/usr/bin/env bash
# Installs, idempotently, what the rho-kernels tests need: R (Rscript) from the distribution's
# packages, with the cairo png() device these tests use. A machine that has Rscript is left as
# it is. The tests FAIL (never skip) when Rscript is missing. The notebook tests also need
# jsonlite (the R runner's one package) and a Python venv with pandas and matplotlib for the
# table and plot cases: ~/.cache/rho-test/notebook-venv (or $RHO_TEST_PYTHON names a Python).
# The ssh place tests need openssh-server (installed, not started); the Slurm tests a single-node
# Slurm with munge from the distribution's packages (installed, never started as services: the
# tests start their own daemons, docs/remote.md).
set -euo pipefail

notebook_venv() {
  if [ -n "${RHO_TEST_PYTHON:-}" ]; then return 0; fi
  local venv="${HOME}/.cache/rho-test/notebook-venv"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import pandas, matplotlib' 2>/dev/null; then
    return 0
  fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pandas matplotlib
}

# The ssh place tests (tests/it/remote_ssh.rs) start a private sshd on loopback: the server
# package, never its service (the tests run /usr/sbin/sshd with their own config).
ssh_server() {
  if [ -x /usr/sbin/sshd ] || ! command -v apt-get >/dev/null 2>&1; then return 0; fi
  local sudo_cmd=""
  if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    openssh-server openssh-client
}
ssh_server

# The Slurm place tests (tests/it/slurm_*.rs) start slurmctld, slurmd and munged of their own.
slurm() {
  if { [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/bin/sbatch ] \
      && [ -x /usr/sbin/munged ]; } || ! command -v apt-get >/dev/null 2>&1; then return 0; fi
  local sudo_cmd=""
  if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  # policy-rc.d may refuse to start the services: harmless, the tests never use them.
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge || [ -x /usr/sbin/slurmctld ]
}
slurm

if command -v Rscript >/dev/null 2>&1; then
  if ! Rscript -e 'library(jsonlite)' >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=""
    if [ "$(id -u)" != "0" ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends r-cran-jsonlite
  fi
  notebook_venv
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
notebook_venv
