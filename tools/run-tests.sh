#!/usr/bin/env bash
# Builds AdaExplore and runs every test: installs the build's Debian/Ubuntu packages when they are
# missing and this runs as root (tools/install-deps.sh), configures, builds with all cores, runs CTest.
#
#   tools/run-tests.sh [ctest arguments...]      e.g. tools/run-tests.sh -L api
#
# Environment: ADAEXPLORE_BUILD_DIR (default <repository>/build), ADAEXPLORE_JOBS (default: all
# cores), CMAKE_GENERATOR (default Ninja when ninja is installed).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ADAEXPLORE_BUILD_DIR:-$root/build}
jobs=${ADAEXPLORE_JOBS:-$(nproc 2>/dev/null || echo 2)}
ADAEXPLORE_TEST_DEPS=1 "$root/tools/install-deps.sh"

generator=()
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
# ADAEXPLORE_BUILD_TESTS=ON: the build folder may be the main job's (tools/run-examples.sh), which
# caches it OFF; --no-tests=error: a build without tests fails instead of passing with none run.
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DADAEXPLORE_BUILD_TESTS=ON
cmake --build "$build" --parallel "$jobs"
export CMAKE_BUILD_PARALLEL_LEVEL=$jobs  # the test projects build with as many
ctest --test-dir "$build" --output-on-failure --no-tests=error --parallel "$jobs" "$@"
