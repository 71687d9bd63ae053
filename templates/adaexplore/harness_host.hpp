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

#include <chrono>
#include <functional>
#include <memory>

#include "harness_common.hpp"

namespace adaexplore {

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
    return once_per_runner<T>(once_key(key, sizeof(T), options_.seed, options_.user_args), make);
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
      fail("wrong_result", "reference has " + std::to_string(expected.size()) + " values, output " +
                               std::to_string(out.size()));
    return compare_values(out.data(), expected.data(), out.size(), tol);
  }

  /// Verifies once, then warms up and times `launch` (warm_up, measure_until_tight in
  /// harness_common.hpp); writes the record with its stages_ms; returns the exit code.
  int run(const std::function<void()>& launch, const std::function<Verification()>& verify) {
    record_.stages_ms = {{"setup", wall_ms_since(created_)}};
    const auto verify_start = std::chrono::steady_clock::now();
    prepare_run(true);
    launch();
    record_.verification = verify();
    record_.verified = true;
    record_.stages_ms.emplace_back("verify", wall_ms_since(verify_start));
    if (!record_.verification.passed()) fail("wrong_result", describe(record_.verification));
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
