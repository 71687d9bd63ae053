#!/usr/bin/env bash
# One call on a GPU machine: build, test, measure the copy-bandwidth ceiling, tune the CUDA
# examples for real (configure = tune), build their libraries and demos, check the pinned path
# with the GPU hidden. Logs and outputs go to $OUT (default ./device-out), as one archive plus
# a summary, because the device tool returns at most 8 files.
#   usage: OUT=/some/dir bash tools/device-run.sh [test] [vector_add gemm ...]
#   test: also build everything and run ctest. Tuning budgets and time limits can be passed as
#   VECTOR_ADD_TUNING_BUDGET / _TIME_LIMIT and GEMM_TUNING_BUDGET / _TIME_LIMIT (seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT/logs"
export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc)
run_tests=0
examples=()
for a in "$@"; do if [ "$a" = test ]; then run_tests=1; else examples+=("$a"); fi; done
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUT/logs/summary.txt"; }
step() { local name=$1; shift; log "$name: $*"; "$@" >"$OUT/logs/$name.log" 2>&1; local rc=$?; log "$name: exit $rc"; tail -n 25 "$OUT/logs/$name.log"; return $rc; }

{ date -u; nvidia-smi; nvcc --version; cmake --version | head -1; g++ --version | head -1; } >"$OUT/logs/machine.txt" 2>&1
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
step build cmake -S . -B build-device "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
step build2 cmake --build build-device -j "$jobs" --target adaexplore-tuner
tuner=$PWD/build-device/tuner/adaexplore-tuner
step device "$tuner" device
step copy_bandwidth bash -c "nvcc -O2 -arch=sm_90 bench/copy_bandwidth.cu -o build-device/copy_bandwidth && build-device/copy_bandwidth"

for ex in "${examples[@]}"; do
  bdir=build-$ex
  rm -rf "$bdir"
  up=$(echo "$ex" | tr a-z A-Z)
  knobs=()
  for k in BUDGET TIME_LIMIT; do v="${up}_TUNING_$k"; [ -n "${!v:-}" ] && knobs+=("-D$v=${!v}"); done
  step "$ex-configure" cmake -S "examples/$ex" -B "$bdir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" "${knobs[@]}"
  step "$ex-build" cmake --build "$bdir" -j "$jobs"
  step "$ex-reconfigure" bash -c "time cmake -S examples/$ex -B $bdir"
  demo=$(find "$bdir" -maxdepth 2 -type f -name "${ex}_demo" | head -1)
  [ -n "$demo" ] && step "$ex-demo" "$demo"
  mkdir -p "$OUT/logs/$ex"
  find "$bdir" -path '*adaexplore/include/adaexplore/*.hpp' -exec cp {} "$OUT/logs/$ex/" \;
  find "$bdir" -name 'results.jsonl' -exec cp {} "$OUT/logs/$ex/" \;
  # The pinned path: the GPU hidden, the header just tuned given as the pinned one.
  hdr=$(find "$bdir" -path "*adaexplore/include/adaexplore/$ex.hpp" | head -1)
  if [ -n "$hdr" ]; then
    step "$ex-pinned" bash -c "CUDA_VISIBLE_DEVICES= cmake -S examples/$ex -B $bdir-pinned -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE=$tuner -DADAEXPLORE_PINNED_DIR=$(dirname "$hdr") && cmake --build $bdir-pinned -j $jobs && cmp $hdr \$(find $bdir-pinned -path '*adaexplore/include/adaexplore/$ex.hpp')"
  fi
done
if [ $run_tests = 1 ]; then
  step build-all cmake --build build-device -j "$jobs"
  step ctest ctest --test-dir build-device -j 8 --output-on-failure --timeout 300
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs
cp "$OUT/logs/summary.txt" "$OUT/summary.txt"
log "done"
