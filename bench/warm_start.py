#!/usr/bin/env python3
"""Warm-start benchmark: does a tuning of the same kernel on another GPU help a new one?

The product retunes when it is reconfigured on a new GPU, and `adaexplore-tuner tune --database
--warm-start N` evaluates the best configurations of the kernel's other keys (another GPU) first.
This benchmark measures what that buys, on the exhaustively recorded spaces of
shared/spaces/kernel_tuner_bruteforce/ that hold one kernel on several GPUs (convolution: RTX
2080 Ti, RTX 3090; convolution_milo: A100, A4000, MI250X; dedispersion_milo: A100, A4000).

For every ordered pair (source GPU, target GPU) of one kernel, every budget and every seed k:
  - cold:  `replay` of `adaexplore` on the target, seed k (what docs/search-benchmark.md measures);
  - warm:  the same, with `--warm-start` from a replay of `adaexplore` on the source at
           --source-budget evaluations, seed k (a realistic earlier tuning: the source GPU's tuning
           was itself a budgeted search), its --count best configurations evaluated first
           (budget included);
  - warm, model (--device-transfer model): the same source trace given to the strategy's performance
    model, which picks the start: --model-count configurations, its predicted best alternating with
    the trace's best (as `tune --database --device-transfer model` does), and whose surrogate then
    also fits the source's evaluations (performance_model.hpp: one ln-time offset per GPU);
  - warm from the source's optimum: with `--warm-start` from the source's whole recording (its
    --count best configurations: an upper reference for what the source can give);
  - the source's best alone: the target's best among those --count configurations, no search.
Score: optimum of the target / best found (1 = the target's recorded optimum), as in
bench/search_quality.py. Cells: mean over the seeds; "warm - cold": mean of the per-seed
differences ± its standard error (the runs are paired by seed).

Usage:
  python3 bench/warm_start.py --tuner build/tuner/adaexplore-tuner --work /tmp/ws \
      --out docs/warm-start-benchmark.md [--seeds 50] [--budgets 25,50,100] [--jobs 2]
"""

import argparse
import concurrent.futures
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from search_quality import RESTRICTIONS  # noqa: E402  (the restrictions the files were made with)

SPACES = REPO.parent / "shared" / "spaces" / "kernel_tuner_bruteforce"


def replay(tuner, path, budget, seed, repeat=1, warm=None, count=4, json_out=None, strategy="adaexplore",
           by="winners", options=None):
    """Runs `adaexplore-tuner replay`; returns the per-seed JSON lines (dicts)."""
    argv = [tuner, "replay", "--cache", str(path), "--strategy", strategy, "--budget", str(budget),
            "--seed", str(seed), "--repeat", str(repeat)]
    for r in RESTRICTIONS[path.parent.name]:
        argv += ["--constraint", r]
    if warm:
        argv += ["--warm-start", str(warm), "--warm-start-count", str(count)]
        if by != "winners":
            argv += ["--device-transfer", by]
    if options:
        argv += ["--strategy-options", options]
    if json_out:
        argv += ["--json", str(json_out)]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed ({p.returncode}):\n{p.stderr}")
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    if len(lines) != repeat:
        raise RuntimeError(f"{shlex.join(argv)}: {len(lines)} result lines, expected {repeat}")
    return lines


def mean_se(values):
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, float("nan")
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, math.sqrt(var / n)


def name(path):
    return f"{path.parent.name}/{path.name.split('.')[0]}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tuner", required=True, help="adaexplore-tuner executable")
    ap.add_argument("--work", required=True, help="folder for the source traces (created)")
    ap.add_argument("--out", help="report to write (Markdown); default: print it")
    ap.add_argument("--seeds", type=int, default=50, help="seeds 1..N per cell (default 50)")
    ap.add_argument("--budgets", default="25,50,100", help="target budgets, evaluations (default 25,50,100)")
    ap.add_argument("--source-budget", type=int, default=100,
                    help="evaluations of the source GPU's tuning (default 100)")
    ap.add_argument("--count", type=int, default=4, help="configurations warm-started (default 4, as tune's)")
    ap.add_argument("--model-count", type=int, default=8,
                    help="configurations of the model's start (--device-transfer model; default 8: 4 of the model's "
                         "picks and 4 of the source's best)")
    ap.add_argument("--model-options", default=None,
                    help="--strategy-options of the model arm (default none: adaexplore's defaults)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel replays")
    args = ap.parse_args(argv)
    tuner = str(Path(args.tuner).resolve())
    budgets = [int(b) for b in args.budgets.split(",")]
    seeds = list(range(1, args.seeds + 1))
    work = Path(args.work)
    (work / "sources").mkdir(parents=True, exist_ok=True)
    kernels = {}
    for f in sorted(SPACES.glob("*/*.json.gz")):
        kernels.setdefault(f.parent.name, []).append(f)
    files = [f for fs in kernels.values() if len(fs) > 1 for f in fs]
    pairs = [(s, t) for fs in kernels.values() if len(fs) > 1 for s in fs for t in fs if s != t]
    if not pairs:
        sys.exit(f"warm_start.py: {SPACES} holds no kernel recorded on two GPUs or more "
                 "(expected e.g. convolution/RTX_2080_Ti.json.gz and convolution/RTX_3090.json.gz)")
    started = time.time()

    def source_trace(f, seed):
        return work / "sources" / f"{f.parent.name}_{f.name.split('.')[0]}_{seed}.json"

    def whole_trace(f):
        return work / "sources" / f"{f.parent.name}_{f.name.split('.')[0]}_whole.json"

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        # The sources: a budgeted tuning per seed, and the whole recording (random, unbounded budget).
        jobs = [pool.submit(replay, tuner, f, args.source_budget, k, json_out=source_trace(f, k))
                for f in files for k in seeds]
        jobs += [pool.submit(replay, tuner, f, 10 ** 7, 1, json_out=whole_trace(f), strategy="random")
                 for f in files]
        for j in jobs:
            j.result()
        cold = {(t, b): pool.submit(replay, tuner, t, b, 1, repeat=len(seeds)) for t in files for b in budgets}
        best_of_source = {(s, t): pool.submit(replay, tuner, t, args.count, 1, warm=whole_trace(s), count=args.count)
                          for s, t in pairs}
        whole = {(s, t, b): pool.submit(replay, tuner, t, b, 1, repeat=len(seeds), warm=whole_trace(s),
                                        count=args.count)
                 for s, t in pairs for b in budgets}
        warm = {(s, t, b, k): pool.submit(replay, tuner, t, b, k, warm=source_trace(s, k), count=args.count)
                for s, t in pairs for b in budgets for k in seeds}
        model = {(s, t, b, k): pool.submit(replay, tuner, t, b, k, warm=source_trace(s, k), count=args.model_count,
                                           by="model", options=args.model_options)
                 for s, t in pairs for b in budgets for k in seeds}
        cold = {key: [l["ratio"] for l in j.result()] for key, j in cold.items()}
        best_of_source = {key: j.result()[0] for key, j in best_of_source.items()}
        for (s, t), line in best_of_source.items():  # "alone" means no proposal of the search's own
            if line["warm_start"]["configs"] != args.count:
                sys.exit(f"warm_start.py: only {line['warm_start']['configs']} of {name(s)}'s best are "
                         f"configurations of {name(t)}; the column 'source's best alone' would include a search")
        best_of_source = {key: line["ratio"] for key, line in best_of_source.items()}
        whole = {key: [l["ratio"] for l in j.result()] for key, j in whole.items()}
        warm = {key: j.result()[0]["ratio"] for key, j in warm.items()}
        model = {key: j.result()[0]["ratio"] for key, j in model.items()}
    wall = time.time() - started

    rows = []
    overall = {b: {"cold": [], "warm": [], "whole": [], "model": []} for b in budgets}
    for s, t in pairs:
        for b in budgets:
            c = cold[(t, b)]
            w = [warm[(s, t, b, k)] for k in seeds]
            m = [model[(s, t, b, k)] for k in seeds]
            dm, dse = mean_se([wi - ci for wi, ci in zip(w, c)])
            mm, mse = mean_se([mi - wi for mi, wi in zip(m, w)])
            rows.append(f"| {name(s)} | {name(t)} | {b} | {mean_se(c)[0]:.3f} | {mean_se(w)[0]:.3f} | "
                        f"{dm:+.3f} ± {dse:.3f} | {mean_se(m)[0]:.3f} | {mm:+.3f} ± {mse:.3f} | "
                        f"{mean_se(whole[(s, t, b)])[0]:.3f} | {best_of_source[(s, t)]:.3f} |")
            for i, k in enumerate(seeds):
                o = overall[b]
                o["cold"].append(c[i]), o["warm"].append(w[i]), o["whole"].append(whole[(s, t, b)][i])
                o["model"].append(m[i])
    # The mean over the pairs, per seed (so its standard error is over seeds, as in search_quality.py).
    summary = []
    n = len(pairs)
    for b in budgets:
        o = overall[b]
        per_seed = lambda xs: [sum(xs[p * len(seeds) + i] for p in range(n)) / n for i in range(len(seeds))]
        cm, wm, mm, hm = (mean_se(per_seed(o[x]))[0] for x in ("cold", "warm", "model", "whole"))
        dm, dse = mean_se([w - c for w, c in zip(per_seed(o["warm"]), per_seed(o["cold"]))])
        md, mdse = mean_se([m - w for m, w in zip(per_seed(o["model"]), per_seed(o["warm"]))])
        summary.append(f"| {b} | {cm:.3f} | {wm:.3f} | {dm:+.3f} ± {dse:.3f} | {mm:.3f} | {md:+.3f} ± {mdse:.3f} | "
                       f"{hm:.3f} |")

    commit = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"], capture_output=True,
                            text=True).stdout.strip()
    command = "python3 bench/warm_start.py " + shlex.join(argv)
    text = f"""# Warm-start benchmark: a tuning on another GPU as the start

Generated by `bench/warm_start.py` (the method is in its docstring). Command:

```
{command}
```

Date {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; machine {platform.node()}, \
{os.cpu_count()} cores, Python {platform.python_version()}; tuner `{tuner}`, repository at commit {commit}. \
Seeds 1..{args.seeds}; source tunings of {args.source_budget} evaluations; {args.count} configurations \
warm-started; wall time {wall / 60:.1f} min.

Score: optimum of the target GPU's recording / best found (1 = its optimum). *cold*: `adaexplore`
alone (docs/search-benchmark.md). *warm*: the same, first evaluating the {args.count} best
configurations of an `adaexplore` tuning of {args.source_budget} evaluations on the source GPU
(same seed), as `tune --database --warm-start {args.count}` does; the budget includes them.
*warm - cold*: mean of the per-seed differences ± standard error. *warm, model*: the source's
tuning given to the performance model instead, which picks a start of {args.model_count} (its
predicted best alternating with the source's best) and whose surrogate fits the source's
evaluations too (`--device-transfer model`{'' if not args.model_options else ', options ' + args.model_options});
*model - warm*: per-seed differences against *warm*. *warm, source optimum*: warm
start from the source's {args.count} best recorded configurations instead (an upper reference).
*source's best alone*: the best of those {args.count} on the target, with no search.

## Mean over the {n} pairs

| budget | cold | warm | warm - cold | warm, model | model - warm | warm, source optimum |
| --- | --- | --- | --- | --- | --- | --- |
{chr(10).join(summary)}

## Per pair

| source | target | budget | cold | warm | warm - cold | warm, model | model - warm | warm, source optimum | source's best alone |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
{chr(10).join(rows)}
"""
    if args.out:
        out = Path(args.out)
        kept = ""
        if out.exists() and "\n## Discussion" in out.read_text():
            kept = out.read_text()[out.read_text().index("\n## Discussion"):]
        out.write_text(text + kept)
        print(f"[bench] report {out}; {wall / 60:.1f} min")
    else:
        print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
