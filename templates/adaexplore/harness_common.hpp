// AdaExplore benchmark harness: the parts shared by the CUDA (harness.cuh) and host
// (harness_host.hpp) harnesses. Header-only, C++17, no dependencies.
//
// Protocol between the tuner and a benchmark program (one process per evaluation):
//   <program> --adaexplore-result FILE [--adaexplore-seed N] [--adaexplore-warmup-ms MS]
//             [--adaexplore-measure-ms MS] [--adaexplore-max-reps N] [user arguments...]
// The program writes one JSON object to FILE:
//   {"adaexplore_harness": 1, "status": "ok"|"launch_error"|"crash"|"wrong_result"|"resource_limit",
//    "message": "...", "error_name": "cudaErrorIllegalAddress",
//    "time_ms": {"median", "mean", "min", "max", "stdev", "samples": n, "values": [...]},
//    "warmup_runs": n, "verification": {"checked", "mismatches", "max_abs_error", "max_rel_error",
//    "rel_l2_error", "first_mismatch": {"index", "got", "expected"}},
//    "figures": {"bytes": b, "flops": f, "GB/s": x, "GFLOP/s": y},
//    "kernels": [{"name", "block": [x, y, z], "threads_per_block", "registers",
//                 "max_threads_per_block", "static_shared_bytes", "dynamic_shared_bytes",
//                 "max_dynamic_shared_bytes", "local_bytes", "blocks_per_sm", "warps_per_sm",
//                 "occupancy", "launchable", "reason"}]}
// and exits 0 when status is "ok", non-zero otherwise. "kernels" (CUDA harness only, present when
// the benchmark called Benchmark::check_launch) holds what the driver says of each kernel and
// launch shape: cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessor, see
// KernelRecord; a kernel with "launchable": false is the evidence of a failed status. A program that dies (signal) or exits
// without writing FILE is classified by the tuner from its exit status and stderr.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace adaexplore {

/// Harness settings from the command line (the tuner passes them; defaults suit a manual run).
struct HarnessOptions {
  std::string result_file;     // where the result record goes; empty: stdout
  std::uint64_t seed = 12345;  // inputs are drawn from this seed
  double warmup_ms = 30;       // warm-up: run until this much time has passed (at least 2 runs)
  double measure_ms = 200;     // measurement: repeat until this much kernel time (at least min_reps)
  int min_reps = 10;
  int max_reps = 2000;
  std::vector<std::string> user_args;  // arguments the harness does not know, in order

  static HarnessOptions parse(int argc, char** argv) {
    HarnessOptions o;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&](const char* name) -> const char* {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "adaexplore harness: %s needs a value\n", name);
          std::exit(64);
        }
        return argv[++i];
      };
      if (a == "--adaexplore-result") o.result_file = value("--adaexplore-result");
      else if (a == "--adaexplore-seed") o.seed = std::strtoull(value("--adaexplore-seed"), nullptr, 10);
      else if (a == "--adaexplore-warmup-ms") o.warmup_ms = std::atof(value("--adaexplore-warmup-ms"));
      else if (a == "--adaexplore-measure-ms") o.measure_ms = std::atof(value("--adaexplore-measure-ms"));
      else if (a == "--adaexplore-max-reps") o.max_reps = std::atoi(value("--adaexplore-max-reps"));
      else o.user_args.push_back(a);
    }
    return o;
  }
};

/// Sample statistics of per-run times (ms).
struct TimeStats {
  double median = 0, mean = 0, min = 0, max = 0, stdev = 0;
  std::vector<double> values;

  static TimeStats of(std::vector<double> v) {
    TimeStats s;
    s.values = v;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

/// Element-wise tolerance: |got - expected| <= abs + rel * |expected|; NaN/Inf never pass.
struct Tolerance {
  double rel = 1e-5;
  double abs = 1e-6;
};

struct Verification {
  std::size_t checked = 0, mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0, rel_l2_error = 0;
  std::size_t first_index = 0;
  double first_got = 0, first_expected = 0;
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
    const bool bad = !std::isfinite(g) || !(err <= tol.abs + tol.rel * std::fabs(e));
    if (std::isfinite(g)) {
      v.max_abs_error = std::max(v.max_abs_error, err);
      if (e != 0) v.max_rel_error = std::max(v.max_rel_error, err / std::fabs(e));
      diff2 += err * err;
    }
    ref2 += e * e;
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
  const std::size_t threads = n < (1u << 20) ? 1 : std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(fill, std::min(n, t * chunk), std::min(n, (t + 1) * chunk));
  fill(0, std::min(n, chunk));
  for (auto& th : pool) th.join();
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

/// Everything that goes into the result record.
struct ResultRecord {
  std::string status = "ok";
  std::string message;
  std::string error_name;
  TimeStats time;
  int warmup_runs = 0;
  bool verified = false;
  Verification verification;
  double bytes = 0, flops = 0;
  std::vector<KernelRecord> kernels;
};

inline std::string json_string(const std::string& s) {
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

inline std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

inline std::string to_json(const ResultRecord& r) {
  std::ostringstream j;
  j << "{\"adaexplore_harness\": 1, \"status\": " << json_string(r.status)
    << ", \"message\": " << json_string(r.message) << ", \"error_name\": " << json_string(r.error_name);
  if (!r.time.values.empty()) {
    j << ", \"time_ms\": {\"median\": " << json_number(r.time.median) << ", \"mean\": " << json_number(r.time.mean)
      << ", \"min\": " << json_number(r.time.min) << ", \"max\": " << json_number(r.time.max)
      << ", \"stdev\": " << json_number(r.time.stdev) << ", \"samples\": " << r.time.values.size() << ", \"values\": [";
    for (std::size_t i = 0; i < r.time.values.size(); ++i) j << (i ? ", " : "") << json_number(r.time.values[i]);
    j << "]}, \"warmup_runs\": " << r.warmup_runs;
  }
  if (r.verified) {
    const auto& v = r.verification;
    j << ", \"verification\": {\"checked\": " << v.checked << ", \"mismatches\": " << v.mismatches
      << ", \"max_abs_error\": " << json_number(v.max_abs_error) << ", \"max_rel_error\": " << json_number(v.max_rel_error)
      << ", \"rel_l2_error\": " << json_number(v.rel_l2_error);
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
inline int emit(const HarnessOptions& o, const ResultRecord& r) {
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
  if (r.status != "ok") std::fprintf(stderr, "adaexplore harness: %s: %s\n", r.status.c_str(), r.message.c_str());
  return r.status == "ok" ? 0 : 1;
}

/// Describes a failed verification for the record's message.
inline std::string describe(const Verification& v) {
  std::ostringstream s;
  s << v.mismatches << " of " << v.checked << " values differ from the reference; first at index " << v.first_index
    << ": got " << v.first_got << ", expected " << v.first_expected << " (max abs error " << v.max_abs_error << ")";
  return s.str();
}

/// Repetition policy shared by both harnesses: warm up for warmup_ms (at least 2 runs), then
/// time runs until measure_ms of measured time and at least min_reps, at most max_reps.
/// `timed_run()` performs one untimed reset + one timed run and returns its time in ms.
template <typename TimedRun>
TimeStats repeat_and_time(const HarnessOptions& o, TimedRun timed_run, int& warmup_runs) {
  double spent = 0;
  warmup_runs = 0;
  while (warmup_runs < 2 || (spent < o.warmup_ms && warmup_runs < o.max_reps)) {
    spent += timed_run();
    ++warmup_runs;
  }
  std::vector<double> times;
  double total = 0;
  while (static_cast<int>(times.size()) < o.max_reps &&
         (static_cast<int>(times.size()) < o.min_reps || total < o.measure_ms)) {
    times.push_back(timed_run());
    total += times.back();
  }
  return TimeStats::of(times);
}

}  // namespace adaexplore
