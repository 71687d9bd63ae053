#!/usr/bin/env bash
# Regenerates the captured `ptxas -v` reports next to this script from kernels.cu:
#   sm_XX.txt                     every kernel compiles (exit 0)
#   sm_XX_too_much_shared.txt     + tile_transpose<120>: 58080 bytes of static shared memory
#   sm_90_parameter_overflow.txt  + huge_parameter: 36008 bytes of kernel parameters (front end)
#   sm_90_constant_overflow.txt   + read_table: 80000 bytes of __constant__ data
#   sm_90a_advisories.txt         advisories.cu (exit 0): ptxas's C75xx performance advisories
# Each file is nvcc's stdout and stderr together, verbatim (the compile times in it vary from run
# to run; nothing else should). Usage: regenerate.sh [path/to/nvcc]   (default: $NVCC, else nvcc
# from /usr/local/cuda/bin or PATH). The tests read the committed files; no GPU is needed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
nvcc="${1:-${NVCC:-}}"
if [[ -z "$nvcc" ]]; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc; else nvcc=nvcc; fi
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# capture OUTPUT EXPECTED_EXIT ARCH [FLAGS...]: compiles kernels.cu to a cubin, writes the report.
capture() {
  local output="$1" expected="$2" arch="$3"
  shift 3
  local status=0
  (cd "$here" && "$nvcc" -arch="$arch" -cubin -Xptxas -v "$@" kernels.cu -o "$scratch/kernels.cubin") \
    >"$here/$output" 2>&1 || status=$?
  if [[ "$expected" == 0 && "$status" != 0 ]] || [[ "$expected" != 0 && "$status" == 0 ]]; then
    echo "regenerate.sh: $output: nvcc exited with $status, expected $expected" >&2
    cat "$here/$output" >&2
    exit 1
  fi
  echo "$output: nvcc exit status $status"
}

"$nvcc" --version | tail -n 2
for arch in sm_80 sm_90; do
  capture "$arch.txt" 0 "$arch"
  capture "${arch}_too_much_shared.txt" 1 "$arch" -DADAEXPLORE_TILE_OVER_48K
done
capture sm_90_parameter_overflow.txt 1 sm_90 -DADAEXPLORE_PARAMETER_OVERFLOW
capture sm_90_constant_overflow.txt 1 sm_90 -DADAEXPLORE_CONSTANT_OVERFLOW
(cd "$here" && "$nvcc" -arch=sm_90a -cubin -Xptxas -v advisories.cu -o "$scratch/advisories.cubin") \
  >"$here/sm_90a_advisories.txt" 2>&1
echo "sm_90a_advisories.txt: nvcc exit status 0"
