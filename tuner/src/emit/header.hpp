// The generated header: `inline constexpr` values of one configuration in a namespace, with a
// provenance comment; or, from a tuning database holding several devices, one entry per compute
// capability selected per __CUDA_ARCH__ at compile time and per device at run time.
// Deterministic: the same inputs give the same bytes (no current time; the date is the tuning's
// start as recorded in the results file).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

struct HeaderInfo {
  std::string kernel;       // the tuning's name
  std::string name_space;   // e.g. adaexplore::gemm
  std::string source;       // "tuned" | "defaults"; why these values
  std::string reason;       // for "defaults": why no tuning happened (e.g. no CUDA GPU)
  std::string backend;
  nlohmann::json device = nlohmann::json::object();  // as Backend::device()
  std::string date;         // tuning start, UTC ISO 8601
  std::string strategy;
  std::uint64_t seed = 0;
  std::size_t budget = 0;
  std::optional<Outcome> winner;
  std::optional<Outcome> baseline;       // the defaults' outcome
  std::map<std::string, std::size_t> counts;  // evaluations per status
  std::size_t evaluations = 0;
  /// Valid configurations never evaluated because the search predicted them to fail (a tuning
  /// that ended "space exhausted" before its budget: TuneReport::skipped); the "// Skipped:"
  /// line, written when set and not 0. Set by `tune` only: headers written from stored results
  /// (tune --cached, `header`) leave the line out.
  std::optional<std::size_t> skipped;
  /// The spec's macro_prefix (header_info() sets it): the header then ends with a `#define
  /// <prefix><PARAM> <value>` per parameter, for code that tests the values with #if (a kernel
  /// configured by macros), and its machine line (below) says the prefix. Unset: no #define lines
  /// (headers made by hand in tests).
  ///
  /// The machine line. Every header carries one line near its top that tools read instead of the
  /// C++ (the C++ layout is free to change; the line is the interface: the CMake module's pinned
  /// header check and DEFINE_PARAMS, `adaexplore-tuner configure`):
  ///   // adaexplore: {"backend":"cuda","config":{"TILE":64,...},"kernel":"gemm",
  ///                   "namespace":"adaexplore::gemm","parameters":["TILE",...],"tuned":true,...}
  /// one line of compact JSON, keys sorted: "kernel", "namespace", "backend", "parameters" (the
  /// names in the spec's order), "config" ({name: value}, numbers as numbers, text as strings),
  /// "tuned" (kTuned), "macro_prefix" when set, "tuned_on" (the devices the values were tuned on,
  /// "<name>, compute capability <cc>" or a CPU's description, once each; absent when not tuned);
  /// a header of sizes adds "sizes", one {"size": {name: value}, "label": "M=512 N=512",
  /// "config"} per size in the declared order ("config" is then the first size's); a multi-device
  /// header "devices", one {"compute_capability": 90, "config"} per entry ("config" is then the
  /// fallback's, the defaults, and "tuned" false).
  std::optional<std::string> macro_prefix;
};

/// Renders the header text for `config`.
std::string render_header(const Space& space, const Config& config, const HeaderInfo& info);

/// One entry of a multi-device header: the winner tuned on a device of one compute capability.
struct DeviceHeaderEntry {
  int compute_capability = 0;  // 10 * major + minor: 80, 90, 100
  Config config;               // the winner
  HeaderInfo info;             // its provenance, as for render_header (source "tuned")
  std::string why;             // how it was chosen among devices of its compute capability; empty if alone
};

/// One header for several compute capabilities (`entries`, ascending, distinct): a provenance
/// block per entry and the fallback (`defaults`) stated in the banner; in namespace
/// common.name_space: `struct Params` (bool tuned, then one member per parameter), the
/// `constexpr` (and, under nvcc, __host__ __device__) `params_for(cc)` returning the entry of
/// compute capability `cc` (exact match) or the defaults, `kSm<cc>` and `kDefaults` constants,
/// `kComputeCapabilities[]`; `kTuned` and one constant per parameter holding the entry of the
/// architecture being compiled (__CUDA_ARCH__ / 10) in device code and the defaults in host code;
/// with nvcc, `current_params()` picking at run time by the current CUDA device. Deterministic.
/// Throws std::invalid_argument for a parameter mixing numbers and text or named like one of
/// those declarations.
std::string render_multi_device_header(const Space& space, const std::vector<DeviceHeaderEntry>& entries,
                                       const Config& defaults, const HeaderInfo& common);

/// One entry of a header of several problem sizes (sizes.hpp): the winner tuned at one size.
struct SizeHeaderEntry {
  std::string size;                  // "M=512 N=512 K=512"
  std::vector<long long> values;     // one per size name
  Config config;                     // the winner (the defaults in a defaults header)
  HeaderInfo info;                   // its provenance, as for render_header; unused for "defaults"
  std::vector<std::string> verified;      // sizes the winner ran and verified at
  std::vector<std::string> not_verified;  // "M=1000 N=1000 K=1000 (wrong_result)", "... (not evaluated)"
};

/// One header for several problem sizes (`entries`, in the declared order; common.source "tuned"
/// or "defaults", the latter with every entry the defaults and kTuned false). In namespace
/// common.name_space: kTuned and one constant per parameter, the entry of the first size (code that
/// does not select by size); `struct Size` (one long long per size name), `struct SizeParams` (one
/// member per parameter), `struct SizeEntry {Size size; SizeParams params;}`, `kSizes[]` (one
/// entry per size, declared order), `kSizeCount`, and the constexpr selector
/// `select_index(<size names>)` / `select(<size names>)`: the entry of the tuned size nearest in
/// log space, the smallest product over the names of max(x / tuned, tuned / x) (the sum of
/// |ln(x / tuned)|), ties (within 1e-12) to the larger volume, then the earlier entry; a value
/// below 1 counts as 1, so outside the tuned range the nearest end's entry. The selector is for host
/// code and constant expressions there (nvcc rejects a host constexpr function in device code);
/// kSizes[i].params are constants any code may use. The comment states per size the winner, time,
/// speedup, evaluations, and the sizes the winner verified at.
/// Deterministic. Throws std::invalid_argument for a parameter mixing numbers and text or a name
/// (parameter or size) the header uses itself.
std::string render_sized_header(const Space& space, const std::vector<std::string>& size_names,
                                const std::vector<SizeHeaderEntry>& entries, const HeaderInfo& common);

}  // namespace adaexplore
