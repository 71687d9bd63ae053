#!/usr/bin/env python3
"""Side-by-side throughput benchmark (issue 6): AdaExplore and Kernel Tuner tuning the gemm example
on the same GPU, space and budget, in one run.

What is tuned. examples/gemm: C = alpha * A * B + beta * C, float, row-major, M = N = K = 4096,
alpha 1.5, beta -0.5; the kernel kernels/sgemm_kernel.cuh; 8 parameters (8192 configurations),
constraints BLOCK_M % THREAD_M == 0 and BLOCK_N % THREAD_N == 0, all read from the spec file the
CMake module writes (build/_adaexplore/kernels/gemm/spec.json), so both tools get the same space.
The example declares SIZES (three sizes, each its own tuning): AdaExplore tunes the spec at one
size, 4096, written without its "sizes" beside it as spec-4096.json (one_size_spec).
  - AdaExplore: `adaexplore-tuner tune --spec <spec> --budget B --time-limit T --fresh --results
    <out>/adaexplore.jsonl --header <out>/adaexplore.hpp` (default strategy, parallel compiles,
    gemm_bench.cu with the harness, as modules in the tuner's long-lived runner, near-ties
    re-measured at the end: the tune process's whole wall time counts), with a fresh compile cache
    of its own (ADAEXPLORE_CACHE_DIR: cubins, the benchmark and the harness objects are all built
    in the tuning, as in a user's first tuning; the benchmark's compile.cmd is kept as
    <tag>-benchmark-compile.cmd).
  - Kernel Tuner 1.5.0, backend "cupy" (NVRTC), bench/throughput/gemm_kt.cu (the same header,
    included unchanged), strategy genetic_algorithm (--kt-strategy), strategy_options max_fevals =
    B and time_limit = T, default 7 iterations per configuration, objective "time" (mean ms),
    verification against a NumPy float64 reference computed once (answer + a verify function
    with the benchmark's own per-element tolerance 4 sqrt(K + 2) u (|alpha| sum|a b| + |beta c|),
    u = 2^-24). Its space has one extra parameter, block_size_x (the thread count), tied to the
    others by the restriction block_size_x * THREAD_M * THREAD_N == BLOCK_M * BLOCK_N (= (BLOCK_M /
    THREAD_M) * (BLOCK_N / THREAD_N), exact divisions here), so the configurations are the same; Kernel Tuner then drops those with more than the device's
    1024 threads per block before the search (AdaExplore finds them in its static check, after
    ptxas, and counts them as resource_limit evaluations). The CuPy kernel cache is a fresh
    folder (CUPY_CACHE_DIR), so every configuration is compiled.
  The tools run one after the other (AdaExplore first), each alone on the GPU.

Figures (summary.json, summary.md; the Markdown table is also printed):
  - wall_s: seconds of the whole tuning. AdaExplore: the `tune` process, start to exit. Kernel
    Tuner: the tune_kernel() call (Python start, imports, data and the reference are before it,
    reported as kt setup_s and not counted).
  - evaluations: AdaExplore: outcomes in the results file (every status, the defaults included).
    Kernel Tuner: configurations compiled and benchmarked in this run (results holding
    compile_time; cache repeats excluded), failures included.
  - evaluations_per_minute = evaluations / (wall_s / 60).
  - timing_share_pct: share of wall time the GPU spent timing kernels. AdaExplore: sum over the
    outcomes of stage_ms "warmup" + "measure" (the harness's timed loops, L2 flushes and C resets
    included) / wall; when the results carry no such stages, null, with the "run" stage (the
    whole benchmark process: setup, host reference, verification, timing) as an upper bound in
    timing_share_upper_pct. Kernel Tuner: sum of benchmark_time (its timed iterations) / wall; its
    compile_time and verification_time shares are given beside it.
  - best_ms: the tool's own objective of its winner (AdaExplore: harness median, ms; Kernel
    Tuner: mean of 7 runs, ms; they differ in method, so winners are compared by re-measuring).
  - remeasured winners: both winners measured again interleaved by `adaexplore-tuner measure`
    (the tuner's own evaluation path for the spec: the kernel unit in the runner, --repeats rounds
    in rotated order); remeasured_ms = the median over rounds of the harness's median time_ms
    (ms), each round's value in remeasure.json.
  - time_to_2pct_s / evals_to_2pct: when each tool's trace first reached within 2 % of the best
    configuration known. The best known is the faster remeasured winner W*. A tool's threshold is
    1.02 x its own objective of W* when it evaluated W*, else 1.02 x its own best x
    (remeasured(W*) / remeasured(its winner)). Time: seconds since the tuning started when that
    evaluation's outcome was recorded (AdaExplore: the results file is polled every 50 ms while
    `tune` runs; Kernel Tuner: each result's timestamp).
  - with --before: AdaExplore also tunes with compiler.unit "program" (the whole benchmark per
    configuration, the pipeline before the kernel unit; spec-program.json beside the spec), first,
    into adaexplore-program.*: its figures in a third column.
  Targets (the throughput issue of 2026-12-01): AdaExplore >= 300 evaluations per minute over the
  whole tuning, >= 8x Kernel Tuner's genetic_algorithm, timing kernels >= 50 % of its wall time,
  and its winner's remeasured time <= Kernel Tuner's.

Kernel Tuner 1.5.0 with CuPy 14: its CuPy backend stops at start (kernel_tuner/backends/cupy.py
builds uuid.UUID(bytes=props["uuid"]) and CuPy 14's device properties give the UUID in another
form: "ValueError: bytes is not a 16-char string"). cmd_kt wraps that call (kt_uuid_shim): the
UUID is only a label of Kernel Tuner's environment record; the versions of Kernel Tuner and CuPy
and whether the shim was needed are in kt-results.json and the summary.

Files under --out: adaexplore.jsonl, adaexplore.hpp, adaexplore-tune.log, adaexplore-arrivals.json
(and adaexplore-program.* with --before), kt-results.json, kt.log, remeasure.json,
remeasure-measure.json, remeasure.log, summary.json, summary.md.

Commands:
  python3 bench/throughput.py run --spec build/_adaexplore/kernels/gemm/spec.json \
      --tuner build/tuner/adaexplore-tuner --out out/throughput [--budget 100] [--time-limit 150] [--before]
  python3 bench/throughput.py run --dry-run --spec ... --tuner ... --out ...   # no GPU: the spec at one
      size, the tuner's check of it and of the options passed to tune and measure; nothing tuned
  python3 bench/throughput.py check-kt-source [--all]   # no GPU: nvcc -c of gemm_kt.cu per config
  python3 bench/throughput.py check-kt-space --spec ...  # no GPU: Kernel Tuner's search space
  python3 bench/throughput.py summarize --out DIR       # the figures again from the files
`run` needs a GPU, nvcc, CuPy and kernel_tuner==1.5.0 (bench/requirements.txt;
tools/device-run.sh installs it from .whl/). tools/device-run.sh throughput runs it.
"""

import argparse
import builtins
import datetime as dt
import itertools
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GEMM_DIR = REPO / "examples" / "gemm"
KT_DIR = REPO / "bench" / "throughput"
KT_SOURCE = KT_DIR / "gemm_kt.cu"
KT_KERNEL_NAME = "tiled_sgemm::sgemm_kernel<KtPolicy>"
M = N = K = 4096
ALPHA, BETA = 1.5, -0.5
WITHIN = 0.02  # "within 2 % of the best configuration known"


# ---------------------------------------------------------------------------------------------
# The space (from the spec file) and the thread count
# ---------------------------------------------------------------------------------------------

def load_spec(path):
    spec = json.loads(Path(path).read_text())
    params = {p["name"]: p["values"] for p in spec["parameters"]}
    if set(params) != {"BLOCK_M", "BLOCK_N", "BLOCK_K", "THREAD_M", "THREAD_N", "VECTOR_LOADS", "PAD", "STAGES"}:
        sys.exit(f"{path}: not the gemm example's spec (parameters {sorted(params)}); give "
                 "<build>/_adaexplore/kernels/gemm/spec.json of a configure of examples/gemm")
    return spec, params


def threads(c):
    """Threads per block of configuration c: the spec's launch.threads_per_block of the example."""
    return (c["BLOCK_M"] // c["THREAD_M"]) * (c["BLOCK_N"] // c["THREAD_N"])


def satisfies(c, constraints):
    return all(eval(expr, {}, dict(c)) for expr in constraints)  # the spec's own constraint strings


def all_configs(params, constraints):
    names = list(params)
    for values in itertools.product(*params.values()):
        c = dict(zip(names, values))
        if satisfies(c, constraints):
            yield c


def label(c):
    return " ".join(f"{k}={c[k]}" for k in sorted(c) if k != "block_size_x")


def key(c):
    return tuple(sorted((k, v) for k, v in c.items() if k != "block_size_x"))


# ---------------------------------------------------------------------------------------------
# Kernel Tuner side
# ---------------------------------------------------------------------------------------------

def cuda_root():
    for cand in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME")):
        if cand and (Path(cand) / "include" / "cuda_runtime.h").exists():
            return Path(cand)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return Path(nvcc).resolve().parent.parent


def kt_compiler_option_sets():
    """NVRTC options to try, in order (gemm_kt.cu's header says why each is there)."""
    base = ["--std=c++17", "-default-device", f"-I{GEMM_DIR}", f"-I{KT_DIR / 'nvrtc_include'}"]
    cuda = cuda_root() / "include"
    return [base + [f"-I{cuda}", f"-I{cuda / 'cccl'}"], base + [f"-I{cuda}"], base]


def kt_tune_params(params, constraints):
    tune = dict(params)
    tune["block_size_x"] = sorted({threads(c) for c in all_configs(params, constraints)})
    # Kernel Tuner 1.5.0's restriction parser turns "block_size_x == (BLOCK_M // THREAD_M) * (BLOCK_N //
    # THREAD_N)" (and the same with /) into a wrong constraint (15 of 256 configurations of the four
    # tile parameters kept, 9 of them with the wrong thread count; check-kt-space shows it). The
    # product form is the same condition here, since the constraints make both divisions exact.
    restrictions = list(constraints) + ["block_size_x * THREAD_M * THREAD_N == BLOCK_M * BLOCK_N"]
    return tune, restrictions


def kt_problem(seed):
    """Inputs, the float64 reference of the checked run and the per-element tolerance."""
    import numpy as np
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    c = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    a64, b64, c64 = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
    ref = ALPHA * (a64 @ b64) + BETA * c64
    u = 2.0 ** -24
    tol = 4.0 * math.sqrt(K + 2.0) * u * (abs(ALPHA) * (np.abs(a64) @ np.abs(b64)) + abs(BETA) * np.abs(c64))
    return a, b, c, ref, tol


def kt_verify_factory(ref, tol, failures):
    import numpy as np

    def verify(answer, result_host, atol=None):
        got = result_host[9].astype(np.float64)
        bad = ~np.isfinite(got) | (np.abs(got - ref) > tol)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            failures.append({"mismatches": int(bad.sum()), "first_index": i,
                             "got": float(got.flat[i]), "expected": float(ref.flat[i])})
            return False
        return True
    return verify


def kt_preflight(defaults, params, constraints):
    """Compiles the defaults with CuPy's NVRTC (the backend's call) and returns the options that work."""
    import cupy as cp
    tune, _ = kt_tune_params(params, constraints)
    c = dict(defaults, block_size_x=threads(defaults))
    prefix = "".join(f"#define {k} {v}\n" for k, v in c.items())
    logs = []
    for opts in kt_compiler_option_sets():
        try:
            mod = cp.RawModule(code=prefix + KT_SOURCE.read_text(), options=tuple(opts),
                               name_expressions=[KT_KERNEL_NAME])
            mod.get_function(KT_KERNEL_NAME)
            return opts, logs
        except Exception as e:  # CompileException: try the next option set
            logs.append({"options": opts, "error": str(e)[:2000]})
    sys.exit("Kernel Tuner port: bench/throughput/gemm_kt.cu does not compile with CuPy's NVRTC with any "
             "option set:\n" + json.dumps(logs, indent=1))


def kt_uuid_shim():
    """Makes kernel_tuner.backends.cupy's uuid.UUID(bytes=...) accept CuPy 14's device UUID (see the
    module docstring). Returns a note for the record: whether it was needed."""
    import uuid as uuid_module
    from kernel_tuner.backends import cupy as kt_cupy

    class Shim:
        def __getattr__(self, name):
            return getattr(uuid_module, name)

        @staticmethod
        def UUID(*args, bytes=None, **kwargs):
            if bytes is None:
                return uuid_module.UUID(*args, **kwargs)
            raw = bytes.encode("latin-1") if isinstance(bytes, str) else builtins.bytes(bytes)
            try:
                return uuid_module.UUID(bytes=raw)
            except ValueError:
                Shim.used = f"device UUID of {len(raw)} bytes ({type(bytes).__name__}) from CuPy"
                return uuid_module.UUID(bytes=raw[:16].ljust(16, b"\0"))

    Shim.used = ""
    kt_cupy.uuid = Shim()
    return Shim


def cmd_kt(a):
    """One Kernel Tuner tuning (a process of its own); writes <out>/kt-results.json."""
    t_start = time.perf_counter()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="cupy-cache-"))
    os.environ["CUPY_CACHE_DIR"] = str(cache)  # before cupy is imported: every configuration compiles
    import numpy as np
    import kernel_tuner
    import cupy
    shim = kt_uuid_shim()
    spec, params = load_spec(a.spec)
    constraints = spec.get("constraints", [])
    defaults = spec["defaults"]
    opts, preflight_failures = kt_preflight(defaults, params, constraints)
    t_import = time.perf_counter()
    A, B, C, ref, tol = kt_problem(a.seed)
    failures = []
    verify = kt_verify_factory(ref, tol, failures)
    answer = [None] * 11
    answer[9] = ref.astype(np.float32)
    args = [np.int32(M), np.int32(N), np.int32(K), np.float32(ALPHA), A, np.int32(K), B, np.int32(N),
            np.float32(BETA), C, np.int32(N)]
    tune, restrictions = kt_tune_params(params, constraints)
    t_setup = time.perf_counter()
    np.random.seed(a.seed)
    import random
    random.seed(a.seed)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    error = None
    results, env = [], {}
    cachefile = out / "kt-cache.json"  # Kernel Tuner appends each configuration as it finishes
    cachefile.unlink(missing_ok=True)
    try:
        results, env = kernel_tuner.tune_kernel(
            KT_KERNEL_NAME, KT_SOURCE.read_text(), (N, M), args, tune,
            grid_div_x=["BLOCK_N"], grid_div_y=["BLOCK_M"], block_size_names=["block_size_x"],
            restrictions=restrictions, answer=answer, verify=verify, lang="cupy",
            compiler_options=opts, strategy=a.kt_strategy,
            strategy_options={"max_fevals": a.budget, "time_limit": a.time_limit},
            iterations=7, verbose=False, quiet=False, cache=str(cachefile))
    except Exception as e:  # an error (a failed verification, say) aborts Kernel Tuner's tuning
        error = f"{type(e).__name__}: {e}"
        try:  # what it finished before, from its cache file
            from kernel_tuner.util import read_cache
            results = list(read_cache(str(cachefile), open_cache=False)["cache"].values())
        except Exception as e2:
            error += f" (and its cache file could not be read: {e2})"
    wall = time.perf_counter() - t0
    rows = []
    for r in results:
        err = r.get("__error__")
        t = r.get("time")
        ok = err is None and isinstance(t, (int, float)) and math.isfinite(t)
        ts = r.get("timestamp")
        elapsed = (dt.datetime.fromisoformat(ts) - started).total_seconds() if ts else None
        rows.append({"config": {k: int(r[k]) for k in tune},
                     "status": "ok" if ok else (type(err).__name__ if err is not None else str(t)),
                     "time_ms": float(t) if ok else None,
                     "fresh": "compile_time" in r,
                     **{f: float(r[f]) for f in ("compile_time", "verification_time", "benchmark_time",
                                                  "framework_time", "strategy_time") if f in r},
                     "elapsed_s": elapsed})
    from importlib import metadata
    doc = {"tool": "kernel_tuner", "version": metadata.version("kernel_tuner"),
           "cupy_version": getattr(cupy, "__version__", "?"), "uuid_shim": shim.used or "not needed",
           "strategy": a.kt_strategy, "budget": a.budget, "time_limit_s": a.time_limit, "seed": a.seed,
           "compiler_options": opts, "preflight_failures": preflight_failures,
           "import_and_preflight_s": t_import - t_start, "setup_s": t_setup - t_import, "wall_s": wall,
           "space_size_before_max_threads": sum(1 for _ in all_configs(params, constraints)),
           "space_size_kt": sum(1 for c in all_configs(params, constraints) if threads(c) <= 1024),
           "error": error, "verification_failures": failures,
           "device": str(env.get("device_name", "")) if isinstance(env, dict) else "", "results": rows}
    (out / "kt-results.json").write_text(json.dumps(doc, indent=1))
    shutil.rmtree(cache, ignore_errors=True)
    print(f"kernel_tuner: {sum(r['fresh'] for r in rows)} evaluations in {wall:.1f} s"
          + (f"; stopped by {error}" if error else ""))
    return 1 if error else 0


def cmd_check_kt_space(a):
    """No GPU: builds Kernel Tuner's search space (max_threads 1024) and compares it with the spec's."""
    from kernel_tuner.searchspace import Searchspace
    spec, params = load_spec(a.spec)
    constraints = spec.get("constraints", [])
    tune, restrictions = kt_tune_params(params, constraints)
    ss = Searchspace(tune, restrictions, 1024, block_size_names=["block_size_x"])
    ours = {key(c) for c in all_configs(params, constraints) if threads(c) <= 1024}
    theirs = set()
    for t in ss.list:
        c = dict(zip(tune, t))
        assert c["block_size_x"] == threads(c), c
        theirs.add(key(c))
    print(f"spec space: {sum(1 for _ in all_configs(params, constraints))} configurations; "
          f"<= 1024 threads: {len(ours)}; Kernel Tuner's space: {ss.size}; equal: {ours == theirs}")
    return 0 if ours == theirs else 1


def cmd_check_kt_source(a):
    """No GPU: nvcc -arch=sm_90 -c of gemm_kt.cu with the macros Kernel Tuner defines, as -D flags."""
    from concurrent.futures import ThreadPoolExecutor
    spec_params = None
    if a.spec:
        spec, spec_params = load_spec(a.spec)
        constraints = spec.get("constraints", [])
    if spec_params is None:  # the example's space (CMakeLists.txt), for a check without a configure
        spec_params = {"BLOCK_M": [16, 32, 64, 128], "BLOCK_N": [16, 32, 64, 128], "BLOCK_K": [8, 16, 32, 64],
                       "THREAD_M": [1, 2, 4, 8], "THREAD_N": [1, 2, 4, 8], "VECTOR_LOADS": [0, 1],
                       "PAD": [0, 1], "STAGES": [1, 2]}
        constraints = ["BLOCK_M % THREAD_M == 0", "BLOCK_N % THREAD_N == 0"]
    configs = [c for c in all_configs(spec_params, constraints) if threads(c) <= 1024]
    if not a.all:  # every value of every parameter, and the corners, in a small sample
        import random
        rnd = random.Random(1)
        configs = rnd.sample(configs, min(a.sample, len(configs)))
    nvcc = shutil.which("nvcc") or str(cuda_root() / "bin" / "nvcc")
    tmp = Path(tempfile.mkdtemp(prefix="kt-src-"))

    def one(i_c):
        i, c = i_c
        d = [f"-D{k}={v}" for k, v in dict(c, block_size_x=threads(c), grid_size_x=1, grid_size_y=1,
                                           grid_size_z=1, kernel_tuner=1).items()]
        cmd = [nvcc, "-std=c++17", "-arch=sm_90", "-c", f"-I{GEMM_DIR}", *d, str(KT_SOURCE),
               "-o", str(tmp / f"{i}.o")]
        p = subprocess.run(cmd, capture_output=True, text=True)
        # > 48 KiB of static shared memory fails in ptxas for real, as in the tuner (not a port error)
        too_much_smem = "too much shared data" in p.stderr
        return c, p.returncode, too_much_smem, p.stderr[-600:]

    bad = []
    smem = 0
    with ThreadPoolExecutor(a.jobs) as pool:
        for c, rc, too_much, err in pool.map(one, enumerate(configs)):
            if rc and too_much:
                smem += 1
            elif rc:
                bad.append((label(c), err))
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"nvcc -arch=sm_90 -c gemm_kt.cu: {len(configs)} configurations, {len(configs) - len(bad) - smem} "
          f"compiled, {smem} over 48 KiB static shared memory (ptxas, expected), {len(bad)} failed")
    for lab, err in bad[:5]:
        print(f"  FAILED {lab}:\n{err}")
    return 1 if bad else 0


# ---------------------------------------------------------------------------------------------
# AdaExplore side
# ---------------------------------------------------------------------------------------------

def program_spec(spec_path):
    """The spec with compiler.unit "program" (the whole benchmark per configuration, the pipeline
    before the kernel unit), written beside it (its paths are relative to its folder)."""
    spec = json.loads(Path(spec_path).read_text())
    spec.setdefault("compiler", {})["unit"] = "program"
    spec["work_dir"] = str(Path(spec.get("work_dir", "gemm.work")).with_name("gemm-program.work"))
    path = Path(spec_path).with_name("spec-program.json")
    path.write_text(json.dumps(spec, indent=1))
    return str(path)


def one_size_spec(spec_path):
    """The spec at the benchmark's one size, M = N = K = 4096 (what Kernel Tuner's side measures):
    the gemm example declares SIZES (its spec's "sizes": one tuning, and one results file, per
    size), so a spec with "sizes" is written again without them, with run.args --size 4096, beside
    it as spec-4096.json (its paths are relative to its folder). A spec without sizes is used as
    it is."""
    spec = json.loads(Path(spec_path).read_text())
    if "sizes" not in spec:
        return spec_path
    names, values = spec["sizes"]["names"], spec["sizes"]["values"]
    if [M, N, K] not in [[dict(zip(names, v)).get(d) for d in ("M", "N", "K")] for v in values]:
        print(f"{spec_path}: its sizes ({values}) do not include M = N = K = {M}; tuning at {M} anyway")
    del spec["sizes"]
    # The declared launch, arguments and tolerance read the size names: the values in their place.
    at = {d: str(v) for d, v in zip(("M", "N", "K"), (M, N, K)) if d in names}

    def fixed(x):
        if isinstance(x, str):
            return re.sub(r"\b(" + "|".join(at) + r")\b", lambda m: at[m.group(1)], x) if at else x
        if isinstance(x, list):
            return [fixed(v) for v in x]
        if isinstance(x, dict):
            return {k: fixed(v) for k, v in x.items()}
        return x

    for key in ("launch", "arguments", "tolerance"):
        if key in spec:
            spec[key] = fixed(spec[key])
    run = spec.setdefault("run", {})
    run["args"] = [x for x in run.get("args", []) if x != "--size"] + ["--size", str(M)]
    path = Path(spec_path).with_name(f"spec-{M}.json")
    path.write_text(json.dumps(spec, indent=1))
    return str(path)


def tune_command(a, out, tag="adaexplore", spec=None):
    results = out / f"{tag}.jsonl"
    return [a.tuner, "tune", "--spec", spec or a.spec, "--budget", str(a.budget), "--time-limit", str(a.time_limit),
            "--fresh", "--results", str(results), "--header", str(out / f"{tag}.hpp"), "--seed", str(a.seed)]


def run_adaexplore(a, out, tag="adaexplore", spec=None):
    results = out / f"{tag}.jsonl"
    for p in (results, out / f"{tag}.hpp"):
        if p.exists():
            p.unlink()
    cmd = tune_command(a, out, tag, spec)
    arrivals = []  # seconds since start at which each results line (header first) appeared
    done = threading.Event()

    def poll(t0):
        seen = 0
        while True:
            finished = done.is_set()
            try:
                n = results.read_bytes().count(b"\n")
            except FileNotFoundError:
                n = 0
            now = time.perf_counter() - t0
            arrivals.extend([now] * max(0, n - seen))
            seen = max(seen, n)
            if finished:
                return
            time.sleep(0.05)

    with open(out / f"{tag}-tune.log", "w") as log:
        log.write(shlex.join(cmd) + "\n")
        log.flush()
        # A compile cache of this tuning's own (cubins, the benchmark, the harness objects): nothing
        # is served from another tuning of this run (the "before" tuning builds the same harness
        # object) or from an earlier run; the tuning starts as a user's first one does.
        cache = Path(tempfile.mkdtemp(prefix=f"adaexplore-cache-{tag}-"))
        log.write(f"# ADAEXPLORE_CACHE_DIR={cache} (fresh for this tuning)\n")
        log.flush()
        env = dict(os.environ, ADAEXPLORE_CACHE_DIR=str(cache))
        t0 = time.perf_counter()
        poller = threading.Thread(target=poll, args=(t0,))
        poller.start()
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
        wall = time.perf_counter() - t0
        done.set()
        poller.join()
    (out / f"{tag}-arrivals.json").write_text(json.dumps({"wall_s": wall, "rc": rc, "command": cmd,
                                                           "cache": str(cache), "arrivals_s": arrivals}))
    # How the kernel unit's benchmark was built in this tuning (plain C++ or nvcc, and why), before
    # a later command of the same spec (the re-measure) writes its own.
    work = Path(json.loads(Path(spec or a.spec).read_text()).get("work_dir", ""))
    if not work.is_absolute():
        work = Path(spec or a.spec).parent / work
    if (work / "benchmark" / "compile.cmd").exists():
        shutil.copyfile(work / "benchmark" / "compile.cmd", out / f"{tag}-benchmark-compile.cmd")
    shutil.rmtree(cache, ignore_errors=True)
    print(f"{tag}: exit {rc} after {wall:.1f} s (log: {out / (tag + '-tune.log')})")
    return rc


def read_adaexplore(out, tag="adaexplore"):
    lines = [json.loads(l) for l in (out / f"{tag}.jsonl").read_text().splitlines() if l.strip()]
    meta = json.loads((out / f"{tag}-arrivals.json").read_text())
    header, outcomes = lines[0], lines[1:]
    arrivals = meta["arrivals_s"][1:]  # the first line is the results file's header
    for i, o in enumerate(outcomes):
        o["elapsed_s"] = arrivals[i] if i < len(arrivals) else meta["wall_s"]
    return header, outcomes, meta


# ---------------------------------------------------------------------------------------------
# Re-measuring both winners with AdaExplore's benchmark
# ---------------------------------------------------------------------------------------------

def measure_labels(a, winners):
    """{tool: the tuner's own label of its winner} (NAME=VALUE,... in the spec's parameter order):
    what `measure --config` takes and what its JSON names each contender by. A winner's missing
    parameters are the defaults' (the dry run's stand-in winner)."""
    spec = json.loads(Path(a.spec).read_text())
    names = [p["name"] for p in spec["parameters"]]
    return {t: ",".join(f"{n}={dict(spec['defaults'], **c)[n]}" for n in names) for t, c in winners.items()}


def measure_command(a, out, winners):
    spec = json.loads(Path(a.spec).read_text())
    names = [p["name"] for p in spec["parameters"]]
    distinct = list(dict.fromkeys(measure_labels(a, winners).values()))
    if len(distinct) < 2:  # the same winner: measured against the defaults, which `measure` needs
        distinct.append(",".join(f"{n}={int(spec['defaults'][n])}" for n in names))
    cmd = [a.tuner, "measure", "--spec", a.spec, "--rounds", str(a.repeats),
           "--json", str(out / "remeasure-measure.json")]
    for l in distinct:
        cmd += ["--config", l]
    return cmd


def remeasure(a, out, winners):
    """winners: {tool: config}. Both measured again interleaved by `adaexplore-tuner measure` (the
    tuner's own evaluation path: the kernel unit, the runner, confirm.hpp's rotated rounds),
    --repeats rounds. Returns {tool: {"config", "label", "runs_ms", "median_ms"}}; writes
    remeasure.json (and remeasure-measure.json, the command's own figures)."""
    cmd, labels = measure_command(a, out, winners), measure_labels(a, winners)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    (out / "remeasure.log").write_text(shlex.join(cmd) + "\n" + p.stdout + p.stderr)
    got = json.loads((out / "remeasure-measure.json").read_text()) if (out / "remeasure-measure.json").exists() else {}
    by_label = {c.get("label"): c for c in got.get("contenders", [])}
    doc = {}
    for t, c in winners.items():
        m = by_label.get(labels[t], {})
        doc[t] = {"config": c, "label": labels[t], "runs_ms": m.get("round_ms"), "median_ms": m.get("median_ms"),
                  "failure": m.get("failure")}
    (out / "remeasure.json").write_text(json.dumps(doc, indent=1))
    return doc


def adaexplore_figures(out, tag="adaexplore"):
    header, outcomes, meta = read_adaexplore(out, tag)
    wall = meta["wall_s"]
    ok = [o for o in outcomes if o["status"] == "ok" and o.get("objective_ms") is not None]
    stage = lambda name: sum(o.get("stage_ms", {}).get(name, 0.0) for o in outcomes)
    has_timing = any(("warmup" in o.get("stage_ms", {}) or "measure" in o.get("stage_ms", {})) for o in outcomes)
    best = min(ok, key=lambda o: o["objective_ms"]) if ok else None
    statuses = {}
    for o in outcomes:
        statuses[o["status"]] = statuses.get(o["status"], 0) + 1
    return {
        "tool": "adaexplore", "wall_s": wall, "evaluations": len(outcomes), "statuses": statuses,
        "evaluations_per_minute": len(outcomes) / (wall / 60) if wall else 0.0,
        "timing_share_pct": 100 * (stage("warmup") + stage("measure")) / 1000 / wall if has_timing and wall else None,
        "timing_share_upper_pct": 100 * stage("run") / 1000 / wall if wall else None,
        "compile_share_pct": 100 * stage("compile") / 1000 / wall if wall else None,
        "compile_note": "parallel compiles: the sum of compile times over the wall time, may exceed 100",
        "best_ms": best["objective_ms"] if best else None,
        "winner": {k: int(v) for k, v in best["config"].items()} if best else None,
        "trace": [(o["elapsed_s"], o["objective_ms"] if o in ok else None, key(o["config"])) for o in outcomes],
    }


def kt_figures(out):
    doc = json.loads((out / "kt-results.json").read_text())
    fresh = [r for r in doc["results"] if r["fresh"]]
    wall = doc["wall_s"]
    ok = [r for r in fresh if r["status"] == "ok"]
    tot = lambda f: sum(r.get(f, 0.0) for r in fresh) / 1000
    best = min(ok, key=lambda r: r["time_ms"]) if ok else None
    statuses = {}
    for r in fresh:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    return {
        "tool": "kernel_tuner", "strategy": doc["strategy"], "wall_s": wall, "evaluations": len(fresh),
        "budget": doc["budget"], "time_limit_s": doc["time_limit_s"],
        "statuses": statuses, "error": doc["error"], "setup_s": doc["setup_s"],
        "import_and_preflight_s": doc["import_and_preflight_s"], "space_size_kt": doc["space_size_kt"],
        "evaluations_per_minute": len(fresh) / (wall / 60) if wall else 0.0,
        "timing_share_pct": 100 * tot("benchmark_time") / wall if wall else None,
        "compile_share_pct": 100 * tot("compile_time") / wall if wall else None,
        "verification_share_pct": 100 * tot("verification_time") / wall if wall else None,
        "best_ms": best["time_ms"] if best else None,
        "winner": {k: v for k, v in best["config"].items() if k != "block_size_x"} if best else None,
        "version": doc.get("version"), "cupy_version": doc.get("cupy_version"), "uuid_shim": doc.get("uuid_shim"),
        "trace": [(r["elapsed_s"], r["time_ms"], key(r["config"])) for r in fresh],
    }


def time_to_within(fig, best_key, ratio):
    """(seconds, evaluations) until the trace reached its threshold (see the module docstring)."""
    own = [ms for _, ms, k in fig["trace"] if k == best_key and ms is not None]
    threshold = (1 + WITHIN) * (min(own) if own else fig["best_ms"] * ratio)
    for i, (t, ms, _) in enumerate(fig["trace"]):
        if ms is not None and ms <= threshold:
            return t, i + 1, threshold
    return None, None, threshold


def summarize(out):
    ada, kt = adaexplore_figures(out), kt_figures(out)
    before = adaexplore_figures(out, "adaexplore-program") if (out / "adaexplore-program.jsonl").exists() else None
    rem = json.loads((out / "remeasure.json").read_text()) if (out / "remeasure.json").exists() else {}
    figs = {"adaexplore": ada, "kernel_tuner": kt}
    meds = {t: rem.get(t, {}).get("median_ms") for t in figs}
    if all(meds.values()):
        best_tool = min(meds, key=meds.get)
        best_key = key(rem[best_tool]["config"])
        for t, f in figs.items():
            ratio = meds[best_tool] / meds[t]
            f["time_to_2pct_s"], f["evals_to_2pct"], f["threshold_ms"] = time_to_within(f, best_key, ratio)
        best_label = rem[best_tool]["label"]
    else:
        best_tool, best_label = None, None
    for t, f in figs.items():
        f["remeasured_ms"] = meds[t]
        f["remeasured_runs_ms"] = rem.get(t, {}).get("runs_ms")
        f.pop("trace")
    if before:
        before.pop("trace")
    ratio = (ada["evaluations_per_minute"] / kt["evaluations_per_minute"]) if kt["evaluations_per_minute"] else None
    summary = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "kernel": "examples/gemm, M = N = K = 4096, float, alpha 1.5, beta -0.5",
        "best_known": {"tool": best_tool, "label": best_label},
        "throughput_ratio": ratio,
        "target_throughput_met": ratio is not None and ratio >= 8,
        "target_rate_met": ada["evaluations_per_minute"] >= 300,
        "target_timing_share_met": ada["timing_share_pct"] is not None and ada["timing_share_pct"] >= 50,
        "target_winner_met": (meds["adaexplore"] <= meds["kernel_tuner"]) if all(meds.values()) else None,
        "adaexplore": ada, "kernel_tuner": kt, "adaexplore_program": before,
        "kernel_tuner_version": kt.get("version"), "cupy_version": kt.get("cupy_version"),
        "kt_uuid_shim": kt.get("uuid_shim"),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    fmt = lambda v, d=1: "n/a" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))
    rows = [
        ("wall time of the tuning (s)", fmt(ada["wall_s"]), fmt(kt["wall_s"])),
        ("evaluations", fmt(ada["evaluations"]), fmt(kt["evaluations"])),
        ("evaluations per minute", fmt(ada["evaluations_per_minute"]), fmt(kt["evaluations_per_minute"])),
        ("timing kernels, % of wall", fmt(ada["timing_share_pct"]) if ada["timing_share_pct"] is not None
         else f"n/a (run stage, upper bound: {fmt(ada['timing_share_upper_pct'])})", fmt(kt["timing_share_pct"])),
        ("compiling, % of wall", fmt(ada["compile_share_pct"]) + " (parallel)", fmt(kt["compile_share_pct"])),
        ("time to within 2 % of best known (s)", fmt(ada.get("time_to_2pct_s")), fmt(kt.get("time_to_2pct_s"))),
        ("evaluations to within 2 %", fmt(ada.get("evals_to_2pct")), fmt(kt.get("evals_to_2pct"))),
        ("winner, own objective (ms)", fmt(ada["best_ms"], 3), fmt(kt["best_ms"], 3)),
        ("winner, remeasured median (ms)", fmt(meds["adaexplore"], 3), fmt(meds["kernel_tuner"], 3)),
        ("winner", label(ada["winner"]) if ada["winner"] else "n/a", label(kt["winner"]) if kt["winner"] else "n/a"),
        ("statuses", json.dumps(ada["statuses"]), json.dumps(kt["statuses"])),
    ]
    if before:
        extra = {"wall time of the tuning (s)": fmt(before["wall_s"]), "evaluations": fmt(before["evaluations"]),
                 "evaluations per minute": fmt(before["evaluations_per_minute"]),
                 "timing kernels, % of wall": fmt(before["timing_share_pct"]),
                 "compiling, % of wall": fmt(before["compile_share_pct"]) + " (parallel)",
                 "winner, own objective (ms)": fmt(before["best_ms"], 3),
                 "winner": label(before["winner"]) if before["winner"] else "n/a",
                 "statuses": json.dumps(before["statuses"])}
        md = ["| figure | AdaExplore (kernel unit) | Kernel Tuner (" + kt["strategy"] + ") | AdaExplore, whole program per "
              "configuration (before) |", "| --- | --- | --- | --- |"]
        md += [f"| {a_} | {b_} | {c_} | {extra.get(a_, '')} |" for a_, b_, c_ in rows]
    else:
        md = ["| figure | AdaExplore | Kernel Tuner (" + kt["strategy"] + ") |", "| --- | --- | --- |"]
        md += [f"| {a_} | {b_} | {c_} |" for a_, b_, c_ in rows]
    md.append("")
    md.append(f"Budget {kt['budget']} evaluations each, time limit {kt['time_limit_s']:.0f} s each; "
              f"a tool with fewer evaluations than the budget stopped at the time limit (or, Kernel Tuner, "
              f"on an error).")
    met = lambda k: "met" if summary[k] else "NOT met"
    md.append(f"Throughput ratio (AdaExplore / Kernel Tuner evaluations per minute): {fmt(ratio, 2)} "
              f"(target >= 8: {met('target_throughput_met')}); AdaExplore >= 300 evaluations per minute: "
              f"{met('target_rate_met')}; timing kernels >= 50 % of its wall time: {met('target_timing_share_met')}; "
              f"winner at least as fast: {summary['target_winner_met']}. Best known: {best_label} ({best_tool}). "
              f"Kernel Tuner {summary['kernel_tuner_version']} with CuPy {summary['cupy_version']} (UUID shim: "
              f"{summary['kt_uuid_shim']}). Kernel Tuner "
              f"setup before its tuning (imports, NVRTC preflight, data, reference): "
              f"{fmt(kt['import_and_preflight_s'] + kt['setup_s'])} s, not counted; its space after its "
              f"1024-thread filter: {kt['space_size_kt']} configurations."
              + (f" Kernel Tuner stopped early: {kt['error']}" if kt["error"] else ""))
    (out / "summary.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return summary


def dry_run(a, out):
    """What `run` would do, checked without a GPU: the spec (one size), the tuner's acceptance of it
    (`check --no-compile`) and of every option `run` passes to `tune` and `measure` (their --help).
    Prints the commands; returns the exit code."""
    problems = []
    if json.loads(Path(a.spec).read_text()).get("sizes"):
        problems.append(f"{a.spec}: still has \"sizes\": tune would write one results file per size, not "
                        f"{out / 'adaexplore.jsonl'}")
    check = subprocess.run([a.tuner, "check", "--spec", a.spec, "--no-compile"], capture_output=True, text=True)
    if check.returncode != 0:
        problems.append(f"adaexplore-tuner check --spec {a.spec} --no-compile: exit {check.returncode}: "
                        f"{check.stderr.strip() or check.stdout.strip()}")
    commands = [tune_command(a, out)]
    if a.before:
        commands.insert(0, tune_command(a, out, "adaexplore-program", program_spec(a.spec)))
    commands.append(measure_command(a, out, {"adaexplore": {"BLOCK_M": 128}}))  # a stand-in winner
    for cmd in commands:
        helptext = subprocess.run([a.tuner, cmd[1], "--help"], capture_output=True, text=True).stdout
        for option in (x for x in cmd[2:] if x.startswith("--")):
            if not re.search(re.escape(option) + r"\b", helptext):
                problems.append(f"adaexplore-tuner {cmd[1]} has no option {option} (its --help does not list it)")
        print("would run: " + shlex.join(cmd))
    for p in problems:
        print("dry run: " + p, file=sys.stderr)
    print(f"dry run: {'ok' if not problems else str(len(problems)) + ' problems'}")
    return 0 if not problems else 1


def cmd_run(a):
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    a.spec = str(Path(a.spec).resolve())
    load_spec(a.spec)
    a.spec = one_size_spec(a.spec)
    if a.dry_run:
        return dry_run(a, out)
    if a.before:
        run_adaexplore(a, out, "adaexplore-program", program_spec(a.spec))
    rc_ada = run_adaexplore(a, out)
    kt_cmd = [sys.executable, str(Path(__file__).resolve()), "kt", "--spec", a.spec, "--out", str(out),
              "--budget", str(a.budget), "--time-limit", str(a.time_limit), "--seed", str(a.seed),
              "--kt-strategy", a.kt_strategy]
    with open(out / "kt.log", "w") as log:
        log.write(shlex.join(kt_cmd) + "\n")
        log.flush()
        t0 = time.perf_counter()
        rc_kt = subprocess.run(kt_cmd, stdout=log, stderr=subprocess.STDOUT,
                               env=dict(os.environ, PYTHONUNBUFFERED="1")).returncode
    print(f"kernel_tuner: exit {rc_kt} after {time.perf_counter() - t0:.1f} s, process included "
          f"(log: {out / 'kt.log'})")
    if not (out / "kt-results.json").exists():
        print((out / "kt.log").read_text()[-3000:])
        return 1
    ada, kt = adaexplore_figures(out), kt_figures(out)
    winners = {t: f["winner"] for t, f in (("adaexplore", ada), ("kernel_tuner", kt)) if f["winner"]}
    if winners:
        remeasure(a, out, winners)
    summarize(out)
    return 0 if rc_ada == 0 and rc_kt == 0 else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(s, spec_required=True):
        s.add_argument("--spec", required=spec_required,
                       help="the gemm example's spec.json (<build>/_adaexplore/kernels/gemm/spec.json)")

    r = sub.add_parser("run", help="both tunings, the re-measurement and the summary (needs a GPU)")
    common(r)
    r.add_argument("--tuner", required=True, help="adaexplore-tuner executable")
    r.add_argument("--out", required=True, help="folder for results and logs")
    for s in (r, sub.add_parser("kt", help="the Kernel Tuner tuning alone (run calls it)")):
        if s is not r:
            common(s)
            s.add_argument("--out", required=True)
        s.add_argument("--budget", type=int, default=100, help="evaluations, both tools (default 100)")
        s.add_argument("--time-limit", type=float, default=150,
                       help="seconds per tool after which no new evaluation starts (default 150)")
        s.add_argument("--seed", type=int, default=1)
        s.add_argument("--kt-strategy", default="genetic_algorithm", help="Kernel Tuner strategy")
    r.add_argument("--repeats", type=int, default=5, help="interleaved rounds re-measuring the winners (default 5)")
    r.add_argument("--before", action="store_true",
                   help="also tune with compiler.unit \"program\" (the pipeline before the kernel unit), first")
    r.add_argument("--dry-run", action="store_true",
                   help="no GPU: check the spec (one size), that the tuner accepts it and the options run passes "
                        "to tune and measure, and print the commands; nothing is tuned")
    s = sub.add_parser("summarize", help="the figures again from the files in --out")
    s.add_argument("--out", required=True)
    c = sub.add_parser("check-kt-source", help="no GPU: nvcc -c of gemm_kt.cu per configuration")
    common(c, spec_required=False)
    c.add_argument("--all", action="store_true", help="every configuration with <= 1024 threads")
    c.add_argument("--sample", type=int, default=48)
    c.add_argument("--jobs", type=int, default=2)
    common(sub.add_parser("check-kt-space", help="no GPU: Kernel Tuner's search space vs the spec's"))
    a = p.parse_args()
    if a.cmd == "summarize":
        summarize(Path(a.out))
        return 0
    return {"run": cmd_run, "kt": cmd_kt, "check-kt-source": cmd_check_kt_source,
            "check-kt-space": cmd_check_kt_space}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
