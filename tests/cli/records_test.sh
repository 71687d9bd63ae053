#!/usr/bin/env bash
# Nothing lost, nothing hung, nothing misleading (issue 37): the built tuner run as a user runs it,
# on tests/data/twice (the issue's host kernel: BLOCK {16, 64, 256, 1024} x OFFSET {0, 1, 2}, every
# configuration correct). One case per call (CTest runs each as cli.records.<case>):
#   concurrent   two `tune` of one spec at once into one --database: each in a work folder of its
#                own (no configuration fails for the other's half-written benchmark.so), every
#                configuration recorded, both headers tuned.
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

"case_$CASE"
if [ $failures != 0 ]; then
  for f in "$WORK"/*/log*.txt; do echo "---- $f"; tail -20 "$f"; done
  echo "$failures failed"; exit 1
fi
echo "all passed"
