#include "evaluate/resource_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/spec.hpp"

namespace adaexplore {
namespace {

constexpr long kMaxLocalBytesPerThread = 512 * 1024;  // Programming Guide, all compute capabilities
constexpr int kRegisterAllocationUnit = 256;           // registers, per warp (cuda_occupancy.h)
constexpr int kSubPartitions = 4;                      // per SM, compute capability 7.0 and newer
constexpr long kSharedAllocationUnit = 128;            // bytes, compute capability 8.0 and newer
constexpr long kReservedSharedPerBlock = 1024;         // bytes, compute capability 8.0 and newer

long ceil_div(long x, long y) { return (x + y - 1) / y; }
long round_up(long x, long y) { return ceil_div(x, y) * y; }

std::string display_name(const KernelResources& k) { return k.demangled.empty() ? k.kernel : k.demangled; }

ResourceViolation violation(const KernelResources& k, Resource what, long used, long limit, const std::string& text) {
  return {k.kernel, what, used, limit, display_name(k) + ": " + text};
}

long registers_per_warp(int registers, int warp_size) {
  return round_up(static_cast<long>(registers) * warp_size, kRegisterAllocationUnit);
}

// The register file a block needs as the hardware checks it: warps rounded up to the SM's
// sub-partitions (never less than registers_per_block(), the software check).
long registers_per_block_hardware(int registers, int threads, int warp_size) {
  return registers_per_warp(registers, warp_size) * round_up(ceil_div(threads, warp_size), kSubPartitions);
}

std::optional<ResourceViolation> check_threads(const KernelResources& k, const DeviceLimits& l, const LaunchShape& s) {
  if (!s.threads_per_block || *s.threads_per_block <= l.max_threads_per_block) return std::nullopt;
  return violation(k, Resource::threads, *s.threads_per_block, l.max_threads_per_block,
                   std::to_string(*s.threads_per_block) + " threads per block, over the device's limit of " +
                       std::to_string(l.max_threads_per_block) + " threads");
}

std::optional<ResourceViolation> check_registers_per_thread(const KernelResources& k, const DeviceLimits& l) {
  if (k.registers <= l.registers_per_thread) return std::nullopt;
  return violation(k, Resource::registers, k.registers, l.registers_per_thread,
                   std::to_string(k.registers) + " registers per thread, over the limit of " +
                       std::to_string(l.registers_per_thread) + " registers");
}

std::optional<ResourceViolation> check_static_shared(const KernelResources& k, const DeviceLimits& l) {
  if (k.shared_bytes <= l.shared_per_block) return std::nullopt;
  return violation(k, Resource::shared_memory, k.shared_bytes, l.shared_per_block,
                   std::to_string(k.shared_bytes) + " bytes of static shared memory per block, over the " +
                       std::to_string(l.shared_per_block) +
                       "-byte limit for __shared__ arrays (more needs dynamic shared memory and the opt-in)");
}

std::optional<ResourceViolation> check_total_shared(const KernelResources& k, const DeviceLimits& l, const LaunchShape& s) {
  const long total = k.shared_bytes + s.dynamic_shared_bytes;
  const long limit = s.dynamic_shared_opt_in ? l.shared_per_block_optin : l.shared_per_block;
  if (total <= limit) return std::nullopt;
  return violation(k, Resource::shared_memory, total, limit,
                   std::to_string(k.shared_bytes) + " bytes of static + " + std::to_string(s.dynamic_shared_bytes) +
                       " bytes of dynamic shared memory per block = " + std::to_string(total) + " bytes, over the " +
                       std::to_string(limit) + "-byte limit per block" +
                       (s.dynamic_shared_opt_in ? " (with the opt-in)" : " (without the opt-in)"));
}

std::optional<ResourceViolation> check_registers_per_block(const KernelResources& k, const DeviceLimits& l,
                                                           const LaunchShape& s) {
  if (!s.threads_per_block || k.registers <= 0) return std::nullopt;
  const int threads = *s.threads_per_block;
  const long needed = registers_per_block_hardware(k.registers, threads, l.warp_size);
  if (needed <= l.registers_per_block) return std::nullopt;
  return violation(k, Resource::registers, needed, l.registers_per_block,
                   std::to_string(k.registers) + " registers per thread x " + std::to_string(threads) +
                       " threads need " + std::to_string(needed) +
                       " registers per block (allocated per warp in units of 256, warps rounded up to a multiple "
                       "of 4), over the limit of " +
                       std::to_string(l.registers_per_block) + " registers");
}

std::optional<ResourceViolation> check_local(const KernelResources& k) {
  if (k.stack_bytes <= kMaxLocalBytesPerThread) return std::nullopt;
  return violation(k, Resource::local_memory, k.stack_bytes, kMaxLocalBytesPerThread,
                   std::to_string(k.stack_bytes) + " bytes of stack (local memory) per thread, over the " +
                       std::to_string(kMaxLocalBytesPerThread) + "-byte limit");
}

// The 1 KiB per block the driver reserves on compute capability 8.0+ (see the header).
long reserved_shared_per_block(const DeviceLimits& l) {
  return l.shared_per_sm - l.shared_per_block_optin == kReservedSharedPerBlock ? kReservedSharedPerBlock : 0;
}

int blocks_by_registers(const KernelResources& k, const DeviceLimits& l, long warps_per_block) {
  if (k.registers <= 0) return std::numeric_limits<int>::max();
  const long per_warp = registers_per_warp(k.registers, l.warp_size);
  const long warps = (l.registers_per_sm / kSubPartitions / per_warp) * kSubPartitions;
  return static_cast<int>(warps / warps_per_block);
}

int blocks_by_shared(const KernelResources& k, const DeviceLimits& l, long dynamic_bytes) {
  const long per_block = round_up(k.shared_bytes + dynamic_bytes + reserved_shared_per_block(l), kSharedAllocationUnit);
  return per_block > 0 ? static_cast<int>(l.shared_per_sm / per_block) : std::numeric_limits<int>::max();
}

}  // namespace

long registers_per_block(int registers_per_thread, int threads, int warp_size) {
  return registers_per_warp(registers_per_thread, warp_size) * ceil_div(threads, warp_size);
}

std::optional<ResourceViolation> check_resources(const KernelResources& kernel, const DeviceLimits& limits,
                                                 const LaunchShape& launch) {
  if (auto v = check_threads(kernel, limits, launch)) return v;
  if (auto v = check_registers_per_thread(kernel, limits)) return v;
  if (auto v = check_static_shared(kernel, limits)) return v;
  if (auto v = check_total_shared(kernel, limits, launch)) return v;
  if (auto v = check_registers_per_block(kernel, limits, launch)) return v;
  return check_local(kernel);
}

LaunchShape launch_shape(const LaunchSpec& launch, const Space& space, const Config& config,
                         const std::vector<long long>* size_values) {
  auto whole = [&](const std::optional<Expr>& e, double minimum) -> std::optional<long> {
    if (!e) return std::nullopt;
    const auto v = whole_value(*e, space, config, size_values, minimum);
    if (!v || *v > std::numeric_limits<int>::max()) return std::nullopt;
    return static_cast<long>(*v);
  };
  LaunchShape shape;
  if (const auto threads = whole(launch.threads_per_block, 1)) shape.threads_per_block = static_cast<int>(*threads);
  shape.dynamic_shared_bytes = whole(launch.dynamic_shared_bytes, 0).value_or(0);
  shape.dynamic_shared_opt_in = launch.dynamic_shared_opt_in;
  return shape;
}

std::optional<ResourceViolation> check_resources(const std::vector<KernelResources>& kernels,
                                                 const DeviceLimits& limits, const LaunchShape& launch) {
  for (const KernelResources& kernel : kernels)
    if (auto v = check_resources(kernel, limits, launch)) return v;
  return std::nullopt;
}

Occupancy occupancy(const KernelResources& kernel, const DeviceLimits& limits, int threads_per_block,
                    long dynamic_shared_bytes, int max_blocks_per_sm) {
  Occupancy o;
  LaunchShape shape{threads_per_block, dynamic_shared_bytes, true};
  if (threads_per_block <= 0 || check_resources(kernel, limits, shape)) return o;
  const long warps_per_block = ceil_div(threads_per_block, limits.warp_size);
  const int max_warps = limits.max_threads_per_sm / limits.warp_size;
  const std::pair<int, Resource> bounds[] = {
      {static_cast<int>(max_warps / warps_per_block), Resource::threads},
      {blocks_by_registers(kernel, limits, warps_per_block), Resource::registers},
      {blocks_by_shared(kernel, limits, dynamic_shared_bytes), Resource::shared_memory},
      {max_blocks_per_sm, Resource::unspecified}};
  auto tightest = std::min_element(std::begin(bounds), std::end(bounds),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
  o.blocks_per_sm = tightest->first;
  o.limited_by = tightest->second;
  o.warps_per_sm = static_cast<int>(o.blocks_per_sm * warps_per_block);
  o.fraction = max_warps > 0 ? static_cast<double>(o.warps_per_sm) / max_warps : 0;
  return o;
}

std::optional<ResourceViolation> check_launch(const DeviceLimits& limits, const LaunchShape& launch) {
  if (launch.threads_per_block && *launch.threads_per_block > limits.max_threads_per_block) {
    const long used = *launch.threads_per_block;
    return ResourceViolation{"", Resource::threads, used, limits.max_threads_per_block,
                             std::to_string(used) + " threads per block, over the device's limit of " +
                                 std::to_string(limits.max_threads_per_block) + " threads"};
  }
  const long dynamic_limit = launch.dynamic_shared_opt_in ? limits.shared_per_block_optin : limits.shared_per_block;
  if (launch.dynamic_shared_bytes > dynamic_limit)
    return ResourceViolation{"", Resource::shared_memory, launch.dynamic_shared_bytes, dynamic_limit,
                             std::to_string(launch.dynamic_shared_bytes) +
                                 " bytes of dynamic shared memory per block, over the " +
                                 std::to_string(dynamic_limit) + "-byte limit per block" +
                                 (launch.dynamic_shared_opt_in ? " with the opt-in" : " without the opt-in")};
  return std::nullopt;
}

std::string launch_source(const LaunchSpec& spec, const LaunchShape& shape) {
  std::string text;
  if (spec.threads_per_block && shape.threads_per_block)
    text += "; launch.threads_per_block \"" + spec.threads_per_block->text() + "\" = " +
            std::to_string(*shape.threads_per_block);
  if (spec.dynamic_shared_bytes)
    text += "; launch.dynamic_shared_bytes \"" + spec.dynamic_shared_bytes->text() + "\" = " +
            std::to_string(shape.dynamic_shared_bytes);
  return text;
}

nlohmann::json resource_extra(Resource what, const std::string& kernel, long used, long limit) {
  nlohmann::json extra = {{"resource", to_string(what)}, {"kernel", kernel}, {"used", used}, {"limit", limit}};
  if (what == Resource::threads) {
    extra["figures"] = {{"threads", used}};
    extra["limits"] = {{"threads", limit}};
  }
  return extra;
}

std::optional<Outcome> launch_verdict(const LaunchSpec& spec, const Space& space, const Config& config,
                                      const DeviceLimits& limits, const std::string& arch,
                                      const std::vector<long long>* size_values) {
  const LaunchShape shape = launch_shape(spec, space, config, size_values);
  const auto v = check_launch(limits, shape);
  if (!v) return std::nullopt;
  Outcome o;
  o.config = config;
  o.label = space.label(config);
  o.status = Status::resource_limit;
  o.message = v->reason + " (" + arch + ", static check before compiling" + launch_source(spec, shape) + ")";
  o.extra = resource_extra(v->what, "", v->used, v->limit);
  return o;
}

}  // namespace adaexplore
