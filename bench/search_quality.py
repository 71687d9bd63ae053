#!/usr/bin/env python3
"""Search-quality benchmark: how close each strategy gets to the recorded optimum.

For every exhaustively recorded space in shared/spaces/kernel_tuner_bruteforce/ (restricted as
shared/spaces/README.md says), every budget and every seed, a strategy is replayed against the
file and scored by optimum / best found (1 = found the optimum; 0 = nothing succeeded). Compared:
  - the strategies registered in the tuner (`adaexplore-tuner replay --repeat`, one process per
    file x strategy x budget);
  - Kernel Tuner's strategies (KT_STRATEGIES: genetic_algorithm, dual_annealing, greedy_ils,
    diff_evo, bayes_opt, random_sample, and since 2026-12-02 hybrid_vndx, adaptive_tabu_greywolf,
    pso, firefly_algorithm, mls, simulated_annealing; names as Kernel Tuner 1.5.0's
    interface.strategy_map spells them), through its own simulation mode on the same files, each
    with its default options and strategy_options {"max_fevals": budget}.

Budget, both sides: the number of distinct configurations of the restricted space evaluated,
recorded failures included. Kernel Tuner's simulation runner counts exactly that for
`max_fevals` (a configuration counts the first time it is served from the cache; repeats are
free; configurations violating a restriction are never run and not counted), and caps it at the
space size, as `adaexplore-tuner replay` does. Some Kernel Tuner strategies stop on their own
criteria before the budget is spent (dual_annealing; simulated_annealing used 19 of 25 on pnpoly
in a smoke run, 2026-12-02); the table shows the evaluations they used.

Harness check: the mean score of `random` must equal the exact expectation of uniform sampling
without replacement (computed from the order statistics of the recorded objectives, failures
ranked last) within its sampling error; the same is shown for Kernel Tuner's random_sample.

Results are appended per (file, strategy, budget, seed) to <work>/results.jsonl, so an
interrupted or time-limited run resumes where it stopped; the report is written from whatever
is there and says which cells have fewer seeds than asked for.

Usage:
  python3 bench/search_quality.py --tuner build/tuner/adaexplore-tuner            # full run
  python3 bench/search_quality.py --tuner ... --quick                             # smoke run
  python3 bench/search_quality.py --tuner ... --time-limit 40                     # stop after 40 min
Requirements: bench/requirements.txt (kernel_tuner and what it pulls in).
"""

import argparse
import contextlib
import gzip
import io
import itertools
import json
import math
import multiprocessing
import os
import pickle
import platform
import random
import shlex
import subprocess
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KT_STRATEGIES = ["genetic_algorithm", "dual_annealing", "greedy_ils", "diff_evo", "bayes_opt", "random_sample",
                 "hybrid_vndx", "adaptive_tabu_greywolf", "pso", "firefly_algorithm", "mls", "simulated_annealing"]
SLOW_KT = {"bayes_opt"}  # run with --bo-seeds seeds (a Gaussian-process fit per evaluation)

# Restrictions of the brute-force runs that made the files (shared/spaces/README.md).
RESTRICTIONS = {
    "convolution": ["block_size_x*block_size_y>=64", "block_size_x*block_size_y<=1024", "tile_size_x*tile_size_y<30"],
    "convolution_milo": [
        "use_padding==0 or block_size_x % 32 != 0",
        "block_size_x*block_size_y<=1024",
        "use_padding==0 or use_shmem != 0",
        "use_shmem == 0 or (block_size_x*tile_size_x+filter_width-1)*(block_size_y*tile_size_y+filter_height-1) < 12*1024",
    ],
    "dedispersion_milo": [
        "32 <= block_size_x*block_size_y <= 1024",
        "tile_size_x > 1 or tile_stride_x == 0",
        "tile_size_y > 1 or tile_stride_y == 0",
    ],
    "gemm": [
        "KWG % KWI == 0",
        "MWG % (MDIMC*VWM) == 0",
        "NWG % (NDIMC*VWN) == 0",
        "MWG % (MDIMA*VWM) == 0",
        "NWG % (NDIMB*VWN) == 0",
        "KWG % ((MDIMC*NDIMC)/MDIMA) == 0",
        "KWG % ((MDIMC*NDIMC)/NDIMB) == 0",
    ],
    "pnpoly": [],
}


# The launch shape each space's Kernel Tuner spec declares (shared/spaces/specs/<kernel>.json,
# KernelSpecification: LocalSize, or for gemm Kernel Tuner's block_size_names MDIMC and NDIMC; the
# grid as Kernel Tuner derives it, ceil(ProblemSize / product of GridDiv)), as adaexplore's
# strategy option "launch" (docs/search-method.md, The performance model): what a user of the
# product declares with BLOCK_DIM and GRID_DIM. "volume" is the ProblemSize's product. Used by
# bench/paired_search.py's "launch": "spec"; this benchmark replays adaexplore with its defaults,
# whose surrogate does not use the features within one size (docs/model-benchmark.md).
LAUNCH = {
    "convolution": {"block": ["block_size_x", "block_size_y"],
                    "grid": ["ceil(4096 / (block_size_x * tile_size_x))", "ceil(4096 / (block_size_y * tile_size_y))"],
                    "volume": 4096 * 4096},
    "convolution_milo": {"block": ["block_size_x", "block_size_y"],
                         "grid": ["ceil(4096 / (block_size_x * tile_size_x))",
                                  "ceil(4096 / (block_size_y * tile_size_y))"],
                         "volume": 4096 * 4096},
    "dedispersion_milo": {"block": ["block_size_x", "block_size_y", "block_size_z"],
                          "grid": ["ceil(25000 / (block_size_x * tile_size_x))",
                                   "ceil(2048 / (block_size_y * tile_size_y))"],
                          "volume": 25000 * 2048},
    "gemm": {"block": ["MDIMC", "NDIMC"], "grid": ["ceil(4096 / MWG)", "ceil(4096 / NWG)"], "volume": 4096 * 4096},
    "pnpoly": {"block": ["block_size_x"], "grid": ["ceil(20000000 / (block_size_x * tile_size))"],
               "volume": 20000000},
}
# SMs (compute units) of the recorded GPUs, by file name: the device query a tuning makes.
SM_COUNT = {"RTX_2080_Ti": 68, "RTX_3090": 82, "A100": 108, "A4000": 48, "MI250X": 110}


def launch_option(path):
    """adaexplore's "launch" option for a recorded file (kernel folder / GPU), or None."""
    launch = LAUNCH.get(path.parent.name)
    if launch is None:
        return None
    launch = dict(launch)
    gpu = path.name.split(".")[0]
    if gpu in SM_COUNT:
        launch["sm_count"] = SM_COUNT[gpu]
    return launch


# ---------------------------------------------------------------- recorded spaces

def is_failure(record, objective):
    if "__error__" in record:
        return True
    value = record.get(objective, record.get("time"))
    return not isinstance(value, (int, float)) or not math.isfinite(value) or value >= 1e19


def load_space(path):
    """The file's header, records, the valid configurations under its restrictions, the optimum."""
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    names = data["tune_params_keys"]
    restrictions = RESTRICTIONS[path.parent.name]
    compiled = [compile(r, r, "eval") for r in restrictions]
    valid = [combo for combo in itertools.product(*(data["tune_params"][n] for n in names))
             if all(eval(c, {}, dict(zip(names, combo))) for c in compiled)]
    objective = data.get("objective", "time")
    times = {key: (None if is_failure(r, objective) else float(r["time"])) for key, r in data["cache"].items()}
    keys = [",".join(str(v) for v in combo) for combo in valid]
    ok = [times[k] for k in keys if times.get(k) is not None]
    return {"path": path, "data": data, "restrictions": restrictions, "valid": len(valid),
            "absent": sum(k not in times for k in keys), "ok_times": sorted(ok), "optimum": min(ok)}


def expected_random(ok_times, space_size, budget):
    """Mean and standard deviation of optimum/best for `budget` draws without replacement from
    `space_size` configurations of which `ok_times` (ascending) succeeded; failures rank last and
    score 0. P(best rank >= k) = C(M-k+1, n) / C(M, n)."""
    m, n = space_size, min(budget, space_size)
    tail, mean, square = 1.0, 0.0, 0.0  # tail = P(best rank >= k)
    for k, t in enumerate(ok_times, start=1):
        nxt = tail * (m - k + 1 - n) / (m - k + 1) if m - k + 1 > 0 else 0.0
        p = tail - max(nxt, 0.0)
        score = ok_times[0] / t
        mean += p * score
        square += p * score * score
        tail = max(nxt, 0.0)
    return mean, math.sqrt(max(square - mean * mean, 0.0))


# ---------------------------------------------------------------- the tuner's strategies

def tuner_strategies(tuner):
    try:
        out = subprocess.run([tuner, "strategies"], capture_output=True, text=True, timeout=60, check=True).stdout
        return [line.split("\t")[0] for line in out.splitlines() if line.strip()]
    except (subprocess.SubprocessError, OSError):
        return None


def run_tuner_cell(task):
    """One `replay --repeat` process: every seed of one (file, strategy, budget)."""
    tuner, path, restrictions, strategy, budget, seeds = task
    argv = [tuner, "replay", "--cache", str(path), "--strategy", strategy, "--budget", str(budget),
            "--seed", str(seeds[0]), "--repeat", str(len(seeds))]
    for r in restrictions:
        argv += ["--constraint", r]
    start = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    lines = proc.stdout.strip().splitlines()
    runs = [json.loads(line) for line in lines[:-1]]
    spent = (time.time() - start) / max(len(runs), 1)
    return [{"file": str(path), "strategy": strategy, "budget": budget, "seed": r["seed"], "ratio": r["ratio"],
             "best": r["best_ms"], "evaluations": r["evaluated"], "seconds": spent, "source": "tuner"}
            for r in runs]


# ---------------------------------------------------------------- Kernel Tuner's strategies

_KT_FILES = {}     # plain .json path -> parsed cache (read once per worker)
_KT_SPACES = {}    # searchspace key -> pickled pristine Searchspace


def _kt_patch():
    """Per worker: parse each cache file once, and build each Searchspace once (restored from a
    pickled pristine copy per run: a Searchspace keeps per-run state, such as its partial
    neighbour cache, that changes what a strategy does, so it must not be shared between runs)."""
    import kernel_tuner.interface as kti
    import kernel_tuner.util as ktu
    if getattr(ktu, "_bench_patched", False):
        return
    read, build = ktu.read_cache, kti.Searchspace

    def read_cache(path, open_cache=True):
        if path not in _KT_FILES:
            _KT_FILES[path] = read(path, open_cache=False)
        return _KT_FILES[path]

    def searchspace(tune_params, restrictions, max_threads, **options):
        key = (json.dumps(tune_params), repr(restrictions), max_threads, repr(sorted(options.items())))
        if key not in _KT_SPACES:
            _KT_SPACES[key] = pickle.dumps(build(tune_params, restrictions, max_threads, **options))
        return pickle.loads(_KT_SPACES[key])

    ktu.read_cache, ktu.close_cache, kti.Searchspace = read_cache, (lambda path: None), searchspace
    _kt_seed_latin_hypercube()
    ktu._bench_patched = True


def _kt_seed_latin_hypercube():
    """Kernel Tuner 1.5 draws Latin hypercube samples (Searchspace.get_LHS_sample, used by diff_evo's
    start, and bayes_opt's initial sample) from scipy.stats.qmc.LatinHypercube without a seed, so
    scipy takes fresh entropy from the OS and a run is not a function of the seeds set before it
    (diff_evo on convolution_milo/A100 at budget 25 gave different scores for the same seeds in two
    invocations, 2026-12-01). Here a LatinHypercube made without `rng` or `seed` gets a generator
    seeded from numpy's global RandomState, which kt_one seeds before each run."""
    import numpy as np
    import scipy.stats.qmc as qmc
    import kernel_tuner.strategies.bayes_opt as kt_bayes_opt
    base = qmc.LatinHypercube

    class SeededLatinHypercube(base):
        def __init__(self, d, **kwargs):
            if kwargs.get("rng") is None and kwargs.get("seed") is None:
                kwargs["rng"] = np.random.default_rng(np.random.randint(2**32, dtype=np.uint64))
            super().__init__(d, **kwargs)

    qmc.LatinHypercube = SeededLatinHypercube            # searchspace.py imports it when called
    kt_bayes_opt.LatinHypercube = SeededLatinHypercube   # bayes_opt.py imported it at load


def kt_one(plain, data, restrictions, strategy, budget, seed, optimum):
    import numpy as np
    import kernel_tuner
    import kernel_tuner.util as ktu
    names = data["tune_params_keys"]
    tune_params = {n: data["tune_params"][n] for n in names}
    random.seed(seed)
    np.random.seed(seed)
    start = time.time()
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kernel_tuner.tune_kernel(
            data["kernel_name"], "/* simulated */", data["problem_size"], [], tune_params,
            restrictions=list(restrictions) or None, strategy=strategy, strategy_options={"max_fevals": budget},
            cache=str(plain), simulation_mode=True, quiet=True, verbose=False, objective="time")
    seen, best = set(), None
    for r in results:
        if isinstance(r.get("__error__"), ktu.InvalidConfig):
            continue  # restricted: never run, not counted
        seen.add(tuple(r[n] for n in names))
        if "__error__" not in r and isinstance(r.get("time"), (int, float)):
            best = r["time"] if best is None else min(best, r["time"])
    return {"strategy": "kt:" + strategy, "budget": budget, "seed": seed, "ratio": optimum / best if best else 0.0,
            "best": best, "evaluations": len(seen), "seconds": time.time() - start, "source": "kernel_tuner"}


def run_kt_cell(task):
    path, plain, restrictions, strategy, budget, seeds, optimum = task
    _kt_patch()
    import kernel_tuner.util as ktu
    data = ktu.read_cache(str(plain), open_cache=False)
    rows = []
    for seed in seeds:
        try:
            rows.append(dict(kt_one(plain, data, restrictions, strategy, budget, seed, optimum), file=str(path)))
        except Exception as e:  # a strategy's own failure: reported, retried by the next invocation
            rows.append({"file": str(path), "strategy": "kt:" + strategy, "budget": budget, "seed": seed,
                         "error": f"{type(e).__name__}: {e}"})
    return rows


def run_cell(task):
    kind, payload = task
    return run_tuner_cell(payload) if kind == "tuner" else run_kt_cell(payload)


# ---------------------------------------------------------------- planning and running

def done_seeds(results_file):
    done = {}
    if results_file.exists():
        for line in results_file.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done.setdefault((r["file"], r["strategy"], r["budget"]), {})[r["seed"]] = r
    return done


def consecutive_runs(seeds, longest):
    """Splits ascending seeds into runs of consecutive numbers, each at most `longest` long."""
    runs = []
    for seed in seeds:
        if runs and runs[-1][-1] == seed - 1 and len(runs[-1]) < longest:
            runs[-1].append(seed)
        else:
            runs.append([seed])
    return runs


def plan(args, spaces, strategies, done):
    """Tasks in priority order: the tuner's random and ga (cheap, and the harness check), its other
    strategies by budget, then Kernel Tuner's by budget, bayes_opt last."""
    tuner_tasks, kt_tasks = [], []
    for space, budget in itertools.product(spaces, args.budgets):
        path = str(space["path"])
        for s in strategies:
            todo = [x for x in range(1, args.seeds + 1) if x not in done.get((path, s, budget), {})]
            for run in consecutive_runs(todo, args.tuner_chunk):  # --repeat takes consecutive seeds
                tuner_tasks.append(("tuner", (args.tuner, space["path"], space["restrictions"], s, budget, run)))
        for s in args.kt_strategies:
            n = args.bo_seeds if s in SLOW_KT else args.seeds
            todo = [x for x in range(1, n + 1) if x not in done.get((path, "kt:" + s, budget), {})]
            for chunk in range(0, len(todo), args.chunk):
                kt_tasks.append(("kt", (space["path"], space["plain"], space["restrictions"], s, budget,
                                        todo[chunk:chunk + args.chunk], space["optimum"])))
    tuner_tasks.sort(key=lambda t: (t[1][3] not in ("random", "ga"), t[1][4]))  # stable: files stay in order
    kt_tasks.sort(key=lambda t: (t[1][3] in SLOW_KT, t[1][4]))
    return tuner_tasks + kt_tasks


def results_until(pool, tasks, deadline):
    """Yields each task's rows as it finishes; stops (None) once the deadline has passed."""
    iterator = pool.imap_unordered(run_cell, tasks)
    for _ in tasks:
        while True:
            try:
                yield iterator.next(timeout=10)
                break
            except multiprocessing.TimeoutError:
                if deadline and time.time() > deadline:
                    yield None
                    return


def execute(tasks, args, results_file):
    deadline = time.time() + 60 * args.time_limit if args.time_limit else None
    finished, stopped = 0, False
    with multiprocessing.Pool(args.jobs) as pool, results_file.open("a") as out:
        for rows in results_until(pool, tasks, deadline):
            if rows is None:
                stopped = True
                break
            for row in rows:
                if "error" in row:
                    print(f"[bench] error: {label(row['file'])} {row['strategy']} budget {row['budget']} "
                          f"seed {row['seed']}: {row['error']}", file=sys.stderr)
                    continue
                out.write(json.dumps(row) + "\n")
            out.flush()
            finished += 1
            if finished % 20 == 0 or finished == len(tasks):
                print(f"[bench] {finished}/{len(tasks)} tasks", flush=True)
            if deadline and time.time() > deadline:
                stopped = True
                break
        pool.terminate()
    return stopped


def decompress(spaces, work):
    for space in spaces:
        plain = work / "plain" / space["path"].parent.name / space["path"].name.replace(".json.gz", ".json")
        if not plain.exists():
            plain.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(space["path"], "rb") as src, open(plain, "wb") as dst:
                dst.write(src.read())
        space["plain"] = plain


# ---------------------------------------------------------------- the report

def stats(values):
    values = sorted(values)
    n = len(values)
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0

    def pct(q):  # linear interpolation, as numpy's default
        pos = q * (n - 1)
        lo = math.floor(pos)
        return values[lo] + (values[min(lo + 1, n - 1)] - values[lo]) * (pos - lo)

    return {"n": n, "mean": mean, "std": std, "p5": pct(0.05), "p95": pct(0.95)}


def cell(rows, budget, wanted):
    if not rows:
        return "not run"
    s = stats([r["ratio"] for r in rows])
    text = f"{s['mean']:.3f} ± {s['std']:.3f} [{s['p5']:.2f}, {s['p95']:.2f}]"
    used = sum(r["evaluations"] for r in rows) / len(rows)
    if used < 0.99 * budget:
        text += f" (used {used:.0f})"
    if s["n"] < wanted:
        text += f" n={s['n']}"
    return text


def label(path):
    return f"{Path(path).parent.name}/{Path(path).name.replace('.json.gz', '')}"


def harness_check(spaces, done, args):
    lines = ["| file | budget | exact E[random] | tuner `random` (z) | KT random_sample (z) |", "| --- | --- | --- | --- | --- |"]
    worst, checked = 0.0, 0
    for space, budget in itertools.product(spaces, args.budgets):
        mean, sd = expected_random(space["ok_times"], space["valid"], budget)
        parts = []
        for strategy in ("random", "kt:random_sample"):
            rows = list(done.get((str(space["path"]), strategy, budget), {}).values())
            if not rows:
                parts.append("not run")
                continue
            got = sum(r["ratio"] for r in rows) / len(rows)
            z = (got - mean) / (sd / math.sqrt(len(rows))) if sd > 0 else 0.0
            if strategy == "random":
                worst, checked = max(worst, abs(z)), checked + 1
            parts.append(f"{got:.4f} ({z:+.2f})")
        lines.append(f"| {label(space['path'])} | {budget} | {mean:.4f} ± {sd:.4f} | {parts[0]} | {parts[1]} |")
    return lines, (worst if checked else None)


def timing_lines(done, names):
    lines = ["| strategy | mean seconds per run |", "| --- | --- |"]
    for s in names:
        rows = [r for (f, st, b), seeds in done.items() if st == s for r in seeds.values()]
        if rows:
            lines.append(f"| {s} | {sum(r['seconds'] for r in rows) / len(rows):.3f} |")
    return lines


def header_names(names):
    return [n + "*" if n[3:] in SLOW_KT else n for n in names]


def report(args, spaces, strategies, done, wall, stopped, command):
    import importlib.metadata as md
    names = strategies + ["kt:" + s for s in args.kt_strategies]
    wanted = {s: (args.bo_seeds if s[3:] in SLOW_KT else args.seeds) for s in names}
    core_minutes = sum(r["seconds"] for seeds in done.values() for r in seeds.values()) / 60
    check, worst = harness_check(spaces, done, args)
    verdict = "NOT RUN" if worst is None else "PASS" if worst <= 3.5 else "FAIL"
    out = ["# Search quality on recorded spaces", "",
           "Generated by `bench/search_quality.py`; do not edit by hand. Command:", "",
           "```", command, "```", "",
           f"Kernel Tuner {md.version('kernel_tuner')} (simulation mode), numpy {md.version('numpy')}, "
           f"Python {platform.python_version()}. Seeds 1..{args.seeds} (Kernel Tuner's bayes_opt: 1..{args.bo_seeds}). "
           f"Wall time of this invocation: {wall / 60:.1f} min on {args.jobs} processes"
           + (" (stopped by --time-limit; rerun the same command to complete it)" if stopped else "")
           + f"; all recorded runs (possibly from earlier invocations sharing --work): {core_minutes:.0f} "
           "process-minutes.", "",
           f"\\* Kernel Tuner's bayes_opt fits a Gaussian process per evaluation (tens of seconds per run at "
           f"budget 400), so it runs {args.bo_seeds} seeds instead of {args.seeds}.", "",
           "Score: optimum / best found (1 = the recorded optimum; 0 = no successful configuration). "
           "Cells: mean ± std [5th, 95th percentile] over seeds; `(used N)` = mean evaluations actually spent "
           "when a strategy stopped early; `n=K` = only K seeds so far.", "",
           "Budget, both sides: distinct configurations of the restricted space evaluated, recorded failures "
           "included. Kernel Tuner's simulation runner counts `max_fevals` the same way (first time a "
           "configuration is served from the cache; repeats free; restricted configurations never run nor "
           "counted; capped at the space size), so the budgets are equal. Kernel Tuner seeds: "
           "`random.seed(s)` and `numpy.random.seed(s)` before each run, and its Latin hypercube samples, which "
           "Kernel Tuner 1.5 draws without a seed, seeded from numpy's state (since 2026-12-01; so a run is a "
           "function of its seed).", "",
           "Data: AutoTuningAssociation/benchmark_hub (MIT), see shared/spaces/README.md; restrictions as listed "
           "there.", ""] + ([args.note, ""] if args.note else []) + [
           "## Harness check", "",
           f"Mean of `random` against the exact expectation of uniform sampling without replacement (failures "
           f"ranked last); z = (mean - E) / (sd / sqrt(seeds)). Largest |z| of the tuner's `random`: "
           f"{'-' if worst is None else f'{worst:.2f}'} -> **{verdict}** (threshold 3.5).", ""] + check
    out += ["", "## Mean score over all files", "", "| budget | " + " | ".join(header_names(names)) + " |",
            "| --- |" + " --- |" * len(names)]
    for budget in args.budgets:
        row = []
        for s in names:
            per_file = [done.get((str(sp["path"]), s, budget), {}) for sp in spaces]
            vals = [r["ratio"] for f in per_file for r in f.values()]
            full = all(len(f) >= wanted[s] for f in per_file)
            row.append("not run" if not vals else f"{sum(vals) / len(vals):.3f}" + ("" if full else " (partial)"))
        out.append(f"| {budget} | " + " | ".join(row) + " |")
    for space in spaces:
        out += ["", f"## {label(space['path'])}", "",
                f"{space['valid']} valid configurations ({space['absent']} absent from the file), "
                f"{len(space['ok_times'])} successful, optimum {space['optimum']:.6g} ms.", "",
                "| budget | " + " | ".join(header_names(names)) + " |", "| --- |" + " --- |" * len(names)]
        for budget in args.budgets:
            out.append(f"| {budget} | " + " | ".join(
                cell(list(done.get((str(space['path']), s, budget), {}).values()), budget, wanted[s]) for s in names) + " |")
    missing = [f"{label(sp['path'])} {s} budget {b}: {len(done.get((str(sp['path']), s, b), {}))}/{wanted[s]} seeds"
               for sp in spaces for s in names for b in args.budgets
               if len(done.get((str(sp['path']), s, b), {})) < wanted[s]]
    out += ["", "## Run time per run (one seed)", ""] + timing_lines(done, names)
    out += ["", "## Not yet run", ""] + ([f"- {m}" for m in missing] or ["Nothing: every cell has all its seeds."])
    return "\n".join(out) + "\n", verdict


# ---------------------------------------------------------------- main

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tuner", default=str(REPO / "build/tuner/adaexplore-tuner"), help="adaexplore-tuner executable")
    p.add_argument("--spaces", default=str(REPO.parent / "shared/spaces/kernel_tuner_bruteforce"))
    p.add_argument("--work", default=str(REPO / "build/search-benchmark"), help="decompressed files, results.jsonl")
    p.add_argument("--out", help="markdown report (default docs/search-benchmark.md; <work>/quick.md with --quick)")
    p.add_argument("--budgets", default="25,50,100,200,400")
    p.add_argument("--seeds", type=int, default=50)
    p.add_argument("--bo-seeds", type=int, default=10, help="seeds for Kernel Tuner's bayes_opt (slow)")
    p.add_argument("--strategies", help="tuner strategies, comma-separated (default: all registered; \"\": none)")
    p.add_argument("--kt-strategies", default=",".join(KT_STRATEGIES),
                   help="Kernel Tuner strategies, comma-separated, as its strategy_map names them (default: %(default)s)")
    p.add_argument("--files", help="only files whose path contains one of these comma-separated words")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--chunk", type=int, default=10, help="seeds per Kernel Tuner task")
    p.add_argument("--tuner-chunk", type=int, default=25, help="seeds per `replay --repeat` process")
    p.add_argument("--time-limit", type=float, default=0, help="minutes; stop starting tasks after it (0 = none)")
    p.add_argument("--report-only", action="store_true", help="write the report from results.jsonl, run nothing")
    p.add_argument("--note", help="a paragraph added to the report (e.g. which build of the tuner ran)")
    p.add_argument("--quick", action="store_true", help="smoke run: 2 files, budgets 25,100, 4 seeds, bayes_opt 1 seed")
    args = p.parse_args(argv)
    if args.quick:
        args.budgets, args.seeds, args.bo_seeds = "25,100", 4, 1
        args.files = args.files or "pnpoly,convolution_milo/A100"
        args.work = str(Path(args.work) / "quick")
        args.out = args.out or str(Path(args.work) / "quick.md")
    args.out = args.out or str(REPO / "docs/search-benchmark.md")
    args.budgets = [int(b) for b in args.budgets.split(",")]
    args.kt_strategies = [s for s in args.kt_strategies.split(",") if s]
    return args


def main(argv):
    args = parse_args(argv)
    shown = [a for i, a in enumerate(argv) if a != "--note" and (i == 0 or argv[i - 1] != "--note")]
    command = "python3 bench/search_quality.py " + shlex.join(shown)  # the note is in the report itself
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    files = sorted(Path(args.spaces).glob("*/*.json.gz"))
    if args.files:
        files = [f for f in files if any(w in str(f) for w in args.files.split(","))]
    strategies = ([s for s in args.strategies.split(",") if s] if args.strategies is not None
                  else tuner_strategies(args.tuner))
    if strategies is None:
        sys.exit(f"cannot list the strategies of {args.tuner}: give --strategies or a working --tuner")
    start = time.time()
    spaces = [load_space(f) for f in files]
    for s in spaces:
        print(f"[bench] {label(s['path'])}: {s['valid']} valid, {s['absent']} absent, optimum {s['optimum']:.6g} ms")
    decompress(spaces, work)
    results_file = work / "results.jsonl"
    stopped = False
    if not args.report_only:
        tasks = plan(args, spaces, strategies, done_seeds(results_file))
        print(f"[bench] {len(tasks)} tasks to run", flush=True)
        stopped = execute(tasks, args, results_file)
    text, verdict = report(args, spaces, strategies, done_seeds(results_file), time.time() - start, stopped, command)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(f"[bench] harness check {verdict}; report {args.out}; {(time.time() - start) / 60:.1f} min")
    return 1 if verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
