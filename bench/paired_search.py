#!/usr/bin/env python3
"""Paired comparison of search variants on the recorded Kernel Tuner spaces.

A variant is a tuner executable and a strategy's options. Every variant is replayed with the same
seeds on every file of shared/spaces/kernel_tuner_bruteforce/ (restricted as bench/search_quality.py
restricts them) at each budget; the score of a run is optimum / best found. Printed per budget:
each variant's mean over the files (and per file), and, for every variant after the first, the
per-seed difference of the mean over the files against the first variant: mean +- standard error.
Pairing by seed removes most of the spread between seeds, so a difference of a few thousandths is
visible with a few hundred seeds where the unpaired means of docs/search-benchmark.md are not.
Use fresh seeds (--first) to confirm a difference that was picked as the best of several tries.

Usage:
  python3 bench/paired_search.py --variant base=build/tuner/adaexplore-tuner='{}' \\
      --variant start6=build/tuner/adaexplore-tuner='{"initial": 6}' --budgets 25,100 --seeds 100
  (docs/search-method.md reports the experiments made so, 2026-12-01 (several-GPU loop fix) onwards.)
  A variant's options may say "launch": "spec": each file's declared launch shape
  (search_quality.LAUNCH, the behavioural features' source), e.g.
  --variant features=build/tuner/adaexplore-tuner='{"behaviour": true, "launch": "spec"}'.
  A variant's options may say "in_flight": N (not a strategy option): the replay runs as a tuning
  with N configurations in flight (`replay --in-flight N`) instead of rounds of 8, e.g. the depth a
  real tuning keeps at that budget (4 at 25 on one GPU, tuner/src/loop/pipeline.cpp):
  --variant depth4=build/tuner/adaexplore-tuner='{"in_flight": 4}'.
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_quality  # noqa: E402  (RESTRICTIONS: the restrictions each space was recorded with)

ROOT = Path(__file__).resolve().parent.parent


def parse_variant(text):
    """NAME=TUNER=OPTIONS, OPTIONS a JSON object of strategy options (NAME and TUNER without '=')."""
    parts = text.split("=", 2)
    if len(parts) != 3 or not parts[0]:
        raise argparse.ArgumentTypeError(f"--variant {text!r}: expected NAME=TUNER=JSON-OPTIONS")
    name, tuner, options = parts
    try:
        if not isinstance(json.loads(options), dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--variant {text!r}: options {options!r}: {e}")
    if not Path(tuner).is_file():
        raise argparse.ArgumentTypeError(f"--variant {text!r}: no tuner executable at {tuner}")
    return name, tuner, options


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", action="append", type=parse_variant, required=True,
                   help="NAME=TUNER=JSON-OPTIONS; the first is the reference of the differences")
    p.add_argument("--strategy", default="adaexplore")
    p.add_argument("--spaces", default=str(ROOT.parent / "shared" / "spaces" / "kernel_tuner_bruteforce"))
    p.add_argument("--files", default="",
                   help="only these spaces, comma-separated: a kernel folder (pnpoly) or folder/GPU (convolution/RTX_3090)")
    p.add_argument("--budgets", default="25,100", help="evaluations, comma-separated positive integers")
    p.add_argument("--seeds", type=int, default=100, help="runs per variant, file and budget (at least 2)")
    p.add_argument("--first", type=int, default=1, help="first seed (0 or more)")
    p.add_argument("--jobs", type=int, default=2, help="replay processes at once (1 or more)")
    a = p.parse_args(argv)
    if len({v[0] for v in a.variant}) != len(a.variant):
        p.error("variant names must differ")
    if a.seeds < 2:
        p.error("--seeds must be at least 2 (a standard error needs two)")
    if a.first < 0:
        p.error("--first must be 0 or more")
    if a.jobs < 1:
        p.error("--jobs must be 1 or more")
    text = a.budgets
    try:
        a.budgets = [int(b) for b in text.split(",")]
        if any(b < 1 for b in a.budgets):
            raise ValueError
    except ValueError:
        p.error(f"--budgets {text!r}: expected comma-separated positive integers, e.g. 25,100")
    return a


def space_name(path):
    """kernel/GPU of a recorded file: convolution/RTX_3090 for .../convolution/RTX_3090.json.gz."""
    return f"{path.parent.name}/{path.name.split('.')[0]}"


def replay(task, args):
    """Scores of seeds first..first+seeds-1 of one variant on one file at one budget."""
    (name, tuner, options), path, budget = task
    parsed = json.loads(options)
    if parsed.get("launch") == "spec":  # the file's declared launch shape (search_quality.LAUNCH)
        launch = search_quality.launch_option(path)
        if launch is None:
            del parsed["launch"]
        else:
            parsed["launch"] = launch
    in_flight = parsed.pop("in_flight", None)  # the replay's, not the strategy's
    if in_flight is not None and (not isinstance(in_flight, int) or isinstance(in_flight, bool) or in_flight < 1):
        raise SystemExit(f"variant {name}: in_flight {in_flight!r}: expected a positive integer")
    options = json.dumps(parsed)
    argv = [tuner, "replay", "--cache", str(path), "--strategy", args.strategy, "--budget", str(budget),
            "--seed", str(args.first), "--repeat", str(args.seeds), "--strategy-options", options]
    if in_flight is not None:
        argv += ["--in-flight", str(in_flight)]
    for r in search_quality.RESTRICTIONS[path.parent.name]:
        argv += ["--constraint", r]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    runs = {}
    for line in proc.stdout.strip().splitlines()[:-1]:  # one JSON line per seed, then the summary
        run = json.loads(line)
        runs[run["seed"]] = run["ratio"]
    wanted = range(args.first, args.first + args.seeds)
    if sorted(runs) != list(wanted):
        raise SystemExit(f"{' '.join(argv)}: expected one run per seed {args.first}..{wanted[-1]}, "
                         f"got seeds {sorted(runs)[:5]}... ({len(runs)} runs)")
    return [runs[seed] for seed in wanted]


def main(argv):
    args = parse_args(argv)
    files = sorted(Path(args.spaces).glob("*/*.json.gz"))
    if args.files:
        wanted = args.files.split(",")
        files = [f for f in files if f.parent.name in wanted or space_name(f) in wanted]
    if not files:
        raise SystemExit(f"no recorded spaces (*/*.json.gz) under {args.spaces} match --files {args.files!r}")
    unknown = sorted({f.parent.name for f in files} - set(search_quality.RESTRICTIONS))
    if unknown:
        raise SystemExit(f"{args.spaces}: no restrictions known for {', '.join(unknown)}; add them to RESTRICTIONS "
                         f"in bench/search_quality.py (known: {', '.join(sorted(search_quality.RESTRICTIONS))})")
    budgets = args.budgets
    tasks = [(v, f, b) for v in args.variant for f in files for b in budgets]
    with ThreadPoolExecutor(args.jobs) as pool:
        scores = dict(zip(((v[0], f, b) for v, f, b in tasks), pool.map(lambda t: replay(t, args), tasks)))
    reference = args.variant[0][0]
    print(f"seeds {args.first}..{args.first + args.seeds - 1}; files: " +
          " ".join(space_name(f) for f in files))
    for b in budgets:
        print(f"budget {b}")
        for name, _, options in args.variant:
            per_file = [statistics.mean(scores[(name, f, b)]) for f in files]
            line = f"  {name:>12}: mean {statistics.mean(per_file):.4f} | " + " ".join(f"{m:.3f}" for m in per_file)
            if name != reference:
                d = [statistics.mean(scores[(name, f, b)][s] - scores[(reference, f, b)][s] for f in files)
                     for s in range(args.seeds)]
                line += f" | against {reference}: {statistics.mean(d):+.4f} +- {statistics.stdev(d) / math.sqrt(len(d)):.4f}"
            print(line + f"   {options}")


if __name__ == "__main__":
    main(sys.argv[1:])
