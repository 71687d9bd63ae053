#!/usr/bin/env python3
"""Evaluations to reach within 2 % of the best known time, per problem size and size-transfer arm.

Written for `tools/device-run.sh sizemodel`: the gemm example tuned at four problem sizes with
`adaexplore-tuner tune --size-transfer winners` and with `--size-transfer model` (a later size
starts from the other sizes' best configurations, or from those the performance model predicts
best at that size), several seeds each, fresh results each.

  python3 bench/size_model.py DIR [--within 0.02] [--out SUMMARY] [--json SUMMARY.json]

DIR holds the runs' results files, named <arm>-seed<seed>.<size>.jsonl: `tune --results
DIR/<arm>-seed<seed>.jsonl` of a spec with sizes writes one file per size, <size> its slug
(M512_N512_K512). Other files in DIR are left out.

Per size, the best known time is the lowest objective_ms of a successful evaluation (status ok or
slow) in any file of that size: over every arm and seed of DIR. Per file, the evaluations are its
distinct configurations in record order (a later record of a configuration already recorded is a
re-measurement, not an evaluation; the verification rounds' records after the size's own tuning
count, as they are evaluations at that size too), and "to within" is the 1-based position of the
first successful one whose time is at most (1 + within) x the size's best known time; a run that
never gets there counts as infinite (">N", N its evaluations). Per size and arm: each seed's count
and their median (of an even count, the mean of the two middle ones: infinite when either is).

The summary is a Markdown table, to stdout and to --out; --json writes the same as JSON:
{"within", "sizes": [{"size", "best_ms", "arms": {arm: {"seeds": {seed: count|null},
"evaluations": {seed: n}, "median": number|null}}}]}, null for infinite. Exit 1 when DIR holds no
such file, naming DIR.
"""
import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path

NAME = re.compile(r"^(?P<arm>[A-Za-z0-9_]+)-seed(?P<seed>[0-9]+)\.(?P<size>[A-Za-z0-9_]+)\.jsonl$")
SUCCESS = ("ok", "slow")


def read_run(path):
    """(volume of the size or None, [objective_ms or None per distinct configuration, in order])."""
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: empty: not a results file")
    header = json.loads(lines[0])
    size = header.get("key_parts", {}).get("size", {})
    volume = math.prod(size.values()) if size else None
    seen, times = set(), []
    for n, line in enumerate(lines[1:], 2):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not JSON ({e}): a half-written last line? trim it") from e
        config = json.dumps(record.get("config"), sort_keys=True)
        if config in seen:
            continue
        seen.add(config)
        ok = record.get("status") in SUCCESS and isinstance(record.get("objective_ms"), (int, float))
        times.append(float(record["objective_ms"]) if ok else None)
    return volume, times


def to_within(times, best, within):
    """1-based position of the first time within (1 + within) x best, else math.inf."""
    for i, t in enumerate(times, 1):
        if t is not None and t <= best * (1 + within):
            return i
    return math.inf


def summarize(directory, within):
    runs = {}  # size -> {"volume", "files": [(arm, seed, times)]}
    for path in sorted(Path(directory).iterdir()):
        m = NAME.match(path.name)
        if not m:
            continue
        volume, times = read_run(path)
        entry = runs.setdefault(m["size"], {"volume": volume, "files": []})
        entry["files"].append((m["arm"], int(m["seed"]), times))
    sizes = []
    for size, entry in sorted(runs.items(), key=lambda kv: (kv[1]["volume"] or 0, kv[0])):
        ok = [t for _, _, times in entry["files"] for t in times if t is not None]
        best = min(ok) if ok else None
        arms = {}
        for arm, seed, times in entry["files"]:
            a = arms.setdefault(arm, {"seeds": {}, "evaluations": {}})
            a["seeds"][seed] = to_within(times, best, within) if best is not None else math.inf
            a["evaluations"][seed] = len(times)
        for a in arms.values():
            a["median"] = statistics.median(a["seeds"].values())
        sizes.append({"size": size, "best_ms": best, "arms": dict(sorted(arms.items()))})
    return sizes


def count_text(value, evaluations=None):
    if value == math.inf:
        return f">{evaluations}" if evaluations is not None else "not reached"
    return f"{value:g}"


def table(sizes, within):
    lines = [f"Evaluations to reach within {100 * within:g} % of the best known time of each size "
             "(best over every run here), per seed and their median:", "",
             "| size | best known ms | arm | per seed | median |", "|---|---|---|---|---|"]
    for s in sizes:
        best = "-" if s["best_ms"] is None else f"{s['best_ms']:.5g}"
        for arm, a in s["arms"].items():
            seeds = ", ".join(f"{seed}: {count_text(v, a['evaluations'][seed])}" for seed, v in sorted(a["seeds"].items()))
            lines.append(f"| {s['size']} | {best} | {arm} | {seeds} | {count_text(a['median'])} |")
    return "\n".join(lines) + "\n"


def as_json(sizes, within):
    def num(v):
        return None if v == math.inf else v
    return {"within": within,
            "sizes": [{"size": s["size"], "best_ms": s["best_ms"],
                       "arms": {arm: {"seeds": {str(k): num(v) for k, v in sorted(a["seeds"].items())},
                                      "evaluations": {str(k): v for k, v in sorted(a["evaluations"].items())},
                                      "median": num(a["median"])}
                                for arm, a in s["arms"].items()}} for s in sizes]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", help="folder of the runs' results files, <arm>-seed<seed>.<size>.jsonl")
    p.add_argument("--within", type=float, default=0.02, help="share above the best known time (default 0.02: 2 %%)")
    p.add_argument("--out", help="also write the Markdown summary here")
    p.add_argument("--json", help="write the summary as JSON here")
    a = p.parse_args(argv)
    if not Path(a.dir).is_dir():
        print(f"size_model.py: {a.dir}: no such folder", file=sys.stderr)
        return 1
    sizes = summarize(a.dir, a.within)
    if not sizes:
        print(f"size_model.py: {a.dir}: no results file named <arm>-seed<seed>.<size>.jsonl", file=sys.stderr)
        return 1
    text = table(sizes, a.within)
    sys.stdout.write(text)
    if a.out:
        Path(a.out).write_text(text)
    if a.json:
        Path(a.json).write_text(json.dumps(as_json(sizes, a.within), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
