#!/usr/bin/env python3
"""Trims a results file (JSON Lines, tuner/src/store/results.hpp) to what a replay and the knowledge base
read: per record its index, config, label, status, objective_ms, resources (ptxas figures),
the failure's message (first 600 characters) and extra's error_name, figures and limits; the header
line as it is. Used for the recorded spaces committed under bench/size_transfer/ and tests/data/.

  python3 tools/trim-results.py IN.jsonl OUT.jsonl
"""
import json
import sys

KEEP = ("index", "config", "label", "status", "objective_ms", "resources")
EXTRA = ("error_name", "figures", "limits")


def main(src, dst):
    lines = open(src).read().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        if not line.strip():
            continue
        r = json.loads(line)
        t = {k: r[k] for k in KEEP if k in r}
        if r.get("status") not in ("ok", "slow") and r.get("message"):
            t["message"] = r["message"][:600]
        extra = {k: r["extra"][k] for k in EXTRA if k in r.get("extra", {})}
        if extra:
            t["extra"] = extra
        out.append(json.dumps(t, separators=(",", ":"), sort_keys=True))
    open(dst, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
