#!/usr/bin/env python3
"""Pipeline-depth benchmark: what the failure learning and the search lose when proposals are made
without the outcomes of the configurations still in flight.

A real tuning compiles configurations in parallel ahead of the GPU (tuner/src/loop/pipeline.cpp): when the strategy
is asked for the next configuration, the ones still compiling, compiled and waiting, or measuring
have no outcome yet, so it cannot learn from them. `adaexplore-tuner replay --in-flight N` replays
a recorded space as such a tuning: N configurations in flight, one more proposed as each is
observed, so every proposal is made without the outcomes of N - 1 others. Without --in-flight the
replay proposes rounds of 8, each with every earlier outcome known (the failure and search
benchmarks).

For each default space of bench/failure_learning.py (its --spaces and --min-failure-share; no
--cache, --results or --strategy-options here), budget, depth and knowledge base on and off, seeds
1..--seeds: wasted evaluations (recorded failures) and the ratio optimum / best found, as in that
benchmark. The same seeds run at every depth, so the depths are compared paired: per seed, the
wasted evaluations summed over the spaces and the ratio averaged over them, minus the same at the
first depth of --depths; mean and standard error of those differences.

Depth 17 is the loop before 2026-12-01 on the H200 machine (16 compile workers and one
measurement), and a compile-bound tuning there before 2026-12-06. The automatic depth of a real
tuning (tuner/src/loop/pipeline.cpp, depth()) is not replayed as such: it starts at 8 blind
proposals and follows the measured compile and measurement times (on the transpose failure space
on the H200 ceil(1.5 x 3.7 s / 1.16 s) + 1 = 6, between the depths 4 and 7 replayed here), at
most ceil(budget / 8) since 2026-12-06: 4, 7 and 13 at the default budgets 25, 50 and 100.

Usage:
  python3 bench/pipeline_depth.py --tuner build/tuner/adaexplore-tuner --out docs/pipeline-depth-benchmark.md
  python3 bench/pipeline_depth.py --tuner ... --work W --report-only   # the report again from W/rows.jsonl
Requirements: Python 3.8+, standard library only; bench/failure_learning.py beside this file.
"""
import argparse
import json
import multiprocessing
import shlex
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import failure_learning as fl  # noqa: E402  (spaces, census, modes and statuses: one definition)

ROUNDS = 0  # the replay's default: rounds of 8


def depth_name(d):
    return "rounds of 8" if d == ROUNDS else str(d)


def run_cell(task):
    """One replay process: every seed of one (space, budget, depth, knowledge base on/off)."""
    tuner, space, budget, depth, mode, seeds, work = task
    trace = Path(work) / "traces" / f"{fl.slug(space['name'])}-b{budget}-d{depth}-kb_{mode}.json"
    trace.parent.mkdir(parents=True, exist_ok=True)
    extra = [] if depth == ROUNDS else ["--in-flight", str(depth)]
    runs, _ = fl.replay(tuner, space, "adaexplore", budget, 1, seeds, fl.MODES[mode], trace, extra)
    rows = []
    for r in runs:
        if depth != ROUNDS and r.get("in_flight") != depth:
            raise RuntimeError(f"{trace}: seed {r['seed']}: in_flight {r.get('in_flight')}, asked {depth}")
        wasted = sum(e["status"] in fl.FAILURES for e in r["evaluations"])
        counted = sum(n for st, n in r["counts"].items() if st in fl.FAILURES)
        if counted != wasted:  # the trace and the summary line must agree
            raise RuntimeError(f"{trace}: seed {r['seed']}: {wasted} failures in the trace, {counted} in counts")
        rows.append({"space": space["name"], "budget": budget, "depth": depth, "mode": mode, "seed": r["seed"],
                     "wasted": wasted, "ratio": r["ratio"]})
    trace.unlink()  # large; the rows keep what the report uses
    return rows


def cell(rows, space, budget, depth, mode):
    return [r for r in rows if r["space"] == space and r["budget"] == budget and r["depth"] == depth and r["mode"] == mode]


def paired(rows, spaces, budget, depth, base, key, combine):
    """Mean and standard error over the seeds of combine(per-space values at depth) minus the same at
    depth `base`, knowledge base on."""
    def per_seed(d):
        by_seed = {}
        for r in rows:
            if r["budget"] == budget and r["depth"] == d and r["mode"] == "on":
                by_seed.setdefault(r["seed"], []).append(r[key])
        return {seed: combine(v) for seed, v in by_seed.items() if len(v) == len(spaces)}
    a, b = per_seed(depth), per_seed(base)
    diffs = [a[seed] - b[seed] for seed in sorted(a) if seed in b]
    if len(diffs) < 2:
        return "-"
    return f"{statistics.mean(diffs):+.{2 if key == 'wasted' else 4}f} ± " \
           f"{statistics.stdev(diffs) / len(diffs) ** 0.5:.{2 if key == 'wasted' else 4}f}"


def report(args, spaces, rows, command, wall, when, build):
    out = ["# Pipeline depth: proposals made without the outcomes still in flight", "",
           "Generated by `bench/pipeline_depth.py` (the method is in its docstring); do not edit by hand. Command:", "",
           "```", command, "```", "",
           *(["The rows are those of an earlier run (`--report-only`): the same command without `--report-only` "
              "made them.", ""] if "--report-only" in command else []),
           f"Replays of {when}; {fl.machine()}; tuner "
           f"{build}. Seeds 1..{args.seeds} per cell; wall time {wall / 60:.1f} min.", "",
           "What this measures: a real tuning compiles configurations ahead of the GPU, and the search proposes each "
           "configuration without the outcomes of those still compiling, waiting or measuring. The more are in flight, "
           "the more proposals are blind: more failures, and a worse best found at a given budget. The fewer, the more "
           "the GPU may wait for compiles. `tune` keeps as many as keep the GPU busy (docs/throughput.md, 'Pipeline "
           "depth'; about 6 on the transpose failure space on the H200, every compile worker on the compile-bound gemm "
           "example before 2026-12-06), and since 2026-12-06 at most ceil(budget / 8) once the first outcome is in: 4 at 25 evaluations, "
           "7 at 50, 13 at 100, all replayed here; what that costs in GPU time is measured on the H200 "
           "(docs/results/2026-12-01-h200-pipeline-depth/), since replays have no time.", "",
           "*Depth*: configurations in flight (`replay --in-flight N`): each proposal is made without the outcomes "
           "of N - 1 others. *rounds of 8*: the replay's default (the failure and search benchmarks): each round of 8 "
           "is proposed with every earlier round's outcomes known (not to be confused with the 8 a real tuning keeps "
           "in flight before its first outcome). 17: the tuning "
           "loop before 2026-12-01 on the 16-core H200 machine (every compile worker busy, one measuring). "
           "*Wasted*: evaluations whose recorded status is a failure, mean over the seeds (median in brackets), "
           "knowledge base on / off. *Reduction*: 1 - mean wasted (on) / mean wasted (off). *Ratio*: optimum / best "
           "found, mean over the seeds, knowledge base on.", ""]
    for s in spaces:
        out += [f"## {s['name']}", "",
                "| budget | depth | wasted, KB on | wasted, KB off | reduction | ratio, KB on | ratio, KB off |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        for b in args.budgets:
            for d in args.depths:
                on, off = cell(rows, s["name"], b, d, "on"), cell(rows, s["name"], b, d, "off")
                won, woff = [r["wasted"] for r in on], [r["wasted"] for r in off]
                mon, moff = statistics.mean(won), statistics.mean(woff)
                red = f"{100 * (1 - mon / moff):.0f}%" if moff > 0 else "-"
                out.append(f"| {b} | {depth_name(d)} | {mon:.1f} ({statistics.median(won):g}) | "
                           f"{moff:.1f} ({statistics.median(woff):g}) | {red} | "
                           f"{statistics.mean(r['ratio'] for r in on):.4f} | {statistics.mean(r['ratio'] for r in off):.4f} |")
        out.append("")
    base = args.depths[0]
    out += ["## All spaces", "", "Mean wasted evaluations per run, summed over the spaces, knowledge base on / off, "
            f"and the mean ratio (knowledge base on) over the spaces. *Paired*: the per-seed difference against depth "
            f"{depth_name(base)} (knowledge base on; wasted summed over the spaces, ratio averaged over them), "
            "mean ± standard error over the seeds.", "",
            f"| budget | depth | wasted, KB on | wasted, KB off | reduction | mean ratio, KB on | wasted, paired vs {depth_name(base)} | ratio, paired vs {depth_name(base)} |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for b in args.budgets:
        for d in args.depths:
            on = sum(statistics.mean(r["wasted"] for r in cell(rows, s["name"], b, d, "on")) for s in spaces)
            off = sum(statistics.mean(r["wasted"] for r in cell(rows, s["name"], b, d, "off")) for s in spaces)
            ratio = statistics.mean(statistics.mean(r["ratio"] for r in cell(rows, s["name"], b, d, "on")) for s in spaces)
            red = f"{100 * (1 - on / off):.0f}%" if off > 0 else "-"
            dw = "-" if d == base else paired(rows, spaces, b, d, base, "wasted", sum)
            dr = "-" if d == base else paired(rows, spaces, b, d, base, "ratio", statistics.mean)
            out.append(f"| {b} | {depth_name(d)} | {on:.1f} | {off:.1f} | {red} | {ratio:.4f} | {dw} | {dr} |")
    return "\n".join(out) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tuner", default=str(fl.REPO / "build/tuner/adaexplore-tuner"), help="adaexplore-tuner executable")
    p.add_argument("--spaces", default=str(fl.REPO.parent / "shared/spaces/kernel_tuner_bruteforce"),
                   help="folder of Kernel Tuner cache files (as bench/failure_learning.py)")
    p.add_argument("--min-failure-share", type=float, default=0.05, help="as bench/failure_learning.py")
    p.add_argument("--budgets", default="25,50,100", help="evaluations per run, comma-separated (default 25,50,100)")
    p.add_argument("--depths", default="0,1,4,7,17",
                   help="configurations in flight, comma-separated; 0 = the replay's rounds of 8 (default 0,1,4,7,17)")
    p.add_argument("--seeds", type=int, default=100, help="seeds 1..N per cell (default 100)")
    p.add_argument("--work", default=str(fl.REPO / "build/pipeline-depth"), help="traces (removed) and rows.jsonl")
    p.add_argument("--out", default=str(fl.REPO / "docs/pipeline-depth-benchmark.md"), help="markdown report")
    p.add_argument("--jobs", type=int, default=2, help="replay processes at once")
    p.add_argument("--report-only", action="store_true",
                   help="no replays: the report again from <work>/rows.jsonl (and the run's date, wall time and "
                        "tuner from <work>/run.json)")
    args = p.parse_args(argv)
    try:
        args.budgets = [int(b) for b in args.budgets.split(",")]
        args.depths = [int(d) for d in args.depths.split(",")]
    except ValueError:
        p.error("--budgets and --depths take comma-separated whole numbers, e.g. 25,50,100")
    if min(args.budgets) < 1 or min(args.depths) < 0 or args.seeds < 1:
        p.error("budgets and seeds must be at least 1, depths at least 0")
    if not Path(args.tuner).is_file():
        p.error(f"--tuner {args.tuner}: no such file; build the tuner first (README)")
    return args


def main(argv):
    args = parse_args(argv)
    command = "python3 bench/pipeline_depth.py " + shlex.join(argv)
    start = time.time()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    spaces = fl.default_spaces(args)
    build = fl.tuner_build(args.tuner)  # the tree now, before any replay
    if args.report_only:
        rows_file = work / "rows.jsonl"
        if not rows_file.is_file():
            sys.exit(f"--report-only: {rows_file}: no such file; run without --report-only first")
        with open(rows_file) as f:
            rows = [json.loads(line) for line in f]
        missing = {(s["name"], b, d, m) for s in spaces for b in args.budgets for d in args.depths for m in fl.MODES} - \
                  {(r["space"], r["budget"], r["depth"], r["mode"]) for r in rows}
        if missing:
            sys.exit(f"--report-only: {rows_file} lacks {len(missing)} cells of these --budgets/--depths, e.g. "
                     f"{sorted(missing)[0]}; run without --report-only")
        rows = [r for r in rows if r["budget"] in args.budgets and r["depth"] in args.depths and r["seed"] <= args.seeds]
        run = json.loads((work / "run.json").read_text()) if (work / "run.json").is_file() else {}
        out = Path(args.out)
        out.write_text(report(args, spaces, rows, command, run.get("wall_s", 0), run.get("date", "an earlier run"),
                              run.get("tuner", fl.tuner_build(args.tuner))))
        print(f"[bench] report {out} from {rows_file}")
        return 0
    with multiprocessing.Pool(args.jobs) as pool:
        spaces = pool.map(fl.census, [(args.tuner, s, str(work)) for s in spaces])
        tasks = [(args.tuner, s, b, d, m, args.seeds, str(work))
                 for s in spaces for b in args.budgets for d in args.depths for m in fl.MODES]
        rows = []
        for i, cell_rows in enumerate(pool.imap(run_cell, tasks), start=1):
            rows += cell_rows
            print(f"[bench] {i}/{len(tasks)} cells", flush=True)
    with open(work / "rows.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    wall, when = time.time() - start, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    (work / "run.json").write_text(json.dumps({"wall_s": wall, "date": when, "tuner": build}))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report(args, spaces, rows, command, wall, when, build))
    print(f"[bench] report {out}; {wall / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
