// Reading a Kernel Tuner cache file: the record of a (usually exhaustive) tuning, used to replay
// tunings offline (replay_backend.hpp).
//
// Format (one JSON object; gzip'd or plain, told apart by the gzip magic bytes):
//   "device_name", "kernel_name", "problem_size"      provenance (device_name may be empty)
//   "tune_params_keys": ["bx", "by", ...]             parameter order
//   "tune_params": {"bx": [16, 32, ...], ...}          values of each parameter, in order
//   "objective": "time"                                optional, default "time"
//   "cache": {"16,1": {"bx": 16, "by": 1, "time": 3.87, "times": [...], "compile_time": 918.6,
//                      ...}, ...}
// The cache key is the values joined by "," as Python's str() prints them; every record also
// carries each parameter as its own field, which is what this reader uses (the key is the
// fallback). Times are milliseconds: `time` is the mean of `times` (per-run kernel times);
// `compile_time`, `verification_time`, `benchmark_time`, `framework_time`, `strategy_time` are
// the wall-clock milliseconds spent on each stage of that configuration.
//
// A failed configuration is marked in one of three ways, all accepted:
//   "__error__": "CompilationFailedConfig"            (newest Kernel Tuner)
//   "time": "CompilationFailedConfig"                  (the objective field holds the name)
//   "time": 1e20, or any value >= 1e19 or non-finite   (oldest; NaN/Infinity tokens accepted)
// Names map to product statuses: CompilationFailedConfig -> compile_error (resource_limit when a
// text field of the record mentions shared/local memory or registers), RuntimeFailedConfig ->
// launch_error, InvalidConfig -> invalid, anything else (ErrorConfig, old markers) -> crash. The
// name is kept in the outcome's message.
//
// A file written by an interrupted run ends with "," after the last record (or with the "{" of an
// empty cache) instead of the closing braces; it is read as if they were there.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "learn/features.hpp"
#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// A malformed or unreadable cache file. what(): "<file>: <where>: <problem>; <what to do>".
class CacheFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A recorded search space to replay (replay_backend.hpp): read from a Kernel Tuner cache file
/// (below) or from a results file of `adaexplore-tuner tune` (read_results_space in
/// replay_backend.hpp). Named KernelTunerCache too, its first source.
struct RecordedSpace {
  std::filesystem::path file;
  /// "kernel_tuner_cache" or "adaexplore_results": which reader made it (the replay trace says).
  std::string format = "kernel_tuner_cache";
  std::string kernel_name;
  std::string device_name;
  nlohmann::json problem_size;
  /// The file's objective field. The product minimises milliseconds, so outcomes always carry
  /// `time` as their objective; a throughput objective (GFLOP/s, GB/s) of a fixed problem size
  /// ranks configurations the same way. Its value, when present, is in Outcome::extra.
  std::string objective = "time";
  /// Parameters in tune_params_keys order, values in tune_params order, plus the caller's
  /// constraints (the file does not store the restrictions of the tuning that made it).
  Space space;
  /// One outcome per record, in file order; label and config set, status and objective as above,
  /// timing from `times`, stage_ms from the *_time fields.
  std::vector<Outcome> records;
  /// Records that violate a caller's constraint (kept; strategies never propose them).
  std::size_t records_outside_constraints = 0;
  /// Results files only: later records of a configuration already read (the first is kept).
  std::size_t duplicates = 0;
  /// Notes met while reading (a dropped half-written last line, a spec that differs from the
  /// one the results were recorded with), for the caller to print.
  std::vector<std::string> warnings;
  /// Results files of a cuda tuning whose spec has launch expressions: the check the cuda backend
  /// made before compiling, with the recorded device's limits (resource_check.hpp
  /// launch_verdict), for ReplayBackend::check_statically; empty otherwise.
  std::function<std::optional<Outcome>(const Space&, const Config&)> static_check;
  /// Results files only: what the behavioural features (learn/features.hpp) are derived from:
  /// the spec's launch expressions and size names, the recorded device's limits and SMs (header
  /// device.limits, device.sm_count), and the size the file was recorded at (header
  /// key_parts.size, in the spec's sizes.names order; empty: none).
  FeatureContext features;
  std::vector<long long> size;
};
using KernelTunerCache = RecordedSpace;

/// Reads `file` (gzip'd files are decompressed by running `gzip -dc`). `constraints` use the
/// product or Kernel Tuner (Python) syntax, see expr.hpp. Throws CacheFileError for a missing,
/// unreadable or malformed file (naming the file, the record key or field, and the problem) and
/// for a constraint that does not parse against the file's parameters.
KernelTunerCache read_kernel_tuner_cache(const std::filesystem::path& file,
                                         const std::vector<std::string>& constraints = {});

/// Parses the text of a cache file (already decompressed); `file` names it in errors.
KernelTunerCache parse_kernel_tuner_cache(std::string text, const std::filesystem::path& file,
                                          const std::vector<std::string>& constraints = {});

/// The status a Kernel Tuner error name maps to (see above); `record` is searched for the
/// resource diagnostics that make a compilation failure a resource_limit.
Status status_of_kernel_tuner_error(const std::string& name, const nlohmann::json& record);

}  // namespace adaexplore
