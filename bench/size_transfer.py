#!/usr/bin/env python3
"""Size-transfer benchmark: what tuning the sizes of a kernel from each other's evidence buys.

`adaexplore-tuner tune` of a spec with "sizes" (CMake: SIZES) tunes the smallest size with the whole
budget and every other size with ceil(budget / 3), starting each from the sizes tuned before it:
their best configurations evaluated first, their size-independent failures and successes given to
the knowledge base (tuner/src/model/sizes.hpp). This benchmark replays that on search spaces recorded
exhaustively at four sizes on a GPU (tools/device-run.sh sizespace: bench/size_transfer/<kernel>/
spec.json and h200.<size>.jsonl), against independent tunings of every size with the whole budget:

  - independent: `replay --results <size> --spec spec.json --strategy adaexplore --budget B`, per
    size, seed k;
  - transfer: the sizes in tuning order (ascending volume), the first with budget B, each later one
    with ceil(B / 3) and `--transfer` the traces of the sizes replayed before it in this chain
    (nearest in log space first, as `tune` orders them), seed k.

Per size: the mean over the seeds of optimum / best found (1 = the recorded optimum), and the median
number of evaluations until a configuration within 2 % of the optimum was found (a run that never
got there counts as its budget + 1, and the share of runs that got there is given). In all: the
evaluations spent on every size, and the two targets: every size for at most twice the evaluations
of one cold size, at a mean quality within 0.01 of the independent tunings.

Usage:
  python3 bench/size_transfer.py --tuner build/tuner/adaexplore-tuner --work /tmp/st \
      --out docs/size-transfer-benchmark.md [--kernels vector_add,gemm] [--budget 60] [--seeds 30]
"""

import argparse
import concurrent.futures
import datetime
import json
import math
import platform
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "bench" / "size_transfer"


def sizes_of(kernel_dir):
    """[(label, slug, values)] of the spec's sizes that have a recording, in the declared order."""
    spec = json.loads((kernel_dir / "spec.json").read_text())
    names = spec["sizes"]["names"]
    out = []
    for values in spec["sizes"]["values"]:
        slug = "_".join(f"{n}{v}" for n, v in zip(names, values))
        label = " ".join(f"{n}={v}" for n, v in zip(names, values))
        if (kernel_dir / f"h200.{slug}.jsonl").exists():
            out.append((label, slug, values))
    return out


def volume(values):
    return math.prod(values)


def log_distance(a, b):
    return sum(abs(math.log(x) - math.log(y)) for x, y in zip(a, b))


def nearest_first(values, others):
    """`others` (lists of values) nearest to `values` first; ties: the larger volume first."""
    return sorted(others, key=lambda o: (round(log_distance(o, values), 12), -volume(o)))


def replay(tuner, kernel_dir, slug, budget, seed, json_out, transfer=(), count=8, options="{}"):
    argv = [tuner, "replay", "--results", str(kernel_dir / f"h200.{slug}.jsonl"), "--spec",
            str(kernel_dir / "spec.json"), "--strategy", "adaexplore", "--budget", str(budget), "--seed", str(seed),
            "--json", str(json_out), "--strategy-options", options]
    for t in transfer:
        argv += ["--transfer", str(t)]
    if transfer:
        argv += ["--transfer-count", str(count)]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed ({p.returncode}):\n{p.stderr}")
    trace = json.loads(Path(json_out).read_text())
    return trace


def to_within(trace, optimum, margin=0.02):
    """1-based index of the first evaluation within `margin` of the optimum, else None."""
    for i, e in enumerate(trace["evaluations"], 1):
        if e.get("objective") is not None and e["objective"] <= optimum * (1 + margin):
            return i
    return None


def one_seed(tuner, kernel_dir, sizes, budget, later, seed, work, order="ascending", count=8, options="{}"):
    """{"independent": {slug: (ratio, within, evaluated)}, "transfer": {...}} for one seed."""
    out = {"independent": {}, "transfer": {}}
    for label, slug, values in sizes:
        t = replay(tuner, kernel_dir, slug, budget, seed, work / f"ind-{slug}-{seed}.json", options=options)
        out["independent"][slug] = (t["ratio"], to_within(t, t["optimum_ms"]), t["evaluated"])
    done = []  # (values, trace path) of the chain so far
    for label, slug, values in sorted(sizes, key=lambda s: volume(s[2]), reverse=order == "descending"):
        by_size = {tuple(v): p for v, p in done}
        traces = [by_size[tuple(v)] for v in nearest_first(values, [v for v, _ in done])]
        path = work / f"tr-{slug}-{seed}.json"
        t = replay(tuner, kernel_dir, slug, later if done else budget, seed, path, traces, count, options)
        out["transfer"][slug] = (t["ratio"], to_within(t, t["optimum_ms"]), t["evaluated"])
        done.append((values, path))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tuner", required=True)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--kernels", default="vector_add,gemm")
    ap.add_argument("--budget", type=int, default=60, help="evaluations of the first size (and of each independent one)")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--later", type=int, help="budget of each later size (default ceil(budget / 3), as tune)")
    ap.add_argument("--order", choices=("ascending", "descending"), default="ascending",
                    help="the chain's order of the sizes (tune: ascending volume)")
    ap.add_argument("--transfer-count", type=int, default=8, help="configurations taken from the earlier sizes (tune: 8)")
    ap.add_argument("--strategy-options", default="{}",
                    help="adaexplore's options for every replay, a JSON object; '{\"size_model\": false, "
                         "\"behaviour\": false}' is the search before 2026-12-06 (the other sizes' winners first)")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    later = a.later or max(1, math.ceil(a.budget / 3))
    lines = []
    say = lines.append
    say("# Size-transfer benchmark")
    say("")
    say(f"Generated {datetime.date.today().isoformat()} by `python3 bench/size_transfer.py --tuner ... --work ... "
        f"--kernels {a.kernels} --budget {a.budget} --seeds {a.seeds}"
        + (f" --strategy-options '{a.strategy_options}'" if a.strategy_options != "{}" else "")
        + f"` on {platform.node()} "
        f"(commit {subprocess.run(['git', '-C', str(REPO), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}).")
    say("")
    say(f"Independent: every size replayed with budget {a.budget}. Transfer: the smallest size with {a.budget}, "
        f"each later one with {later} from the earlier sizes' traces (`replay --transfer`). Quality: mean over "
        f"{a.seeds} seeds of optimum / best found; to 2 %: median evaluations until a configuration within 2 % of "
        "the size's optimum (never: budget + 1), and the share of runs that got there.")
    ok_all = True
    for kernel in a.kernels.split(","):
        kdir = DATA / kernel
        sizes = sizes_of(kdir)
        if not sizes:
            say(f"\n## {kernel}\n\nno recordings in {kdir}")
            continue
        work = a.work / kernel
        work.mkdir(parents=True, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            runs = list(pool.map(lambda s: one_seed(a.tuner, kdir, sizes, a.budget, later, s, work, a.order,
                                                    a.transfer_count, a.strategy_options),
                                 range(1, a.seeds + 1)))
        say(f"\n## {kernel}\n")
        say("| size | mode | budget | mean optimum/best | to 2 % (median) | got to 2 % |")
        say("| --- | --- | --- | --- | --- | --- |")
        totals = {"independent": 0, "transfer": 0}
        means = {"independent": [], "transfer": []}
        order = [s[1] for s in sorted(sizes, key=lambda s: volume(s[2]), reverse=a.order == "descending")]
        for label, slug, values in sizes:
            for mode in ("independent", "transfer"):
                b = a.budget if mode == "independent" or slug == order[0] else later
                ratios = [r[mode][slug][0] for r in runs]
                within = [r[mode][slug][1] for r in runs]
                totals[mode] += statistics.mean(r[mode][slug][2] for r in runs)
                means[mode].append(statistics.mean(ratios))
                med = statistics.median(w if w is not None else b + 1 for w in within)
                got = sum(w is not None for w in within) / len(within)
                say(f"| {label} | {mode} | {b} | {statistics.mean(ratios):.4f} | {med:g} | {got:.0%} |")
        q_ind, q_tr = statistics.mean(means["independent"]), statistics.mean(means["transfer"])
        evals_ok = totals["transfer"] <= 2 * a.budget
        quality_ok = q_tr >= q_ind - 0.01
        ok_all &= evals_ok and quality_ok
        say("")
        say(f"Evaluations for all {len(sizes)} sizes (mean over seeds): independent {totals['independent']:.0f}, "
            f"transfer {totals['transfer']:.0f} ({totals['transfer'] / a.budget:.2f} x one cold size; target <= 2: "
            f"{'met' if evals_ok else 'NOT met'}). Mean quality over the sizes: independent {q_ind:.4f}, transfer "
            f"{q_tr:.4f} (difference {q_tr - q_ind:+.4f}; target >= -0.01: {'met' if quality_ok else 'NOT met'}).")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
