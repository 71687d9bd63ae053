// AdaExplore benchmark harness for C++ (host) kernels: the same protocol and API shape as the
// CUDA harness (harness.cuh), with buffers in host memory and a steady clock. It lets the whole
// tuning loop run, with real compile errors, crashes and timings, on machines without a GPU.
//
//   #include <adaexplore/harness_host.hpp>
//   #include "saxpy.hpp"                             // the rendered template
//
//   int main(int argc, char** argv) {
//     adaexplore::HostBenchmark bench(argc, argv);
//     const std::size_t n = 1 << 22;
//     auto x = bench.input<float>(n);
//     auto y = bench.inout<float>(n);               // y = a*x + y updates in place: restored each run
//     std::vector<float> ref(n);
//     for (std::size_t i = 0; i < n; ++i) ref[i] = 2.0f * x[i] + y.pristine()[i];
//     bench.bytes(3.0 * n * sizeof(float));
//     return bench.run([&] { saxpy(2.0f, x.data(), y.data(), n); },
//                      [&] { return bench.compare(y, ref); });
//   }
#pragma once

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "harness_common.hpp"

namespace adaexplore {

/// What timing nothing costs here: the median of timing an empty launch through the timed region
/// of HostBenchmark::run (two steady_clock readings around a std::function call), and the
/// clock's tick (the smallest non-zero difference seen between two readings), in ms.
struct HostClock {
  double empty_ms = 0, tick_ms = 0;
};

inline HostClock measure_host_clock(int samples = 301) {
  const std::function<void()> empty = [] {};
  std::vector<double> times;
  HostClock c;
  for (int i = 0; i < samples; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    empty();
    const auto t1 = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    times.push_back(ms);
    if (ms > 0 && (c.tick_ms == 0 || ms < c.tick_ms)) c.tick_ms = ms;
  }
  std::sort(times.begin(), times.end());
  c.empty_ms = times[times.size() / 2];
  return c;
}

/// The host harness's sanity gates (see "suspicious" at the top of harness_common.hpp): each fired
/// gate appends one reason. The floor: a median under max(kHostFloorMs, kHostFloorFactor x the
/// empty launch's median, kHostFloorFactor x the clock's tick) times the clock, not a kernel (a
/// launch that works only on its first call, a result the compiler optimised away); the tick
/// keeps it meaningful on a coarse clock (a median of 0 or one tick is always under it).
inline constexpr double kHostFloorMs = 0.00005;  // 50 ns
inline constexpr double kHostFloorFactor = 4;
inline void check_host_floor(const TimeStats& t, const HostClock& c, std::vector<std::string>& suspicious) {
  const double floor_ms = std::max({kHostFloorMs, kHostFloorFactor * c.empty_ms, kHostFloorFactor * c.tick_ms});
  if (t.values.empty() || !(t.median < floor_ms)) return;
  std::ostringstream s;
  s << "median " << t.median << " ms is under the host floor of " << floor_ms << " ms (" << kHostFloorFactor
    << " x the " << c.empty_ms << " ms that timing an empty launch takes here, clock tick " << c.tick_ms
    << " ms; at least " << kHostFloorMs
    << " ms): the benchmark may not time the kernel (does its launch do the whole work on every call, "
       "and is the result used?)";
  suspicious.push_back(s.str());
}

/// The host roofline: figures' bytes / median above kHostPeakGbs with a working set over twice the
/// last-level cache (`cache_bytes`; <= 0: unknown, the gate is off). 20 TB/s is above the memory
/// bandwidth of any CPU and above the aggregate last-level-cache bandwidth of the largest (2026),
/// so only a wrong bytes figure or a timing of nothing exceeds it.
inline constexpr double kHostPeakGbs = 20000;
inline void check_host_bandwidth(double bytes, const TimeStats& t, double cache_bytes,
                                 std::vector<std::string>& suspicious) {
  if (cache_bytes <= 0 || bytes <= 2 * cache_bytes || !(t.median > 0)) return;
  const double gbs = bytes / (t.median * 1e6);
  if (!(gbs > kHostPeakGbs)) return;
  std::ostringstream s;
  s << gbs << " GB/s (" << bytes << " bytes in " << t.median << " ms) is above " << kHostPeakGbs
    << " GB/s, more than any CPU's memory moves, with a working set over twice the last-level cache ("
    << cache_bytes << " bytes): the bytes figure or the timing is wrong";
  suspicious.push_back(s.str());
}

/// The last-level cache's size in bytes (sysconf, else Linux's sysfs); 0 when unknown.
inline double host_last_level_cache_bytes() {
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE); l3 > 0) return static_cast<double>(l3);
#endif
  for (const char* index : {"index3", "index2"}) {
    std::ifstream in(std::string("/sys/devices/system/cpu/cpu0/cache/") + index + "/size");
    double size = 0;
    char unit = 0;
    if (in >> size && size > 0) {
      in >> unit;
      return size * (unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : 1.0);
    }
  }
  return 0;
}

/// A host buffer; inout buffers keep their initial content in pristine().
template <typename T>
class HostBuffer {
 public:
  T* data() { return values_->data(); }
  const T* data() const { return values_->data(); }
  std::size_t size() const { return values_->size(); }
  T& operator[](std::size_t i) { return (*values_)[i]; }
  const T& operator[](std::size_t i) const { return (*values_)[i]; }
  const std::vector<T>& pristine() const { return *pristine_; }
  const std::vector<T>& values() const { return *values_; }

 private:
  friend class HostBenchmark;
  std::shared_ptr<std::vector<T>> values_ = std::make_shared<std::vector<T>>();
  std::shared_ptr<std::vector<T>> pristine_ = values_;
};

class HostBenchmark {
 public:
  HostBenchmark(int argc, char** argv)
      : created_(std::chrono::steady_clock::now()), options_(HarnessOptions::parse(argc, argv)), rng_(options_.seed) {}

  const HarnessOptions& options() const { return options_; }
  const std::vector<std::string>& args() const { return options_.user_args; }
  std::mt19937_64& rng() { return rng_; }
  /// `make()`'s result (a std::vector<T>), computed once per runner process and copied for the
  /// later configurations (once_per_runner in harness_common.hpp): for host data that does not
  /// depend on the configuration, such as the reference. `key` names what else it depends on
  /// (the seed and the arguments are added). Draw random numbers for it from its own generator
  /// seeded from options().seed, not from rng(), whose state would then differ between runs.
  template <typename Make>
  auto once(const std::string& key, Make make) -> decltype(make()) {
    using Vector = decltype(make());
    using T = typename Vector::value_type;
    return once_per_runner<T>(once_key(key, sizeof(T), options_.seed, options_.once_args()), make);
  }
  /// The problem size being tuned, as Benchmark::size (harness.cuh): the value of `name`
  /// (--adaexplore-size NAME=VALUE); without it, size(name) records a launch_error naming the sizes
  /// and size(name, fallback) is `fallback`.
  long long size(const std::string& name) {
    long long value = 0;
    std::string error;
    if (!options_.size(name, nullptr, value, error)) fail(status::launch_error, "HostBenchmark::" + error);
    return value;
  }
  long long size(const std::string& name, long long fallback) {
    long long value = 0;
    std::string error;
    options_.size(name, &fallback, value, error);
    return value;
  }

  template <typename T>
  HostBuffer<T> input(std::size_t n) {
    HostBuffer<T> b;
    b.values_->resize(n);
    fill_random(b.data(), n, rng_);
    return b;
  }
  template <typename T>
  HostBuffer<T> inout(std::size_t n) {
    HostBuffer<T> b = input<T>(n);
    b.pristine_ = std::make_shared<std::vector<T>>(*b.values_);
    restores_.push_back([b]() mutable { *b.values_ = *b.pristine_; });
    return b;
  }
  template <typename T>
  HostBuffer<T> output(std::size_t n) {
    HostBuffer<T> b;
    b.values_->resize(n);
    auto values = b.values_;
    poisons_.push_back([values] { std::fill(values->begin(), values->end(), poison<T>()); });
    return b;
  }

  void before_each(std::function<void()> hook) { hooks_.push_back(std::move(hook)); }
  void bytes(double b) { record_.bytes = b; }
  void flops(double f) { record_.flops = f; }

  template <typename T>
  Verification compare(const HostBuffer<T>& out, const std::vector<T>& expected, Tolerance tol = {}) {
    if (expected.size() != out.size())
      fail(status::wrong_result, "reference has " + std::to_string(expected.size()) + " values, output " +
                               std::to_string(out.size()));
    return compare_values(out.data(), expected.data(), out.size(), tol);
  }

  /// Verifies once, then warms up and times `launch` (warm_up, measure_until_tight in
  /// harness_common.hpp), checks the timing (check_host_floor, check_host_bandwidth); writes the
  /// record with its stages_ms; returns the exit code.
  int run(const std::function<void()>& launch, const std::function<Verification()>& verify) {
    record_.stages_ms = {{"setup", wall_ms_since(created_)}};
    const auto verify_start = std::chrono::steady_clock::now();
    prepare_run(true);
    launch();
    record_.verification = verify();
    record_.verified = true;
    record_.stages_ms.emplace_back("verify", wall_ms_since(verify_start));
    if (!record_.verification.passed()) fail(status::wrong_result, describe(record_.verification));
    auto timed_run = [&] {
      prepare_run(false);
      const auto t0 = std::chrono::steady_clock::now();
      launch();
      const auto t1 = std::chrono::steady_clock::now();
      return std::chrono::duration<double, std::milli>(t1 - t0).count();
    };
    RepetitionWallTimes wall;
    record_.time = repeat_and_time(options_, timed_run, record_.warmup_runs, &wall);
    record_.stages_ms.emplace_back("warmup", wall.warmup_ms);
    record_.stages_ms.emplace_back("measure", wall.measure_ms);
    check_host_floor(record_.time, measure_host_clock(), record_.suspicious);
    check_host_bandwidth(record_.bytes, record_.time, host_last_level_cache_bytes(), record_.suspicious);
    return emit(options_, record_);
  }

  [[noreturn]] void fail(const std::string& status, const std::string& message) {
    record_.status = status;
    record_.message = message;
    finish(emit(options_, record_));  // exits, or unwinds a module (harness_common.hpp)
  }

 private:
  template <typename T>
  static T poison() {
    if constexpr (std::numeric_limits<T>::has_quiet_NaN) return std::numeric_limits<T>::quiet_NaN();
    else return std::numeric_limits<T>::max();
  }
  void prepare_run(bool poison_outputs) {
    for (auto& r : restores_) r();
    if (poison_outputs)
      for (auto& p : poisons_) p();
    for (auto& h : hooks_) h();
  }

  std::chrono::steady_clock::time_point created_;  // stages_ms "setup" starts here
  HarnessOptions options_;
  std::mt19937_64 rng_;
  std::vector<std::function<void()>> restores_, poisons_, hooks_;
  ResultRecord record_;
};

}  // namespace adaexplore
