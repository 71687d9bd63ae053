// AdaExplore benchmark harness for CUDA kernels. A benchmark declares its buffers and reference
// and hands the launch to Benchmark::run(), which verifies, times and writes the result record the
// tuner reads (the protocol is described in harness_common.hpp). Many kernels need no benchmark
// file: the tuning call's ARGS declare the arguments and the tuner writes one
// (docs/first-tuning.md, the guide to this API). One written by hand, for a kernel whose launch
// shape the call declares (BLOCK_DIM, GRID_DIM) and whose reference is a configuration (REFERENCE):
//
//   #include <adaexplore/harness.cuh>
//
//   int main(int argc, char** argv) {
//     adaexplore::Benchmark bench(argc, argv);
//     const int n = 1 << 26;
//     auto a = bench.input<float>(n);              // random, never zeros; host copy in a.host()
//     auto b = bench.input<float>(n);
//     auto c = bench.output<float>(n);             // poisoned (NaN bytes) before the checked run
//     bench.set_global("scale", std::vector<float>{2.0f});  // a __constant__ of the kernel, by name
//     bench.bytes(3.0 * n * sizeof(float));        // for GB/s in the record
//     const adaexplore::Kernel add = bench.kernel();  // KERNEL_NAME's kernel, this configuration's cubin
//     return bench.run([&] { bench.launch(add, a, b, c, n); },   // the declared shape
//                      bench.tolerance());         // outputs against the REFERENCE configuration's
//   }
//
// The same source serves both compile units (the kernel unit and the whole program): no #ifdef.
// kernel(name), param(name), exported(name), set_global/get_global and launch() read the active
// configuration's cubin. Without a REFERENCE, run(launch, [&] { return bench.compare(c, ref); })
// checks against a host reference (bench.once() computes it once per runner).
//
// Buffers:  input<T>(n)  random, read-only for the kernel.
//           inout<T>(n)  random; restored from a pristine copy before EVERY run (untimed), for
//                        kernels that update in place or accumulate.
//           output<T>(n) poisoned before the verification run; its content is what compare() reads.
//                        (inout buffers cannot be poisoned: the kernel reads them. A benchmark of an
//                        in-place kernel proves every element written by its own check.)
// compare(buf, ref) checks every element against a host reference: on the device when `ref` is
// the vector once() returned (its device copy kept for the later configurations), else on the
// host after a download.
// Reading results back for the verification: download(buf) copies the whole buffer to the host;
// gather(buf, indices) reads only the elements at those indices and nonfinite(buf) counts NaN and
// infinite elements on the device, so a check of "every element finite, a sample exact" of a
// large output reads back kilobytes, not the buffer.
// before_each(fn) runs a user hook before every run, untimed (e.g. zero an atomic counter).
// Kernels using more than 48 KiB of dynamic shared memory: bench.dynamic_shared(kernel, bytes)
// sets cudaFuncAttributeMaxDynamicSharedMemorySize (resource_limit when above the opt-in limit).
// check_launch(kernel, block, dynamic_shared, name) asks the driver, before any launch, whether the
// kernel can run with that block and shared memory (cudaFuncGetAttributes: registers, the kernel's
// maxThreadsPerBlock, static/dynamic shared and local bytes; cudaOccupancyMaxActiveBlocksPerMultiprocessor:
// blocks per SM and occupancy) and records it in the record's "kernels" array. A block the kernel
// cannot run (more threads than its maxThreadsPerBlock, which registers and launch bounds lower
// below the device's 1024; more shared memory than allowed) is `resource_limit` with the figures in
// the message, instead of a launch error: ptxas's registers x threads is no proof that a block fits
// (allocation granularity), the driver's attributes are. A block over the device's own limits (more
// than 1024 threads) is left to the launch, which fails for real: `launch_error`.
//
// Timing: CUDA events recorded on the benchmark's stream around each launch, after warm-up;
// L2 flushed (a memset of twice the L2 size) before every timed run, outside the timed region;
// median of the repetitions, repeated until its 95 % confidence interval is within ci_rel (1 %)
// or a cap is reached (harness_common.hpp). The record's "suspicious" flags a median under the
// launch-overhead floor, a bandwidth above the device's peak, and clock slowdowns (NVML, when
// libnvidia-ml.so.1 is there; never linked). Every CUDA call is checked: a launch error is `launch_error`, a
// sticky error (illegal address, ...) is `crash`, a failed allocation is `resource_limit`.
#pragma once

#include <cuda_runtime.h>

// The CUDA runtime this benchmark is compiled against, 1000 x major + 10 x minor (12040 for 12.4).
// The harness needs 12.0 (cudaLibrary_t, cudaKernel_t); the kernel unit's Benchmark::kernel() and
// its argument check need 12.4 (cudaLibraryGetKernelCount, cudaLibraryEnumerateKernels,
// cudaFuncGetName, cudaFuncGetParamInfo): compiled against 12.0 to 12.3 they fail at run time
// saying so, and a whole-program benchmark (<<<>>>) works. The tuner picks the whole program for
// COMPILE_UNIT AUTO with an nvcc before 12.4 (kernel_unit.hpp). Set by the tests to check that
// nothing newer is used below it.
#ifndef ADAEXPLORE_CUDART_VERSION
#define ADAEXPLORE_CUDART_VERSION CUDART_VERSION
#endif
#if ADAEXPLORE_CUDART_VERSION < 12000
#error "AdaExplore's CUDA harness needs CUDA 12.0 or newer (cudaLibrary_t, cudaKernel_t)"
#endif

#if defined(__linux__)
#include <dlfcn.h>
#endif

#include <cxxabi.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <typeinfo>

#include "harness_common.hpp"
#include "harness_kernels.cuh"

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
/// The SM clock and the clock event ("throttle") reasons of one GPU through NVML, loaded at run
/// time: dlopen("libnvidia-ml.so.1"), never linked, and no nvml.h needed (the few entry points are
/// declared here with nvml.h's signatures: nvmlReturn_t is an int enum, NVML_SUCCESS 0; the
/// device handle a pointer; NVML_CLOCK_SM 1). The CUDA device is found by its PCI bus id
/// (cudaDeviceGetPCIBusId -> nvmlDeviceGetHandleByPciBusId_v2), as NVML and CUDA number devices
/// differently. The reasons come from nvmlDeviceGetCurrentClocksEventReasons (drivers 535 and
/// newer), else its former name nvmlDeviceGetCurrentClocksThrottleReasons. Any failure (no
/// library, an entry point missing, nvmlInit_v2 or the device look-up failing: no NVML in a
/// container, a non-Linux host) leaves it unavailable, and the benchmark carries on without.
class NvmlClocks;  // defined with the harness's function bodies (ADAEXPLORE_HARNESS_BODIES)
}  // namespace detail

namespace detail {
/// What Benchmark::once() made, kept for the module's lifetime (with the kernel unit the runner
/// keeps the benchmark module loaded, so for every configuration it measures): the value, and
/// for a reference that compare() is given, its device copy and the comparison's partial figures
/// (made at the first compare(), then served again).
struct OnceEntry {
  std::shared_ptr<void> value;  // the std::vector make() returned
  const void* data = nullptr;   // its elements, and their bytes: how compare() recognises it
  std::size_t bytes = 0;
  std::shared_ptr<void> device, partials;
  unsigned long long used = 0;  // the last Benchmark (once_generation()) that asked for it
};
ADAEXPLORE_FN std::map<std::string, OnceEntry>& once_cache();
/// Counts the Benchmark objects that used once() in this module (each gets the next number).
ADAEXPLORE_FN unsigned long long& once_generation();
/// The once() values kept at most (bytes of host data): beyond it, entries no Benchmark alive
/// uses are dropped, the least recently used first. A key that differs per configuration (a size
/// that depends on a parameter) would otherwise keep one value per configuration.
constexpr std::size_t kOnceCacheBytes = std::size_t(16) << 30;
}  // namespace detail

/// Benchmark::nonfinite's answer: how many elements are NaN or infinite, and the first of them.
struct NonFinite {
  std::size_t count = 0;
  std::size_t first_index = 0;  // meaningful when count > 0
  double first_value = 0;       // the value there (NaN or +-inf)
  std::size_t nan = 0;          // how many of the count are NaN (the others are +-inf)
};

/// A device buffer with the host copy it was initialised from. With the kernel unit in the
/// tuner's runner (Benchmark::kernel), the benchmark's buffers are made once and served again to
/// the later configurations (detail::BufferCache): the host copy is then shared with that cache,
/// and the non-const host() copies it first (copy on write), so that what one configuration does
/// to it never reaches the next. Read it through a const buffer (std::as_const(b).host()) to
/// avoid the copy.
template <typename T>
class DeviceBuffer {
 public:
  T* get() const { return device_.get(); }
  std::size_t size() const { return host_ ? host_->size() : 0; }
  const std::vector<T>& host() const { return host_ ? *host_ : empty(); }
  std::vector<T>& host() {
    if (!host_) host_ = std::make_shared<std::vector<T>>();
    if (shared_) {  // served from the cache: this configuration's own copy from now on
      host_ = std::make_shared<std::vector<T>>(*host_);
      shared_ = false;
    }
    return *host_;
  }

 private:
  friend class Benchmark;
  static const std::vector<T>& empty() {
    static const std::vector<T> none;
    return none;
  }
  std::shared_ptr<std::vector<T>> host_;
  bool shared_ = false;          // host_ is the cache's (copy before writing)
  std::shared_ptr<T> device_;
  std::shared_ptr<T> pristine_;  // inout buffers and cached inputs: the initial content, restored
};

namespace detail {
/// One buffer the benchmark made, kept for the next configuration measured by the same runner
/// (kernel unit only): the n-th input(), inout() or output() call of a Benchmark is served from
/// entry n when the element type, the count, the kind and the random generator's state before the
/// call are all the same (the same benchmark, seed and arguments make the same calls), so its
/// content is the same as a new one's would be. Inputs and inout buffers keep a pristine device
/// copy that the next configuration's buffer is restored from (device to device, untimed), so a
/// configuration that wrote into its inputs cannot hand that to the next.
struct CachedBuffer {
  std::string type;  // typeid(T).name()
  std::size_t n = 0;
  int kind = 0;  // 0 input, 1 inout, 2 output
  int fill = 0;  // the Fill of an input or inout
  std::mt19937_64 rng_before, rng_after;
  std::shared_ptr<void> host, device, pristine;
  /// launch_checksum of `pristine` when it was made (inputs and inout buffers): checked before a
  /// later configuration reuses the buffer, since a kernel that writes outside its own buffers
  /// without faulting can reach a pristine copy, which would then corrupt every later
  /// configuration's inputs. A changed one drops this entry and the later ones (made afresh) and
  /// is said in the record (ResultRecord::damaged).
  unsigned long long checksum = 0;
};
/// The cache, one per loaded benchmark module (its entries live as long as the runner keeps it).
ADAEXPLORE_FN std::vector<CachedBuffer>& buffer_cache();
}  // namespace detail

class Benchmark;

namespace detail {
/// A DeviceBuffer passed to a launch is its device pointer; any other argument is itself.
template <typename T>
T* launch_argument(const DeviceBuffer<T>& b) {
  return b.get();
}
template <typename T>
const T& launch_argument(const T& a) {
  return a;
}
/// A kernel of one configuration's cubin, found by Benchmark::resolve().
struct ResolvedKernel {
  cudaKernel_t handle = nullptr;
  std::string mangled, name;
  bool arguments_checked = false;  // Kernel::launch checked the arguments against the parameters
  bool launch_checked = false;     // Benchmark::launch ran check_launch for it
};
}  // namespace detail

/// A kernel of the configuration's cubin (Benchmark::kernel), launched like
/// `kernel<<<grid, block, shared, stream>>>(args...)`: launch(grid, block, shared, stream, args...),
/// or with the declared launch shape Benchmark::launch(kernel, args...). A DeviceBuffer argument is
/// passed as its device pointer. The arguments are checked once against the kernel's parameters
/// (count and sizes, from cudaFuncGetParamInfo): pass exactly the kernel's parameter types (int,
/// not std::size_t, for an int parameter); a mismatch is a launch_error naming the parameter. A
/// failed launch is launch_error (crash for a sticky error), as with <<<>>>.
///
/// A Kernel names the kernel, not one cubin's copy of it: while the benchmark computes the reference
/// configuration's outputs (Benchmark::run with a Tolerance), the same Kernel launches the
/// reference configuration's kernel of that name.
class Kernel {
 public:
  Kernel() = default;
  /// The kernel's name as the compiler wrote it (mangled) and demangled.
  const std::string& mangled_name() const { return resolved().mangled; }
  const std::string& name() const { return resolved().name; }
  /// The runtime's handle; usable wherever the runtime takes a kernel (`const void*` functions).
  cudaKernel_t handle() const { return resolved().handle; }
  const void* function() const { return reinterpret_cast<const void*>(handle()); }

  template <typename... Args>
  void launch(dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, const Args&... args) const {
    launch_arguments(grid, block, shared, stream, detail::launch_argument(args)...);
  }

 private:
  friend class Benchmark;
  template <typename... Args>
  void launch_arguments(dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, const Args&... args) const {
    const std::size_t sizes[sizeof...(Args) + 1] = {sizeof(Args)..., 0};
    detail::ResolvedKernel& k = resolved();
    if (!k.arguments_checked) check_arguments(k, sizes, sizeof...(Args));
    void* params[sizeof...(Args) + 1] = {const_cast<void*>(static_cast<const void*>(&args))..., nullptr};
    launch_with(k, grid, block, shared, stream, params);
  }
  detail::ResolvedKernel& resolved() const;
  void check_arguments(detail::ResolvedKernel& k, const std::size_t* sizes, std::size_t count) const;
  void launch_with(const detail::ResolvedKernel& k, dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                   void** params) const;

  Benchmark* bench_ = nullptr;
  std::string query_;  // the name the benchmark asked for
};

/// How a buffer made by Benchmark::input, inout or Benchmark::global is filled: random (the
/// default: floating point uniform in [-1, 1), integers in [-100, 100]), zero, one, or the sequence
/// 0, 1, 2, ... (as the element type).
enum class Fill { random, zero, one, sequence };

class Benchmark {
 public:
  Benchmark(int argc, char** argv);
  // A module (harness_common.hpp) returns to the runner, which loads the next configuration into
  // the same CUDA context: give back what the constructor took. Errors are ignored (after a
  // sticky error the runner exits anyway).
  ~Benchmark();
  Benchmark(const Benchmark&) = delete;
  Benchmark& operator=(const Benchmark&) = delete;

  const HarnessOptions& options() const { return options_; }
  /// Arguments given to the benchmark that the harness does not use (RUN_ARGS), in order.
  const std::vector<std::string>& args() const { return options_.user_args; }
  std::mt19937_64& rng() { return rng_; }
  /// `make()`'s result (a std::vector<T>), computed once per runner process (once_per_runner in
  /// harness_common.hpp): for host data that does not depend on the configuration, such as the
  /// reference. `key` names what else it depends on (the seed and the arguments are added). Draw
  /// random numbers for it from its own generator seeded from options().seed, not from rng(),
  /// whose state would then differ between runs. The value lives as long as the benchmark module
  /// (with the kernel unit, every configuration the runner measures): bind it to a reference,
  /// `const auto& expected = bench.once(...)`, and compare() keeps its device copy and checks on
  /// the device (a copy, `std::vector<float> expected = bench.once(...)`, is checked on the host).
  template <typename Make>
  auto once(const std::string& key, Make make) -> const decltype(make())& {
    using Vector = decltype(make());
    using T = typename Vector::value_type;
    const std::string full = once_key(key, sizeof(T), options_.seed, options_.once_args());
    auto& cache = detail::once_cache();
    if (!generation_) generation_ = ++detail::once_generation();
    auto at = cache.find(std::string(typeid(Vector).name()) + '\x1f' + full);
    if (at == cache.end()) {
      auto value = std::make_shared<Vector>(once_per_runner<T>(full, make));
      detail::OnceEntry entry;
      entry.data = value->data();
      entry.bytes = value->size() * sizeof(T);
      entry.value = value;
      make_room_for_once(entry.bytes);
      at = cache.emplace(std::string(typeid(Vector).name()) + '\x1f' + full, std::move(entry)).first;
    }
    at->second.used = generation_;
    return *std::static_pointer_cast<Vector>(at->second.value);
  }
  cudaStream_t stream() const { return stream_; }

  /// The configuration's kernels: the tuner compiles each configuration's device code to a cubin
  /// (the kernel unit, compile.unit "kernel"; with compile.unit "program" too, beside the whole
  /// program, for a benchmark that does not include the rendered template) and passes it as
  /// --adaexplore-kernel FILE, with --adaexplore-param NAME=VALUE for every parameter, the declared
  /// launch shape (--adaexplore-block, --adaexplore-grid, --adaexplore-shared) and the values of the
  /// spec's expressions (--adaexplore-value NAME=VALUE).
  ///
  /// kernel(name): the kernel of that cubin called `name`: its demangled name, or that name up to
  /// its template arguments or parameter list ("tiled_sgemm::sgemm_kernel" finds
  /// tiled_sgemm::sgemm_kernel<tiled_sgemm::Policy<64, ...>>(int, ...)), or its mangled name. The
  /// template must instantiate it (a launch of it in the template's code, or an explicit
  /// instantiation, does). The cubin is loaded with cudaLibraryLoadFromFile at the first call and
  /// unloaded with the Benchmark. No cubin given, or no single kernel of that name: launch_error
  /// listing the cubin's kernels. kernel(): the kernel the tuning call names (KERNEL; the spec's
  /// "kernel").
  Kernel kernel(const std::string& name);
  Kernel kernel();
  /// Launches `kernel` with the declared launch shape (BLOCK, GRID and DYNAMIC_SHARED_BYTES of the
  /// tuning call: the spec's launch.block, launch.grid and launch.dynamic_shared_bytes, evaluated by
  /// the tuner for this configuration at the size being tuned) on the benchmark's stream: one call
  /// for `kernel<<<grid, block, shared, stream>>>(args...)`. A DeviceBuffer argument is passed as its
  /// device pointer. The first launch of each kernel asks the driver whether the shape fits
  /// (check_launch: resource_limit with the figures when it does not) and raises the kernel's
  /// dynamic shared memory limit above 48 KiB when the shape asks for more. Without a declared
  /// shape: launch_error saying so (use Kernel::launch(grid, block, shared, stream, args...)).
  template <typename... Args>
  void launch(const Kernel& kernel, const Args&... args) {
    const detail::ConfigurationOptions& c = active();
    if (!c.block[0] || !c.grid[0])
      fail(status::launch_error, "",
           "Benchmark::launch(kernel, ...) launches with the declared launch shape, and none was given: declare "
           "BLOCK_DIM and GRID_DIM in adaexplore_tune_kernel (the spec's launch.block and launch.grid), or launch with "
           "kernel.launch(grid, block, shared_bytes, stream, ...)");
    const dim3 grid(c.grid[0], c.grid[1], c.grid[2]), block(c.block[0], c.block[1], c.block[2]);
    prepare_declared_launch(kernel, block, static_cast<std::size_t>(c.shared));
    kernel.launch(grid, block, static_cast<std::size_t>(c.shared), stream_, args...);
  }
  /// The declared launch shape of the configuration (see launch()): blockDim, gridDim and dynamic
  /// shared bytes; dim3(0, 0, 0) when not declared.
  dim3 block() const { return dim3(active().block[0], active().block[1], active().block[2]); }
  dim3 grid() const { return dim3(active().grid[0], active().grid[1], active().grid[2]); }
  std::size_t shared_bytes() const { return static_cast<std::size_t>(active().shared); }
  /// The configuration's value of parameter `name` (--adaexplore-param), as an integer (a value
  /// that is not one, e.g. "true" or "1.5", is a launch_error: read it with param_text), for
  /// grids and blocks: dim3 grid((n + bench.param("BLOCK") - 1) / bench.param("BLOCK")).
  long long param(const std::string& name);
  /// The value's text, as the template's placeholder was replaced with it.
  const std::string& param_text(const std::string& name);
  /// A value the tuner computed for this configuration at the size being tuned (--adaexplore-value
  /// NAME=VALUE): a generated benchmark's argument lengths and scalars (the spec's "arguments").
  /// No such value: launch_error listing those given.
  double value(const std::string& name);
  /// The verification's tolerance the tuning call gives (TOLERANCE; the spec's "tolerance",
  /// evaluated at the size being tuned: --adaexplore-tolerance REL,ABS), else Tolerance{}.
  Tolerance tolerance() const { return options_.tolerance_given ? options_.tolerance : Tolerance{}; }
  /// The problem size being tuned (SIZES "M=512 N=512 K=512" ...; the spec's "sizes"): the value
  /// of `name` (--adaexplore-size NAME=VALUE, passed by the tuner for every name of the size), an
  /// integer >= 1. Without it, size(name) is a launch_error naming the sizes given, and
  /// size(name, fallback) is `fallback` (a benchmark run at one size, or by hand).
  long long size(const std::string& name);
  long long size(const std::string& name, long long fallback);
  /// A value the template computed at compile time and exported with ADAEXPLORE_EXPORT(name, expr)
  /// (adaexplore/kernel_unit.cuh), e.g. the block size of a Policy type: the template's
  /// `ADAEXPLORE_EXPORT(threads, Policy::kThreads)` and the benchmark's bench.exported("threads").
  /// Read from the cubin by a one-thread launch of its exporting kernel (once per name).
  long long exported(const std::string& name);

  /// Device globals of the configuration's cubin: a `__constant__` or `__device__` variable of the
  /// kernel's code, by its name (`d_filter`; in a namespace `ns::d_filter`; or its mangled name).
  /// set_global copies `values` to its start (at most its size; more is a launch_error naming
  /// both sizes), synchronized, before the launches: constant data such as a filter. Set once per
  /// configuration; it is set again in the reference configuration's cubin when that runs (run
  /// with a Tolerance). No such variable: launch_error naming it and saying that the compiler drops
  /// a variable no kernel uses. get_global reads `n` elements back (e.g. a __device__ counter).
  template <typename T>
  void set_global(const std::string& symbol, const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable<T>::value, "set_global(): T must be trivially copyable");
    set_global_bytes(symbol, values.data(), values.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> get_global(const std::string& symbol, std::size_t n) {
    std::vector<T> out(n);
    get_global_bytes(symbol, out.data(), n * sizeof(T));
    return out;
  }
  /// `n` values made as input(n, fill) makes a buffer's (from the benchmark's generator), set into
  /// the global `symbol` (set_global) and returned: a generated benchmark's "global" argument.
  template <typename T>
  std::vector<T> global(const std::string& symbol, std::size_t n, Fill fill = Fill::random) {
    std::vector<T> values(n);
    fill_values(values.data(), n, fill);
    set_global(symbol, values);
    return values;
  }

  template <typename T>
  DeviceBuffer<T> input(std::size_t n, Fill fill = Fill::random) {
    const StageClock clock(buffers_ms_);
    return made<T>(n, 0, fill);
  }
  template <typename T>
  DeviceBuffer<T> inout(std::size_t n, Fill fill = Fill::random) {
    const StageClock clock(buffers_ms_);
    DeviceBuffer<T> b = made<T>(n, 1, fill);
    restores_.push_back([this, device = b.device_, pristine = b.pristine_, n] {  // not the host copy
      check(cudaMemcpyAsync(device.get(), pristine.get(), n * sizeof(T), cudaMemcpyDeviceToDevice, stream_),
            "cudaMemcpyAsync(restore inout)");
    });
    compared_.push_back(compared_buffer(b, "inout " + std::to_string(compared_.size())));
    return b;
  }
  template <typename T>
  DeviceBuffer<T> output(std::size_t n) {
    const StageClock clock(buffers_ms_);
    DeviceBuffer<T> b = made<T>(n, 2, Fill::random);
    T* p = b.get();
    poisons_.push_back([this, p, n] {
      check(cudaMemsetAsync(p, 0xFF, n * sizeof(T), stream_), "cudaMemsetAsync(poison output)");
    });
    compared_.push_back(compared_buffer(b, "output " + std::to_string(compared_.size())));
    return b;
  }
  template <typename T>
  void upload(DeviceBuffer<T>& b) {
    const std::vector<T>& host = static_cast<const DeviceBuffer<T>&>(b).host();
    check(cudaMemcpy(b.get(), host.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(H2D)");
  }
  template <typename T>
  std::vector<T> download(const DeviceBuffer<T>& b) {
    const StageClock clock(download_ms_);
    std::vector<T> out(b.size());
    check(cudaMemcpy(out.data(), b.get(), b.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)");
    return out;
  }

  /// The elements of `b` at `indices` (each < b.size(); any order, repeats allowed), read on the
  /// device: a verification that checks a sample of a large output reads back the sample (8 bytes
  /// of index and sizeof(T) per element), not the whole buffer (download()). On the benchmark's
  /// stream, synchronized; every CUDA call checked. An index out of range is a benchmark error
  /// (reported as launch_error with the index).
  template <typename T>
  std::vector<T> gather(const DeviceBuffer<T>& b, const std::vector<std::size_t>& indices);

  /// The NaN and infinite elements of a floating-point buffer, counted on the device (one pass at
  /// memory bandwidth; nothing but four numbers read back): "every element of the output is
  /// finite" without download(). On the benchmark's stream, synchronized; every call checked.
  template <typename T>
  NonFinite nonfinite(const DeviceBuffer<T>& b);

  void before_each(std::function<void(cudaStream_t)> hook) { hooks_.push_back(std::move(hook)); }
  void bytes(double b) { record_.bytes = b; }
  void flops(double f) { record_.flops = f; }

  /// Opts a kernel in to `bytes` of dynamic shared memory (needed above 48 KiB).
  template <typename KernelFunction>
  void dynamic_shared(KernelFunction kernel, std::size_t bytes) {
    dynamic_shared_for(reinterpret_cast<const void*>(kernel), bytes);
  }
  void dynamic_shared(const Kernel& kernel, std::size_t bytes) { dynamic_shared_for(kernel.function(), bytes); }
  void dynamic_shared_for(const void* function, std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(optin_shared_))
      fail(status::resource_limit, "", "the kernel asks for " + std::to_string(bytes) +
                                     " bytes of dynamic shared memory; this device allows " +
                                     std::to_string(optin_shared_) + " per block with opt-in");
    check(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bytes)), "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  }

  /// Asks the driver whether `kernel` can launch with `block` threads and `dynamic_shared` bytes of
  /// dynamic shared memory per block, before any launch, and records what it says in the result
  /// record's "kernels" array (KernelRecord in harness_common.hpp): cudaFuncGetAttributes
  /// (numRegs, maxThreadsPerBlock, sharedSizeBytes, localSizeBytes, maxDynamicSharedSizeBytes) and
  /// cudaOccupancyMaxActiveBlocksPerMultiprocessor for this block and shared size (blocks per SM,
  /// occupancy = active warps / the SM's maximum warps). Call it once per kernel the launch
  /// enqueues, before run(), and after dynamic_shared() for a kernel that opts in. `name` labels
  /// the record; empty: the runtime's (mangled) name where it has cudaFuncGetName, else typeid.
  ///
  /// Registers x threads from ptxas do not prove a block fits (registers are allocated per warp
  /// in units of 256, and launch bounds cap a kernel's block); the driver's figures do. It fails:
  ///  - resource_limit when the threads per block exceed the kernel's maxThreadsPerBlock (below the
  ///    device's limit: registers or __launch_bounds__), when the dynamic shared memory exceeds the
  ///    kernel's maxDynamicSharedSizeBytes, or static + dynamic exceeds the device's opt-in limit
  ///    per block (the launch would fail with cudaErrorLaunchOutOfResources or
  ///    cudaErrorInvalidValue, which the harness would report as launch_error). The message is the
  ///    evidence: "block of 1024 threads > 896, the kernel's maxThreadsPerBlock at 72 registers per
  ///    thread".
  ///  - nothing, when the block exceeds the device's own limits (more than maxThreadsPerBlock, 1024,
  ///    threads, or a dimension over maxBlockDim): no kernel can launch that, so the record says
  ///    launchable false and why, and the launch itself fails for real (cudaErrorInvalidConfiguration,
  ///    or cudaErrorInvalidValue for a kernel with __launch_bounds__): status launch_error.
  /// Every CUDA call is checked (check()).
  template <class KernelFunction>
  void check_launch(KernelFunction kernel, dim3 block, std::size_t dynamic_shared = 0, std::string name = {}) {
    const void* func = reinterpret_cast<const void*>(kernel);
    record_kernel(func, name.empty() ? kernel_name<KernelFunction>(func) : name, block, dynamic_shared);
  }
  /// The same for a kernel of the kernel unit (kernel()); `name` empty: its demangled name.
  void check_launch(const Kernel& kernel, dim3 block, std::size_t dynamic_shared = 0, std::string name = {}) {
    record_kernel(kernel.function(), name.empty() ? kernel.name() : name, block, dynamic_shared);
  }

  /// Compares an output buffer with the reference, element by element (Tolerance). A reference
  /// that once() returned (the vector itself, not a copy) of an arithmetic type is compared on
  /// the device: uploaded at the first compare() and kept with it, so a later configuration reads
  /// back only the figures (1024 partial sums), not the output; only when some element is wrong
  /// is the output downloaded and compared on the host, for the report. The verdict is the same
  /// either way (the same double operations); rel_l2_error's sums are added in another order on
  /// the device (last digits). Any other reference: the output downloaded, compared on the host.
  template <typename T>
  Verification compare(const DeviceBuffer<T>& out, const std::vector<T>& expected, Tolerance tol = {}) {
    if (expected.size() != out.size())
      fail(status::wrong_result, "", "reference has " + std::to_string(expected.size()) + " values, output " +
                                   std::to_string(out.size()));
    if constexpr (std::is_arithmetic<T>::value) {
      if (detail::OnceEntry* entry = once_entry(expected.data(), expected.size() * sizeof(T)); entry && out.size()) {
        if (const std::optional<Verification> v = compare_on_device(out, expected, *entry, tol)) return *v;
      }
    }
    const std::vector<T> got = download(out);
    return compare_values(got.data(), expected.data(), got.size(), tol);
  }

  /// Verifies once, then warms up and times `launch`; writes the record; returns the exit code.
  /// `launch` enqueues the work on the stream it is given (or, taking no argument, on stream():
  /// launch() and Kernel::launch with bench.stream() do). `verify` checks the outputs after the
  /// checked run and returns the Verification (compare(), or the benchmark's own check).
  /// Stages (wall-clock, in the record's stages_ms): setup (constructor to here), verify, warmup,
  /// measure; then the sanity gates (see harness_common.hpp): the launch-overhead floor
  /// (kLaunchFloorMs), the device's peak memory bandwidth (bytes() needed), NVML clocks.
  ///
  /// run(launch, tolerance): the reference comes from the GPU. Every output() and inout() buffer
  /// is compared, element by element within `tolerance` (Tolerance; bench.tolerance() is the
  /// tuning call's TOLERANCE), with what the same `launch` wrote into it when run with the
  /// reference configuration (REFERENCE DEFAULTS, or REFERENCE <param>=<value>...: the spec's
  /// "reference"; the tuner passes its cubin and values as --adaexplore-reference-*): the
  /// reference's kernels (the same Kernel objects), parameters, values and declared launch shape
  /// are active while it runs, on the same inputs (inout buffers restored first, outputs
  /// poisoned). So `launch` must read whatever depends on the configuration inside it (param(),
  /// exported(), or better the declared shape: launch()). Computed once per runner and kept with
  /// its device copy, like once(): the comparison runs on the device (compare()). A failure of
  /// the reference's own run is reported with the configuration's status, its message starting
  /// "the reference configuration's run"; without a reference configuration, a launch_error saying
  /// how to declare one. Element types that are not arithmetic (__half, structs) are compared
  /// bytewise. How to choose the tolerance: docs/first-tuning.md.
  template <class Launch, class Verify>
  int run(const Launch& launch, const Verify& verify) {
    std::function<void(cudaStream_t)> on_stream;
    if constexpr (std::is_invocable<const Launch&, cudaStream_t>::value)
      on_stream = launch;
    else
      on_stream = [&launch](cudaStream_t) { launch(); };
    if constexpr (std::is_convertible<const Verify&, Tolerance>::value)
      return run_against_reference(on_stream, static_cast<Tolerance>(verify));
    else
      return run_verified(on_stream, verify);
  }

  /// A median under this many ms is flagged (suspicious): the launch overhead alone of a kernel
  /// timed with CUDA events is about this much, so a shorter time means no kernel was timed.
  static constexpr double kLaunchFloorMs = 0.002;
  /// The device's peak memory bandwidth in GB/s (peak_bandwidth_gbs), 0 when unknown.
  double peak_bandwidth() const { return peak_gbs_; }

  /// Records a failure with `status` and exits the process (the CUDA context may be unusable).
  [[noreturn]] void fail(const std::string& status, const std::string& error_name, const std::string& message);

  /// Checks a CUDA call; on error records launch_error / crash / resource_limit and exits.
  void check(cudaError_t e, const char* what);

 private:
  // check_launch for the kernel at `func`, labelled `name`.
  void record_kernel(const void* func, const std::string& name, dim3 block, std::size_t dynamic_shared);
  // Device memory for n T's. In the tuner's runner, a block of the same size that the previous
  // configuration gave back is reused (its device pool, tuner/src/cli/runner_main.cpp: no cudaMalloc
  // and no cudaFree, which synchronizes, per configuration), and every block goes back to the pool
  // when the buffer dies; when cudaMalloc fails there, the pool is emptied and cudaMalloc tried
  // once more. A failure is resource_limit: this configuration only.
  template <typename T>
  std::shared_ptr<T> allocate(std::size_t n, const char* what) {
    using Take = void* (*)(std::size_t);
    using Give = int (*)(void*, std::size_t);
    using Release = void (*)();
    const std::size_t bytes = n * sizeof(T);
    const auto take = runner_function<Take>("adaexplore_runner_take_device");
    const auto give = runner_function<Give>("adaexplore_runner_give_device");
    const auto release = runner_function<Release>("adaexplore_runner_release_device");
    const bool pooled = take && give && release && bytes > 0;
    auto deleter = [pooled, give, bytes](T* q) {
      if (!(pooled && give(q, bytes))) cudaFree(q);
    };
    if (pooled)
      if (void* p = take(bytes)) {
        record_.reused_bytes += bytes;
        return std::shared_ptr<T>(static_cast<T*>(p), deleter);
      }
    T* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation && pooled) {
      (void)cudaGetLastError();  // not sticky: clear it, or the next launch check would see it
      release();
      e = cudaMalloc(&p, bytes);
    }
    if (e != cudaSuccess)
      fail(status::resource_limit, cudaGetErrorName(e), std::string("cudaMalloc(") + what + ", " +
                                                       std::to_string(bytes) + " bytes): " + cudaGetErrorString(e));
    record_.allocated_bytes += bytes;
    return std::shared_ptr<T>(p, deleter);
  }
  // 2 x memory clock x bus width (peak_bandwidth_gbs); 0 when the driver does not report them (the
  // attributes are not errors of the benchmark: a failed query is cleared, the gate is skipped).
  static double query_peak_bandwidth_gbs(int device);
  // peak_fp32_gflops for the device; 0 when the driver does not report a figure.
  static double query_peak_fp32_gflops(int device);
  // The runtime's name for the kernel (cudaFuncGetName, CUDA 12.4 and newer), else the C++ type.
  template <class Kernel>
  std::string kernel_name(const void* func) {
#if ADAEXPLORE_CUDART_VERSION >= 12040
    const char* text = nullptr;
    if (cudaFuncGetName(&text, func) == cudaSuccess && text && *text) return text;
    (void)cudaGetLastError();  // a label only: fall back to the type's name
#else
    (void)func;
#endif
    return typeid(Kernel).name();
  }
  // Why no kernel at all can launch `block` on this device; empty when it is within its limits.
  std::string device_limit_violation(dim3 block, long threads) const;
  // Drops the least recently used once() entries that no Benchmark alive uses (an older
  // generation than this one's) until `bytes` more fit within detail::kOnceCacheBytes.
  void make_room_for_once(std::size_t bytes) {
    auto& cache = detail::once_cache();
    std::size_t total = bytes;
    for (const auto& [key, entry] : cache) total += entry.bytes;
    while (total > detail::kOnceCacheBytes) {
      auto oldest = cache.end();
      for (auto it = cache.begin(); it != cache.end(); ++it)
        if (it->second.used != generation_ && (oldest == cache.end() || it->second.used < oldest->second.used))
          oldest = it;
      if (oldest == cache.end()) return;  // all in use by this configuration
      total -= oldest->second.bytes;
      cache.erase(oldest);
    }
  }
  // The once() entry whose value is the vector at `data` (`bytes` long), or null.
  static detail::OnceEntry* once_entry(const void* data, std::size_t bytes) {
    for (auto& [key, entry] : detail::once_cache())
      if (entry.data == data && entry.bytes == bytes) return &entry;
    return nullptr;
  }
  // compare() on the device against the entry's device copy of `expected` (uploaded here the
  // first time): the partial figures of detail::compare_kernel, added on the host. The verdict
  // when every element is within the tolerance; none when one is not (the host then compares, for
  // the report) or when there is no device memory to spare for the copy.
  template <typename T>
  std::optional<Verification> compare_on_device(const DeviceBuffer<T>& out, const std::vector<T>& expected, detail::OnceEntry& entry,
                                 Tolerance tol);
  // Why this kernel cannot launch with its record's shape (its own limits); empty when it can.
  std::string kernel_limit_violation(const KernelRecord& k) const;
  // The n-th buffer of this benchmark: kind 0 input (random, uploaded), 1 inout (random, uploaded,
  // pristine device copy), 2 output (not initialised). With the kernel unit in a module, served
  // from detail::buffer_cache() when the same call was made by the previous configuration
  // (CachedBuffer says when): no random fill, no upload; inputs restored from their pristine copy.
  template <typename T>
  DeviceBuffer<T> made(std::size_t n, int kind, Fill fill) {
    const std::size_t ordinal = buffers_made_++;
    DeviceBuffer<T> b;
#ifdef ADAEXPLORE_MODULE
    const bool cached = !options_.config.kernel_file.empty();
#else
    const bool cached = false;
#endif
    auto& cache = detail::buffer_cache();
    if (cached && ordinal < cache.size()) {
      detail::CachedBuffer& e = cache[ordinal];
      if (e.type == typeid(T).name() && e.n == n && e.kind == kind && e.fill == static_cast<int>(fill) &&
          e.rng_before == rng_ && pristine_intact(e, ordinal, n * sizeof(T))) {
        b.host_ = std::static_pointer_cast<std::vector<T>>(e.host);
        b.shared_ = true;
        b.device_ = std::static_pointer_cast<T>(e.device);
        b.pristine_ = std::static_pointer_cast<T>(e.pristine);
        rng_ = e.rng_after;
        record_.reused_bytes += (kind == 2 ? 1 : 2) * n * sizeof(T);
        // Inputs and inout buffers as made, whatever the previous configuration did to them,
        // before the benchmark touches them (synchronized: it may use them on another stream).
        if (kind != 2 && n) {
          check(cudaMemcpyAsync(b.get(), b.pristine_.get(), n * sizeof(T), cudaMemcpyDeviceToDevice, stream_),
                "cudaMemcpyAsync(restore input)");
          check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(restore input)");
        }
        return b;
      }
      cache.resize(ordinal);  // the calls differ from here on: the later entries cannot match
    }
    const std::mt19937_64 before = rng_;
    b.host_ = std::make_shared<std::vector<T>>(n);
    if (kind != 2) fill_values(b.host_->data(), n, fill);
    b.device_ = allocate<T>(n, "buffer");
    if (kind != 2) {
      upload(b);
      if (kind == 1 || cached) {
        b.pristine_ = allocate<T>(n, kind == 1 ? "inout pristine copy" : "input pristine copy");
        check(cudaMemcpy(b.pristine_.get(), b.get(), n * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy(pristine)");
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize(pristine)");  // done before any kernel runs
      }
    }
    if (cached) {
      if (cache.size() > ordinal) cache.resize(ordinal);
      cache.push_back({typeid(T).name(), n, kind, static_cast<int>(fill), before, rng_, b.host_, b.device_, b.pristine_});
      if (kind != 2 && n) cache.back().checksum = device_checksum(b.pristine_.get(), n * sizeof(T));
      b.shared_ = true;
    }
    return b;
  }
  // launch_checksum of `bytes` device bytes at `p` (synchronized).
  unsigned long long device_checksum(const void* p, std::size_t bytes) {
    unsigned long long sum = 0;
    auto device_sum = allocate<unsigned long long>(1, "checksum");
    check(cudaMemsetAsync(device_sum.get(), 0, sizeof sum, stream_), "cudaMemsetAsync(checksum)");
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((bytes / 8 + 255) / 256 + 1, 1024));
    check(detail::launch_checksum<0>(p, bytes, device_sum.get(), blocks, stream_), "checksum kernel launch");
    check(cudaMemcpyAsync(&sum, device_sum.get(), sizeof sum, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync(checksum)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(checksum)");
    return sum;
  }
  // Whether cache entry `e` (the `ordinal`-th buffer) may be served: an output, or an input or
  // inout buffer whose pristine copy has the checksum it was made with. When it has not, says so
  // in the record (the configuration measured before this one on this runner wrote outside its
  // buffers); the caller then drops the entry and the later ones and makes the buffer afresh.
  bool pristine_intact(const detail::CachedBuffer& e, std::size_t ordinal, std::size_t bytes) {
    if (e.kind == 2 || bytes == 0 || !e.pristine) return true;
    if (device_checksum(e.pristine.get(), bytes) == e.checksum) return true;
    record_.damaged.push_back(std::string(e.kind == 1 ? "inout" : "input") + " #" + std::to_string(ordinal) + " (" +
                              std::to_string(e.n) + " elements of " + e.type +
                              "): its pristine device copy changed since it was made: a configuration measured "
                              "before this one on this runner wrote outside its buffers without faulting; the "
                              "cached buffers from this one on were dropped and made afresh");
    return false;
  }
  void prepare_run(bool poison);
  void launch_checked(const std::function<void(cudaStream_t)>& launch);
  void sync_checked(const char* when);

  // Adds the wall-clock ms of its scope to a sub-stage's total.
  struct StageClock {
    explicit StageClock(double& total) : total_(total) {}
    ~StageClock() { total_ += wall_ms_since(start_); }
    double& total_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  };

  std::chrono::steady_clock::time_point created_;  // stages_ms "setup" starts here
  double context_ms_ = 0;  // stages_ms "setup.context": the constructor
  double buffers_ms_ = 0;  // "setup.buffers": input(), inout(), output() (random fill, cudaMalloc, copies)
  double download_ms_ = 0; // download() so far; "verify.download": its share in the verification
  HarnessOptions options_;
  std::mt19937_64 rng_;
  unsigned long long generation_ = 0;  // this Benchmark's number among once()'s users (detail::once_generation)
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int optin_shared_ = 48 * 1024;
  int max_threads_ = 1024, max_block_dim_[3] = {1024, 1024, 64}, threads_per_sm_ = 2048, warp_size_ = 32;
  std::size_t flush_bytes_ = 0;
  std::shared_ptr<char> flush_;
  long l2_bytes_ = 0;                         // cudaDevAttrL2CacheSize
  double peak_gbs_ = 0;                       // query_peak_bandwidth_gbs; 0: unknown
  double peak_gflops_ = 0;                    // query_peak_fp32_gflops; 0: unknown
  std::unique_ptr<detail::NvmlClocks> nvml_;  // SM clock and clock event reasons, when NVML is there
  std::vector<std::function<void()>> restores_, poisons_;
  std::vector<std::function<void(cudaStream_t)>> hooks_;
  ResultRecord record_;
  std::size_t buffers_made_ = 0;       // input(), inout(), output() calls so far (made's ordinal)
  // The configuration (0) and the reference configuration (1): each its cubin (loaded by the
  // first kernel(), set_global() or exported() while it is active), the kernels resolved in it by
  // name, the exported() values read from it. active_ says which one param(), value(), kernels,
  // exported() and the declared shape read (1 only while run() computes the reference).
  struct Loaded {
    cudaLibrary_t library = nullptr;
    std::map<std::string, detail::ResolvedKernel> kernels;
    std::vector<std::pair<std::string, long long>> exported;
  };
  Loaded loaded_[2];
  int active_ = 0;
  // set_global() calls so far, in order (symbol, bytes): replayed into a cubin loaded later.
  std::vector<std::pair<std::string, std::vector<char>>> globals_;
  // The output() and inout() buffers in order, for run(launch, tolerance): `present(key)` whether
  // the reference's copy is kept under `key`, `capture(key)` keeps the buffer's content there,
  // `compare(key, tol)` compares the buffer with it.
  struct Compared {
    std::string label;
    std::function<bool(const std::string&)> present;
    std::function<void(const std::string&)> capture;
    std::function<Verification(const std::string&, Tolerance)> compare;
  };
  std::vector<Compared> compared_;
  friend class Kernel;
  const detail::ConfigurationOptions& active() const { return active_ ? options_.reference : options_.config; }
  // The active configuration's cubin, loaded (with the globals set so far) on first use.
  cudaLibrary_t library();
  // The kernel `query` of the active configuration's cubin; launch_error listing the cubin's
  // kernels when there is not exactly one.
  detail::ResolvedKernel& resolve(const std::string& query);
  void prepare_declared_launch(const Kernel& kernel, dim3 block, std::size_t shared);
  // The global `symbol` of `library`: its device address and size; false when it has none.
  static bool find_global(cudaLibrary_t library, const std::string& symbol, void** address, std::size_t* bytes);
  void set_global_bytes(const std::string& symbol, const void* data, std::size_t bytes);
  void set_global_in(cudaLibrary_t library, const std::string& symbol, const void* data, std::size_t bytes);
  void get_global_bytes(const std::string& symbol, void* data, std::size_t bytes);
  int run_verified(const std::function<void(cudaStream_t)>& launch, const std::function<Verification()>& verify);
  int run_against_reference(const std::function<void(cudaStream_t)>& launch, Tolerance tol);
  // What the reference configuration's outputs are kept under (once()): its cubin and values.
  std::string reference_key() const;
  template <typename T>
  void fill_values(T* data, std::size_t n, Fill fill) {
    if (fill == Fill::random) {
      fill_random(data, n, rng_);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_arithmetic<T>::value)
        data[i] = static_cast<T>(fill == Fill::one ? 1 : fill == Fill::zero ? 0 : static_cast<long long>(i));
      else
        data[i] = T(static_cast<float>(fill == Fill::one ? 1 : fill == Fill::zero ? 0 : static_cast<long long>(i)));
    }
  }
  template <typename T>
  Compared compared_buffer(const DeviceBuffer<T>& b, std::string label) {
    Compared c;
    c.label = std::move(label);
    const std::string type = typeid(std::vector<T>).name();
    c.present = [this, type](const std::string& key) {
      const std::string full = once_key(key, sizeof(T), options_.seed, options_.once_args());
      return detail::once_cache().count(type + '\x1f' + full) > 0;
    };
    c.capture = [this, b](const std::string& key) { (void)once(key, [&] { return download(b); }); };
    c.compare = [this, b](const std::string& key, Tolerance tol) {
      const std::vector<T>& expected = once(key, [&]() -> std::vector<T> {
        fail(status::launch_error, "", "the reference configuration's outputs are missing (a bug of the harness)");
      });
      if constexpr (std::is_arithmetic<T>::value) {
        return compare(b, expected, tol);
      } else {
        const std::vector<T> got = download(b);
        Verification v;
        v.checked = got.size();
        for (std::size_t i = 0; i < got.size(); ++i)
          if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0 && v.mismatches++ == 0) v.first_index = i;
        return v;
      }
    };
    return c;
  }
};

// The Benchmark functions that launch the harness's own kernels (harness_kernels.cuh: defined
// there for nvcc, else linked from harness_kernels.cu's object).
template <typename T>
std::vector<T> Benchmark::gather(const DeviceBuffer<T>& b, const std::vector<std::size_t>& indices) {
  const StageClock clock(download_ms_);
  std::vector<T> out(indices.size());
  if (indices.empty()) return out;
  std::vector<unsigned long long> index(indices.begin(), indices.end());
  for (std::size_t i = 0; i < index.size(); ++i)
    if (index[i] >= b.size())
      fail(status::launch_error, "", "gather: index " + std::to_string(index[i]) + " is outside the buffer's " +
                                   std::to_string(b.size()) + " elements (a bug in the benchmark)");
  auto device_index = allocate<unsigned long long>(index.size(), "gather indices");
  auto device_out = allocate<T>(out.size(), "gather values");
  check(cudaMemcpyAsync(device_index.get(), index.data(), index.size() * sizeof(unsigned long long),
                        cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync(gather indices)");
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((index.size() + 255) / 256, 4096));
  check(detail::launch_gather<T>(b.get(), device_index.get(), device_out.get(), index.size(), blocks, stream_),
        "gather kernel launch");
  check(cudaMemcpyAsync(out.data(), device_out.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync(gather values)");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(gather)");
  return out;
}

template <typename T>
NonFinite Benchmark::nonfinite(const DeviceBuffer<T>& b) {
  static_assert(std::is_floating_point<T>::value, "nonfinite(): float or double buffers");
  NonFinite r;
  if (b.size() == 0) return r;
  unsigned long long counts[3] = {0, b.size(), 0};
  {
    const StageClock clock(download_ms_);
    auto device_counts = allocate<unsigned long long>(3, "nonfinite counts");
    check(cudaMemcpyAsync(device_counts.get(), counts, sizeof counts, cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync(nonfinite counts)");
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((b.size() + 255) / 256, 8 * 1024));
    check(detail::launch_nonfinite<T>(b.get(), b.size(), device_counts.get(), blocks, stream_), "nonfinite kernel launch");
    check(cudaMemcpyAsync(counts, device_counts.get(), sizeof counts, cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync(nonfinite counts)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(nonfinite)");
  }
  r.count = static_cast<std::size_t>(counts[0]);
  r.nan = static_cast<std::size_t>(counts[2]);
  if (r.count) {
    r.first_index = static_cast<std::size_t>(counts[1]);
    r.first_value = static_cast<double>(gather(b, {r.first_index})[0]);
  }
  return r;
}

template <typename T>
std::optional<Verification> Benchmark::compare_on_device(const DeviceBuffer<T>& out, const std::vector<T>& expected, detail::OnceEntry& entry,
                               Tolerance tol) {
  const std::size_t n = out.size();
  if (!entry.device) {
    // Only with room to spare (a device copy saves time, it must not cost a configuration its
    // memory): else compared on the host.
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      free_bytes = 0;
    }
    if (free_bytes < 2 * n * sizeof(T) + (std::size_t(256) << 20)) return std::nullopt;
    auto device = allocate<T>(n, "reference (device copy)");
    check(cudaMemcpy(device.get(), expected.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(reference)");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize(reference)");  // landed before the compare kernel reads it
    entry.partials = allocate<detail::ComparePartial>(detail::kCompareBlocks, "comparison figures");
    entry.device = device;
  }
  const unsigned blocks = static_cast<unsigned>(
      std::min<std::size_t>((n + detail::kCompareThreads - 1) / detail::kCompareThreads, detail::kCompareBlocks));
  std::vector<detail::ComparePartial> partials(blocks);
  {
    const StageClock clock(download_ms_);
    auto* figures = static_cast<detail::ComparePartial*>(entry.partials.get());
    check(detail::launch_compare<T>(out.get(), static_cast<const T*>(entry.device.get()), n, tol.abs, tol.rel, figures,
                                    blocks, stream_),
          "compare kernel launch");
    check(cudaMemcpyAsync(partials.data(), figures, blocks * sizeof(detail::ComparePartial), cudaMemcpyDeviceToHost,
                          stream_), "cudaMemcpyAsync(comparison figures)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(compare)");
  }
  Verification v;
  v.checked = n;
  v.on_device = true;
  double diff2 = 0, ref2 = 0;
  for (const auto& p : partials) {
    v.mismatches += static_cast<std::size_t>(p.mismatches);
    v.max_abs_error = std::max(v.max_abs_error, p.max_abs);
    v.max_rel_error = std::max(v.max_rel_error, p.max_rel);
    diff2 += p.diff2;
    ref2 += p.ref2;
  }
  v.rel_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (v.mismatches) return std::nullopt;
  return v;
}

// Definitions of the non-template functions: here in a header-only build, in
// harness_separate.cu's object when the tuner builds the harness apart (harness_common.hpp).
#if ADAEXPLORE_HARNESS_BODIES
namespace detail {
class NvmlClocks {
 public:
  explicit NvmlClocks(int cuda_device) {
#if defined(__linux__)
    char bus_id[64] = {};
    if (cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), cuda_device) != cudaSuccess) {
      (void)cudaGetLastError();  // not an error of the benchmark
      return;
    }
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) return;
    const auto init = symbol<Return (*)()>("nvmlInit_v2");
    shutdown_ = symbol<Return (*)()>("nvmlShutdown");
    const auto by_bus_id = symbol<Return (*)(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2");
    clock_ = symbol<Return (*)(Device, int, unsigned*)>("nvmlDeviceGetClockInfo");
    reasons_ = symbol<Return (*)(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_) reasons_ = symbol<Return (*)(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!init || !shutdown_ || !by_bus_id || !clock_ || !reasons_ || init() != 0) {
      close();
      return;
    }
    initialised_ = true;
    if (by_bus_id(bus_id, &device_) != 0) {
      close();
      return;
    }
    available_ = true;
#else
    (void)cuda_device;
#endif
  }
  NvmlClocks(const NvmlClocks&) = delete;
  NvmlClocks& operator=(const NvmlClocks&) = delete;
  // A module (ADAEXPLORE_MODULE) leaves NVML loaded and initialised in the tuner's runner: the
  // next configuration's nvmlInit_v2 then only counts a reference, instead of starting NVML anew
  // (NVML's start costs tens of milliseconds). The runner's exit ends it.
#ifdef ADAEXPLORE_MODULE
  ~NvmlClocks() = default;
#else
  ~NvmlClocks() { close(); }
#endif

  bool available() const { return available_; }
  /// The SM clock now (MHz) and the clock event reasons now (nvmlClocksEventReason* bits);
  /// false when NVML is unavailable or does not answer.
  bool sample(unsigned& sm_mhz, unsigned long long& reasons) const {
    if (!available_) return false;
    return clock_(device_, /*NVML_CLOCK_SM=*/1, &sm_mhz) == 0 && reasons_(device_, &reasons) == 0;
  }

 private:
  using Return = int;      // nvmlReturn_t
  using Device = void*;    // nvmlDevice_t (struct nvmlDevice_st*)
  template <typename F>
  F symbol(const char* name) const {
#if defined(__linux__)
    return reinterpret_cast<F>(dlsym(library_, name));
#else
    (void)name;
    return nullptr;
#endif
  }
  void close() {
    available_ = false;
    if (initialised_ && shutdown_) shutdown_();
    initialised_ = false;
#if defined(__linux__)
    if (library_) dlclose(library_);
#endif
    library_ = nullptr;
  }

  void* library_ = nullptr;
  bool initialised_ = false, available_ = false;
  Device device_ = nullptr;
  Return (*shutdown_)() = nullptr;
  Return (*clock_)(Device, int, unsigned*) = nullptr;
  Return (*reasons_)(Device, unsigned long long*) = nullptr;
};
}  // namespace detail

ADAEXPLORE_FN std::vector<detail::CachedBuffer>& detail::buffer_cache() {
  static std::vector<CachedBuffer> cache;
  return cache;
}

ADAEXPLORE_FN std::map<std::string, detail::OnceEntry>& detail::once_cache() {
  static std::map<std::string, OnceEntry> cache;
  return cache;
}

ADAEXPLORE_FN unsigned long long& detail::once_generation() {
  static unsigned long long generation = 0;
  return generation;
}

namespace detail {
// "ns::kernel<P<1, 2> >(int, float*)" from "_ZN2ns6kernel...": the runtime's names are mangled.
inline std::string demangled(const char* mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && text ? text : mangled;
  std::free(text);
  return name;
}
// Whether `name` (what the benchmark asked for) names the kernel `full` (demangled; a function
// template's name starts with its return type, "void ns::k<...>(...)", which is skipped) or
// `mangled`.
inline bool names_kernel(const std::string& name, const std::string& full, const std::string& mangled) {
  if (name == full || name == mangled) return true;
  const std::string bare = full.compare(0, 5, "void ") == 0 ? full.substr(5) : full;
  if (name == bare) return true;
  return bare.size() > name.size() && bare.compare(0, name.size(), name) == 0 &&
         (bare[name.size()] == '<' || bare[name.size()] == '(');
}
}  // namespace detail

ADAEXPLORE_FN cudaLibrary_t Benchmark::library() {
  Loaded& l = loaded_[active_];
  if (l.library) return l.library;
  const std::string& file = active().kernel_file;
  if (file.empty())
    fail(status::launch_error, "",
         "Benchmark::kernel(), exported() and set_global() need the configuration's cubin (--adaexplore-kernel FILE): "
         "the tuner passes it unless the benchmark includes the rendered template (then compiled whole with it: "
         "launch its kernels with <<<>>>); this benchmark was run without it");
  check(cudaLibraryLoadFromFile(&l.library, file.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        ("cudaLibraryLoadFromFile(" + file + ")").c_str());
  for (const auto& g : globals_) set_global_in(l.library, g.first, g.second.data(), g.second.size());
  return l.library;
}

ADAEXPLORE_FN detail::ResolvedKernel& Benchmark::resolve(const std::string& query) {
#if ADAEXPLORE_CUDART_VERSION < 12040
  fail(status::launch_error, "",
       "Benchmark::kernel(\"" + query + "\") needs CUDA 12.4 or newer (cudaLibraryEnumerateKernels, cudaFuncGetName); "
       "this benchmark was compiled against CUDA " + std::to_string(ADAEXPLORE_CUDART_VERSION / 1000) + "." +
           std::to_string(ADAEXPLORE_CUDART_VERSION % 1000 / 10) +
           ": tune it as the whole program (compiler.unit \"program\", COMPILE_UNIT PROGRAM, a benchmark that "
           "includes the rendered template and launches with <<<>>>) or with a newer toolkit");
#else
  Loaded& l = loaded_[active_];
  if (const auto at = l.kernels.find(query); at != l.kernels.end()) return at->second;
  const cudaLibrary_t lib = library();
  unsigned count = 0;
  check(cudaLibraryGetKernelCount(&count, lib), "cudaLibraryGetKernelCount");
  std::vector<cudaKernel_t> all(count);
  if (count) check(cudaLibraryEnumerateKernels(all.data(), count, lib), "cudaLibraryEnumerateKernels");
  std::vector<detail::ResolvedKernel> found;
  std::string listed;
  for (cudaKernel_t k : all) {
    const char* mangled = nullptr;
    check(cudaFuncGetName(&mangled, reinterpret_cast<const void*>(k)), "cudaFuncGetName");
    detail::ResolvedKernel kernel;
    kernel.handle = k;
    kernel.mangled = mangled ? mangled : "";
    kernel.name = detail::demangled(kernel.mangled.c_str());
    if (kernel.mangled.rfind("adaexplore_export_", 0) == 0) continue;  // ADAEXPLORE_EXPORT's
    listed += (listed.empty() ? "" : "; ") + kernel.name;
    if (detail::names_kernel(query, kernel.name, kernel.mangled)) found.push_back(kernel);
  }
  if (found.size() != 1)
    fail(status::launch_error, "",
         std::string(found.empty() ? "no kernel" : "more than one kernel") + " named " + query + " in " +
             active().kernel_file + " (its kernels: " + (listed.empty() ? "none" : listed) +
             "); name one by its full or mangled name, and make the template instantiate it (a launch of it in "
             "the template's code, or an explicit instantiation, does)");
  return l.kernels.emplace(query, found.front()).first->second;
#endif
}

ADAEXPLORE_FN Kernel Benchmark::kernel(const std::string& name) {
  (void)resolve(name);  // fails now, listing the cubin's kernels, when there is no such kernel
  Kernel k;
  k.bench_ = this;
  k.query_ = name;
  return k;
}

ADAEXPLORE_FN Kernel Benchmark::kernel() {
  if (options_.kernel_name.empty())
    fail(status::launch_error, "",
         "Benchmark::kernel() without a name launches the kernel the tuning call names, and it names none: declare "
         "KERNEL_NAME <name> in adaexplore_tune_kernel (the spec's \"kernel\"), or call kernel(\"name\")");
  return kernel(options_.kernel_name);
}

ADAEXPLORE_FN detail::ResolvedKernel& Kernel::resolved() const {
  if (!bench_) {
    std::fprintf(stderr, "adaexplore harness: a Kernel used before Benchmark::kernel() made it\n");
    finish(70);
  }
  return bench_->resolve(query_);
}

ADAEXPLORE_FN void Benchmark::prepare_declared_launch(const Kernel& kernel, dim3 block, std::size_t shared) {
  detail::ResolvedKernel& k = resolve(kernel.query_);
  if (k.launch_checked) return;
  if (shared > 48 * 1024) dynamic_shared_for(reinterpret_cast<const void*>(k.handle), shared);
  // The driver's verdict and figures are the configuration's; the reference's kernel runs unrecorded.
  if (!active_) record_kernel(reinterpret_cast<const void*>(k.handle), k.name, block, shared);
  k.launch_checked = true;
}

ADAEXPLORE_FN const std::string& Benchmark::param_text(const std::string& name) {
  for (const auto& p : active().params)
    if (p.first == name) return p.second;
  std::string known;
  for (const auto& p : active().params) known += (known.empty() ? "" : ", ") + p.first;
  fail(status::launch_error, "",
       "Benchmark::param(\"" + name + "\"): no such parameter (given: " + (known.empty() ? "none" : known) +
           "); the tuner passes every parameter of the space (--adaexplore-param NAME=VALUE)");
}

ADAEXPLORE_FN double Benchmark::value(const std::string& name) {
  for (const auto& v : active().values)
    if (v.first == name) return v.second;
  std::string known;
  for (const auto& v : active().values) known += (known.empty() ? "" : ", ") + v.first;
  fail(status::launch_error, "",
       "Benchmark::value(\"" + name + "\"): no such value (given: " + (known.empty() ? "none" : known) +
           "); the tuner passes the lengths and values of the spec's \"arguments\" (--adaexplore-value NAME=VALUE)");
}

ADAEXPLORE_FN long long Benchmark::size(const std::string& name) {
  long long value = 0;
  std::string error;
  if (!options_.size(name, nullptr, value, error)) fail(status::launch_error, "", "Benchmark::" + error);
  return value;
}

ADAEXPLORE_FN long long Benchmark::size(const std::string& name, long long fallback) {
  long long value = 0;
  std::string error;
  options_.size(name, &fallback, value, error);
  return value;
}

ADAEXPLORE_FN long long Benchmark::param(const std::string& name) {
  const std::string& text = param_text(name);
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0')
    fail(status::launch_error, "", "Benchmark::param(\"" + name + "\"): the value \"" + text +
                                 "\" is not an integer; read it with param_text()");
  return value;
}

ADAEXPLORE_FN long long Benchmark::exported(const std::string& name) {
  auto& exported = loaded_[active_].exported;
  for (const auto& e : exported)
    if (e.first == name) return e.second;
  const cudaLibrary_t lib = library();
  cudaKernel_t k = nullptr;
  const std::string symbol = "adaexplore_export_" + name;
  if (cudaLibraryGetKernel(&k, lib, symbol.c_str()) != cudaSuccess) {
    (void)cudaGetLastError();
    fail(status::launch_error, "", "Benchmark::exported(\"" + name + "\"): " + active().kernel_file + " has no " + symbol +
                                 "; export the value in the template with ADAEXPLORE_EXPORT(" + name +
                                 ", expression) (adaexplore/kernel_unit.cuh)");
  }
  auto out = allocate<long long>(1, "exported value");
  long long* p = out.get();
  void* args[] = {&p};
  check(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(1), dim3(1), args, 0, stream_),
        ("launch of " + symbol).c_str());
  long long value = 0;
  check(cudaMemcpyAsync(&value, p, sizeof value, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync(exported value)");
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(exported value)");
  exported.emplace_back(name, value);
  return value;
}

namespace detail {
// The Itanium C++ ABI name of a variable `a::b::c` in namespaces: _ZN1a1b1cE.
inline std::string mangled_variable(const std::string& qualified) {
  std::string out = "_ZN";
  std::size_t at = 0;
  while (at <= qualified.size()) {
    const std::size_t end = qualified.find("::", at);
    const std::string part = qualified.substr(at, end == std::string::npos ? std::string::npos : end - at);
    out += std::to_string(part.size()) + part;
    if (end == std::string::npos) break;
    at = end + 2;
  }
  return out + "E";
}
}  // namespace detail

ADAEXPLORE_FN bool Benchmark::find_global(cudaLibrary_t library, const std::string& symbol, void** address,
                                          std::size_t* bytes) {
  std::vector<std::string> names = {symbol};
  if (symbol.find("::") != std::string::npos) names.push_back(detail::mangled_variable(symbol));
  for (const auto& name : names) {
    if (cudaLibraryGetGlobal(address, bytes, library, name.c_str()) == cudaSuccess) return true;
    (void)cudaGetLastError();  // not found: not sticky
  }
  return false;
}

ADAEXPLORE_FN void Benchmark::set_global_in(cudaLibrary_t library, const std::string& symbol, const void* data,
                                            std::size_t bytes) {
  void* address = nullptr;
  std::size_t size = 0;
  const std::string& file = loaded_[0].library == library ? options_.config.kernel_file : options_.reference.kernel_file;
  if (!find_global(library, symbol, &address, &size))
    fail(status::launch_error, "",
         "Benchmark::set_global(\"" + symbol + "\"): " + file + " has no __constant__ or __device__ variable " + symbol +
             " (the compiler drops a variable no kernel uses; one in a namespace is named ns::" + symbol +
             " or by its mangled name)");
  if (bytes > size)
    fail(status::launch_error, "",
         "Benchmark::set_global(\"" + symbol + "\"): " + std::to_string(bytes) + " bytes given, the variable has " +
             std::to_string(size) + " in " + file);
  check(cudaMemcpy(address, data, bytes, cudaMemcpyHostToDevice), ("cudaMemcpy(set_global " + symbol + ")").c_str());
}

ADAEXPLORE_FN void Benchmark::set_global_bytes(const std::string& symbol, const void* data, std::size_t bytes) {
  (void)library();  // the active configuration's, loaded first: it takes every global set so far
  const char* begin = static_cast<const char*>(data);
  globals_.emplace_back(symbol, std::vector<char>(begin, begin + bytes));
  for (Loaded& l : loaded_)
    if (l.library) set_global_in(l.library, symbol, data, bytes);
}

ADAEXPLORE_FN void Benchmark::get_global_bytes(const std::string& symbol, void* data, std::size_t bytes) {
  void* address = nullptr;
  std::size_t size = 0;
  if (!find_global(library(), symbol, &address, &size))
    fail(status::launch_error, "",
         "Benchmark::get_global(\"" + symbol + "\"): " + active().kernel_file + " has no __constant__ or __device__ "
         "variable " + symbol + " (the compiler drops a variable no kernel uses)");
  if (bytes > size)
    fail(status::launch_error, "",
         "Benchmark::get_global(\"" + symbol + "\"): " + std::to_string(bytes) + " bytes asked for, the variable has " +
             std::to_string(size));
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(get_global)");
  check(cudaMemcpy(data, address, bytes, cudaMemcpyDeviceToHost), ("cudaMemcpy(get_global " + symbol + ")").c_str());
}

ADAEXPLORE_FN void Kernel::check_arguments(detail::ResolvedKernel& k, const std::size_t* sizes, std::size_t count) const {
#if ADAEXPLORE_CUDART_VERSION < 12040  // no Kernel is resolved: Benchmark::kernel() fails before 12.4
  (void)k, (void)sizes, (void)count;
#else
  for (std::size_t i = 0; i <= count; ++i) {
    std::size_t offset = 0, size = 0;
    const cudaError_t e = cudaFuncGetParamInfo(reinterpret_cast<const void*>(k.handle), i, &offset, &size);
    if (e != cudaSuccess) (void)cudaGetLastError();
    // cudaErrorInvalidValue: no parameter i (the end of the list); anything else is the runtime's
    // own failure, not the benchmark's argument count.
    if (e != cudaSuccess && e != cudaErrorInvalidValue)
      bench_->fail(status::launch_error, cudaGetErrorName(e),
                   k.name + ": cudaFuncGetParamInfo failed (" + cudaGetErrorString(e) +
                       "): the arguments cannot be checked against the kernel's parameters");
    if (i == count) {
      if (e == cudaSuccess)
        bench_->fail(status::launch_error, "",
                     k.name + " takes more than the " + std::to_string(count) + " arguments the benchmark passes");
      break;
    }
    if (e != cudaSuccess)
      bench_->fail(status::launch_error, "",
                   k.name + " takes " + std::to_string(i) + " arguments; the benchmark passes " + std::to_string(count));
    if (size != sizes[i])
      bench_->fail(status::launch_error, "",
                   k.name + ": argument " + std::to_string(i + 1) + " has " + std::to_string(sizes[i]) +
                       " bytes, the kernel's parameter " + std::to_string(size) +
                       "; pass exactly the kernel's parameter types");
  }
  k.arguments_checked = true;
#endif
}

ADAEXPLORE_FN void Kernel::launch_with(const detail::ResolvedKernel& k, dim3 grid, dim3 block, std::size_t shared,
                                      cudaStream_t stream, void** params) const {
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(k.handle), grid, block, params, shared, stream);
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  bench_->fail(detail::is_sticky(e) ? status::crash : status::launch_error, cudaGetErrorName(e),
               "kernel launch (" + k.name + "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

ADAEXPLORE_FN Benchmark::Benchmark(int argc, char** argv)
    : created_(std::chrono::steady_clock::now()), options_(HarnessOptions::parse(argc, argv)), rng_(options_.seed) {
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
  int device = 0, l2 = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2)");
  check(cudaDeviceGetAttribute(&optin_shared_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "cudaDeviceGetAttribute(shared opt-in)");
  check(cudaDeviceGetAttribute(&max_threads_, cudaDevAttrMaxThreadsPerBlock, device),
        "cudaDeviceGetAttribute(max threads per block)");
  const cudaDeviceAttr dims[3] = {cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ};
  for (int d = 0; d < 3; ++d)
    check(cudaDeviceGetAttribute(&max_block_dim_[d], dims[d], device), "cudaDeviceGetAttribute(max block dim)");
  check(cudaDeviceGetAttribute(&threads_per_sm_, cudaDevAttrMaxThreadsPerMultiProcessor, device),
        "cudaDeviceGetAttribute(max threads per SM)");
  check(cudaDeviceGetAttribute(&warp_size_, cudaDevAttrWarpSize, device), "cudaDeviceGetAttribute(warp size)");
  flush_bytes_ = 2 * static_cast<std::size_t>(l2);
  if (flush_bytes_) flush_ = allocate<char>(flush_bytes_, "L2 flush buffer");
  l2_bytes_ = l2;
  peak_gbs_ = query_peak_bandwidth_gbs(device);
  peak_gflops_ = query_peak_fp32_gflops(device);
  nvml_ = std::make_unique<detail::NvmlClocks>(device);
  context_ms_ = wall_ms_since(created_);
}

ADAEXPLORE_FN Benchmark::~Benchmark() {
  for (Loaded& l : loaded_)
    if (l.library) cudaLibraryUnload(l.library);
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (stream_) cudaStreamDestroy(stream_);
}

ADAEXPLORE_FN std::string Benchmark::reference_key() const {
  const detail::ConfigurationOptions& r = options_.reference;
  std::string key = "adaexplore reference outputs\x1f" + r.kernel_file;
  for (const auto& p : r.params) key += "\x1f" + p.first + "=" + p.second;
  for (const auto& v : r.values) key += "\x1f" + v.first + "=" + std::to_string(v.second);
  for (int d = 0; d < 3; ++d) key += "\x1f" + std::to_string(r.block[d]) + "," + std::to_string(r.grid[d]);
  return key + "\x1f" + std::to_string(r.shared);
}

ADAEXPLORE_FN int Benchmark::run_against_reference(const std::function<void(cudaStream_t)>& launch, Tolerance tol) {
  if (options_.reference.kernel_file.empty())
    fail(status::launch_error, "",
         "Benchmark::run(launch, tolerance) compares the outputs with a reference configuration's, and none was "
         "given: declare REFERENCE DEFAULTS (or REFERENCE <param>=<value>...) in adaexplore_tune_kernel (the spec's "
         "\"reference\"), or pass a verify function");
  if (compared_.empty())
    fail(status::launch_error, "", "Benchmark::run(launch, tolerance): no output() or inout() buffer to compare");
  std::vector<std::string> keys;
  bool missing = false;
  for (std::size_t i = 0; i < compared_.size(); ++i) {
    keys.push_back(reference_key() + "\x1f" + compared_[i].label);
    missing = missing || !compared_[i].present(keys.back());
  }
  if (missing) {  // the reference configuration's run, once per runner
    const auto start = std::chrono::steady_clock::now();
    active_ = 1;
    prepare_run(/*poison=*/true);
    launch_checked(launch);
    sync_checked("reference run");
    for (std::size_t i = 0; i < compared_.size(); ++i) compared_[i].capture(keys[i]);
    active_ = 0;
    record_.stages_ms.emplace_back("setup.reference", wall_ms_since(start));
  }
  return run_verified(launch, [this, keys, tol] {
    Verification all;
    for (std::size_t i = 0; i < compared_.size(); ++i) {
      Verification v = compared_[i].compare(keys[i], tol);
      if (compared_.size() > 1) v.what = compared_[i].label;
      if (!v.passed()) return v;
      all.checked += v.checked;
      all.max_abs_error = std::max(all.max_abs_error, v.max_abs_error);
      all.max_rel_error = std::max(all.max_rel_error, v.max_rel_error);
      all.rel_l2_error = std::max(all.rel_l2_error, v.rel_l2_error);
      all.on_device = (i == 0 || all.on_device) && v.on_device;
    }
    return all;
  });
}

ADAEXPLORE_FN int Benchmark::run_verified(const std::function<void(cudaStream_t)>& launch, const std::function<Verification()>& verify) {
  std::vector<std::pair<std::string, double>> before = std::move(record_.stages_ms);  // setup.reference
  record_.stages_ms = {{"setup", wall_ms_since(created_)}, {"setup.context", context_ms_},
                       {"setup.buffers", buffers_ms_}};
  record_.stages_ms.insert(record_.stages_ms.end(), before.begin(), before.end());
  const auto verify_start = std::chrono::steady_clock::now();
  const double downloads_before = download_ms_;
  prepare_run(/*poison=*/true);
  launch_checked(launch);
  sync_checked("verification run");
  record_.verification = verify();
  record_.verified = true;
  record_.stages_ms.emplace_back("verify", wall_ms_since(verify_start));
  record_.stages_ms.emplace_back("verify.download", download_ms_ - downloads_before);
  if (!record_.verification.passed()) fail(status::wrong_result, "", describe(record_.verification));
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
  auto start = std::chrono::steady_clock::now();
  record_.warmup_runs = warm_up(options_, timed_run);
  record_.stages_ms.emplace_back("warmup", wall_ms_since(start));
  unsigned long long reasons_start = 0, reasons_end = 0;
  record_.clocks.present = nvml_ && nvml_->sample(record_.clocks.sm_mhz_start, reasons_start);
  start = std::chrono::steady_clock::now();
  record_.time = measure_until_tight(options_, timed_run);
  record_.stages_ms.emplace_back("measure", wall_ms_since(start));
  record_.clocks.present = record_.clocks.present && nvml_->sample(record_.clocks.sm_mhz_end, reasons_end);
  record_.clocks.reasons = reasons_start | reasons_end;
  check_launch_floor(record_.time, kLaunchFloorMs, record_.suspicious);
  check_peak_bandwidth(record_.bytes, record_.time, peak_gbs_, static_cast<double>(l2_bytes_), record_.suspicious);
  check_clocks(record_.clocks, record_.suspicious);
  record_.peak_gbs = peak_gbs_;
  record_.peak_gflops = peak_gflops_;
  return emit(options_, record_);
}

ADAEXPLORE_FN void Benchmark::fail(const std::string& status, const std::string& error_name, const std::string& message) {
  record_.status = status;
  record_.error_name = error_name;
  record_.message = active_ ? "the reference configuration's run (" + options_.reference.kernel_file + "): " + message
                            : message;
  finish(emit(options_, record_));  // exits, or unwinds a module (harness_common.hpp)
}

ADAEXPLORE_FN void Benchmark::check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const std::string message = std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  if (e == cudaErrorMemoryAllocation) fail(status::resource_limit, cudaGetErrorName(e), message);
  fail(detail::is_sticky(e) ? status::crash : status::launch_error, cudaGetErrorName(e), message);
}

ADAEXPLORE_FN double Benchmark::query_peak_fp32_gflops(int device) {
  int major = 0, minor = 0, sms = 0, clock_khz = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return peak_fp32_gflops(major, minor, sms, clock_khz);
}

ADAEXPLORE_FN double Benchmark::query_peak_bandwidth_gbs(int device) {
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return peak_bandwidth_gbs(clock_khz, bus_bits);
}

ADAEXPLORE_FN std::string Benchmark::device_limit_violation(dim3 block, long threads) const {
  const unsigned dims[3] = {block.x, block.y, block.z};
  for (int d = 0; d < 3; ++d)
    if (dims[d] == 0 || dims[d] > static_cast<unsigned>(max_block_dim_[d]))
      return "block dimension " + std::string(1, "xyz"[d]) + " = " + std::to_string(dims[d]) +
             " is outside 1.." + std::to_string(max_block_dim_[d]) +
             ", the device's maxBlockDim; left to the launch, which fails with an invalid configuration";
  if (threads > max_threads_)
    return "block of " + std::to_string(threads) + " threads > " + std::to_string(max_threads_) +
           ", the device's maxThreadsPerBlock; left to the launch, which fails with an invalid configuration";
  return {};
}

ADAEXPLORE_FN std::string Benchmark::kernel_limit_violation(const KernelRecord& k) const {
  if (k.threads_per_block > k.max_threads_per_block)
    return "block of " + std::to_string(k.threads_per_block) + " threads > " +
           std::to_string(k.max_threads_per_block) + ", the kernel's maxThreadsPerBlock at " +
           std::to_string(k.registers) + " registers per thread";
  if (k.dynamic_shared_bytes > k.max_dynamic_shared_bytes)
    return std::to_string(k.dynamic_shared_bytes) + " bytes of dynamic shared memory > " +
           std::to_string(k.max_dynamic_shared_bytes) +
           ", the kernel's maxDynamicSharedSizeBytes (raise it with dynamic_shared(kernel, bytes), up to " +
           std::to_string(optin_shared_ - k.static_shared_bytes) + ")";
  if (k.static_shared_bytes + k.dynamic_shared_bytes > optin_shared_)
    return std::to_string(k.static_shared_bytes) + " static + " + std::to_string(k.dynamic_shared_bytes) +
           " dynamic bytes of shared memory > " + std::to_string(optin_shared_) +
           ", the device's sharedMemPerBlockOptin";
  return {};
}

ADAEXPLORE_FN void Benchmark::prepare_run(bool poison) {
  for (auto& r : restores_) r();
  if (poison)
    for (auto& p : poisons_) p();
  for (auto& h : hooks_) h(stream_);
}

ADAEXPLORE_FN void Benchmark::launch_checked(const std::function<void(cudaStream_t)>& launch) {
  launch(stream_);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    fail(detail::is_sticky(e) ? status::crash : status::launch_error, cudaGetErrorName(e),
         std::string("kernel launch: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

ADAEXPLORE_FN void Benchmark::sync_checked(const char* when) {
  const cudaError_t e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess)
    fail(detail::is_sticky(e) ? status::crash : status::launch_error, cudaGetErrorName(e),
         std::string("kernel execution (") + when + "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

ADAEXPLORE_FN void Benchmark::record_kernel(const void* func, const std::string& name, dim3 block,
                                           std::size_t dynamic_shared) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, func), "cudaFuncGetAttributes");
  KernelRecord k;
  k.name = name;
  k.block[0] = block.x, k.block[1] = block.y, k.block[2] = block.z;
  k.threads_per_block = static_cast<long>(block.x) * block.y * block.z;
  k.registers = attributes.numRegs;
  k.max_threads_per_block = attributes.maxThreadsPerBlock;
  k.static_shared_bytes = static_cast<long>(attributes.sharedSizeBytes);
  k.dynamic_shared_bytes = static_cast<long>(dynamic_shared);
  k.max_dynamic_shared_bytes = attributes.maxDynamicSharedSizeBytes;
  k.local_bytes = static_cast<long>(attributes.localSizeBytes);
  k.reason = device_limit_violation(block, k.threads_per_block);
  if (!k.reason.empty()) {  // left to the launch, which fails for real (see above)
    k.launchable = false;
    record_.kernels.push_back(k);
    return;
  }
  k.reason = kernel_limit_violation(k);
  if (!k.reason.empty()) {
    k.launchable = false;
    record_.kernels.push_back(k);
    fail(status::resource_limit, "", k.name + ": " + k.reason + " (the driver's cudaFuncGetAttributes)");
  }
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k.blocks_per_sm, func, static_cast<int>(k.threads_per_block),
                                                      dynamic_shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const long warps_per_block = (k.threads_per_block + warp_size_ - 1) / warp_size_;
  k.warps_per_sm = static_cast<int>(k.blocks_per_sm * warps_per_block);
  k.occupancy = static_cast<double>(k.warps_per_sm) / (threads_per_sm_ / warp_size_);
  if (k.blocks_per_sm == 0) {
    k.launchable = false;
    k.reason = "no block of " + std::to_string(k.threads_per_block) + " threads with " +
               std::to_string(k.static_shared_bytes + k.dynamic_shared_bytes) +
               " bytes of shared memory fits on an SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor gives 0)";
    record_.kernels.push_back(k);
    fail(status::resource_limit, "", k.name + ": " + k.reason);
  }
  record_.kernels.push_back(k);
}
#endif  // ADAEXPLORE_HARNESS_BODIES

}  // namespace adaexplore
