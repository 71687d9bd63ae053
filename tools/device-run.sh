#!/usr/bin/env bash
# One call on a GPU machine: build, test, measure the copy-bandwidth ceiling, tune the CUDA
# examples for real (configure = tune), build their libraries and demos, check the pinned path
# with the GPU hidden. Logs and outputs go to $OUT (default ./device-out), as one archive plus
# a summary, because the device tool returns at most 8 files.
#   usage: OUT=/some/dir bash tools/device-run.sh [test] [failures] [vector_add gemm ...]
#   test: also build everything and run ctest. Tuning budgets and time limits can be passed as
#   VECTOR_ADD_TUNING_BUDGET / _TIME_LIMIT and GEMM_TUNING_BUDGET / _TIME_LIMIT (seconds).
#   failures: tune bench/failure_space (a CUDA space whose configurations fail for real, see its
#   README.md) exhaustively (strategy random, budget = the space's size), then with the default
#   strategy at budget 60 (FAILURES_BUDGET), each into a fresh results file; results, headers
#   and logs under $OUT/logs/failures/, per-status counts in the summary. About 6 minutes on an
#   H200 (216 configurations, about 1.5 s per run): run it alone in one device call. Time limits
#   (seconds, no new evaluation after): FAILURES_EXHAUSTIVE_TIME_LIMIT (420),
#   FAILURES_TIME_LIMIT (150).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT/logs"
export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc)
run_tests=0
run_failures=0
examples=()
for a in "$@"; do
  case "$a" in
    test) run_tests=1 ;;
    failures) run_failures=1 ;;
    *) examples+=("$a") ;;
  esac
done
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
  find "$bdir" -path '*_adaexplore/database/*' -name '*.jsonl' -exec cp {} "$OUT/logs/$ex/" \;
  # Pin, then the pinned path: `adaexplore-pin` copies the header just tuned to the example's pin
  # location (examples/<ex>/pinned/<ex>.hpp, in this machine's copy of the tree); a fresh tree
  # configured with the GPU hidden must then use it, build, and generate a byte-identical header.
  hdr=$(find "$bdir" -path "*adaexplore/include/adaexplore/$ex.hpp" | head -1)
  if [ -n "$hdr" ]; then
    step "$ex-pin" cmake --build "$bdir" --target adaexplore-pin
    cp "examples/$ex/pinned/$ex.hpp" "$OUT/logs/$ex/pinned-$ex.hpp" 2>/dev/null
    step "$ex-pinned" bash -c "CUDA_VISIBLE_DEVICES= cmake -S examples/$ex -B $bdir-pinned -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE=$tuner && cmake --build $bdir-pinned -j $jobs && cmp examples/$ex/pinned/$ex.hpp \$(find $bdir-pinned -path '*adaexplore/include/adaexplore/$ex.hpp') && cmp $hdr examples/$ex/pinned/$ex.hpp && echo 'pinned header used with the GPU hidden: byte-identical to the tuned one'"
  fi
done
# Per-status counts of a results file (JSON Lines: a header line, then one outcome per line).
status_counts() { grep -o '"status":"[a-z_]*"' "$1" 2>/dev/null | cut -d'"' -f4 | sort | uniq -c | sort -rn; }
evaluations() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }
if [ $run_failures = 1 ]; then
  fspec=bench/failure_space/spec.json
  fdir=$OUT/logs/failures
  mkdir -p "$fdir"
  # No constraints in the spec: the space's size is the product of the value counts.
  fsize=$(python3 -c "import json, math; s = json.load(open('$fspec')); print(math.prod(len(p['values']) for p in s['parameters']))" 2>/dev/null || echo 216)
  step failures-exhaustive "$tuner" tune --spec "$fspec" --strategy random --budget "$fsize" \
    --time-limit "${FAILURES_EXHAUSTIVE_TIME_LIMIT:-420}" --fresh \
    --results "$fdir/exhaustive-random.jsonl" --header "$fdir/exhaustive-random.hpp"
  step failures-default "$tuner" tune --spec "$fspec" --budget "${FAILURES_BUDGET:-60}" \
    --time-limit "${FAILURES_TIME_LIMIT:-150}" --fresh \
    --results "$fdir/default-strategy.jsonl" --header "$fdir/default-strategy.hpp"
  for r in exhaustive-random default-strategy; do
    log "failures $r: $(evaluations "$fdir/$r.jsonl") evaluations (the space has $fsize), by status:"
    status_counts "$fdir/$r.jsonl" | tee -a "$OUT/logs/summary.txt"
  done
fi
if [ $run_tests = 1 ]; then
  step build-all cmake --build build-device -j "$jobs"
  step ctest ctest --test-dir build-device -j 8 --output-on-failure --timeout 300
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs
cp "$OUT/logs/summary.txt" "$OUT/summary.txt"
log "done"
