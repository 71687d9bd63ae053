#!/usr/bin/env python3
"""bench/size_model.py on a tiny fixture written here: two sizes, two arms, two seeds.

Checks the best known time per size (over every arm and seed, successes only), the evaluations to
within 2 % of it (distinct configurations in record order: a re-measured configuration is not a
second evaluation; a failure never counts as reached), a run that never gets there (">N", infinite
in the median), the medians, the sizes ordered by volume, and that a folder without such files is
an error naming it.

  python3 tests/cli/size_model_test.py <repository> <work folder>
"""
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

REPO, WORK = (Path(a).resolve() for a in sys.argv[1:3])
SCRIPT = REPO / "bench" / "size_model.py"


def write(name, size, records):
    """records: (config value, status, ms)."""
    with open(WORK / name, "w") as f:
        f.write(json.dumps({"format": "adaexplore-results", "key_parts": {"size": size}}) + "\n")
        for x, status, ms in records:
            r = {"config": {"X": x}, "status": status}
            if ms is not None:
                r["objective_ms"] = ms
            f.write(json.dumps(r) + "\n")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    # N=1000 (written first, larger volume): best known 1.0 (winners seed 2).
    write("model-seed1.N1000.jsonl", {"N": 1000}, [(0, "ok", 2.0), (1, "compile_error", None), (2, "ok", 1.019)])
    write("model-seed2.N1000.jsonl", {"N": 1000}, [(0, "ok", 2.0), (3, "ok", 1.01), (2, "ok", 1.5)])
    write("winners-seed1.N1000.jsonl", {"N": 1000}, [(0, "ok", 2.0), (4, "ok", 1.1), (5, "ok", 1.3), (6, "ok", 1.2)])
    write("winners-seed2.N1000.jsonl", {"N": 1000}, [(0, "ok", 2.0), (4, "slow", 1.1), (0, "ok", 1.0), (7, "ok", 1.0)])
    # N=10: best 5.0; a failure with a fast-looking time is not a success.
    write("model-seed1.N10.jsonl", {"N": 10}, [(0, "ok", 5.0)])
    write("winners-seed1.N10.jsonl", {"N": 10}, [(1, "wrong_result", 1.0), (0, "ok", 5.1)])
    (WORK / "notes.txt").write_text("not a results file\n")
    out = subprocess.run([sys.executable, str(SCRIPT), str(WORK), "--json", str(WORK / "s.json"),
                          "--out", str(WORK / "summary")], capture_output=True, text=True)
    problems = []
    if out.returncode != 0:
        problems.append(f"exit {out.returncode}: {out.stderr}")
    else:
        s = json.loads((WORK / "s.json").read_text())
        expect = {"within": 0.02, "sizes": [
            {"size": "N10", "best_ms": 5.0, "arms": {
                "model": {"seeds": {"1": 1}, "evaluations": {"1": 1}, "median": 1},
                "winners": {"seeds": {"1": 2}, "evaluations": {"1": 2}, "median": 2}}},
            {"size": "N1000", "best_ms": 1.0, "arms": {
                "model": {"seeds": {"1": 3, "2": 2}, "evaluations": {"1": 3, "2": 3}, "median": 2.5},
                # seed 1 never within 2 % of 1.0; seed 2: X=0 re-measured at 1.0 is no new
                # evaluation, X=7 (the third) is.
                "winners": {"seeds": {"1": None, "2": 3}, "evaluations": {"1": 4, "2": 3}, "median": None}}}]}
        if s != expect:
            problems.append(f"summary JSON:\n{json.dumps(s, indent=1)}\nexpected:\n{json.dumps(expect, indent=1)}")
        text = (WORK / "summary").read_text()
        for needle in ["| N1000 | 1 | winners | 1: >4, 2: 3 | not reached |", "| N1000 | 1 | model | 1: 3, 2: 2 | 2.5 |",
                       "within 2 % of the best known time"]:
            if needle not in text:
                problems.append(f"the summary lacks {needle!r}:\n{text}")
        if text != out.stdout:
            problems.append("stdout and --out differ")
    empty = WORK / "empty"
    empty.mkdir()
    r = subprocess.run([sys.executable, str(SCRIPT), str(empty)], capture_output=True, text=True)
    if r.returncode != 1 or str(empty) not in r.stderr:
        problems.append(f"an empty folder: exit {r.returncode}, stderr {r.stderr!r}")
    for p in problems:
        print("FAIL:", p)
    print("size_model.py:", "ok" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
