// The static resource check: whether a compiled kernel can launch at all on a device, decided
// from its ptxas report and the device's limits before any GPU time is spent (the status
// `resource_limit`), and an occupancy estimate for the report.
//
// The rules are those of the CUDA Occupancy Calculator as the toolkit ships it in
// <cuda_occupancy.h> (cudaOccMaxBlocksPerSMRegsLimit, ...SmemLimit, ...WarpsLimit) and of the CUDA
// C++ Programming Guide, "Technical Specifications per Compute Capability". They hold for compute
// capability 7.0 and newer; older devices differ in details noted below.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/device.hpp"
#include "model/outcome.hpp"
#include "evaluate/ptxas.hpp"

namespace adaexplore {

/// How the benchmark launches the kernel, as far as it is known.
struct LaunchShape {
  std::optional<int> threads_per_block;  // blockDim.x * y * z; unknown: no thread or register-per-block check
  long dynamic_shared_bytes = 0;         // the launch's dynamic shared memory, bytes
  /// Whether the benchmark raises cudaFuncAttributeMaxDynamicSharedMemorySize for the kernel.
  /// Without that opt-in a block gets at most DeviceLimits::shared_per_block (48 KiB) in all,
  /// static plus dynamic; with it, up to shared_per_block_optin (227 KiB on sm_90).
  bool dynamic_shared_opt_in = true;
};

struct LaunchSpec;  // spec.hpp: the spec's "launch" expressions

/// The launch shape of `config` from the spec's "launch" section: its expressions evaluated with
/// the configuration's values at the size `size_values` (one value per size name; null: none, so
/// an expression reading a size name is unknown). A figure without an expression, or whose value
/// is not a whole number (threads >= 1, bytes >= 0; e.g. NaN after a division by zero), stays
/// unknown (threads_per_block unset; dynamic_shared_bytes 0), so the checks that need it are
/// skipped.
LaunchShape launch_shape(const LaunchSpec& launch, const Space& space, const Config& config,
                         const std::vector<long long>* size_values = nullptr);

/// Why one kernel cannot launch: which resource, the figure and the limit, and a sentence naming
/// the kernel, the figure, the limit and the unit.
struct ResourceViolation {
  std::string kernel;  // mangled name
  Resource what = Resource::unspecified;
  long used = 0;   // bytes (memory); threads; registers per thread (check 2) or per block (check 5)
  long limit = 0;  // in the same unit
  std::string reason;  // "tile_transpose<120>(...): 58080 bytes of static shared memory per block, over ..."
};

/// The first limit `kernel` breaks, checked in this order; std::nullopt when it can launch:
///  1. threads per block > limits.max_threads_per_block                          (threads)
///  2. registers per thread > limits.registers_per_thread                        (registers)
///  3. static shared memory > limits.shared_per_block: `__shared__` arrays are limited to 48 KiB
///     on every device; more needs dynamic shared memory                         (bytes)
///  4. static + dynamic shared memory > shared_per_block_optin (or > shared_per_block without the
///     opt-in, see LaunchShape)                                                   (bytes)
///  5. registers per block > limits.registers_per_block, with the allocation granularity:
///     registers are allocated per warp in units of 256, regs per warp = ceil(regs * 32 / 256) * 256;
///     warps per block = ceil(threads / 32); the hardware also rounds the warps up to the 4 SM
///     sub-partitions, so both regs_per_warp * warps and regs_per_warp * round_up(warps, 4) must
///     fit (255 registers x 256 threads fits 65536 exactly; 136 x 480 does not)  (registers)
///  6. stack (local memory) per thread > 512 KiB, the Programming Guide's limit  (bytes)
/// Spilled bytes are performance figures, never failures.
std::optional<ResourceViolation> check_resources(const KernelResources& kernel, const DeviceLimits& limits,
                                                 const LaunchShape& launch = {});

/// What the launch shape alone rules out, before anything is compiled: more threads per block
/// than limits.max_threads_per_block, or more dynamic shared memory than a block can get even with
/// no static shared memory (shared_per_block_optin with the opt-in, shared_per_block without).
/// The violation's kernel is empty.
std::optional<ResourceViolation> check_launch(const DeviceLimits& limits, const LaunchShape& launch);

/// "; launch.threads_per_block "BLOCK * 2" = 2048": which of the spec's launch expressions gave
/// the figures of `shape` (empty when none did).
std::string launch_source(const LaunchSpec& spec, const LaunchShape& shape);

/// A resource verdict's extra: {"resource", "kernel", "used", "limit"}; for threads also the
/// knowledge base's figure and limit (observation.hpp): {"figures": {"threads": used}, "limits":
/// {"threads": limit}}.
nlohmann::json resource_extra(Resource what, const std::string& kernel, long used, long limit);

/// The outcome of a configuration whose launch shape check_launch() rules out: status
/// resource_limit, message "2048 threads per block, over the device's limit of 1024 threads
/// (sm_90, static check before compiling; launch.threads_per_block "..." = 2048)", extra as
/// resource_extra(); nothing when the launch fits or its figures are unknown. The cuda backend
/// decides with it before compiling, the replay of a recorded cuda tuning with the recorded
/// device's limits, and the knowledge base knows these configurations fail from the start.
std::optional<Outcome> launch_verdict(const LaunchSpec& spec, const Space& space, const Config& config,
                                      const DeviceLimits& limits, const std::string& arch,
                                      const std::vector<long long>* size_values = nullptr);

/// The first violation among `kernels` (each checked with the same launch shape).
std::optional<ResourceViolation> check_resources(const std::vector<KernelResources>& kernels,
                                                 const DeviceLimits& limits, const LaunchShape& launch = {});

/// Registers a block of `threads` holds: ceil(registers * 32 / 256) * 256 per warp, times
/// ceil(threads / warp_size) warps (the software check of the occupancy calculator).
long registers_per_block(int registers_per_thread, int threads, int warp_size = 32);

/// Resident blocks and warps per SM, as the CUDA Occupancy Calculator computes them
/// (cudaOccMaxActiveBlocksPerMultiprocessor with the default carve-out, i.e. all of
/// shared_per_sm for shared memory):
///   blocks = min(max_blocks_per_sm,
///                floor(max_threads_per_sm / 32 / warps_per_block),
///                floor(floor(registers_per_sm / 4 / regs_per_warp) * 4 / warps_per_block),
///                floor(shared_per_sm / round_up(static + dynamic + reserved, 128)))
/// where `reserved` is the 1 KiB per block the driver keeps on compute capability 8.0 and newer
/// (DeviceLimits has no field for it: taken as 1 KiB when shared_per_sm - shared_per_block_optin
/// is exactly 1 KiB, as in every 8.x-12.x row of the guide's table and in cudaDeviceProp, else 0).
/// Not modelled: the sm_90+ block-barrier limit (never binding at one barrier per block) and
/// carve-out preferences other than the default. The unit test compares this function with
/// cudaOccMaxActiveBlocksPerMultiprocessor over ~10,000 cases for sm_80, 86, 89 and 90.
struct Occupancy {
  int blocks_per_sm = 0;  // 0 when the kernel cannot launch (check_resources fails)
  int warps_per_sm = 0;
  double fraction = 0;    // warps_per_sm / (max_threads_per_sm / warp_size)
  Resource limited_by = Resource::unspecified;  // threads, registers, shared_memory; unspecified
                                                 // when the per-SM block count limits
};

/// `max_blocks_per_sm` is cudaDeviceProp::maxBlocksPerMultiProcessor (32 on 8.0 and 9.0, 16 on
/// 8.6, 24 on 8.9 and 12.x); DeviceLimits does not carry it.
Occupancy occupancy(const KernelResources& kernel, const DeviceLimits& limits, int threads_per_block,
                    long dynamic_shared_bytes = 0, int max_blocks_per_sm = 32);

}  // namespace adaexplore
