#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages AdaExplore builds with, when they are missing and this runs
# as root (otherwise it prints the command to run). The CUDA toolkit itself is not a Debian
# package here: it is expected at /usr/local/cuda (its bin/ is put on PATH by the callers).
set -euo pipefail
# libjs-chart.js: the charts of the tuning report (tuner/src/emit/report.hpp), inlined when it is written;
# optional: the tuner ships Chart.js 3.9.1 (third_party/chartjs/) for machines without it.
packages=(cmake g++ libboost-dev libboost-filesystem-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev
          libjs-chart.js)
# ADAEXPLORE_TEST_DEPS=1 (tools/run-tests.sh): also what only the tests use: chromium renders the
# report headless (tests/cli/report_browser_test.cmake), with fonts for its text; OpenMPI builds
# `tune --mpi` and runs its ranks (tests/cli/mpi_test.sh; a user who wants --mpi installs the same).
if [ "${ADAEXPLORE_TEST_DEPS:-0}" = 1 ]; then
  packages+=(chromium fonts-liberation openmpi-bin libopenmpi-dev)  # fonts: chromium only recommends them
fi
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: installing ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: warning: packages not installed: ${missing[*]} (as root: apt-get install ${missing[*]})" >&2
fi
