// The backends a spec may name ("backend"): the registry, one row per backend, with what the rest
// of the tuner asks of it. The name is compared here and nowhere else: the spec's checks, `tune`,
// `check`, `measure`, `header` and the replay ask a row's capabilities, and
// evaluate/backends.hpp make_backend() makes a row's Backend (docs/ARCHITECTURE.md: a new backend).
#pragma once

#include <string>
#include <vector>

namespace adaexplore {

/// The backends there are (each row's `id`; evaluate/backends.cpp make_backend switches on it,
/// so that the compiler names a backend without a factory).
enum class BackendId { cuda, host };

/// One backend of the registry.
struct BackendKind {
  BackendId id;
  const char* name;              ///< the spec's "backend": "cuda", "host"
  const char* default_compiler;  ///< compiler.path when the spec gives none: "nvcc", "c++"
  /// Measures on a GPU: `tune` and `measure` need one (--device), the results key and a
  /// multi-GPU header hold its model and compute capability, `check` compiles per --arch.
  bool needs_gpu;
  /// Launches kernels the tuner can describe: the spec's launch expressions (checked against the
  /// device's limits before compiling), "arguments" (a generated benchmark), "kernel_source" (a
  /// macro-configured kernel) and "reference" (a reference configuration).
  bool launches_kernels;
  /// Can compile each configuration's device code alone, the benchmark once (compiler.unit
  /// "kernel", evaluate/kernel_unit.hpp).
  bool has_kernel_unit;
};

/// Every backend, in the order messages list them.
const std::vector<BackendKind>& backend_kinds();
/// The row named `name`, or null.
const BackendKind* find_backend_kind(const std::string& name);
/// The row named `name`; throws std::invalid_argument naming the known ones when there is none.
const BackendKind& backend_kind(const std::string& name);
/// The names, "cuda, host".
std::string backend_names();

}  // namespace adaexplore
