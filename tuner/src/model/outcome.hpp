// The result of one evaluation: status (a closed set), objective and its sample statistics,
// resources reported by the compiler, diagnostics and the time spent in each stage.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

// The table of statuses, shared with the harness (templates/adaexplore/, the benchmark's include folder).
#include "../../../templates/adaexplore/statuses.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// Every evaluation ends in exactly one status, one of the table the harness shares
/// (templates/adaexplore/statuses.hpp, ADAEXPLORE_STATUSES, which says what each means): ok,
/// slow, compile_error, resource_limit, launch_error, crash, wrong_result, timeout (extra.timeout_stage
/// says which: "compile" or "run"), invalid.
enum class Status {
#define ADAEXPLORE_STATUS_ENUMERATOR(name, from_benchmark) name,
  ADAEXPLORE_STATUSES(ADAEXPLORE_STATUS_ENUMERATOR)
#undef ADAEXPLORE_STATUS_ENUMERATOR
};

/// Every status, in the table's order.
inline constexpr Status kAllStatuses[] = {
#define ADAEXPLORE_STATUS_VALUE(name, from_benchmark) Status::name,
    ADAEXPLORE_STATUSES(ADAEXPLORE_STATUS_VALUE)
#undef ADAEXPLORE_STATUS_VALUE
};

/// Whether a benchmark's result record may carry `s` (harness_common.hpp "status"; the table's
/// from_benchmark): ok, resource_limit, launch_error, crash, wrong_result.
bool from_benchmark(Status s);
const char* to_string(Status s);
/// Throws std::invalid_argument naming the unknown status.
Status status_from_string(const std::string& s);
/// ok and slow produce an objective; everything else is a failure.
inline bool is_success(Status s) { return s == Status::ok || s == Status::slow; }

/// Resources of one kernel as reported by `ptxas -v` (bytes, registers per thread); see ptxas.hpp.
/// New fields go at the end: records are built by aggregate initialisation in order.
struct KernelResources {
  std::string kernel;  // mangled name as ptxas prints it
  int registers = 0;
  long shared_bytes = 0;   // static shared memory per block
  long stack_bytes = 0;    // stack per thread: the cumulative size (with callees) when reported
  long spill_store_bytes = 0;
  long spill_load_bytes = 0;
  long constant_bytes = 0;  // cmem[0] (kernel parameters and such; not printed for sm_90 by nvcc 13)
  int barriers = 0;         // named barriers ("used N barriers")
  std::string demangled;    // "void f<32>(float*)"; the mangled name when it is not a C++ one
  std::string arch;         // the target ptxas compiled for, "sm_90"
};

/// Sample statistics of the objective in milliseconds (from the benchmark's record, time_ms).
/// New fields go at the end: records are built by aggregate initialisation in order.
struct Timing {
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, stdev_ms = 0;
  int samples = 0;
  /// The per-run times behind the statistics (time_ms.values), in run order; empty in records
  /// that do not carry them (older results files, replayed caches). See significance.hpp.
  std::vector<double> values_ms;
};

struct Outcome {
  Config config;
  std::string label;
  Status status = Status::ok;
  std::optional<double> objective;  // ms, lower is better; present iff is_success(status)
  std::optional<Timing> timing;
  std::vector<KernelResources> resources;
  std::string message;              // diagnostics (compiler output, CUDA error, mismatch), truncated
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::map<std::string, double> stage_ms;  // render, compile, run, ... wall-clock milliseconds
  nlohmann::json extra = nlohmann::json::object();  // backend-specific figures (GB/s, max error)
};

nlohmann::json to_json(const Outcome& o, const Space& space);
/// A configuration as records write it (its "config" object): {"TILE": 64, "MODE": "fast"}, a
/// numeric value as a number, any other as its text.
nlohmann::json record_config(const Config& config, const Space& space);
/// Reads a record written by to_json; the configuration is rebuilt from the `config` object.
Outcome outcome_from_json(const nlohmann::json& j, const Space& space);
/// A configuration object as records and traces write it ({"TILE": 64, "MODE": "fast"}) as the
/// (name, value text) pairs Space::config_from_texts takes (numbers as Value::from_number writes
/// them). Throws std::invalid_argument naming a value that is neither a number nor a string.
std::vector<std::pair<std::string, std::string>> config_texts(const nlohmann::json& config);

/// Evaluations per status name.
std::map<std::string, std::size_t> count_statuses(const std::vector<Outcome>& outcomes);

}  // namespace adaexplore
