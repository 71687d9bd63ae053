#!/usr/bin/env bash
# Nothing lost, nothing hung, nothing misleading (issue 37): the built tuner run as a user runs it,
# on tests/data/twice (the issue's host kernel: BLOCK {16, 64, 256, 1024} x OFFSET {0, 1, 2}, every
# configuration correct). One case per call (CTest runs each as cli.records.<case>):
#   concurrent   two `tune` of one spec at once into one --database: each in a work folder of its
#                own (no configuration fails for the other's half-written benchmark.so), every
#                configuration recorded, both headers tuned.
#   latin1       a template whose static_assert gcc echoes with a Latin-1 comment (BLOCK=1024) and a
#                benchmark printing Latin-1 to stderr and failing for OFFSET=2: the tuning completes,
#                the failures recorded with the bytes as \xNN; in the runner and one process per
#                evaluation.
#   failed_retune  a tuned header, then a --retune of a template that no longer compiles: exit 2,
#                the stale kTuned = true header removed (saying so), the earlier results kept;
#                a header AdaExplore did not write is left.
#   write_failure  the near-tie verdict cannot be written (a folder at its path): the tuning says
#                which file and why, still writes its header, exit 0, no temporary left; then a
#                header that cannot be written: exit 5 (the environment) naming it and why, the
#                results kept.
#   cpu_mask     a tuning under `taskset -c 0` (as mpirun --bind-to core binds a rank): warned of the
#                narrow CPU mask with the fix; without the mask, no warning. Skipped on one CPU.
#   broken_setup a template that fails to compile for every configuration (a missing header, each
#                message naming the configuration's own evals/<hash>/ folder): stopped as a broken
#                setup after 6 evaluations, not the whole budget, none of them recorded.
#   broken_reference  a benchmark whose reference is wrong (every configuration that runs disagrees
#                with it in the same way) and defaults that fail to compile for real: stopped after 6.
#   check_jobs   `check` compiles at most the tuning's compile workers at once: --jobs 1 (and the
#                spec's jobs 1) one compile at a time, --jobs 2 both (before 2026-12-05 every compile
#                of a check started at once, two per --arch); counted by a compiler.launcher probe.
# Usage: records_test.sh TUNER DATA WORK CASE
set -uo pipefail
TUNER=$1 DATA=$2 WORK=$3 CASE=$4
WORK="$WORK/$CASE"
rm -rf "$WORK" && mkdir -p "$WORK"
export ADAEXPLORE_CACHE_DIR="$WORK/cache"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# A copy of the kernel in $1.
kernel() { mkdir -p "$1" && cp "$DATA"/spec.json "$DATA"/twice.hpp.in "$DATA"/twice_bench.cpp "$1"/; }
TUNE=(tune --spec spec.json --jobs 1 --no-report)
# The statuses recorded in the results files under $1, counted ("12 ok" lines).
statuses() { cat "$1"/*.jsonl 2>/dev/null | grep -o '"status":"[a-z_]*"' | sort | uniq -c; }
configs() { cat "$1"/*.jsonl 2>/dev/null | grep -o '"config":{[^}]*}' | sort -u | wc -l; }

case_concurrent() {
  local d="$WORK/k"
  kernel "$d"
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header h1.hpp > log1.txt 2>&1; echo $? > rc1) &
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header h2.hpp > log2.txt 2>&1; echo $? > rc2) &
  wait
  [ "$(cat "$d/rc1")" = 0 ] && [ "$(cat "$d/rc2")" = 0 ] && pass "both tunings exit 0" \
    || fail "exit codes $(cat "$d/rc1") $(cat "$d/rc2")"
  grep -h "is in use by another tuning (process [0-9]*); this tuning compiles and runs in .*twice.work/concurrent-1" \
    "$d"/log1.txt "$d"/log2.txt && pass "the second tuning worked in a folder of its own" \
    || fail "no tuning said it worked in twice.work/concurrent-1 (did they run at once?)"
  statuses "$d/db/twice"
  statuses "$d/db/twice" | grep -qv '"status":"\(ok\|slow\)"' && fail "a configuration failed" \
    || pass "no configuration failed"
  grep -q "cannot load\|file too short" "$d"/log1.txt "$d"/log2.txt "$d"/db/twice/*.jsonl \
    && fail "a benchmark module was loaded half-written or removed" || pass "no module was taken from the other tuning"
  [ "$(configs "$d/db/twice")" = 12 ] && pass "all 12 configurations recorded" || fail "$(configs "$d/db/twice") configurations recorded"
  local records; records=$(grep -c '"status"' "$d"/db/twice/*.jsonl)
  echo "records: $records (a configuration both measured at the same moment is kept twice: docs/database.md)"
  for h in h1 h2; do
    grep -q "kTuned = true" "$d/$h.hpp" && ! grep -q "compile_error" "$d/$h.hpp" && pass "$h.hpp tuned, no failure in it" \
      || fail "$h.hpp: $(grep -h 'Defaults\|kTuned' "$d/$h.hpp" 2>/dev/null)"
  done
}

case_latin1() {
  local d="$WORK/k"
  kernel "$d"
  printf '#pragma once\n#include <cstddef>\nstatic_assert(${BLOCK} != 1024, "BLOCK=1024 r\xe9serv\xe9"); // r\xe9serv\xe9 aux essais\n' \
    > "$d/twice.hpp.in"
  tail -n +2 "$DATA/twice.hpp.in" | grep -v pragma >> "$d/twice.hpp.in"
  sed -i 's|^  const std::size_t n = 1 << 14;|  std::fprintf(stderr, "donn\\xe9es charg\\xe9es\\n");\n  const std::size_t n = 1 << 14;|;
          s|ref\[i\] = 2.0f \* x\[i\];|ref[i] = 2.0f * x[i] + (ADAEXPLORE_PARAM_OFFSET == 2 ? 1.0f : 0.0f);|' "$d/twice_bench.cpp"
  grep -q 'xe9es' "$d/twice_bench.cpp" && grep -q 'OFFSET == 2' "$d/twice_bench.cpp" || fail "the benchmark was not edited"
  for mode in runner process; do
    [ $mode = process ] && sed -i 's/"run": {/"run": {"runner": false, /' "$d/spec.json"
    (cd "$d" && "$TUNER" "${TUNE[@]}" --results "results-$mode.jsonl" --header "$mode.hpp" > "log-$mode.txt" 2>&1)
    local rc=$?
    [ $rc = 0 ] && pass "$mode: the tuning completes" || fail "$mode: exit $rc: $(tail -3 "$d/log-$mode.txt")"
    grep -q "type_error\|invalid UTF-8" "$d/log-$mode.txt" && fail "$mode: a JSON error" || pass "$mode: no JSON error"
    local f="$d/results-$mode.jsonl"
    [ "$(grep -c '"status":"compile_error"' "$f")" = 3 ] && grep -q 'r\\\\xe9serv\\\\xe9' "$f" \
      && pass "$mode: the 3 BLOCK=1024 compile errors recorded with the Latin-1 bytes as \\xe9" \
      || fail "$mode: compile errors: $(grep -o '"status":"[a-z_]*"' "$f" | sort | uniq -c)"
    grep -q '"status":"wrong_result"' "$f" && grep -q 'donn\\\\xe9es charg\\\\xe9es' "$f" \
      && pass "$mode: the benchmark's Latin-1 stderr recorded with its wrong_result" || fail "$mode: no Latin-1 stderr in a record"
    grep -q "kTuned = true" "$d/$mode.hpp" && pass "$mode: header tuned" || fail "$mode: no tuned header"
  done
}

# $1: the case's kernel folder; the tuning of its budget 12 must stop as a broken setup after 6.
stopped_after_six() {
  local d=$1
  (cd "$d" && "$TUNER" "${TUNE[@]}" > log.txt 2>&1)
  local rc=$?
  [ $rc = 2 ] && pass "exit 2 (the setup is broken)" || fail "exit $rc"
  grep -q "stopped: $2" "$d/log.txt" && pass "stopped: $2" || fail "not stopped as a broken setup: $(grep -m1 stopped "$d/log.txt")"
  local compiled; compiled=$(ls "$d"/twice.work/evals | wc -l)
  [ "$compiled" -le 7 ] && pass "$compiled configurations evaluated, not 12" || fail "$compiled configurations evaluated"
  [ "$(grep -c '"status"' "$d/twice.work/results.jsonl")" = 0 ] && pass "none of the failures recorded" \
    || fail "$(grep -c '"status"' "$d/twice.work/results.jsonl") failures recorded"
}

case_broken_setup() {
  local d="$WORK/k"
  kernel "$d"
  sed -i 's|^inline void twice|#include "missing_header.hpp"\ninline void twice|' "$d/twice.hpp.in"
  stopped_after_six "$d" "every one of the first 6 configurations failed with compile_error in the same way"
}

case_broken_reference() {
  local d="$WORK/k"
  kernel "$d"
  sed -i 's|^inline void twice|static_assert(!(${BLOCK} == 64 \&\& ${OFFSET} == 0), "the defaults fail");\ninline void twice|' "$d/twice.hpp.in"
  sed -i 's|ref\[i\] = 2.0f \* x\[i\];|ref[i] = 3.0f * x[i];|' "$d/twice_bench.cpp"
  grep -q "3.0f" "$d/twice_bench.cpp" && grep -q "the defaults fail" "$d/twice.hpp.in" || fail "the kernel was not edited"
  stopped_after_six "$d" "5 of the first 6 configurations failed with wrong_result in the same way, and the other (BLOCK=64,OFFSET=0) with compile_error"
}

case_failed_retune() {
  local d="$WORK/k"
  kernel "$d"
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header tuned.hpp > log1.txt 2>&1)
  grep -q "kTuned = true" "$d/tuned.hpp" && pass "the first tuning wrote a tuned header" || fail "no tuned header"
  sed -i 's|^inline void twice|#include "missing_header.hpp"\ninline void twice|' "$d/twice.hpp.in"
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header tuned.hpp --retune > log2.txt 2>&1)
  local rc=$?
  [ $rc = 2 ] && pass "the re-tune fails, exit 2" || fail "re-tune exit $rc"
  [ ! -e "$d/tuned.hpp" ] && pass "the stale tuned header is gone" || fail "tuned.hpp is still there: $(grep kTuned "$d/tuned.hpp")"
  grep -q "removed the header tuned.hpp of an earlier tuning: it does not match the sources this tuning failed on" \
    "$d/log2.txt" && pass "and the tuner says so" || fail "no word of the removed header"
  [ "$(cat "$d"/db/twice/*.jsonl* 2>/dev/null | grep -c '"status":"\(ok\|slow\)"')" = 12 ] \
    && pass "the earlier tuning's 12 results kept in the database" || fail "the earlier results are gone"
  echo "// my own header" > "$d/mine.hpp"
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header mine.hpp > log3.txt 2>&1)
  grep -q "my own header" "$d/mine.hpp" && grep -q "was not written by AdaExplore and is left" "$d/log3.txt" \
    && pass "a header AdaExplore did not write is left, with a warning" || fail "mine.hpp: $(cat "$d/mine.hpp")"
}

case_write_failure() {
  local d="$WORK/k"
  kernel "$d"
  # The key's file is named by the key: a first tuning into another database tells its name.
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database probe --header probe.hpp --budget 1 > log0.txt 2>&1)
  local name; name=$(basename "$(ls "$d"/probe/twice/*.jsonl)")
  mkdir -p "$d/db/twice/$name.confirmation.json" && touch "$d/db/twice/$name.confirmation.json/inside"  # not removable
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header tuned.hpp --confirm-margin 100 > log1.txt 2>&1)
  local rc=$?
  [ $rc = 0 ] && pass "exit 0: the tuning and its results stand" || fail "exit $rc: $(tail -2 "$d/log1.txt")"
  grep -q "warning: the near-tie verdict is not kept: cannot write db/twice/$name.confirmation.json: is a folder" \
    "$d/log1.txt" && pass "the file and the reason named" || fail "no warning naming the verdict's file: $(grep -i verdict "$d/log1.txt")"
  grep -q "kTuned = true" "$d/tuned.hpp" && pass "the header is still written" || fail "no header"
  [ -z "$(find "$d/db" -name '*.tmp-*')" ] && pass "no temporary file left" || fail "temporaries: $(find "$d/db" -name '*.tmp-*')"
  mkdir -p "$d/header-folder.hpp"
  (cd "$d" && "$TUNER" "${TUNE[@]}" --database db --header header-folder.hpp > log2.txt 2>&1)
  rc=$?
  [ $rc = 5 ] && pass "a header that cannot be written: exit 5, the environment" || fail "exit $rc"
  grep -q "no header written (the environment, not the input): cannot write header-folder.hpp: is a folder; give a file name, or move the folder aside; the 12 evaluations are kept in db/twice/$name" \
    "$d/log2.txt" && pass "the header's file and the reason named, the results kept" || fail "$(tail -2 "$d/log2.txt")"
}

case_cpu_mask() {
  [ "$(nproc --all)" -ge 2 ] || { echo "ADAEXPLORE_TEST_SKIPPED: one CPU, no mask is narrower"; exit 0; }
  command -v taskset > /dev/null || { echo "ADAEXPLORE_TEST_SKIPPED: no taskset (util-linux)"; exit 0; }
  local d="$WORK/k"
  kernel "$d"
  (cd "$d" && taskset -c 0 "$TUNER" tune --spec spec.json --no-report --budget 3 > log1.txt 2>&1)
  [ $? = 0 ] && pass "the bound tuning completes" || fail "the bound tuning failed"
  grep -q "warning: this process may run on 1 of the machine's $(nproc --all) CPUs .*compile workers default to 1.*mpirun --bind-to none, srun --cpu-bind=none, or give the task its cores (srun --cpus-per-task=N" \
    "$d/log1.txt" && pass "warned of the narrow CPU mask, with the fix" || fail "no warning of the CPU mask"
  (cd "$d" && "$TUNER" tune --spec spec.json --no-report --budget 3 --fresh > log2.txt 2>&1)
  grep -q "CPU affinity mask" "$d/log2.txt" && fail "warned without a mask" || pass "no warning without a mask"
}

case_check_jobs() {
  command -v flock > /dev/null || { echo "ADAEXPLORE_TEST_SKIPPED: no flock (util-linux)"; exit 0; }
  local d="$WORK/k"
  kernel "$d"
  # compiler.launcher: counts the compiles running at once (peaks: one line per compile started).
  cat > "$d/probe.sh" << 'PROBE'
#!/usr/bin/env bash
d=$(dirname "$0")
exec 9> "$d/probe.lock"
flock 9; n=$(( $(cat "$d/running" 2> /dev/null || echo 0) + 1 )); echo $n > "$d/running"; echo $n >> "$d/peaks"; flock -u 9
sleep 1
"$@" 9>&-; rc=$?
flock 9; echo $(( $(cat "$d/running") - 1 )) > "$d/running"; flock -u 9
exit $rc
PROBE
  chmod +x "$d/probe.sh"
  sed -i "s|\"compiler\": {|\"compiler\": {\"launcher\": [\"$d/probe.sh\"], |" "$d/spec.json"
  grep -q probe.sh "$d/spec.json" || fail "the spec was not edited"
  # $1: a name; the rest: check's extra arguments. Sets $most: the most compiles seen at once.
  local most
  peak() {
    local name=$1; shift
    rm -rf "$d/twice.work" "$d/peaks" "$d/running"
    (cd "$d" && ADAEXPLORE_CACHE_DIR="$WORK/cache-$name" "$TUNER" check --spec spec.json --config BLOCK=16,OFFSET=1 "$@" \
      > "log-$name.txt" 2>&1) || fail "$name: check exit $?: $(tail -3 "$d/log-$name.txt")"
    local started; started=$(cat "$d/peaks" 2> /dev/null | wc -l)
    [ "$started" = 2 ] || fail "$name: $started compiles, not 2 (the defaults and --config)"
    most=$(sort -n "$d/peaks" 2> /dev/null | tail -1)
  }
  local one two spec_one
  peak jobs1 --jobs 1; one=$most
  [ "$one" = 1 ] && pass "--jobs 1: one compile at a time" || fail "--jobs 1: $one compiles at once"
  grep -q "check passed: .*2 compiles, 1 at a time (--jobs)" "$d/log-jobs1.txt" && pass "--jobs 1: said" \
    || fail "--jobs 1: the cap is not said: $(tail -1 "$d/log-jobs1.txt")"
  peak jobs2 --jobs 2; two=$most
  [ "$two" = 2 ] && pass "--jobs 2: both at once (the probe sees compiles at once)" || fail "--jobs 2: $two compiles at once"
  grep -q "at a time" "$d/log-jobs2.txt" && fail "--jobs 2: a cap said where none slowed the check" || pass "--jobs 2: no cap said"
  sed -i 's|"seed": 3,|"seed": 3, "jobs": 1,|' "$d/spec.json"
  peak spec1; spec_one=$most
  [ "$spec_one" = 1 ] && pass "the spec's jobs 1 (CMake's JOBS 1): one compile at a time" \
    || fail "the spec's jobs 1: $spec_one compiles at once"
}

"case_$CASE"
if [ $failures != 0 ]; then
  for f in "$WORK"/*/log*.txt; do echo "---- $f"; tail -20 "$f"; done
  echo "$failures failed"; exit 1
fi
echo "all passed"
