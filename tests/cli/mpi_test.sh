#!/usr/bin/env bash
# tune --mpi with real MPI processes (OpenMPI's mpirun on this host) and the host backend, on
# tests/data/mpi (12 configurations, one fastest by 4x, budget 12: the whole space):
#   spread     mpirun -np 3: the evaluations are spread over the ranks, each recorded once, and
#              the header is the one a local tuning of the same seed and budget writes;
#   killed     a worker rank killed (SIGKILL) mid-tuning: the tuning completes, each configuration
#              recorded once, the same header;
#   hung       a worker rank stopped (SIGSTOP): dropped after --mpi-timeout, the same, and mpirun returns;
#   rank0      rank 0 killed (SIGKILL): the workers stop, and the same command run again resumes from
#              the results file: each configuration recorded once, the same header;
#   refused    a rank with another toolchain (another tuning key): the tuning stops naming it;
#   startfail  under --enable-recovery, rank 2's --spec missing on its "node" (its arguments fail):
#              mpirun returns at once (before 2026-12-05 rank 0 hung in MPI_Init), rank 0 refuses the
#              tuning naming rank 2 and its error, nothing evaluated;
#   badspec    rank 1's spec malformed: refused at the start naming rank 1, nothing evaluated;
#   nompi      mpirun -np 2 without --mpi: each rank warned that it tunes on its own, each in a work
#              folder of its own; no configuration fails for the other rank, and the winner is the
#              local tuning's.
# Skipped (ADAEXPLORE_TEST_SKIPPED, with the reason) without OpenMPI's mpirun or a tuner built with MPI.
# Usage: mpi_test.sh TUNER DATA WORK MPI_FOUND
set -uo pipefail
TUNER=$1 DATA=$2 WORK=$3 MPI_FOUND=$4
skip() { echo "ADAEXPLORE_TEST_SKIPPED: $*"; exit 0; }
[ "$MPI_FOUND" = 1 ] || skip "the tuner was built without MPI (CMake found none; apt-get install openmpi-bin libopenmpi-dev)"
command -v mpirun >/dev/null || skip "mpirun is not on PATH (apt-get install openmpi-bin)"
mpirun --version 2>&1 | grep -q "Open MPI" || skip "mpirun is not OpenMPI's (these cases use its options)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI runs as root
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
rm -rf "$WORK" && mkdir -p "$WORK"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# Every process this script started, at the end whatever happens.
cleanup() {
  for f in "$WORK"/*/pids/rank-*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  [ -n "${MPIRUN:-}" ] && kill -9 "$MPIRUN" 2>/dev/null
  true
}
trap cleanup EXIT

# A copy of the kernel (its results and header go beside it); $2: measure-ms of each evaluation.
kernel() {
  mkdir -p "$1" && cp "$DATA"/spec.json "$DATA"/units.hpp.in "$DATA"/units_bench.cpp "$1"/
  sed -i "s/\"--adaexplore-measure-ms\", \"20\"/\"--adaexplore-measure-ms\", \"$2\"/" "$1/spec.json"
}
TUNE=(tune --spec spec.json --jobs 1 --no-report --confirm-rounds 0)
results() { echo "$1/units.work/results.jsonl"; }
outcomes() { local n; n=$(grep -c '"status"' "$(results "$1")" 2>/dev/null); echo "${n:-0}"; }
winner() { grep constexpr "$1/units.work/units.hpp" 2>/dev/null; }
# Each configuration recorded exactly once, 12 of them.
recorded_once() {
  local file; file=$(results "$1")
  local all unique
  all=$(grep -o '"config":{[^}]*}' "$file" | wc -l)
  unique=$(grep -o '"config":{[^}]*}' "$file" | sort -u | wc -l)
  [ "$all" = 12 ] && [ "$unique" = 12 ] || { echo "  $file: $all records, $unique configurations"; return 1; }
}
# Starts mpirun in the background (its pid in MPIRUN), each rank's pid in $1/pids/rank-N.
launch() {
  local dir=$1; shift
  mkdir -p "$dir/pids"
  (cd "$dir" && exec mpirun --oversubscribe "$@" bash -c \
     'echo $$ > pids/rank-${OMPI_COMM_WORLD_RANK}; exec "$0" "$@"' "$TUNER" "${TUNE[@]}" --mpi --mpi-timeout 3 \
     > "$dir/log.txt" 2>&1) &
  MPIRUN=$!
}
# Outcomes recorded after the first $2 that rank $3 measured (extra.mpi.rank).
measured_by_after() { tail -n +$(($2 + 2)) "$(results "$1")" | grep -c "\"mpi\":{[^}]*\"rank\":$3[,}]"; }
# The survivors went on: the other worker measured after the loss, and was not lost itself; the
# lost one had work in flight.
survivors_went_on() {  # dir, outcomes at the loss, lost rank, surviving worker rank
  local n; n=$(measured_by_after "$1" "$2" "$4")
  local name; name=$(basename "$1")
  [ "$n" -ge 1 ] && pass "$name: rank $4 measured $n configurations after rank $3 was lost" \
    || fail "$name: rank $4 measured nothing after the loss"
  grep -q "MPI rank $4 not heard from" "$1/log.txt" && fail "$name: rank $4 was declared lost too" || pass "$name: rank $4 not lost"
  grep -q "MPI rank $3 not heard from .*its [1-9][0-9]* requests\? in flight" "$1/log.txt" \
    && pass "$name: rank $3 had work in flight, moved to other ranks" || fail "$name: rank $3 had nothing in flight"
}
# Case $1 (each measurement 300 ms, the compiles ~2-4 s here) under --enable-recovery: once 3
# outcomes are in, signal $2 goes to rank $3; AT is the outcomes recorded by then.
start_and_signal() {
  kernel "$WORK/$1" 300
  launch "$WORK/$1" --enable-recovery -np 3
  wait_outcomes "$WORK/$1" 120 3 || fail "$1: no 3 outcomes"
  kill "-$2" "$(cat "$WORK/$1/pids/rank-$3")"
  AT=$(outcomes "$WORK/$1")
  echo "$1: SIG$2 to rank $3 at $AT outcomes"
}
# After rank $2 of case $1 was lost at $3 outcomes (rank $4 a survivor): the loss reported, each
# configuration recorded once, the local tuning's header, the survivors went on.
after_loss() {
  local name=$1 lost=$2 at=$3 survivor=$4
  grep -q "MPI rank $lost not heard from" "$WORK/$name/log.txt" && pass "$name: rank $lost reported lost" || fail "$name: no loss reported"
  recorded_once "$WORK/$name" && pass "$name: each configuration recorded once" || fail "$name: records"
  [ "$(winner "$WORK/$name")" = "$reference" ] && pass "$name: same header values" || fail "$name: header: $(winner "$WORK/$name")"
  survivors_went_on "$WORK/$name" "$at" "$lost" "$survivor"
}
# Waits (at most $2 s) until $1 holds $3 outcomes.
wait_outcomes() {
  local t=0
  while [ "$(outcomes "$1")" -lt "$3" ]; do
    sleep 0.2; t=$((t + 1))
    [ $t -gt $(($2 * 5)) ] && return 1
  done
  return 0
}
# Waits (at most $1 s) for mpirun to end; its status in STATUS.
wait_mpirun() {
  local t=0
  while kill -0 "$MPIRUN" 2>/dev/null; do
    sleep 0.2; t=$((t + 1))
    if [ $t -gt $(($1 * 5)) ]; then STATUS=timeout; return 1; fi
  done
  wait "$MPIRUN"; STATUS=$?
}

# local: the reference, without MPI.
kernel "$WORK/local" 20
(cd "$WORK/local" && "$TUNER" "${TUNE[@]}" > log.txt 2>&1) || { fail "local tuning"; cat "$WORK/local/log.txt"; }
reference=$(winner "$WORK/local")
echo "local winner: $reference"
echo "$reference" | grep -q "A = 1;" && echo "$reference" | grep -q "B = 1;" || fail "local: the winner is not A=1 B=1"

# spread
kernel "$WORK/spread" 20
launch "$WORK/spread" -np 3
wait_mpirun 300
[ "$STATUS" = 0 ] && pass "spread: mpirun exit 0" || fail "spread: mpirun status $STATUS"
recorded_once "$WORK/spread" && pass "spread: each configuration recorded once" || fail "spread: records"
ranks=$(grep -o '"mpi":{[^}]*"rank":[0-9]*' "$(results "$WORK/spread")" | grep -o 'rank":[0-9]*' | sort | uniq -c)
echo "$ranks"
[ "$(echo "$ranks" | wc -l)" = 3 ] && pass "spread: evaluations on all 3 ranks" || fail "spread: not on every rank"
grep -q "warning: --mpi: ranks 0, 1, 2 share the CPU of" "$WORK/spread/log.txt" \
  && pass "spread: warned that the ranks share this host's CPU" || fail "spread: no warning of the shared CPU"
[ "$(winner "$WORK/spread")" = "$reference" ] && pass "spread: same header values as the local tuning" || fail "spread: header differs: $(winner "$WORK/spread")"

# killed: rank 2 killed once 3 outcomes are in
start_and_signal killed KILL 2
wait_mpirun 300
echo "mpirun status $STATUS"
[ "$STATUS" != timeout ] && pass "killed: mpirun returned" || fail "killed: mpirun did not return"
after_loss killed 2 "$AT" 1

# hung: rank 1 stopped once 3 outcomes are in
start_and_signal hung STOP 1
# Rank 0 finishes without it; the stopped rank, continued, no longer hears rank 0 and stops.
t=0
while kill -0 "$(cat "$WORK/hung/pids/rank-0")" 2>/dev/null && [ $t -lt 1500 ]; do sleep 0.2; t=$((t + 1)); done
kill -0 "$(cat "$WORK/hung/pids/rank-0")" 2>/dev/null && fail "hung: rank 0 did not finish" || pass "hung: rank 0 finished"
kill -CONT "$(cat "$WORK/hung/pids/rank-1")"
wait_mpirun 60
echo "mpirun status $STATUS"
[ "$STATUS" != timeout ] && pass "hung: mpirun returned once the stopped rank ran again" || fail "hung: mpirun did not return"
grep -q "MPI rank 1 (.*rank 0 not heard from" "$WORK/hung/log.txt" && pass "hung: rank 1 stopped by itself" || fail "hung: rank 1 did not say why it stopped"
after_loss hung 1 "$AT" 2

# rank0: rank 0 killed once 3 outcomes are in; the workers stop; the same command resumes
start_and_signal rank0 KILL 0
before=$AT
wait_mpirun 120
[ "$STATUS" != timeout ] && pass "rank0: the workers stopped, mpirun returned ($STATUS)" || fail "rank0: mpirun did not return"
grep -q "rank 0 not heard from" "$WORK/rank0/log.txt" && pass "rank0: the workers said why they stopped" || fail "rank0: no worker message"
cp "$WORK/rank0/log.txt" "$WORK/rank0/log-killed.txt"
launch "$WORK/rank0" -np 3
wait_mpirun 300
[ "$STATUS" = 0 ] && pass "rank0: the second run exit 0" || fail "rank0: second run status $STATUS"
grep -q "resuming from .*($before evaluations already measured" "$WORK/rank0/log.txt" \
  && pass "rank0: resumed from the $before outcomes" || fail "rank0: no resume of $before outcomes"
recorded_once "$WORK/rank0" && pass "rank0: each configuration recorded once" || fail "rank0: records"
[ "$(winner "$WORK/rank0")" = "$reference" ] && pass "rank0: same header values" || fail "rank0: header: $(winner "$WORK/rank0")"

# refused: rank 2 sees another C++ compiler (another version: another key)
kernel "$WORK/refused" 20
mkdir -p "$WORK/refused/bin"
cat > "$WORK/refused/bin/c++" <<'SH'
#!/bin/sh
if [ "$1" = --version ]; then echo "c++ (Other Compiler) 99.1"; exit 0; fi
exec /usr/bin/c++ "$@"
SH
chmod +x "$WORK/refused/bin/c++"
(cd "$WORK/refused" && timeout 120 mpirun --oversubscribe -np 2 "$TUNER" "${TUNE[@]}" --mpi --mpi-timeout 3 : \
   -np 1 -x PATH="$WORK/refused/bin:$PATH" "$TUNER" "${TUNE[@]}" --mpi --mpi-timeout 3 > log.txt 2>&1)
STATUS=$?
[ "$STATUS" != 0 ] && [ "$STATUS" != 124 ] && pass "refused: mpirun status $STATUS" || fail "refused: status $STATUS"
grep -q "MPI rank 2 (.*differs in compiler" "$WORK/refused/log.txt" && pass "refused: rank 2 named, with what differs" \
  || fail "refused: no message naming rank 2"
[ "$(outcomes "$WORK/refused")" = 0 ] && pass "refused: nothing evaluated" || fail "refused: evaluated"

# startfail: a rank whose arguments fail (its --spec missing) under --enable-recovery
kernel "$WORK/startfail" 20
(cd "$WORK/startfail" && timeout 120 mpirun --oversubscribe --enable-recovery -np 2 "$TUNER" "${TUNE[@]}" --mpi \
   --mpi-timeout 3 : -np 1 "$TUNER" tune --spec missing.json --jobs 1 --no-report --mpi > log.txt 2>&1)
STATUS=$?
[ "$STATUS" != 124 ] && pass "startfail: mpirun returned ($STATUS), no hang" || fail "startfail: mpirun hung"
grep -q "refused at the start, nothing evaluated" "$WORK/startfail/log.txt" \
  && grep -q "MPI rank 2 (.*): --spec: File does not exist: missing.json" "$WORK/startfail/log.txt" \
  && pass "startfail: rank 0 refused the tuning naming rank 2 and its error" || fail "startfail: no refusal naming rank 2"
[ "$(outcomes "$WORK/startfail")" = 0 ] && pass "startfail: nothing evaluated" || fail "startfail: evaluated"

# badspec: rank 1 reads a malformed copy of the spec
kernel "$WORK/badspec" 20
mkdir -p "$WORK/badspec/bad" && cp "$WORK/badspec"/units* "$WORK/badspec/bad/" && echo '{"name": ' > "$WORK/badspec/bad/spec.json"
(cd "$WORK/badspec" && timeout 120 mpirun --oversubscribe -np 1 "$TUNER" "${TUNE[@]}" --mpi --mpi-timeout 3 : \
   -np 1 "$TUNER" tune --spec bad/spec.json --jobs 1 --no-report --confirm-rounds 0 --mpi --mpi-timeout 3 : \
   -np 1 "$TUNER" "${TUNE[@]}" --mpi --mpi-timeout 3 > log.txt 2>&1)
STATUS=$?
[ "$STATUS" != 0 ] && [ "$STATUS" != 124 ] && pass "badspec: mpirun status $STATUS" || fail "badspec: status $STATUS"
grep -q "MPI rank 1 (.*): bad/spec.json: not valid JSON" "$WORK/badspec/log.txt" \
  && pass "badspec: refused at the start naming rank 1 and its error" || fail "badspec: no refusal naming rank 1"
grep -q "not heard from" "$WORK/badspec/log.txt" && fail "badspec: a rank was dropped as lost instead" || pass "badspec: no rank lost"
[ "$(outcomes "$WORK/badspec")" = 0 ] && pass "badspec: nothing evaluated" || fail "badspec: evaluated"

# nompi: two ranks that each tune the whole space (--mpi forgotten) into one results file
kernel "$WORK/nompi" 20
(cd "$WORK/nompi" && timeout 300 mpirun --oversubscribe -np 2 "$TUNER" "${TUNE[@]}" > log.txt 2>&1)
STATUS=$?
[ "$STATUS" = 0 ] && pass "nompi: mpirun exit 0" || fail "nompi: status $STATUS"
[ "$(grep -c "warning: this tuner is rank [01] of 2 (OMPI_COMM_WORLD_SIZE=2) .* without --mpi" "$WORK/nompi/log.txt")" = 2 ] \
  && pass "nompi: both ranks warned that --mpi is missing" || fail "nompi: no warning of the missing --mpi on each rank"
grep -q "units.work is in use by another tuning (process [0-9]*); this tuning compiles and runs in .*units.work/concurrent-1" \
  "$WORK/nompi/log.txt" && pass "nompi: the ranks compiled in folders of their own" || fail "nompi: no folder of its own"
grep -o '"status":"[a-z_]*"' "$(results "$WORK/nompi")" | grep -qv '"status":"\(ok\|slow\)"' \
  && fail "nompi: a configuration failed: $(grep -o '"status":"[a-z_]*"' "$(results "$WORK/nompi")" | sort | uniq -c)" \
  || pass "nompi: no configuration failed"
[ "$(winner "$WORK/nompi")" = "$reference" ] && pass "nompi: same header values as the local tuning" || fail "nompi: header: $(winner "$WORK/nompi")"

for d in spread killed hung rank0 refused startfail badspec nompi; do
  echo "---- $d/log.txt (last 15 lines)"; tail -15 "$WORK/$d/log.txt"
done
[ $failures = 0 ] && echo "all passed" || { echo "$failures failed"; exit 1; }
