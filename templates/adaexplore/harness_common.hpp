// AdaExplore benchmark harness: the parts shared by the CUDA (harness.cuh) and host
// (harness_host.hpp) harnesses. Header-only, C++17, no dependencies.
//
// Protocol between the tuner and a benchmark program (one process per evaluation):
//   <program> --adaexplore-result FILE [--adaexplore-seed N] [--adaexplore-warmup-ms MS]
//             [--adaexplore-measure-ms MS] [--adaexplore-max-reps N] [--adaexplore-ci-rel R]
//             [--adaexplore-kernel CUBIN --adaexplore-param NAME=VALUE ...]
//             [user arguments...]
// (--adaexplore-kernel and --adaexplore-param: the kernel unit, compile.unit "kernel": the
// benchmark is built once and each configuration's device code comes as a cubin, harness.cuh.)
// The program writes one JSON object to FILE:
//   {"adaexplore_harness": 1, "status": "ok"|"launch_error"|"crash"|"wrong_result"|"resource_limit",
//    "message": "...", "error_name": "cudaErrorIllegalAddress",
//    "time_ms": {"median", "mean", "min", "max", "stdev", "samples": n, "values": [...],
//                "ci_low", "ci_high", "ci_rel", "converged": true|false},
//    "warmup_runs": n, "verification": {"checked", "mismatches", "max_abs_error", "max_rel_error",
//    "rel_l2_error", "nan", "infinite" (the mismatches that are NaN, +-inf; max_abs_error and the
//    others are over the finite values), "on_device": true (compared on the GPU; absent: on the host),
//    "buffer": "output 1" (which of several compared buffers: Benchmark::run with a Tolerance),
//    "first_mismatch": {"index", "got", "expected"}},
//    "figures": {"bytes": b, "flops": f, "GB/s": x, "GFLOP/s": y},
//    "stages_ms": {"setup", "verify", "warmup", "measure"},
//    "suspicious": ["median 0.0011 ms is under the 0.002 ms launch-overhead floor: ...", ...],
//    "clocks": {"sm_mhz_start", "sm_mhz_end", "reasons": ["sw_power_cap", ...]},
//    "device_memory": {"allocated_bytes", "reused_bytes", "damaged": ["input #0 (...): its pristine
//                      device copy changed ...", ...] (present only when not empty)},
//    "peak": {"GB/s", "GFLOP/s"} (CUDA: the device's memory bandwidth and FP32 peaks; absent unknown),
//    "kernels": [{"name", "block": [x, y, z], "threads_per_block", "registers",
//                 "max_threads_per_block", "static_shared_bytes", "dynamic_shared_bytes",
//                 "max_dynamic_shared_bytes", "local_bytes", "blocks_per_sm", "warps_per_sm",
//                 "occupancy", "launchable", "reason"}]}
// and exits 0 when status is "ok", non-zero otherwise.
//
// Repetitions (warm_up and measure_until_tight, below; the same in both harnesses):
//  - warm-up: at least 2 runs; it stops once the timings settle, when the median of the last 3
//    runs is within 2 % of the median of the 3 before them (so at least 6 runs for that), or when
//    warmup_ms of timed run time is spent (a cap), or after max_reps runs.
//  - measurement: at least min_reps (10) runs; it stops as soon as the distribution-free 95 %
//    confidence interval of the median has a half-width <= ci_rel (default 0.01, 1 %) of the
//    median ("converged": true), or when measure_ms (default 200) of timed run time is spent, or
//    after max_reps (2000) runs ("converged": false). A 5 ms kernel with steady timings stops
//    after min_reps; a 0.01 ms one, whose relative noise is larger, takes hundreds of runs; a
//    noisy one stops at the caps. The interval is [x(r), x(s)] of the n sorted times, with the
//    ranks from the binomial(n, 1/2) distribution of the number of runs below the median, by its
//    normal approximation: r = ceil(n/2 - 1.96 sqrt(n)/2), s = ceil(n/2 + 1.96 sqrt(n)/2),
//    clamped to 1..n (W. J. Conover, "Practical Nonparametric Statistics", 3rd ed., Wiley 1999,
//    section 3.2, confidence interval for a quantile). "ci_low"/"ci_high" are x(r)/x(s) in ms,
//    "ci_rel" = (ci_high - ci_low) / 2 / median (null when the median is 0 and the interval is
//    not). The interval is recomputed after every run and the rule stops on it, so its real
//    coverage is somewhat below the nominal 95 % (optional stopping): it decides when the
//    median is tight enough, it is no guarantee.
// "stages_ms": wall-clock ms (std::chrono::steady_clock) of the benchmark's stages: "setup" from
//    the Benchmark/HostBenchmark constructor to run() (context, buffers, inputs, reference),
//    "verify" the checked run and the comparison, "warmup" and "measure" the two loops above
//    (resets, L2 flushes and synchronisation included). A failed record has the stages it reached.
//    The CUDA harness also reports parts of them (names with a dot; each already counted in its
//    stage): "setup.context" (the Benchmark constructor: stream, events, device queries, the L2
//    flush buffer), "setup.buffers" (input(), inout(), output(): random fill, cudaMalloc,
//    copies), "verify.download" (download(), gather() and nonfinite() during the verification).
// "suspicious" (present only when not empty): reasons to distrust an "ok" timing; the tuner
//    records such an outcome but never crowns it (crown() in tuner/src/loop/crown.hpp). The CUDA
//    harness flags a median under the 0.002 ms launch-overhead floor (the benchmark may time no
//    kernel), a bandwidth (figures' bytes / median) above 1.05 x the device's peak memory
//    bandwidth when the bytes exceed twice the L2 size (peak_bandwidth_gbs: 2 x memory clock x
//    bus width, from cudaDevAttrMemoryClockRate and cudaDevAttrGlobalMemoryBusWidth), and, with a
//    "noisy: ..." note, thermal or power-brake clock slowdowns during the measurement (NVML).
//    The host harness (harness_host.hpp) flags a median under its floor (4 x what timing an
//    empty launch takes on the machine, or 4 clock ticks, at least 50 ns: the benchmark may time
//    nothing) and a bandwidth above 20 TB/s when the bytes exceed twice the last-level cache.
// "clocks" (CUDA harness, only where NVML is there: libnvidia-ml.so.1 loaded at run time): the
//    SM clock in MHz before and after the measurement, and the NVML clock event (throttle)
//    reasons seen at either point, named as in clock_event_names(). "kernels" (CUDA harness only, present when
// the benchmark called Benchmark::check_launch) holds what the driver says of each kernel and
// launch shape: cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessor, see
// KernelRecord; a kernel with "launchable": false is the evidence of a failed status. A program that dies (signal) or exits
// without writing FILE is classified by the tuner from its exit status and stderr.
#pragma once

#include "statuses.hpp"  // the statuses a record carries: status::ok, status::launch_error, ...

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef ADAEXPLORE_MODULE
#include <dlfcn.h>
#endif

// Header-only by default: every function of the harness is defined in its headers (inline). The
// tuner builds the CUDA harness apart instead (ADAEXPLORE_HARNESS_SEPARATE, defined for the
// benchmark's compile): the benchmark then sees only the declarations of the harness's
// non-template functions (fewer headers, no code to generate for them), and their definitions
// come from harness_separate.cu, compiled once (and cached, by content, across tunings) with
// ADAEXPLORE_HARNESS_SEPARATE and ADAEXPLORE_HARNESS_IMPLEMENTATION and linked into every
// configuration's build, which saves host compile time per configuration (docs/throughput.md).
// harness_separate.cu holds no device code (the harness's kernels and their launchers are
// templates in harness_kernels.cuh, defined for nvcc only, under __CUDACC__), so the tuner
// compiles it as C++ (nvcc -x c++: the host compiler alone, without cudafe++ and cicc), and with
// the kernel unit while the benchmark's own code compiles. A kernel unit's benchmark without
// device code of its own is compiled as C++ too, and linked with harness_kernels.cu's object,
// where the launchers are instantiated for the common element types.
// A benchmark sees the same API either way, except for what the harness's headers happen to
// include: it must include the standard headers it uses (the tuner falls back to header-only
// when it does not).
#if defined(ADAEXPLORE_HARNESS_SEPARATE)
#define ADAEXPLORE_FN
#else
#define ADAEXPLORE_FN inline
#endif
#if !defined(ADAEXPLORE_HARNESS_SEPARATE) || defined(ADAEXPLORE_HARNESS_IMPLEMENTATION)
#define ADAEXPLORE_HARNESS_BODIES 1
#include <sstream>
#include <thread>
#else
#define ADAEXPLORE_HARNESS_BODIES 0
#endif

namespace adaexplore {

/// Thrown by finish() in a module (ADAEXPLORE_MODULE, see the end of this file): unwinds the
/// benchmark back to its entry point with the exit code its process would have had.
struct ModuleExit {
  int code;
};

/// Ends the benchmark with `code`: a process exits; a module loaded by the tuner's long-lived
/// runner unwinds (ModuleExit) so that the runner lives on and its buffers are freed.
[[noreturn]] inline void finish(int code) {
#ifdef ADAEXPLORE_MODULE
  throw ModuleExit{code};
#else
  std::exit(code);
#endif
}

/// A C function exported by the tuner's long-lived runner (tuner/src/cli/runner_main.cpp), found with
/// dlsym; null in a benchmark run as its own process (not a module), or in a module loaded by
/// another program.
template <typename F>
F runner_function(const char* name) {
#ifdef ADAEXPLORE_MODULE
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
#else
  (void)name;
  return nullptr;
#endif
}

/// Host data that does not depend on the configuration (a reference result, say), computed once
/// per runner process instead of once per configuration: `make()` runs, and its result is kept
/// in the tuner's long-lived runner (tuner/src/evaluate/runner.hpp) under `key`; the next configurations
/// measured by that runner get a copy. In a benchmark run as its own process (run.runner false, or
/// a manual run) it is make() every time. T must be trivially copyable (numbers, plain structs).
/// `key` must name everything the data depends on besides the seed and the benchmark's arguments,
/// which the harnesses add (Benchmark::once). The runner holds at most 16 GiB; beyond, nothing
/// more is kept (make() runs each time).
template <typename T, typename Make>
std::vector<T> once_per_runner(const std::string& key, Make make) {
  static_assert(std::is_trivially_copyable<T>::value, "once(): T must be trivially copyable");
#ifdef ADAEXPLORE_MODULE
  using Find = const void* (*)(const char*, std::size_t*);
  using Keep = void* (*)(const char*, std::size_t);
  const auto find = runner_function<Find>("adaexplore_runner_find");
  const auto keep = runner_function<Keep>("adaexplore_runner_keep");
  if (find && keep) {
    std::size_t bytes = 0;
    if (const void* stored = find(key.c_str(), &bytes); stored && bytes % sizeof(T) == 0) {
      std::vector<T> copy(bytes / sizeof(T));
      if (bytes) std::memcpy(copy.data(), stored, bytes);
      return copy;
    }
    std::vector<T> made = make();
    if (void* slot = keep(key.c_str(), made.size() * sizeof(T)); slot && !made.empty())
      std::memcpy(slot, made.data(), made.size() * sizeof(T));
    return made;
  }
#endif
  return make();
}

/// once_per_runner's key for a benchmark: `key`, the element size, the seed and the arguments.
inline std::string once_key(const std::string& key, std::size_t element_bytes, std::uint64_t seed,
                            const std::vector<std::string>& args) {
  std::string k = key + "\x1f" + std::to_string(element_bytes) + "\x1f" + std::to_string(seed);
  for (const auto& a : args) k += "\x1f" + a;
  return k;
}

/// Element-wise tolerance: |got - expected| <= abs + rel * |expected|; NaN/Inf never pass.
struct Tolerance {
  double rel = 1e-5;
  double abs = 1e-6;
};

namespace detail {
/// What the tuner passes of one configuration (harness.cuh): its cubin (--adaexplore-kernel FILE),
/// its parameter values (--adaexplore-param NAME=VALUE, once per parameter, in the space's order),
/// the values of the spec's expressions (--adaexplore-value NAME=VALUE: a generated benchmark's
/// lengths and scalars), and the declared launch shape (--adaexplore-block X,Y,Z, --adaexplore-grid
/// X,Y,Z, --adaexplore-shared BYTES; 0: not declared). The reference configuration's come as
/// --adaexplore-reference-kernel, -param, -value, -block, -grid and -shared.
struct ConfigurationOptions {
  std::string kernel_file;
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<std::pair<std::string, double>> values;
  unsigned block[3] = {0, 0, 0}, grid[3] = {0, 0, 0};
  unsigned long long shared = 0;
};
}  // namespace detail

/// Harness settings from the command line (the tuner passes them; defaults suit a manual run).
struct HarnessOptions {
  std::string result_file;     // where the result record goes; empty: stdout
  std::uint64_t seed = 12345;  // inputs are drawn from this seed
  double warmup_ms = 30;       // warm-up cap: ms of timed run time (at least 2 runs; see warm_up)
  double measure_ms = 200;     // measurement cap: ms of timed run time (see measure_until_tight)
  int min_reps = 10;
  int max_reps = 2000;
  double ci_rel = 0.01;        // measurement stops when the median's 95 % CI half-width <= this x median
  std::vector<std::string> user_args;  // arguments the harness does not know, in order
  // The configuration (harness.cuh Benchmark::kernel, param, value, launch; ConfigurationOptions):
  // no cubin when the benchmark was compiled whole with the rendered template and includes it
  // (compile.unit "program"). The reference configuration (Benchmark::run with a Tolerance): no
  // cubin when the spec has no "reference".
  detail::ConfigurationOptions config, reference;
  std::string kernel_name;      // --adaexplore-kernel-name: the spec's "kernel" (Benchmark::kernel())
  Tolerance tolerance;          // --adaexplore-tolerance REL,ABS: the spec's "tolerance"
  bool tolerance_given = false;
  // The problem size being tuned (the spec's "sizes", CMake SIZES): --adaexplore-size NAME=VALUE,
  // once per name, in the spec's order. Empty when the kernel is tuned at one size.
  std::vector<std::pair<std::string, long long>> sizes;

  static HarnessOptions parse(int argc, char** argv);
  /// The value of size `name`; else `fallback` when given; else nothing and `error` says why.
  bool size(const std::string& name, const long long* fallback, long long& value, std::string& error) const {
    for (const auto& s : sizes)
      if (s.first == name) {
        value = s.second;
        return true;
      }
    if (fallback) {
      value = *fallback;
      return true;
    }
    std::string known;
    for (const auto& s : sizes) known += (known.empty() ? "" : ", ") + s.first;
    error = "size(\"" + name + "\"): no such size (given: " + (known.empty() ? "none" : known) +
            "); declare it in SIZES (adaexplore_tune_kernel) or the spec's \"sizes\", or give a fallback: size(\"" +
            name + "\", 4096)";
    return false;
  }
  /// What once() results depend on besides the key and the seed: the arguments and the size.
  std::vector<std::string> once_args() const {
    std::vector<std::string> a = user_args;
    for (const auto& s : sizes) a.push_back("--adaexplore-size=" + s.first + "=" + std::to_string(s.second));
    return a;
  }
};

/// Median of values sorted in ascending order (0 when empty).
inline double sorted_median(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/// Distribution-free 95 % confidence interval of the median, [low, high] in the values' unit.
struct MedianInterval {
  double low = 0, high = 0;
  double half_width() const { return 0.5 * (high - low); }
};

/// The interval [x(r), x(s)] of `sorted` (ascending, n values) with the 1-based ranks
/// r = ceil(n/2 - 1.96 sqrt(n)/2), s = ceil(n/2 + 1.96 sqrt(n)/2), clamped to 1..n: the normal
/// approximation of the binomial(n, 1/2) count of values below the median (Conover, "Practical
/// Nonparametric Statistics", 3rd ed., 1999, section 3.2). For n <= 5 it is the whole range.
inline MedianInterval median_interval(const std::vector<double>& sorted) {
  const double n = static_cast<double>(sorted.size());
  if (sorted.empty()) return {};
  const double spread = 1.96 * std::sqrt(n) / 2;
  const auto rank = [&](double r) {
    return static_cast<std::size_t>(std::min(n, std::max(1.0, std::ceil(r - 1e-9)))) - 1;
  };
  return {sorted[rank(n / 2 - spread)], sorted[rank(n / 2 + spread)]};
}

/// Sample statistics of per-run times (ms).
struct TimeStats {
  double median = 0, mean = 0, min = 0, max = 0, stdev = 0;
  std::vector<double> values;
  double ci_low = 0, ci_high = 0;  // median_interval of the values, ms
  double ci_rel = 0;               // (ci_high - ci_low) / 2 / median; infinity when median is 0 and the CI is not
  bool converged = false;          // set by measure_until_tight: the CI rule stopped it, not a cap

  static TimeStats of(std::vector<double> v) {
    TimeStats s;
    s.values = v;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    s.median = sorted_median(v);
    const MedianInterval ci = median_interval(v);
    s.ci_low = ci.low;
    s.ci_high = ci.high;
    s.ci_rel = s.median > 0 ? ci.half_width() / s.median
                            : (ci.half_width() > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    s.min = v.front();
    s.max = v.back();
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / static_cast<double>(n);
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.stdev = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0.0;
    return s;
  }
};


struct Verification {
  std::size_t checked = 0, mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0, rel_l2_error = 0;
  std::size_t first_index = 0;
  double first_got = 0, first_expected = 0;
  std::size_t nan = 0, infinite = 0;  // mismatches whose value is NaN, +-inf (not in the errors above)
  bool on_device = false;  // compared on the device (Benchmark::compare with a once() reference)
  std::string what;        // which buffer, when the benchmark compares several ("output 1"); empty: one
  bool passed() const { return mismatches == 0; }
};

/// Compares `got` with the reference `expected` (same length n).
template <typename T>
Verification compare_values(const T* got, const T* expected, std::size_t n, Tolerance tol) {
  Verification v;
  v.checked = n;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]), e = static_cast<double>(expected[i]);
    const double err = std::fabs(g - e);
    // The product rounded on its own, never fused into a multiply-add (-ffp-contract=fast with
    // FMA hardware would), as the device's comparison does (harness_kernels.cuh, compare_kernel).
    volatile double scaled = tol.rel * std::fabs(e);
    const bool bad = !std::isfinite(g) || !(err <= tol.abs + scaled);
    if (std::isfinite(g)) {
      v.max_abs_error = std::max(v.max_abs_error, err);
      if (e != 0) v.max_rel_error = std::max(v.max_rel_error, err / std::fabs(e));
      diff2 += err * err;
    }
    ref2 += e * e;
    if (std::isnan(g)) ++v.nan;
    else if (std::isinf(g)) ++v.infinite;
    if (bad && v.mismatches++ == 0) {
      v.first_index = i;
      v.first_got = g;
      v.first_expected = e;
    }
  }
  v.rel_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return v;
}

/// splitmix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators",
/// OOPSLA 2014): a counter-based generator, so inputs of any size are filled in parallel
/// chunks with the same values whatever the number of threads.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Calls work(context, begin, end) over [0, n) in up to 16 chunks on as many threads (one chunk
/// below 2^20 elements).
ADAEXPLORE_FN void in_chunks(std::size_t n, void (*work)(void*, std::size_t, std::size_t), void* context);

/// Random values, never all zeros: floating point uniform in [-1, 1), integers in [-100, 100].
/// Element i depends only on (seed, i).
template <typename T>
void fill_random(T* data, std::size_t n, std::uint64_t seed) {
  const std::uint64_t base = splitmix64(seed);
  auto fill = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t r = splitmix64(base + i);
      if constexpr (std::is_floating_point_v<T>) {
        data[i] = static_cast<T>(static_cast<double>(r >> 11) * 0x1.0p-52 - 1.0);
      } else {
        data[i] = static_cast<T>(static_cast<long long>(r % 201) - 100);
      }
    }
  };
  in_chunks(n, [](void* f, std::size_t begin, std::size_t end) { (*static_cast<decltype(fill)*>(f))(begin, end); },
            &fill);
}

/// Draws a fresh seed for the next buffer from the benchmark's generator.
template <typename T>
void fill_random(T* data, std::size_t n, std::mt19937_64& rng) {
  fill_random(data, n, static_cast<std::uint64_t>(rng()));
}

/// One kernel and launch shape as the driver sees them (Benchmark::check_launch in harness.cuh).
/// Figures from cudaFuncGetAttributes (registers .. local_bytes) and
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor (blocks_per_sm); units as named.
struct KernelRecord {
  std::string name;                       // as given, else the runtime's (mangled) name
  unsigned block[3] = {1, 1, 1};          // blockDim of the launch
  long threads_per_block = 0;             // block[0] * block[1] * block[2]
  int registers = 0;                      // per thread (numRegs)
  int max_threads_per_block = 0;          // the kernel's limit (maxThreadsPerBlock): the device's
                                          // 1024, or less where registers or launch bounds limit it
  long static_shared_bytes = 0;           // per block (sharedSizeBytes)
  long dynamic_shared_bytes = 0;          // per block, as the launch asks for
  long max_dynamic_shared_bytes = 0;      // the kernel's current limit (maxDynamicSharedSizeBytes)
  long local_bytes = 0;                   // per thread (localSizeBytes: stack, spills)
  int blocks_per_sm = 0;                  // resident blocks per SM; 0 when it cannot launch
  int warps_per_sm = 0;                   // blocks_per_sm * warps per block
  double occupancy = 0;                   // warps_per_sm / (maxThreadsPerMultiProcessor / 32)
  bool launchable = true;                 // false: the launch cannot succeed; reason says why
  std::string reason;                     // "block of 1024 threads > 896, the kernel's ..."
};

/// The SM clock and the NVML clock event ("throttle") reasons around the measurement (CUDA
/// harness, where NVML is there; see harness.cuh NvmlClocks).
struct ClockRecord {
  bool present = false;              // false: NVML absent or unusable; the record has no "clocks"
  unsigned sm_mhz_start = 0, sm_mhz_end = 0;  // nvmlDeviceGetClockInfo(NVML_CLOCK_SM), MHz
  unsigned long long reasons = 0;    // nvmlClocksEventReason* bits seen before or after measuring
};

/// Everything that goes into the result record.
struct ResultRecord {
  std::string status = status::ok;
  std::string message;
  std::string error_name;
  TimeStats time;
  int warmup_runs = 0;
  bool verified = false;
  Verification verification;
  double bytes = 0, flops = 0;
  std::vector<KernelRecord> kernels;
  std::vector<std::pair<std::string, double>> stages_ms;  // "setup", "verify", "warmup", "measure"
  std::vector<std::string> suspicious;                     // sanity gates that fired (see the top)
  ClockRecord clocks;
  /// CUDA harness: the device memory its buffers took, bytes: newly cudaMalloc'd, or reused from
  /// the tuner's runner (a block the previous configuration gave back; Benchmark::allocate).
  /// The record has "device_memory" when either is non-zero (or `damaged` is not empty).
  unsigned long long allocated_bytes = 0, reused_bytes = 0;
  /// CUDA harness, kernel unit: the cached buffers whose pristine device copy had changed when this
  /// configuration was to reuse them (a configuration before it wrote outside its buffers without
  /// faulting), one sentence each; they were made afresh. "device_memory": {"damaged": [...]}.
  std::vector<std::string> damaged;
  /// CUDA harness: the device's peaks, for the report's "% of peak" (0: unknown, left out): memory
  /// bandwidth in GB/s (peak_bandwidth_gbs) and FP32 arithmetic in GFLOP/s (peak_fp32_gflops). The
  /// record has "peak": {"GB/s", "GFLOP/s"} when either is known.
  double peak_gbs = 0, peak_gflops = 0;
};

/// Wall-clock ms since `start` (std::chrono::steady_clock).
inline double wall_ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// The clock event reasons that slow a kernel down for reasons other than its own work: HW
/// slowdown, HW thermal, SW thermal, HW power brake (nvml.h bits 0x8, 0x40, 0x20, 0x80). The SW
/// power cap is left out: a kernel that draws the card's power is expected to meet it.
inline constexpr unsigned long long kNoisyClockEvents = 0x8ull | 0x20ull | 0x40ull | 0x80ull;

/// FP32 lanes (one fused multiply-add per clock each) per SM of compute capability major.minor:
/// 64 for 6.0, 7.x and 8.0, 128 for the others from 6.1 on (8.6, 8.9, 9.0, 10.x, 12.x; CUDA C++
/// Programming Guide, "Arithmetic Instructions" throughput table); 0 when unknown (before 6.x).
inline int fp32_lanes_per_sm(int major, int minor) {
  if (major < 6) return 0;
  if ((major == 6 && minor == 0) || major == 7 || (major == 8 && minor == 0)) return 64;
  return 128;
}

/// Peak FP32 arithmetic in GFLOP/s: 2 operations (a fused multiply-add) x lanes per SM x SMs x
/// the SM clock (kHz, cudaDevAttrClockRate: the peak boost clock); 0 when a figure is unknown.
inline double peak_fp32_gflops(int major, int minor, int sm_count, double sm_clock_khz) {
  return 2.0 * fp32_lanes_per_sm(major, minor) * sm_count * sm_clock_khz * 1e-6;
}

/// Peak memory bandwidth in GB/s (1e9 bytes/s) from the memory clock (kHz, cudaDevAttrMemoryClockRate)
/// and the bus width (bits, cudaDevAttrGlobalMemoryBusWidth): 2 (double data rate) x clock x
/// width / 8. 0 when either is unknown (<= 0).
inline double peak_bandwidth_gbs(double memory_clock_khz, double bus_width_bits) {
  if (!(memory_clock_khz > 0) || !(bus_width_bits > 0)) return 0;
  return 2.0 * memory_clock_khz * 1000.0 * (bus_width_bits / 8.0) / 1e9;
}

/// Names of the NVML clock event reason bits in `mask` (values of nvml.h's
/// nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*), in bit order; unknown bits as
/// "0x...".
ADAEXPLORE_FN std::vector<std::string> clock_event_names(unsigned long long mask);
/// The sanity gates of the CUDA harness (see the top of this file); each fired gate appends one
/// reason to `suspicious`. `floor_ms` <= 0, `peak_gbs` <= 0 or `l2_bytes` <= 0 turn the matching
/// gate off (unknown); a record without bytes is not checked against the peak.
ADAEXPLORE_FN void check_launch_floor(const TimeStats& t, double floor_ms, std::vector<std::string>& suspicious);
ADAEXPLORE_FN void check_peak_bandwidth(double bytes, const TimeStats& t, double peak_gbs, double l2_bytes,
                                        std::vector<std::string>& suspicious);
ADAEXPLORE_FN void check_clocks(const ClockRecord& c, std::vector<std::string>& suspicious);
/// The record as one line of JSON (the protocol at the top of this file).
ADAEXPLORE_FN std::string to_json(const ResultRecord& r);
/// Writes the record (to the result file, or stdout) and returns the process exit code.
ADAEXPLORE_FN int emit(const HarnessOptions& o, const ResultRecord& r);
/// Describes a failed verification for the record's message.
ADAEXPLORE_FN std::string describe(const Verification& v);

// Definitions (header-only, or the separate build's harness_separate.cu).
#if ADAEXPLORE_HARNESS_BODIES
namespace detail {
[[noreturn]] inline void bad_option(const char* option, const std::string& value, const char* expected) {
  std::fprintf(stderr, "adaexplore harness: %s %s: expected %s\n", option, value.c_str(), expected);
  finish(64);
}
// "NAME=VALUE" split at its first '='; a usage error without one or without a name.
inline std::pair<std::string, std::string> assignment(const std::string& option, const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) bad_option(option.c_str(), text, "NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}
// "X[,Y[,Z]]" into dims (missing ones 1), each a positive integer.
inline void dimensions(const std::string& option, const std::string& text, unsigned* dims) {
  unsigned parsed[3] = {1, 1, 1};
  std::size_t at = 0;
  for (int d = 0; d < 3 && at <= text.size(); ++d) {
    const std::size_t comma = text.find(',', at);
    const std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    const unsigned long v = std::strtoul(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v == 0 || v > 0xFFFFFFFFul) bad_option(option.c_str(), text, "X[,Y[,Z]], positive integers");
    parsed[d] = static_cast<unsigned>(v);
    if (comma == std::string::npos) {
      at = text.size() + 1;
      break;
    }
    at = comma + 1;
    if (d == 2) bad_option(option.c_str(), text, "at most three dimensions X,Y,Z");
  }
  for (int d = 0; d < 3; ++d) dims[d] = parsed[d];
}
// One --adaexplore-<name> VALUE of a configuration (`name` without the prefix): whether `name` is
// one (kernel, param, value, block, grid, shared); with `value`, taken into `c`.
inline bool configuration_option(const std::string& name, const char* value, ConfigurationOptions& c) {
  static const char* const names[] = {"kernel", "param", "value", "block", "grid", "shared"};
  bool known = false;
  for (const char* n : names) known = known || name == n;
  if (!known || !value) return known;
  const std::string option = "--adaexplore-" + name, text = value;
  if (name == "kernel") c.kernel_file = text;
  else if (name == "param") c.params.push_back(assignment(option, text));
  else if (name == "value") {
    const auto [key, number] = assignment(option, text);
    char* end = nullptr;
    const double v = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0') bad_option(option.c_str(), text, "NAME=NUMBER");
    c.values.emplace_back(key, v);
  } else if (name == "block") dimensions(option, text, c.block);
  else if (name == "grid") dimensions(option, text, c.grid);
  else {
    char* end = nullptr;
    c.shared = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') bad_option(option.c_str(), text, "a number of bytes");
  }
  return true;
}
}  // namespace detail

ADAEXPLORE_FN HarnessOptions HarnessOptions::parse(int argc, char** argv) {
  HarnessOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "adaexplore harness: %s needs a value\n", name);
        finish(64);
      }
      return argv[++i];
    };
    if (a == "--adaexplore-result") o.result_file = value("--adaexplore-result");
    else if (a == "--adaexplore-seed") o.seed = std::strtoull(value("--adaexplore-seed"), nullptr, 10);
    else if (a == "--adaexplore-warmup-ms") o.warmup_ms = std::atof(value("--adaexplore-warmup-ms"));
    else if (a == "--adaexplore-measure-ms") o.measure_ms = std::atof(value("--adaexplore-measure-ms"));
    else if (a == "--adaexplore-max-reps") o.max_reps = std::atoi(value("--adaexplore-max-reps"));
    else if (a == "--adaexplore-ci-rel") o.ci_rel = std::atof(value("--adaexplore-ci-rel"));
    else if (a == "--adaexplore-kernel-name") o.kernel_name = value("--adaexplore-kernel-name");
    else if (a == "--adaexplore-tolerance") {
      const char* text = value("--adaexplore-tolerance");
      char* end = nullptr;
      o.tolerance.rel = std::strtod(text, &end);
      if (*end != ',') detail::bad_option("--adaexplore-tolerance", text, "REL,ABS");
      o.tolerance.abs = std::strtod(end + 1, &end);
      if (*end != '\0') detail::bad_option("--adaexplore-tolerance", text, "REL,ABS");
      o.tolerance_given = true;
    }
    else if (a.rfind("--adaexplore-reference-", 0) == 0 && detail::configuration_option(a.substr(23), nullptr, o.reference))
      detail::configuration_option(a.substr(23), value(a.c_str()), o.reference);
    else if (a.rfind("--adaexplore-", 0) == 0 && detail::configuration_option(a.substr(13), nullptr, o.config))
      detail::configuration_option(a.substr(13), value(a.c_str()), o.config);
    else if (a == "--adaexplore-size") {
      const std::string p = value("--adaexplore-size");
      const std::size_t eq = p.find('=');
      const std::string digits = eq == std::string::npos ? std::string() : p.substr(eq + 1);
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(digits.c_str(), &end, 10);
      bool taken = false;
      for (const auto& s : o.sizes) taken = taken || s.first == p.substr(0, eq);
      if (eq == std::string::npos || eq == 0 || digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
          errno == ERANGE || !end || *end != '\0' || v < 1 || taken) {
        std::fprintf(stderr,
                     "adaexplore harness: --adaexplore-size %s: expected NAME=VALUE, VALUE a positive integer (digits "
                     "only, below 2^63), each NAME once\n",
                     p.c_str());
        finish(64);
      }
      o.sizes.emplace_back(p.substr(0, eq), v);
    }
    else o.user_args.push_back(a);
  }
  return o;
}

ADAEXPLORE_FN void in_chunks(std::size_t n, void (*work)(void*, std::size_t, std::size_t), void* context) {
  const std::size_t threads = n < (1u << 20) ? 1 : std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(work, context, std::min(n, t * chunk), std::min(n, (t + 1) * chunk));
  work(context, 0, std::min(n, chunk));
  for (auto& th : pool) th.join();
}

/// Names of the NVML clock event reason bits in `mask` (values of nvml.h's
/// nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*), in bit order; unknown bits as
/// "0x...".
ADAEXPLORE_FN std::vector<std::string> clock_event_names(unsigned long long mask) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {0x1ull, "gpu_idle"},           {0x2ull, "applications_clocks_setting"},
      {0x4ull, "sw_power_cap"},       {0x8ull, "hw_slowdown"},
      {0x10ull, "sync_boost"},        {0x20ull, "sw_thermal_slowdown"},
      {0x40ull, "hw_thermal_slowdown"}, {0x80ull, "hw_power_brake_slowdown"},
      {0x100ull, "display_clock_setting"}};
  std::vector<std::string> out;
  unsigned long long known = 0;
  for (const auto& [bit, name] : names) {
    known |= bit;
    if (mask & bit) out.push_back(name);
  }
  if (mask & ~known) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", mask & ~known);
    out.push_back(buf);
  }
  return out;
}

/// The sanity gates of the CUDA harness (see the top of this file); each fired gate appends one
/// reason to `suspicious`. `floor_ms` <= 0, `peak_gbs` <= 0 or `l2_bytes` <= 0 turn the matching
/// gate off (unknown); a record without bytes is not checked against the peak.
ADAEXPLORE_FN void check_launch_floor(const TimeStats& t, double floor_ms, std::vector<std::string>& suspicious) {
  if (floor_ms <= 0 || t.values.empty() || !(t.median < floor_ms)) return;
  std::ostringstream s;
  s << "median " << t.median << " ms is under the " << floor_ms
    << " ms launch-overhead floor: the benchmark may not time the kernel";
  suspicious.push_back(s.str());
}
ADAEXPLORE_FN void check_peak_bandwidth(double bytes, const TimeStats& t, double peak_gbs, double l2_bytes,
                                 std::vector<std::string>& suspicious) {
  if (peak_gbs <= 0 || l2_bytes <= 0 || bytes <= 2 * l2_bytes || !(t.median > 0)) return;
  const double gbs = bytes / (t.median * 1e6);
  if (!(gbs > 1.05 * peak_gbs)) return;
  std::ostringstream s;
  s << gbs << " GB/s (" << bytes << " bytes in " << t.median << " ms) is above 1.05 x the device's peak of "
    << peak_gbs << " GB/s (2 x memory clock x bus width) with a working set over twice the L2 ("
    << l2_bytes << " bytes): the bytes figure or the timing is wrong";
  suspicious.push_back(s.str());
}
ADAEXPLORE_FN void check_clocks(const ClockRecord& c, std::vector<std::string>& suspicious) {
  if (!c.present || !(c.reasons & kNoisyClockEvents)) return;
  std::ostringstream s;
  s << "noisy: the GPU's clocks were slowed during the measurement (NVML clock event reasons:";
  const char* sep = " ";
  for (const std::string& name : clock_event_names(c.reasons & kNoisyClockEvents)) {
    s << sep << name;
    sep = ", ";
  }
  s << "; SM clock " << c.sm_mhz_start << " -> " << c.sm_mhz_end << " MHz)";
  suspicious.push_back(s.str());
}

ADAEXPLORE_FN std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

ADAEXPLORE_FN std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

ADAEXPLORE_FN std::string to_json(const ResultRecord& r) {
  std::ostringstream j;
  j << "{\"adaexplore_harness\": 1, \"status\": " << json_string(r.status)
    << ", \"message\": " << json_string(r.message) << ", \"error_name\": " << json_string(r.error_name);
  if (!r.time.values.empty()) {
    j << ", \"time_ms\": {\"median\": " << json_number(r.time.median) << ", \"mean\": " << json_number(r.time.mean)
      << ", \"min\": " << json_number(r.time.min) << ", \"max\": " << json_number(r.time.max)
      << ", \"stdev\": " << json_number(r.time.stdev) << ", \"samples\": " << r.time.values.size() << ", \"values\": [";
    for (std::size_t i = 0; i < r.time.values.size(); ++i) j << (i ? ", " : "") << json_number(r.time.values[i]);
    j << "], \"ci_low\": " << json_number(r.time.ci_low) << ", \"ci_high\": " << json_number(r.time.ci_high)
      << ", \"ci_rel\": " << json_number(r.time.ci_rel) << ", \"converged\": " << (r.time.converged ? "true" : "false");
    j << "}, \"warmup_runs\": " << r.warmup_runs;
  }
  if (!r.stages_ms.empty()) {
    j << ", \"stages_ms\": {";
    for (std::size_t i = 0; i < r.stages_ms.size(); ++i)
      j << (i ? ", " : "") << json_string(r.stages_ms[i].first) << ": " << json_number(r.stages_ms[i].second);
    j << "}";
  }
  if (!r.suspicious.empty()) {
    j << ", \"suspicious\": [";
    for (std::size_t i = 0; i < r.suspicious.size(); ++i) j << (i ? ", " : "") << json_string(r.suspicious[i]);
    j << "]";
  }
  if (r.clocks.present) {
    j << ", \"clocks\": {\"sm_mhz_start\": " << r.clocks.sm_mhz_start << ", \"sm_mhz_end\": " << r.clocks.sm_mhz_end
      << ", \"reasons\": [";
    const std::vector<std::string> names = clock_event_names(r.clocks.reasons);
    for (std::size_t i = 0; i < names.size(); ++i) j << (i ? ", " : "") << json_string(names[i]);
    j << "]}";
  }
  if (r.peak_gbs > 0 || r.peak_gflops > 0) {
    j << ", \"peak\": {";
    if (r.peak_gbs > 0) j << "\"GB/s\": " << json_number(r.peak_gbs);
    if (r.peak_gflops > 0) j << (r.peak_gbs > 0 ? ", " : "") << "\"GFLOP/s\": " << json_number(r.peak_gflops);
    j << "}";
  }
  if (r.allocated_bytes || r.reused_bytes || !r.damaged.empty()) {
    j << ", \"device_memory\": {\"allocated_bytes\": " << r.allocated_bytes << ", \"reused_bytes\": " << r.reused_bytes;
    if (!r.damaged.empty()) {
      j << ", \"damaged\": [";
      for (std::size_t i = 0; i < r.damaged.size(); ++i) j << (i ? ", " : "") << json_string(r.damaged[i]);
      j << "]";
    }
    j << "}";
  }
  if (r.verified) {
    const auto& v = r.verification;
    j << ", \"verification\": {\"checked\": " << v.checked << ", \"mismatches\": " << v.mismatches
      << ", \"max_abs_error\": " << json_number(v.max_abs_error) << ", \"max_rel_error\": " << json_number(v.max_rel_error)
      << ", \"rel_l2_error\": " << json_number(v.rel_l2_error) << ", \"nan\": " << v.nan
      << ", \"infinite\": " << v.infinite;
    if (v.on_device) j << ", \"on_device\": true";
    if (!v.what.empty()) j << ", \"buffer\": " << json_string(v.what);
    if (v.mismatches)
      j << ", \"first_mismatch\": {\"index\": " << v.first_index << ", \"got\": " << json_number(v.first_got)
        << ", \"expected\": " << json_number(v.first_expected) << "}";
    j << "}";
  }
  j << ", \"figures\": {";
  const char* sep = "";
  if (r.bytes > 0) {
    j << "\"bytes\": " << json_number(r.bytes);
    sep = ", ";
    if (r.time.median > 0) j << ", \"GB/s\": " << json_number(r.bytes / (r.time.median * 1e6));
  }
  if (r.flops > 0) {
    j << sep << "\"flops\": " << json_number(r.flops);
    if (r.time.median > 0) j << ", \"GFLOP/s\": " << json_number(r.flops / (r.time.median * 1e6));
  }
  j << "}";
  if (!r.kernels.empty()) {
    j << ", \"kernels\": [";
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
      const KernelRecord& k = r.kernels[i];
      j << (i ? ", " : "") << "{\"name\": " << json_string(k.name) << ", \"block\": [" << k.block[0] << ", "
        << k.block[1] << ", " << k.block[2] << "], \"threads_per_block\": " << k.threads_per_block
        << ", \"registers\": " << k.registers << ", \"max_threads_per_block\": " << k.max_threads_per_block
        << ", \"static_shared_bytes\": " << k.static_shared_bytes
        << ", \"dynamic_shared_bytes\": " << k.dynamic_shared_bytes
        << ", \"max_dynamic_shared_bytes\": " << k.max_dynamic_shared_bytes << ", \"local_bytes\": " << k.local_bytes
        << ", \"blocks_per_sm\": " << k.blocks_per_sm << ", \"warps_per_sm\": " << k.warps_per_sm
        << ", \"occupancy\": " << json_number(k.occupancy) << ", \"launchable\": " << (k.launchable ? "true" : "false")
        << ", \"reason\": " << json_string(k.reason) << "}";
    }
    j << "]";
  }
  j << "}";
  return j.str();
}

/// Writes the record (to the result file, or stdout) and returns the process exit code.
ADAEXPLORE_FN int emit(const HarnessOptions& o, const ResultRecord& r) {
  const std::string text = to_json(r) + "\n";
  if (o.result_file.empty()) {
    std::fputs(text.c_str(), stdout);
  } else if (FILE* f = std::fopen(o.result_file.c_str(), "w")) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "adaexplore harness: cannot write %s\n", o.result_file.c_str());
    return 70;
  }
  if (r.status != status::ok) std::fprintf(stderr, "adaexplore harness: %s: %s\n", r.status.c_str(), r.message.c_str());
  return r.status == status::ok ? 0 : 1;
}

/// Describes a failed verification for the record's message: "12 of 1024 values differ from the
/// reference (12 NaN); first at index 3: got nan, expected 1.5 (max abs error of the finite values
/// 2e-07)"; without NaN or infinite values "...; first at index 7: got 2, expected 1 (max abs error 1)".
ADAEXPLORE_FN std::string describe(const Verification& v) {
  std::ostringstream s;
  if (!v.what.empty()) s << v.what << ": ";
  s << v.mismatches << " of " << v.checked << " values differ from the reference";
  if (v.nan || v.infinite) {
    s << " (";
    if (v.nan) s << v.nan << " NaN" << (v.infinite ? ", " : "");
    if (v.infinite) s << v.infinite << " infinite";
    s << ")";
  }
  s << "; first at index " << v.first_index << ": got " << v.first_got << ", expected " << v.first_expected
    << (v.nan || v.infinite ? " (max abs error of the finite values " : " (max abs error ") << v.max_abs_error << ")";
  return s.str();
}

#endif  // ADAEXPLORE_HARNESS_BODIES

/// Warm-up (see the top of this file): runs `timed_run` at least twice; stops when the median of
/// the last 3 times is within 2 % of the median of the 3 before them, when warmup_ms of timed run
/// time is spent, or after max_reps runs. Returns the number of runs.
/// `timed_run()` performs one untimed reset + one timed run and returns its time in ms.
template <typename TimedRun>
int warm_up(const HarnessOptions& o, TimedRun&& timed_run) {
  std::vector<double> times;
  double spent = 0;
  const auto median3 = [&](std::size_t end) {  // median of times[end - 3 .. end - 1]
    double a = times[end - 3], b = times[end - 2], c = times[end - 1];
    return std::max(std::min(a, b), std::min(std::max(a, b), c));
  };
  for (;;) {
    times.push_back(timed_run());
    spent += times.back();
    const std::size_t n = times.size();
    if (n < 2) continue;
    if (spent >= o.warmup_ms || static_cast<int>(n) >= o.max_reps) break;
    if (n >= 6) {
      const double before = median3(n - 3), last = median3(n);
      if (std::fabs(last - before) <= 0.02 * before) break;
    }
  }
  return static_cast<int>(times.size());
}

/// Measurement (see the top of this file): runs `timed_run` at least min_reps times; stops as soon
/// as the median's 95 % confidence interval (median_interval) has a half-width <= ci_rel x the
/// median (then the result's `converged` is true), when measure_ms of timed run time is spent, or
/// after max_reps runs. Returns the statistics of the measured times, interval included.
template <typename TimedRun>
TimeStats measure_until_tight(const HarnessOptions& o, TimedRun&& timed_run) {
  std::vector<double> times, sorted;
  double total = 0;
  bool converged = false;
  while (static_cast<int>(times.size()) < o.max_reps) {
    const double t = timed_run();
    times.push_back(t);
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), t), t);
    total += t;
    if (static_cast<int>(times.size()) < o.min_reps) continue;
    if (median_interval(sorted).half_width() <= o.ci_rel * sorted_median(sorted)) {
      converged = true;
      break;
    }
    if (total >= o.measure_ms) break;
  }
  TimeStats stats = TimeStats::of(times);
  stats.converged = converged;
  return stats;
}

/// Wall-clock ms of the two repetition loops (stages_ms "warmup" and "measure").
struct RepetitionWallTimes {
  double warmup_ms = 0, measure_ms = 0;
};

/// Both loops in turn: warm_up, then measure_until_tight; `warmup_runs` receives the warm-up's
/// run count and `wall` (optional) the wall-clock ms of each loop.
template <typename TimedRun>
TimeStats repeat_and_time(const HarnessOptions& o, TimedRun timed_run, int& warmup_runs,
                          RepetitionWallTimes* wall = nullptr) {
  auto start = std::chrono::steady_clock::now();
  warmup_runs = warm_up(o, timed_run);
  if (wall) wall->warmup_ms = wall_ms_since(start);
  start = std::chrono::steady_clock::now();
  TimeStats stats = measure_until_tight(o, timed_run);
  if (wall) wall->measure_ms = wall_ms_since(start);
  return stats;
}

}  // namespace adaexplore

// Module build (ADAEXPLORE_MODULE, set by the tuner when it compiles the benchmark as a shared
// library for its long-lived runner, tuner/src/evaluate/runner.hpp): the benchmark's `int main(int argc,
// char** argv)` becomes adaexplore_benchmark_main, called through the exported C entry point
// below; an early end (Benchmark::fail, HarnessOptions) unwinds to it as ModuleExit. A benchmark
// whose main has another signature does not link as a module: give it (int argc, char** argv),
// or set the spec's run.runner to false (one process per evaluation).
#if defined(ADAEXPLORE_MODULE) && !defined(ADAEXPLORE_HARNESS_IMPLEMENTATION)  // the benchmark's TU only
int adaexplore_benchmark_main(int argc, char** argv);
extern "C" __attribute__((visibility("default"))) int adaexplore_module_entry(int argc, char** argv) {
  try {
    return adaexplore_benchmark_main(argc, argv);
  } catch (const adaexplore::ModuleExit& e) {
    return e.code;
  }
}
#define main adaexplore_benchmark_main
#endif

