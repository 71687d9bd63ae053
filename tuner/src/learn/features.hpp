// Behavioural features of a configuration: what a configuration does on the GPU (threads per
// block, blocks, work per thread, shared memory, waves, registers, occupancy) rather than the raw
// integers of its parameters. The performance model (performance_model.hpp) and adaexplore's
// surrogate learn on them, so that what is learned at one size or on one configuration carries to
// another that behaves alike (docs/search-method.md, Behavioural features).
//
// Which exist when:
//   without a compile, from the spec's launch shape (spec.hpp "launch": threads_per_block or
//   block, grid, dynamic_shared_bytes; CMake: BLOCK_DIM, GRID_DIM) and the size being tuned:
//     threads_per_block   blockDim.x * y * z
//     blocks              gridDim.x * y * z
//     total_threads       threads_per_block * blocks
//     work_per_thread     problem volume (the product of the size's values) / total_threads;
//                         only with a size (SIZES, or FeatureContext::volume)
//     waves               blocks / SMs: how many times the grid fills the GPU with one block per
//                         SM (needs the SM count: FeatureContext::sm_count)
//     dynamic_shared_bytes the launch's dynamic shared memory per block
//   after a compile, from ptxas (KernelResources) and the occupancy calculator
//   (resource_check.hpp occupancy()), with the device's limits:
//     registers           per thread, the largest of the kernels
//     shared_bytes        static (ptxas) + dynamic shared memory per block
//     blocks_per_sm       resident blocks per SM; occupancy: resident warps / the SM's warps
//     waves_resident      blocks / (blocks_per_sm * SMs): the waves the grid really runs in
// A replay has the first group whenever the launch is declared (a results file's spec, or for a
// Kernel Tuner cache the launch its T1 spec declares, given as adaexplore's strategy option
// "launch"), and the second only for configurations whose record carries ptxas resources
// (results files of `tune`; Kernel Tuner caches record none) and device limits (results headers).
// Arithmetic intensity (flops per byte) is not derived: the spec declares neither the kernel's
// operations nor its traffic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/device.hpp"
#include "model/outcome.hpp"
#include "model/spec.hpp"

namespace adaexplore {

/// What the features are derived from besides the configuration.
struct FeatureContext {
  LaunchSpec launch;                   // the spec's launch expressions (empty: none declared)
  std::vector<std::string> size_names; // names launch expressions may read (spec sizes.names)
  std::optional<DeviceLimits> limits;  // for the compiled features (occupancy)
  int sm_count = 0;                    // SMs of the device; 0: unknown (no waves)
  int max_blocks_per_sm = 32;          // cudaDeviceProp::maxBlocksPerMultiProcessor
  /// The problem volume when no size is declared (a Kernel Tuner spec's ProblemSize product);
  /// 0: from the size's values only.
  double volume = 0;
};

/// The features of one configuration at one size; a field is empty where its inputs are missing.
struct Behaviour {
  std::optional<double> threads_per_block, blocks, total_threads, work_per_thread, waves,
      dynamic_shared_bytes;
  // After a compile:
  std::optional<double> registers, shared_bytes, blocks_per_sm, occupancy, waves_resident;
  /// {"threads_per_block": 256, ...}: the fields that are set.
  nlohmann::json to_json() const;
};

class FeatureMap {
 public:
  /// model_input()'s value of a feature that is missing (its expression gave no finite positive
  /// number): below log2 of the smallest positive double (-1074).
  static constexpr double kMissingInput = -1100.0;
  FeatureMap() = default;
  /// Throws std::invalid_argument when a launch expression reads a name that is neither one of
  /// `space`'s parameters nor one of context.size_names.
  FeatureMap(const Space& space, FeatureContext context);

  /// True when there is a launch shape to derive anything from.
  bool declared() const { return context_.launch.threads_per_block.has_value() || !context_.launch.grid.empty(); }
  const FeatureContext& context() const { return context_; }

  /// The features that need no compile, for `config` at `size` (one value per size name; null:
  /// no size). An expression that gives no finite positive number leaves its feature empty.
  Behaviour at(const Config& config, const std::vector<long long>* size = nullptr) const;
  /// at() plus the compiled features from ptxas's `resources` (the largest registers and static
  /// shared memory over the kernels) and the occupancy calculator with context.limits; without
  /// resources or limits, at() alone.
  Behaviour compiled(const Config& config, const std::vector<KernelResources>& resources,
                     const std::vector<long long>* size = nullptr) const;

  /// The model's input from the features that need no compile: log2 of threads_per_block, blocks,
  /// total_threads, work_per_thread, waves and 1 + dynamic_shared_bytes, each only where the
  /// launch declares what it needs (the same columns for every configuration); an empty value is
  /// kMissingInput, below log2 of every positive number, so that no real value (work per thread
  /// 0.5 is -1) encodes as missing; then ln of each size value. Empty when nothing is declared and
  /// there is no size.
  std::vector<double> model_input(const Config& config, const std::vector<long long>* size = nullptr) const;
  /// Names of model_input()'s columns, in order ("log2_threads_per_block", ..., "ln_M").
  std::vector<std::string> model_input_names() const;

 private:
  const Space* space_ = nullptr;
  FeatureContext context_;
  std::vector<std::string> names_;  // model_input columns
  bool has_threads_ = false, has_blocks_ = false, has_shared_ = false;
};

}  // namespace adaexplore
