#!/usr/bin/env python3
"""Failure-learning benchmark: what the knowledge base saves on spaces where many configurations fail.

The same search, `adaexplore`, is replayed with its knowledge base on (the default) and off
(`--strategy-options '{"knowledge_base": false}'`: no filtering of known-infeasible candidates,
no ranking down of likely failures, no `probe` operator), for every space, budget and seed,
through `adaexplore-tuner replay --repeat N --json TRACE`. From the traces, per run:
  wasted      evaluations whose recorded status is a failure: compile_error, resource_limit,
              launch_error, crash, wrong_result, timeout. `invalid` is not counted: constraints
              are known upfront and the search never proposes a configuration violating one; an
              `invalid` in a replay means a valid configuration the recording lacks (reported).
  ratio       recorded optimum / best found within the budget (1 = the optimum; 0 = no success).
Per (space, budget), over the seeds: median and interquartile range of `wasted` with the knowledge
base on and off, the reduction 1 - median(on) / median(off) (and the same with means, which the
small integer counts make steadier), the median ratio on and off, and
P(on > off): the probability that a run with the knowledge base finds a better configuration than
one without (ties count half; 0.5 = no difference), with the two-sided p-value of the
Mann-Whitney U test (normal approximation).

Budgets (default 25, 50, 100): the range of a build-time tuning (the examples tune with 60 and
120), where every failed compile or run is minutes of a build. Failures matter most there: at 25
the start design (a Latin hypercube of 8 points) is a large share of the budget and nothing can
be learned before it is spent; at 100 a space of a few hundred configurations
(the host space: 180) is half evaluated and the remaining failures are forced.

Target: reduction >= 50% and the best found no worse. "No worse" is decided on the
medians: median ratio(on) >= median ratio(off) - --tolerance (default 0.005, half a percent of the
optimum). Seeds: 100 by default. With 25, one build's median best found on the gemm space at budget 50
read 0.801 (on) against 0.890 (off); with 100 the same build reads 0.916 against 0.890. P(on > off)
is the steadier figure.

Spaces. Each is one argument; the defaults are added unless --no-default-spaces:
  --cache FILE[:C1;C2...]   a Kernel Tuner cache file; constraints after ':' separated by ';'
                            (default: shared/spaces/README.md's restrictions for the file's folder)
  --results FILE[:SPEC]     a results file of `adaexplore-tuner tune` (an exhaustive recording);
                            SPEC, the tuning spec it was recorded with, defaults to the spec.json
                            (or the one *.json spec naming the file's kernel) in the file's folder or
                            the folder above
Defaults: the recorded spaces under --spaces whose valid configurations fail in at least
--min-failure-share of cases (convolution on RTX 2080 Ti and RTX 3090, pnpoly on RTX 3090), and
every bench/failure_space/**/results/*.jsonl. Before the runs, each space is replayed whole once
(`random`, unlimited budget) to count its configurations, failures per status and absent ones.

Reproducible: seeds 1..--seeds for every cell, the tuner is deterministic per seed, so the same
tuner build and files give the same table. Traces and the raw rows go to --work.

Usage:
  python3 bench/failure_learning.py --tuner build/tuner/adaexplore-tuner
  python3 bench/failure_learning.py --tuner ... --results gemm_h200.jsonl:build/_adaexplore/gemm/spec.json
  python3 bench/failure_learning.py --tuner ... --quick          # smoke run: budgets 25,50, 5 seeds
Requirements: Python 3.8+, standard library only.
"""

import argparse
import datetime
import glob
import gzip
import hashlib
import json
import math
import multiprocessing
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_quality import RESTRICTIONS  # noqa: E402  (the recorded files' restrictions, one table)

SUCCESS = {"ok", "slow"}
FAILURES = ["compile_error", "resource_limit", "launch_error", "crash", "wrong_result", "timeout"]
MODES = {"on": {}, "off": {"knowledge_base": False}}
UNLIMITED = 10 ** 9  # budget of the census run: the whole space
MARKER = "<!-- Everything below this line is written by hand and kept when the script rewrites the file. -->"


# ---------------------------------------------------------------- spaces

def find_spec(results):
    """The tuning spec of a results file: the *.json file (spec.json first) in the file's folder, then
    the folder above, whose "name" is the file's kernel and which has "parameters"."""
    with open(results) as f:
        kernel = json.loads(f.readline()).get("kernel", "")
    for folder in (results.parent, results.parent.parent):
        candidates = sorted(folder.glob("*.json"), key=lambda c: (c.name != "spec.json", c.name))
        for candidate in candidates:
            try:
                spec = json.loads(candidate.read_text())
            except (ValueError, OSError):
                continue
            if isinstance(spec, dict) and spec.get("name") == kernel and "parameters" in spec:
                return candidate
    sys.exit(f"{results}: no tuning spec of kernel '{kernel}' (a *.json with that \"name\" and \"parameters\") in "
             f"{results.parent} or {results.parent.parent}; give it as --results {results}:SPEC")


def cache_space(argument):
    path, _, constraints = argument.partition(":")
    path = Path(path)
    if not path.is_file():
        sys.exit(f"--cache {argument}: no such file")
    if constraints:
        restrictions = [c for c in constraints.split(";") if c.strip()]
    elif path.parent.name in RESTRICTIONS:
        restrictions = RESTRICTIONS[path.parent.name]
    else:
        sys.exit(f"--cache {argument}: no known restrictions for folder '{path.parent.name}'; give them as "
                 f"--cache {path}:C1;C2 (an empty list: --cache {path}:;)")
    name = f"{path.parent.name}/{path.name.replace('.json.gz', '').replace('.json', '')}"
    argv = ["--cache", str(path)]
    for r in restrictions:
        argv += ["--constraint", r]
    return {"name": name, "kind": "Kernel Tuner cache", "file": str(path), "argv": argv}


def results_space(argument):
    path, _, spec = argument.partition(":")
    path = Path(path)
    if not path.is_file():
        sys.exit(f"--results {argument}: no such file")
    spec = Path(spec) if spec else find_spec(path)
    if not spec.is_file():
        sys.exit(f"--results {argument}: spec {spec}: no such file")
    # bench/failure_space/host/results/x.jsonl -> failure_space/host/x; elsewhere <folder>/<file>
    try:
        parts = path.resolve().relative_to(REPO / "bench").with_suffix("").parts
        name = "/".join(p for p in parts if p != "results")
    except ValueError:
        name = f"{path.resolve().parent.name}/{path.stem}"
    return {"name": name, "kind": "results file", "file": str(path), "spec": str(spec),
            "argv": ["--results", str(path), "--spec", str(spec)]}


def failure_share(path):
    """Failures among the records of a Kernel Tuner cache file (a quick count, before replaying)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        records = json.load(f)["cache"].values()
    failed = 0
    for r in records:
        value = r.get("time")
        failed += "__error__" in r or not isinstance(value, (int, float)) or value >= 1e19
    return failed / max(len(records), 1)


def default_spaces(args):
    spaces = []
    for path in sorted(Path(args.spaces).glob("*/*.json.gz")):
        if path.parent.name in RESTRICTIONS and failure_share(str(path)) >= args.min_failure_share:
            spaces.append(cache_space(str(path)))
    for path in sorted(glob.glob(str(REPO / "bench/failure_space/**/results/*.jsonl"), recursive=True)):
        spaces.append(results_space(path))
    return spaces


# ---------------------------------------------------------------- runs

def replay(tuner, space, strategy, budget, seed, repeat, options, trace, extra=()):
    """`adaexplore-tuner replay` (with `extra` arguments, e.g. --in-flight N): its runs from the trace and its stderr."""
    argv = [tuner, "replay"] + space["argv"] + ["--strategy", strategy, "--budget", str(budget), "--seed", str(seed),
                                                "--repeat", str(repeat), "--strategy-options", json.dumps(options),
                                                "--json", str(trace)] + list(extra)
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    with open(trace) as f:
        data = json.load(f)
    return data["runs"] if "runs" in data else [data], proc.stderr


def census(task):
    """The whole space, replayed once: status counts, absent configurations, the optimum."""
    tuner, space, work = task
    runs, stderr = replay(tuner, space, "random", UNLIMITED, 1, 1, {}, Path(work) / f"census-{slug(space['name'])}.json")
    run = runs[0]
    counts = {s: 0 for s in FAILURES + ["ok", "slow", "invalid"]}
    for e in run["evaluations"]:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    return dict(space, valid=len(run["evaluations"]), counts=counts, optimum=run["optimum_ms"], warnings=warnings)


def run_cell(task):
    """One replay process: every seed of one (space, budget, knowledge base on/off)."""
    tuner, space, budget, mode, seeds, work, extra = task
    trace = Path(work) / "traces" / f"{slug(space['name'])}-b{budget}-kb_{mode}.json"
    trace.parent.mkdir(parents=True, exist_ok=True)
    runs, _ = replay(tuner, space, "adaexplore", budget, 1, seeds, {**extra, **MODES[mode]}, trace)
    rows = []
    for r in runs:
        statuses = [e["status"] for e in r["evaluations"]]
        per_status = {s: statuses.count(s) for s in FAILURES + ["invalid"]}
        early = sum(st in FAILURES for st in statuses[:BLIND])  # proposed before any outcome
        wasted = sum(per_status[s] for s in FAILURES)
        counted = sum(n for s, n in r["counts"].items() if s not in SUCCESS and s != "invalid")
        if counted != wasted:  # the trace and the summary line must agree
            raise RuntimeError(f"{trace}: seed {r['seed']}: {wasted} failures in the trace, {counted} in counts")
        rows.append({"space": space["name"], "budget": budget, "mode": mode, "seed": r["seed"],
                     "evaluated": r["evaluated"], "wasted": wasted, "wasted_blind": early,
                     "invalid": per_status["invalid"],
                     "per_status": per_status, "ratio": r["ratio"], "best_ms": r["best_ms"]})
    return rows


# The replay's first request: `adaexplore-tuner replay` asks the strategy for 8 configurations at a
# time (replay_tuning, TuneOptions::batch), so the first 8 evaluations are proposed before any
# outcome is known. They are adaexplore's start design (8 Latin hypercube points; before 2026-12-01 (space-filling start of 8)
# budget/6 points, 8 to 16, of which they were the first half). With the knowledge base on, only
# what is declared before compiling (the gemm recording's threads limit) can steer them.
BLIND = 8


def slug(name):
    return name.replace("/", "_")


# ---------------------------------------------------------------- statistics

def quartiles(values):
    values = sorted(values)
    if len(values) == 1:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")  # linear interpolation, as numpy's default
    return q[0], q[2]


def superiority(a, b):
    """P(a > b) for one draw from each, ties counting half, and the two-sided p-value of the
    Mann-Whitney U test of "no difference" (normal approximation with the tie correction)."""
    n1, n2 = len(a), len(b)
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    n = n1 + n2
    ties = sum(t ** 3 - t for t in (list(a + b).count(v) for v in set(a + b)))
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    p = 1.0 if variance <= 0 else math.erfc(abs(u - n1 * n2 / 2) / math.sqrt(variance) / math.sqrt(2))
    return u / (n1 * n2), p


def summarise(rows, tolerance):
    on = [r for r in rows if r["mode"] == "on"]
    off = [r for r in rows if r["mode"] == "off"]
    s = {}
    for mode, rs in (("on", on), ("off", off)):
        wasted = [r["wasted"] for r in rs]
        ratio = [r["ratio"] for r in rs]
        s[mode] = {"n": len(rs), "wasted_median": statistics.median(wasted), "wasted_iqr": quartiles(wasted),
                   "wasted_mean": statistics.fmean(wasted), "ratio_median": statistics.median(ratio),
                   "ratio_iqr": quartiles(ratio), "invalid": sum(r["invalid"] for r in rs),
                   "evaluated": statistics.fmean(r["evaluated"] for r in rs),
                   "blind": statistics.fmean(r["wasted_blind"] for r in rs),
                   "blind_median": statistics.median(r["wasted_blind"] for r in rs),
                   "per_status": {st: statistics.fmean(r["per_status"][st] for r in rs) for st in FAILURES}}
    off_median, off_mean = s["off"]["wasted_median"], s["off"]["wasted_mean"]
    s["reduction"] = None if off_median == 0 else 1 - s["on"]["wasted_median"] / off_median
    s["reduction_mean"] = None if off_mean == 0 else 1 - s["on"]["wasted_mean"] / off_mean
    s["better"], s["better_p"] = superiority([r["ratio"] for r in on], [r["ratio"] for r in off])
    s["no_worse"] = s["on"]["ratio_median"] >= s["off"]["ratio_median"] - tolerance
    s["holds"] = s["reduction"] is not None and s["reduction"] >= 0.5 and s["no_worse"]
    return s


# ---------------------------------------------------------------- the report

def overall_line(summaries, complete):
    """All cells together: the mean wasted per run, summed over the cells, on and off, and the same
    without the first BLIND evaluations (proposed before any outcome, so out of any learning's
    reach). A summary for reading, not the target, which is per cell."""
    cells = [s for k, s in summaries.items() if k[0] in complete]
    if not cells:
        return ""
    on = sum(s["on"]["wasted_mean"] for s in cells)
    off = sum(s["off"]["wasted_mean"] for s in cells)
    on_late = on - sum(s["on"]["blind"] for s in cells)
    off_late = off - sum(s["off"]["blind"] for s in cells)
    def reduction(a, b):
        return pct(None if b == 0 else 1 - a / b)
    return (f"All {len(cells)} cells together (a summary, not the target, which is per cell): the mean wasted "
            f"evaluations per run, summed over the cells, {on:.1f} with the knowledge base and {off:.1f} without "
            f"({reduction(on, off)} fewer); after the first {BLIND} evaluations of each run (proposed before any "
            f"outcome) {on_late:.1f} against {off_late:.1f} ({reduction(on_late, off_late)} fewer).")


def pct(x):
    return "n/a" if x is None else f"{100 * x:.0f}%"


def num(x):
    return f"{x:g}" if float(x).is_integer() else f"{x:.1f}"


def wasted_cell(m, budget):
    lo, hi = m["wasted_iqr"]
    used = f" (used {m['evaluated']:.1f})" if m["evaluated"] < budget else ""
    return f"{num(m['wasted_median'])} [{num(lo)}, {num(hi)}]{used}"


def ratio_cell(m):
    lo, hi = m["ratio_iqr"]
    return f"{m['ratio_median']:.3f} [{lo:.3f}, {hi:.3f}]"


def forced_failures(space, budget):
    """Failures no strategy avoids when it spends the whole budget: the evaluations beyond the space's
    successes. (A search that stops once it knows every configuration left fails spends less.)"""
    successes = space["valid"] - space["counts"]["invalid"] - sum(space["counts"][f] for f in FAILURES)
    return max(0, min(budget, space["valid"]) - successes)


def out_of_reach(s, space, budget):
    """The largest reduction a search that spends the whole budget could reach, when below 50%."""
    forced = forced_failures(space, budget)
    off = s["off"]["wasted_median"]
    best = 1 - forced / off if off else None
    return best if best is not None and best < 0.5 else None


def blind_bound(s):
    """The largest reduction of the median reachable when below 50%, given what the first BLIND
    evaluations (proposed before any outcome) waste: every run wastes at least that many, so the
    median of all its failures is at least their median."""
    off = s["off"]["wasted_median"]
    best = 1 - s["on"]["blind_median"] / off if off else None
    return best if best is not None and best < 0.5 else None


def target_notes(unreachable, blind_limited):
    """The headline's bracket: how many missed cells no search could make hold, and why."""
    notes = []
    if unreachable:
        notes.append(f"in {unreachable} of the others, 50% needs the search to stop before its budget: spending the "
                     "whole budget forces more failures than half of what the search without the knowledge base wastes")
    if blind_limited:
        notes.append(f"in {blind_limited} of the others, the first {BLIND} evaluations, proposed before any outcome, "
                     "waste a median of more than half of what the search without the knowledge base wastes in all")
    return f" ({'; '.join(notes)})." if notes else "."


def verdict(s, space, budget):
    if space["counts"]["invalid"]:
        return f"not judged: recording incomplete ({space['counts']['invalid']} configurations absent)"
    if s["reduction"] is None:
        return "n/a (no failures without the KB)"
    parts = ["**holds**" if s["holds"] else "**misses**"]
    if s["reduction"] < 0.5:
        parts.append(f"reduction {pct(s['reduction'])} < 50%")
        reach = out_of_reach(s, space, budget)
        if reach is not None:
            parts.append(f"spending the whole budget forces {forced_failures(space, budget)} failures: "
                         f"at most {pct(reach)} unless the search stops early")
        blind = blind_bound(s)
        if blind is not None:
            parts.append(f"the first {BLIND} evaluations, proposed before any outcome, waste a median of "
                         f"{num(s['on']['blind_median'])}: at most {pct(blind)}")
    if not s["no_worse"]:
        parts.append("best found worse")
    return ": ".join([parts[0], ", ".join(parts[1:])]) if len(parts) > 1 else parts[0]


def census_lines(spaces):
    lines = ["| space | source | valid configurations | failing (share) | failures by status | absent (replayed as invalid) | optimum (ms) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for sp in spaces:
        c = sp["counts"]
        failing = sum(c[s] for s in FAILURES)
        by = ", ".join(f"{s} {c[s]}" for s in FAILURES if c[s]) or "none"
        source = f"`{rel(sp['file'])}`" + (f" with `{rel(sp['spec'])}`" if "spec" in sp else "")
        optimum = "none" if sp["optimum"] is None else f"{sp['optimum']:.6g}"
        lines.append(f"| {sp['name']} | {source} | {sp['valid']} | {failing} ({100 * failing / max(sp['valid'], 1):.1f}%) | "
                     f"{by} | {c['invalid']} | {optimum} |")
    return lines


def rel(path):
    """A path as the docs write it: relative to the repository, ../ for its siblings (shared/)."""
    path = Path(path).resolve()
    for base, prefix in ((REPO, ""), (REPO.parent, "../")):
        try:
            return prefix + str(path.relative_to(base))
        except ValueError:
            continue
    return str(path)


def tuner_build(tuner):
    digest = hashlib.sha256(Path(tuner).read_bytes()).hexdigest()[:16]
    version = subprocess.run([tuner, "--version"], capture_output=True, text=True).stdout.strip()
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no", "tuner/"],
                           capture_output=True, text=True).stdout.strip()
    tree = f"commit {head}" + (" with uncommitted changes under tuner/" if dirty else "")
    return f"`{tuner}` (version {version or '?'}, sha256 {digest}…), built from {tree}"


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()}: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def report(args, spaces, rows, command, wall):
    by_cell = {}
    for r in rows:
        by_cell.setdefault((r["space"], r["budget"]), []).append(r)
    summaries = {k: summarise(v, args.tolerance) for k, v in by_cell.items()}
    complete = {sp["name"] for sp in spaces if not sp["counts"]["invalid"]}
    held = sum(s["holds"] for k, s in summaries.items() if k[0] in complete)
    judged = sum(s["reduction"] is not None for k, s in summaries.items() if k[0] in complete)
    by_name = {sp["name"]: sp for sp in spaces}
    missed = [(k, s) for k, s in summaries.items()
              if k[0] in complete and s["reduction"] is not None and s["reduction"] < 0.5]
    unreachable = sum(out_of_reach(s, by_name[k[0]], k[1]) is not None for k, s in missed)
    blind_limited = sum(blind_bound(s) is not None for _, s in missed)
    out = ["# Failure-learning benchmark: the knowledge base on and off", "",
           "Generated by `bench/failure_learning.py` (the method is in its docstring); the tables are rewritten by the "
           "command below, the discussion at the end is kept. Command:", "",
           "```", command, "```", "",
           f"Date {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}; machine {machine()}; "
           f"tuner {tuner_build(args.tuner)}. Seeds 1..{args.seeds} per cell; wall time {wall / 60:.1f} min.", "",
           "Strategy `adaexplore` with its knowledge base on (default options) and off "
           "(`--strategy-options '{\"knowledge_base\": false}'`), replayed on recorded spaces "
           "(`adaexplore-tuner replay`). *Wasted*: evaluations whose recorded status is a failure "
           f"({', '.join(FAILURES)}); `invalid` is not counted (constraints are known upfront). *Ratio*: "
           "optimum / best found (1 = the recorded optimum). Cells: median [25th, 75th percentile] over the seeds. "
           "*Random (expected)*: the failures uniform random sampling would meet on average, budget x failing "
           "share, for scale; *forced*: the failures no search avoids when it spends the whole budget, the budget "
           "minus the space's successes (when that is positive). *Reduction*: 1 - median wasted (on) / median wasted (off); in brackets the same with "
           "means. `(used N)`: mean evaluations spent when runs stopped before the budget (the "
           "knowledge base knew every configuration left to fail: `space exhausted`). "
           "*P(on > off)*: probability that a run with the knowledge base finds a better configuration than one "
           "without (ties half; 0.5 = no difference), with the two-sided p-value of the Mann-Whitney U test. *Target*: reduction >= 50% and median ratio (on) >= median "
           f"ratio (off) - {args.tolerance:g}.", "",
           f"**Target held in {held} of {judged} cells**" + target_notes(unreachable, blind_limited),
           "", overall_line(summaries, complete), "",
           "## Spaces", "",
           "Each space replayed whole once (`random`, unlimited budget) under its constraints.", ""]
    out += census_lines(spaces)
    warnings = [w for sp in spaces for w in sp["warnings"]]
    if warnings:
        out += ["", "Warnings of the replay:", ""] + [f"- `{w}`" for w in warnings]
    out += ["", "## Wasted evaluations and best found", "",
            "| space | budget | wasted, KB on | wasted, KB off | random (expected) | forced | reduction (means) | ratio, KB on | ratio, KB off | P(on > off) | target |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for sp in spaces:
        for budget in args.budgets:
            s = summaries.get((sp["name"], budget))
            if not s:
                continue
            b = f"{budget}" + (f" (space: {sp['valid']})" if sp["valid"] < budget else "")
            failing = sum(sp["counts"][f] for f in FAILURES)
            random_expected = min(budget, sp["valid"]) * failing / max(sp["valid"], 1)
            out.append(f"| {sp['name']} | {b} | {wasted_cell(s['on'], min(budget, sp['valid']))} | {wasted_cell(s['off'], min(budget, sp['valid']))} | {random_expected:.1f} | {forced_failures(sp, budget)} | "
                       f"{pct(s['reduction'])} ({pct(s['reduction_mean'])}) | {ratio_cell(s['on'])} | "
                       f"{ratio_cell(s['off'])} | {s['better']:.2f} (p {s['better_p']:.2f}) | {verdict(s, sp, budget)} |")
    out += ["", "## Which failures the knowledge base removes", "",
            "Mean evaluations per run with each failure status, KB on / off; then the mean wasted in the first "
            f"{BLIND} evaluations (the replay's first request, proposed before any outcome, so before anything can "
            "be learned; with the knowledge base on only what is declared before compiling steers them) and in the "
            "rest.", "",
            "| space | budget | " + " | ".join(FAILURES) + f" | first {BLIND} | rest |",
            "| --- | --- |" + " --- |" * (len(FAILURES) + 2)]
    for sp in spaces:
        for budget in args.budgets:
            s = summaries.get((sp["name"], budget))
            if not s:
                continue
            out.append(f"| {sp['name']} | {budget} | " + " | ".join(
                f"{s['on']['per_status'][st]:.1f} / {s['off']['per_status'][st]:.1f}"
                if s["on"]["per_status"][st] or s["off"]["per_status"][st] else "-" for st in FAILURES) +
                f" | {s['on']['blind']:.1f} / {s['off']['blind']:.1f} | "
                f"{s['on']['wasted_mean'] - s['on']['blind']:.1f} / "
                f"{s['off']['wasted_mean'] - s['off']['blind']:.1f} |")
    invalid = [(k, s) for k, s in summaries.items() if s["on"]["invalid"] or s["off"]["invalid"]]
    if invalid:
        out += ["", "Replays that met `invalid` (a valid configuration the recording lacks; they use budget but are "
                "not counted as wasted): " + "; ".join(f"{k[0]} budget {k[1]}: on {s['on']['invalid']}, off "
                                                       f"{s['off']['invalid']}" for k, s in sorted(invalid)) + "."]
    return "\n".join(out) + "\n", held, judged


def kept_discussion(path):
    if path.exists():
        text = path.read_text()
        if MARKER in text:
            return text[text.index(MARKER):]
    return MARKER + "\n\n## Discussion\n\n(to be written)\n"


# ---------------------------------------------------------------- main

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tuner", default=str(REPO / "build/tuner/adaexplore-tuner"), help="adaexplore-tuner executable")
    p.add_argument("--spaces", default=str(REPO.parent / "shared/spaces/kernel_tuner_bruteforce"),
                   help="folder of recorded Kernel Tuner spaces (<kernel>/<gpu>.json.gz) for the default set")
    p.add_argument("--cache", action="append", default=[], metavar="FILE[:C1;C2]", help="add a Kernel Tuner cache file")
    p.add_argument("--results", action="append", default=[], metavar="FILE[:SPEC]", help="add a results file of `tune`")
    p.add_argument("--no-default-spaces", action="store_true", help="only the spaces given with --cache/--results")
    p.add_argument("--min-failure-share", type=float, default=0.05,
                   help="default set: recorded spaces whose records fail at least this often (default 0.05)")
    p.add_argument("--budgets", default="25,50,100", help="evaluations per run, comma-separated (default 25,50,100)")
    p.add_argument("--seeds", type=int, default=100, help="seeds 1..N per cell (default 100; at least 20: medians of 25 seeds were seen to move by 0.1 of the optimum)")
    p.add_argument("--tolerance", type=float, default=0.005,
                   help="best found is no worse when median ratio (on) >= median ratio (off) - this (default 0.005)")
    p.add_argument("--work", default=str(REPO / "build/failure-learning"), help="traces and rows.jsonl")
    p.add_argument("--out", help="markdown report (default docs/failure-learning-benchmark.md; <work>/quick.md with --quick)")
    p.add_argument("--jobs", type=int, default=2, help="replay processes at once")
    p.add_argument("--strategy-options", type=json.loads, default={}, metavar="JSON",
                   help="adaexplore options for both sides, e.g. '{\"max_failure_probability\": 1}' "
                        "(the off side adds knowledge_base false); default {}: the strategy's defaults")
    p.add_argument("--quick", action="store_true", help="smoke run: budgets 25,50, 5 seeds, report in --work")
    args = p.parse_args(argv)
    if args.quick:
        args.budgets, args.seeds = "25,50", 5
        args.out = args.out or str(Path(args.work) / "quick.md")
    args.out = args.out or str(REPO / "docs/failure-learning-benchmark.md")
    args.budgets = [int(b) for b in args.budgets.split(",")]
    if args.seeds < 1 or any(b < 1 for b in args.budgets):
        p.error("--seeds and every budget must be at least 1")
    if not Path(args.tuner).is_file():
        p.error(f"--tuner {args.tuner}: no such file (build the target adaexplore-tuner)")
    return args


def main(argv):
    args = parse_args(argv)
    command = "python3 bench/failure_learning.py " + shlex.join(argv)
    start = time.time()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    spaces = [] if args.no_default_spaces else default_spaces(args)
    spaces += [cache_space(c) for c in args.cache] + [results_space(r) for r in args.results]
    if not spaces:
        sys.exit("no spaces: give --cache or --results, or drop --no-default-spaces")
    names = [s["name"] for s in spaces]
    if len(set(names)) != len(names):
        sys.exit(f"two spaces share a name ({', '.join(sorted(n for n in names if names.count(n) > 1))}); rename a file")
    with multiprocessing.Pool(args.jobs) as pool:
        spaces = pool.map(census, [(args.tuner, s, str(work)) for s in spaces])
        for s in spaces:
            print(f"[bench] {s['name']}: {s['valid']} valid, {sum(s['counts'][f] for f in FAILURES)} failing, "
                  f"{s['counts']['invalid']} absent", flush=True)
        tasks = [(args.tuner, s, b, m, args.seeds, str(work), args.strategy_options)
                 for s in spaces for b in args.budgets for m in MODES]
        rows = []
        for i, cell_rows in enumerate(pool.imap(run_cell, tasks), start=1):  # imap: rows in task order
            rows += cell_rows
            print(f"[bench] {i}/{len(tasks)} cells", flush=True)
    with open(work / "rows.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    text, held, judged = report(args, spaces, rows, command, time.time() - start)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n" + kept_discussion(out))
    print(f"[bench] target held in {held} of {judged} cells; report {out}; {(time.time() - start) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
