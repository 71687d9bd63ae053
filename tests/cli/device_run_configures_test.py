#!/usr/bin/env python3
"""Every example configure that tools/device-run.sh runs configures here, in DEFAULTS mode.

tools/device-run.sh configures the examples with their own cache variables (-DGEMM_SIZES=...,
-DGEMM_TUNING_BUDGET=...) before tuning them on a GPU. When an example changes (gemm's launch
shape became written over its size names M, N and K), such a line can stop configuring, and the
GPU call that runs it is lost (2026-12-06: `-DGEMM_SIZES=` in the mpi and report modes). This test
takes each `cmake -S examples/<example> ...` line of the script, keeps the example's own -D options
(not CMAKE_* nor ADAEXPLORE_*, which the GPU machine sets), replaces ${VAR:-default} by its default,
and configures each distinct (example, options) with ADAEXPLORE_MODE=DEFAULTS (a line with no
options of its example's own is the example as the other tests configure it, and is left out): the module then
checks the spec, the template and a compile of the defaults without a GPU, and tunes nothing.
A failure names the script's line.

  python3 tests/cli/device_run_configures_test.py <repository> <adaexplore-tuner> <work folder>
"""
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO, TUNER, WORK = (Path(a).resolve() for a in sys.argv[1:4])
DEFAULTED = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:-([^}]*)\}")


def configures():
    """(line number, example, own -D options) of each example configure in tools/device-run.sh."""
    found = {}
    for n, line in enumerate((REPO / "tools" / "device-run.sh").read_text().splitlines(), 1):
        m = re.search(r"\bcmake -S examples/([a-z_]+) ", line)
        if not m or line.lstrip().startswith("#") or "$ex" in line[:m.end()]:
            continue
        words = shlex.split(DEFAULTED.sub(lambda d: d.group(1), line[m.start():].split(" && ")[0]))
        own = tuple(w for w in words if w.startswith("-D") and not re.match(r"-D(CMAKE|ADAEXPLORE)_", w))
        if own:
            found.setdefault((m.group(1), own), n)
    return sorted((n, ex, own) for (ex, own), n in found.items())


def main():
    cases = configures()
    if not cases:
        print("no example configure with the example's own options found in tools/device-run.sh: the parser is stale")
        return 1
    failed = 0
    for i, (n, example, own) in enumerate(cases):
        build = WORK / f"{example}-{i}"
        cmd = ["cmake", "-S", str(REPO / "examples" / example), "-B", str(build), "-DADAEXPLORE_MODE=DEFAULTS",
               f"-DADAEXPLORE_TUNER_EXECUTABLE={TUNER}", "-DCMAKE_CUDA_ARCHITECTURES=90", *own]
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        print(f"tools/device-run.sh:{n}: examples/{example} {' '.join(own)}: "
              f"{'configures' if r.returncode == 0 else 'FAILS'}")
        if r.returncode != 0:
            failed += 1
            print(r.stdout[-3000:] + r.stderr[-3000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
