// AdaExplore benchmark harness for CUDA kernels. A benchmark program includes this header and
// the rendered kernel template, declares its buffers and reference, and hands the launch to
// Benchmark::run(), which verifies, times and writes the result record the tuner reads (the
// protocol is described in harness_common.hpp).
//
//   #include <adaexplore/harness.cuh>
//   #include "vector_add.cuh"                       // the rendered template
//
//   int main(int argc, char** argv) {
//     adaexplore::Benchmark bench(argc, argv);
//     const std::size_t n = std::size_t(1) << 26;
//     auto a = bench.input<float>(n);              // random, never zeros; host copy in a.host()
//     auto b = bench.input<float>(n);
//     auto c = bench.output<float>(n);             // poisoned (NaN bytes) before the checked run
//     std::vector<float> ref(n);
//     for (std::size_t i = 0; i < n; ++i) ref[i] = a.host()[i] + b.host()[i];
//     bench.bytes(3.0 * n * sizeof(float));        // for GB/s in the record
//     return bench.run([&](cudaStream_t s) { launch_vector_add(a.get(), b.get(), c.get(), n, s); },
//                      [&] { return bench.compare(c, ref); });
//   }
//
// Buffers:  input<T>(n)  random, read-only for the kernel.
//           inout<T>(n)  random; restored from a pristine copy before EVERY run (untimed), for
//                        kernels that update in place or accumulate.
//           output<T>(n) poisoned before the verification run; its content is what compare() reads.
//                        (inout buffers cannot be poisoned: the kernel reads them. A benchmark of an
//                        in-place kernel proves every element written by its own check.)
// before_each(fn) runs a user hook before every run, untimed (e.g. zero an atomic counter).
// Kernels using more than 48 KiB of dynamic shared memory: bench.dynamic_shared(kernel, bytes)
// sets cudaFuncAttributeMaxDynamicSharedMemorySize (resource_limit when above the opt-in limit).
//
// Timing: CUDA events recorded on the benchmark's stream around each launch, after warm-up;
// L2 flushed (a memset of twice the L2 size) before every timed run, outside the timed region;
// median of the repetitions. Every CUDA call is checked: a launch error is `launch_error`, a
// sticky error (illegal address, ...) is `crash`, a failed allocation is `resource_limit`.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include "harness_common.hpp"

namespace adaexplore {

namespace detail {
inline bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}
}  // namespace detail

/// A device buffer with the host copy it was initialised from.
template <typename T>
class DeviceBuffer {
 public:
  T* get() const { return device_.get(); }
  std::size_t size() const { return host_.size(); }
  const std::vector<T>& host() const { return host_; }
  std::vector<T>& host() { return host_; }

 private:
  friend class Benchmark;
  std::vector<T> host_;
  std::shared_ptr<T> device_;
  std::shared_ptr<T> pristine_;  // inout buffers: the initial content, restored before each run
};

class Benchmark {
 public:
  Benchmark(int argc, char** argv) : options_(HarnessOptions::parse(argc, argv)), rng_(options_.seed) {
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2)");
    check(cudaDeviceGetAttribute(&optin_shared_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute(shared opt-in)");
    flush_bytes_ = 2 * static_cast<std::size_t>(l2);
    if (flush_bytes_) flush_ = allocate<char>(flush_bytes_, "L2 flush buffer");
  }
  Benchmark(const Benchmark&) = delete;
  Benchmark& operator=(const Benchmark&) = delete;

  const HarnessOptions& options() const { return options_; }
  /// Arguments given to the benchmark that the harness does not use (RUN_ARGS), in order.
  const std::vector<std::string>& args() const { return options_.user_args; }
  std::mt19937_64& rng() { return rng_; }
  cudaStream_t stream() const { return stream_; }

  template <typename T>
  DeviceBuffer<T> input(std::size_t n) {
    DeviceBuffer<T> b = make<T>(n);
    upload(b);
    return b;
  }
  template <typename T>
  DeviceBuffer<T> inout(std::size_t n) {
    DeviceBuffer<T> b = input<T>(n);
    b.pristine_ = allocate<T>(n, "inout pristine copy");
    check(cudaMemcpy(b.pristine_.get(), b.get(), n * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy(pristine)");
    DeviceBuffer<T> copy = b;
    restores_.push_back([this, copy] {
      check(cudaMemcpyAsync(copy.get(), copy.pristine_.get(), copy.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            stream_), "cudaMemcpyAsync(restore inout)");
    });
    return b;
  }
  template <typename T>
  DeviceBuffer<T> output(std::size_t n) {
    DeviceBuffer<T> b = make<T>(n, /*random=*/false);
    T* p = b.get();
    poisons_.push_back([this, p, n] {
      check(cudaMemsetAsync(p, 0xFF, n * sizeof(T), stream_), "cudaMemsetAsync(poison output)");
    });
    return b;
  }
  template <typename T>
  void upload(DeviceBuffer<T>& b) {
    check(cudaMemcpy(b.get(), b.host().data(), b.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(H2D)");
  }
  template <typename T>
  std::vector<T> download(const DeviceBuffer<T>& b) {
    std::vector<T> out(b.size());
    check(cudaMemcpy(out.data(), b.get(), b.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)");
    return out;
  }

  void before_each(std::function<void(cudaStream_t)> hook) { hooks_.push_back(std::move(hook)); }
  void bytes(double b) { record_.bytes = b; }
  void flops(double f) { record_.flops = f; }

  /// Opts a kernel in to `bytes` of dynamic shared memory (needed above 48 KiB).
  template <typename Kernel>
  void dynamic_shared(Kernel kernel, std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(optin_shared_))
      fail("resource_limit", "", "the kernel asks for " + std::to_string(bytes) +
                                     " bytes of dynamic shared memory; this device allows " +
                                     std::to_string(optin_shared_) + " per block with opt-in");
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bytes)), "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  }

  /// Compares an output buffer with the reference.
  template <typename T>
  Verification compare(const DeviceBuffer<T>& out, const std::vector<T>& expected, Tolerance tol = {}) {
    if (expected.size() != out.size())
      fail("wrong_result", "", "reference has " + std::to_string(expected.size()) + " values, output " +
                                   std::to_string(out.size()));
    const std::vector<T> got = download(out);
    return compare_values(got.data(), expected.data(), got.size(), tol);
  }

  /// Verifies once, then warms up and times `launch`; writes the record; returns the exit code.
  int run(const std::function<void(cudaStream_t)>& launch, const std::function<Verification()>& verify) {
    prepare_run(/*poison=*/true);
    launch_checked(launch);
    sync_checked("verification run");
    record_.verification = verify();
    record_.verified = true;
    if (!record_.verification.passed()) fail("wrong_result", "", describe(record_.verification));
    auto timed_run = [&] {
      prepare_run(/*poison=*/false);
      if (flush_) check(cudaMemsetAsync(flush_.get(), 0, flush_bytes_, stream_), "cudaMemsetAsync(L2 flush)");
      check(cudaEventRecord(start_, stream_), "cudaEventRecord(start)");
      launch_checked(launch);
      check(cudaEventRecord(stop_, stream_), "cudaEventRecord(stop)");
      sync_checked("timed run");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
      return static_cast<double>(ms);
    };
    record_.time = repeat_and_time(options_, timed_run, record_.warmup_runs);
    return emit(options_, record_);
  }

  /// Records a failure with `status` and exits the process (the CUDA context may be unusable).
  [[noreturn]] void fail(const std::string& status, const std::string& error_name, const std::string& message) {
    record_.status = status;
    record_.error_name = error_name;
    record_.message = message;
    std::exit(emit(options_, record_));
  }

  /// Checks a CUDA call; on error records launch_error / crash / resource_limit and exits.
  void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    const std::string message = std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    if (e == cudaErrorMemoryAllocation) fail("resource_limit", cudaGetErrorName(e), message);
    fail(detail::is_sticky(e) ? "crash" : "launch_error", cudaGetErrorName(e), message);
  }

 private:
  template <typename T>
  std::shared_ptr<T> allocate(std::size_t n, const char* what) {
    T* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, n * sizeof(T));
    if (e != cudaSuccess)
      fail("resource_limit", cudaGetErrorName(e), std::string("cudaMalloc(") + what + ", " +
                                                       std::to_string(n * sizeof(T)) + " bytes): " + cudaGetErrorString(e));
    return std::shared_ptr<T>(p, [](T* q) { cudaFree(q); });
  }
  template <typename T>
  DeviceBuffer<T> make(std::size_t n, bool random = true) {
    DeviceBuffer<T> b;
    b.host_.resize(n);
    if (random) fill_random(b.host_.data(), n, rng_);
    b.device_ = allocate<T>(n, "buffer");
    return b;
  }
  void prepare_run(bool poison) {
    for (auto& r : restores_) r();
    if (poison)
      for (auto& p : poisons_) p();
    for (auto& h : hooks_) h(stream_);
  }
  void launch_checked(const std::function<void(cudaStream_t)>& launch) {
    launch(stream_);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      fail(detail::is_sticky(e) ? "crash" : "launch_error", cudaGetErrorName(e),
           std::string("kernel launch: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }
  void sync_checked(const char* when) {
    const cudaError_t e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess)
      fail(detail::is_sticky(e) ? "crash" : "launch_error", cudaGetErrorName(e),
           std::string("kernel execution (") + when + "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }

  HarnessOptions options_;
  std::mt19937_64 rng_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int optin_shared_ = 48 * 1024;
  std::size_t flush_bytes_ = 0;
  std::shared_ptr<char> flush_;
  std::vector<std::function<void()>> restores_, poisons_;
  std::vector<std::function<void(cudaStream_t)>> hooks_;
  ResultRecord record_;
};

}  // namespace adaexplore
