#!/usr/bin/env python3
"""MPI scaling benchmark: one tuning of a host-backend space measured by 1, 2 and 4 MPI ranks
(`adaexplore-tuner tune --mpi`, docs/cluster.md), on this machine's CPU.

The space is tests/data/mpi (12 configurations of a C++ kernel, budget 12: the whole space, each
evaluation a compile of the benchmark and 20 ms of measurement). Every rank gets one compile
worker (--jobs 1), so that 1, 2 and 4 ranks are 1, 2 and 4 compile workers and measuring workers;
the ranks' order of the three settings is rotated per repetition (ABC, BCA, CAB, ...), each
repetition a fresh results file. Reported per setting: the median tuning wall time (the tuner's
"done (...) in X s": from the first compile to the last outcome, without MPI start-up), evaluations
per minute, the speed-up over 1 rank, and how the evaluations spread over the ranks (extra.mpi).

What it can show is bounded by the machine: on 2 cores 4 ranks share 2 cores, so more than 2x is
not to be had here; the point is whether the ranks add throughput up to the cores and how much the
coordination costs. On a GPU cluster each rank brings its own cores and GPU.

Usage:
  python3 bench/mpi_scaling.py --tuner build/tuner/adaexplore-tuner --out docs/results/<date>-cpu-mpi-scaling
Requirements: Python 3.8+, standard library only; OpenMPI's mpirun on PATH.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "mpi"


def run(tuner, ranks, keep):
    """One tuning in a fresh temporary folder; its log and results file are kept in `keep`."""
    work = Path(tempfile.mkdtemp(prefix="adaexplore-mpi-scaling-"))
    for f in DATA.iterdir():
        shutil.copy(f, work)
    cmd = ["mpirun", "--oversubscribe", "-np", str(ranks), str(tuner), "tune", "--spec", "spec.json", "--jobs", "1",
           "--no-report", "--confirm-rounds", "0", "--mpi"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    total = time.monotonic() - t0
    log = p.stdout + p.stderr
    (work / "log.txt").write_text(" ".join(cmd) + "\n" + log)
    if p.returncode != 0:
        raise RuntimeError(f"{work}: exit {p.returncode}\n{log[-2000:]}")
    m = re.search(r"done \([^)]*\), (\d+) evaluations \((\d+) new\) in ([0-9.]+) s", log)
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy(work / "log.txt", keep / "log.txt")
    shutil.copy(work / "units.work" / "results.jsonl", keep / "results.jsonl")
    per_rank = {}
    with open(keep / "results.jsonl") as f:
        for line in f:
            rec = json.loads(line)
            if "status" in rec:
                r = rec.get("extra", {}).get("mpi", {}).get("rank")
                per_rank[r] = per_rank.get(r, 0) + 1
    shutil.rmtree(work)
    return {"ranks": ranks, "evaluations": int(m.group(2)), "wall_s": float(m.group(3)), "mpirun_s": total,
            "per_rank": per_rank}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tuner", required=True)
    ap.add_argument("--out", required=True, help="folder for README.md, rows.jsonl and the runs' logs")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = [int(x) for x in a.ranks.split(",")]
    rows = []
    for rep in range(a.repeats):
        order = settings[rep % len(settings):] + settings[:rep % len(settings)]
        for n in order:
            row = run(Path(a.tuner).resolve(), n, out / "runs" / f"np{n}-rep{rep + 1}")
            row["repeat"] = rep + 1
            rows.append(row)
            print(json.dumps(row), flush=True)
    with open(out / "rows.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    base = statistics.median(r["wall_s"] for r in rows if r["ranks"] == settings[0])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    lines = [
        f"# tune --mpi on the CPU: 1, 2 and 4 ranks ({time.strftime('%Y-%m-%d', time.gmtime())} UTC)",
        "",
        f"- Machine: {platform.node()}, {os.cpu_count()} cores ({platform.processor() or platform.machine()}), no GPU; "
        f"{subprocess.run(['mpirun', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}",
        f"- Commit: {commit} (tree as run)",
        f"- Command: `python3 bench/mpi_scaling.py --tuner {a.tuner} --out {a.out} --ranks {a.ranks} --repeats {a.repeats}`",
        "- Space: tests/data/mpi, 12 configurations, budget 12 (the whole space), host backend, --jobs 1 per rank, "
        "no near-tie rounds; each setting run " + str(a.repeats) + " times, orders rotated; each run's log and results file in runs/, rows in rows.jsonl",
        "",
        "| ranks | median tuning wall (s) | runs (s) | evaluations/min | speed-up over 1 rank | evaluations per rank (median run) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for n in settings:
        mine = sorted((r for r in rows if r["ranks"] == n), key=lambda r: r["wall_s"])
        med = statistics.median(r["wall_s"] for r in mine)
        mid = mine[len(mine) // 2]
        spread = ", ".join(f"rank {k}: {v}" for k, v in sorted(mid["per_rank"].items(), key=lambda kv: (kv[0] is None, kv[0])))
        runs = ", ".join("%.1f" % r["wall_s"] for r in mine)
        lines.append(f"| {n} | {med:.1f} | {runs} | {60 * 12 / med:.1f} | "
                     f"{base / med:.2f}x | {spread} |")
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
