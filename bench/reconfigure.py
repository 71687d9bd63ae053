#!/usr/bin/env python3
"""Reconfigure benchmark: what AdaExplore adds to a `cmake` reconfigure with nothing changed.

A project with three tuned kernels is configured once (that tunes them), then reconfigured
--runs times (default 11) with nothing changed: each reconfigure runs the module's work for every
kernel (spec written if changed, `adaexplore-tuner tune` answering from the tuning database,
header rewritten only if changed), which is what a developer pays on every `cmake` run. The same
project without the adaexplore_tune_kernel() calls (WITH_TUNING=OFF: the module is still loaded)
is reconfigured in the same rounds, interleaved, as the baseline; a third tree in
ADAEXPLORE_MODE=DEFAULTS shows the cost of the module's calls without the database lookup. The
module's share is the per-round difference tuned - baseline; the report gives its median and
spread (min, quartiles, max), and the wall time of each variant. Every timed reconfigure of the
tuned tree is checked to be a cache hit ("(0 new)" for each kernel): a benchmark that measured a
retuning would be wrong.

Projects:
  default  tests/cmake/projects/host_kernels: three kernels of the host backend (runs anywhere).
  --cuda   the examples vector_add and gemm (CUDA) and host_matmul (host) in one project
           (needs nvcc and a GPU; the first configure tunes them with small budgets, --budget;
           --sizes 4: vector_add and gemm at four problem sizes each, SIZES, and host_matmul at four).

Usage:
  python3 bench/reconfigure.py --tuner build/tuner/adaexplore-tuner [--runs 11] [--work DIR]
  python3 bench/reconfigure.py --tuner ... --cuda [--cuda-arch 90] [--budget 20]
Output: a table on stdout and DIR/reconfigure.json (every run's seconds). Times are wall-clock
seconds of the whole `cmake -S <src> -B <build>` process (configure and generate).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CUDA_PROJECT = """# Written by bench/reconfigure.py: the examples vector_add, gemm and host_matmul in one project.
cmake_minimum_required(VERSION 3.20)
project(adaexplore_reconfigure_bench LANGUAGES CXX CUDA)
option(WITH_TUNING "Add the examples (OFF: AdaExplore loaded, no kernel)" ON)
add_subdirectory("{repo}" adaexplore EXCLUDE_FROM_ALL)
if(WITH_TUNING)
  add_subdirectory("{repo}/examples/vector_add" vector_add)
  add_subdirectory("{repo}/examples/gemm" gemm)
  add_subdirectory("{repo}/examples/host_matmul" host_matmul)
endif()
"""


def run(command, log=None):
    """Runs `command`; returns (seconds, output). A failure stops the benchmark with its output."""
    start = time.perf_counter()
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if log:
        Path(log).write_text(p.stdout)
    if p.returncode != 0:
        sys.exit(f"failed (exit code {p.returncode}): {' '.join(map(str, command))}\n{p.stdout[-4000:]}")
    return seconds, p.stdout


def spread(values):
    q = statistics.quantiles(values, n=4) if len(values) >= 2 else [values[0]] * 3
    return {"median": statistics.median(values), "min": min(values), "q1": q[0], "q3": q[2], "max": max(values)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tuner", required=True, help="adaexplore-tuner executable (ADAEXPLORE_TUNER_EXECUTABLE)")
    ap.add_argument("--runs", type=int, default=11, help="reconfigures per variant (default 11)")
    ap.add_argument("--work", default="/tmp/adaexplore-reconfigure", help="work folder (emptied first)")
    ap.add_argument("--cuda", action="store_true", help="the CUDA examples (GPU machine) instead of host_kernels")
    ap.add_argument("--cuda-arch", default="90", help="--cuda: CMAKE_CUDA_ARCHITECTURES (default 90)")
    ap.add_argument("--budget", type=int, default=20, help="--cuda: tuning budget of vector_add and gemm (default 20)")
    ap.add_argument("--sizes", type=int, choices=(0, 4), default=0,
                    help="--cuda: 4 = every kernel at four problem sizes (GEMM_SIZES, VECTOR_ADD_SIZES, HOST_MATMUL_SIZES)")
    ap.add_argument("--generator", default="Ninja" if shutil.which("ninja") else None, help="CMake generator")
    a = ap.parse_args()
    tuner = Path(a.tuner).resolve()
    work = Path(a.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    common = [f"-DADAEXPLORE_TUNER_EXECUTABLE={tuner}", "-DCMAKE_BUILD_TYPE=Release"]
    if a.generator:
        common += ["-G", a.generator]
    if a.cuda:
        source = work / "src"
        source.mkdir()
        (source / "CMakeLists.txt").write_text(CUDA_PROJECT.format(repo=REPO.as_posix()))
        common += [f"-DCMAKE_CUDA_ARCHITECTURES={a.cuda_arch}", f"-DGEMM_TUNING_BUDGET={a.budget}",
                   f"-DVECTOR_ADD_TUNING_BUDGET={a.budget}"]
        kernels = ["vector_add", "gemm", "host_matmul"]
        if a.sizes:
            common += ["-DGEMM_SIZES=" + ";".join(f"M={n} N={n} K={n}" for n in (4096, 2048, 1024, 512)),
                       "-DVECTOR_ADD_SIZES=" + ";".join(f"N={1 << e}" for e in (27, 24, 22, 20)),
                       "-DHOST_MATMUL_SIZES=" + ";".join(f"N={n}" for n in (256, 192, 128, 64))]
    else:
        source = REPO / "tests/cmake/projects/host_kernels"
        common += [f"-DADAEXPLORE_SOURCE_DIR={REPO}"]
        kernels = ["saxpy", "scale", "add"]
    variants = {"tuned": [], "defaults": ["-DADAEXPLORE_MODE=DEFAULTS"], "baseline": ["-DWITH_TUNING=OFF"]}

    for name, options in variants.items():
        seconds, _ = run(["cmake", "-S", source, "-B", work / name] + common + options, work / f"{name}-first.log")
        print(f"first configure, {name}: {seconds:.1f} s", flush=True)

    times = {name: [] for name in variants}
    # One "done" line per kernel, or per problem size of a kernel with sizes ("gemm [M=512 ...]"),
    # every one "(0 new)".
    done = re.compile(r"\[adaexplore\] (\w+)(?: \[[^\]]*\])?: done \([a-z ]+\), \d+ evaluations \((\d+) new\)")
    for r in range(a.runs):
        order = list(variants)
        order = order[r % len(order):] + order[:r % len(order)]  # rotate, so no variant always runs first
        for name in order:
            seconds, output = run(["cmake", "-S", source, "-B", work / name], work / f"{name}-{r}.log")
            lines = done.findall(output)
            if name == "tuned" and (sorted({k for k, _ in lines}) != sorted(kernels) or any(n != "0" for _, n in lines)):
                sys.exit(f"reconfigure {r} of the tuned tree was not a cache hit for {kernels}:\n{output[-4000:]}")
            times[name].append(seconds)
    share = [t - b for t, b in zip(times["tuned"], times["baseline"])]
    defaults_share = [t - b for t, b in zip(times["defaults"], times["baseline"])]

    report = {"project": "cuda examples" if a.cuda else "host_kernels", "kernels": kernels, "runs": a.runs,
              "seconds": times, "module_share": share, "defaults_share": defaults_share,
              "machine": {"cpus": os.cpu_count(), "load_before": os.getloadavg()},
              "cmake": subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout.split("\n")[0]}
    (work / "reconfigure.json").write_text(json.dumps(report, indent=2))

    print(f"\n{report['project']}: {len(kernels)} tuned kernels ({', '.join(kernels)}), {a.runs} reconfigures each, "
          f"{report['cmake']}")
    print(f"{'seconds':<42} {'median':>7} {'min':>7} {'q1':>7} {'q3':>7} {'max':>7}")
    rows = [("reconfigure, tuned (cache hit)", times["tuned"]),
            ("reconfigure, ADAEXPLORE_MODE=DEFAULTS", times["defaults"]),
            ("reconfigure, without the calls (baseline)", times["baseline"]),
            ("module's share: tuned - baseline", share),
            ("DEFAULTS mode's share: defaults - baseline", defaults_share)]
    for label, values in rows:
        s = spread(values)
        print(f"{label:<42} {s['median']:7.3f} {s['min']:7.3f} {s['q1']:7.3f} {s['q3']:7.3f} {s['max']:7.3f}")
    print(f"\nper kernel (module's share / {len(kernels)}): {statistics.median(share) / len(kernels):.3f} s; "
          f"raw runs in {work / 'reconfigure.json'}")


if __name__ == "__main__":
    main()
