// The evaluation seam: a backend turns a configuration into an Outcome in two steps, so that
// compilation (CPU-bound, parallel) overlaps measurement (one configuration at a time).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// The whole setup is broken (every configuration fails the same way, or what every configuration
/// needs does not build): not a configuration failure, and recorded as none. what() says why.
/// Thrown by the tuning loop (tuner.hpp) and by a backend's measure().
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What `prepare` produced: either a failure decided before any run (compile error, resource
/// limit from the ptxas report) or an artifact ready to measure.
struct Prepared {
  Config config;
  std::optional<Outcome> failure;
  std::filesystem::path executable;  // backend-specific artifact (benchmark executable, cubin)
  std::filesystem::path directory;   // the evaluation's working directory
  std::vector<KernelResources> resources;
  /// The compiler's warnings and performance advisories, verbatim (cuda: find_ptxas_warnings in
  /// ptxas.hpp); the outcome keeps them as extra.ptxas_warnings, whatever its status.
  std::vector<std::string> ptxas_warnings;
  std::map<std::string, double> stage_ms;
  /// The artifact came from the compile cache (kernel_unit.hpp): the outcome says so
  /// (extra.compile_cache "hit"), and stage_ms "compile" is the lookup's time.
  bool compile_cached = false;
  /// measure() leaves the artifact in place (to measure it again: confirm.hpp); the caller removes it.
  bool keep_artifact = false;
  /// A tuning over MPI (cluster/cluster.hpp): the rank that compiled it, where the artifact is
  /// and where it is measured, and that rank's handle for it. 0 and 0: this process.
  int rank = 0;
  std::uint64_t handle = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Where outcomes are measured: {"name", "compute_capability", "sm_count", "memory_bytes",
  /// "driver_version", "runtime_version", ...}; part of the results file's key.
  virtual nlohmann::json device() const = 0;
  /// Renders, compiles and checks statically. Must be safe to call from several threads at once.
  virtual Prepared prepare(const Config& config) = 0;
  /// Runs and times a prepared configuration. Called from one thread, one configuration at a time.
  virtual Outcome measure(Prepared& prepared) = 0;
  /// Removes what prepare() made for `prepared` to be measured (its artifact), once it will not be
  /// measured (again): the tuning drops it, or confirm.hpp is done with it (measure() removes it
  /// itself unless prepared.keep_artifact). By default the file prepared.executable, when named;
  /// nothing else of its work folder. Thread-safe.
  virtual void discard(const Prepared& prepared) {
    std::error_code ec;
    if (!prepared.executable.empty()) std::filesystem::remove(prepared.executable, ec);
  }
  /// Measuring workers: one per GPU the tuning measures on; configurations on different workers
  /// are measured at the same time, one at a time per worker. 1 (the default): measure() alone.
  virtual std::size_t measure_slots() const { return 1; }
  /// measure() on worker `slot` (< measure_slots()), from that worker's own thread; never while
  /// calibrate() runs (the tuning measures the baseline alone, before any concurrency).
  virtual Outcome measure_on(Prepared& prepared, std::size_t slot) {
    (void)slot;
    return measure(prepared);
  }
  /// The headers the template and the benchmark include, which the results' key covers
  /// (store/key.hpp key_parts "includes"): [{"name": file name, "hash": content hash}], sorted,
  /// without the toolkit's, the system's and the harness's. Empty (the default) for a backend
  /// without sources. ProgramBackend asks the compiler (program_backend.hpp). `outputs`: files
  /// and folders (absolute) whose headers are left out too: the tuned headers.
  virtual nlohmann::json included_headers(const std::vector<std::filesystem::path>& outputs = {}) {
    (void)outputs;
    return nlohmann::json::array();
  }
  /// How configurations are run, in words, for the log and the summary ("" when not applicable).
  virtual std::string evaluation_mode() const { return {}; }
  /// Evaluations the backend can prepare concurrently (compile workers); 1 = sequential.
  virtual std::size_t parallelism() const { return 1; }
  /// Told the baseline's (the defaults') outcome once it is known, whether just measured or read
  /// from an earlier results file, and only when it succeeded; before any other configuration is
  /// measured. Called from the thread that calls measure(), never while measure() runs (prepare()
  /// may run concurrently). ProgramBackend derives its run time limit from it.
  virtual void calibrate(const Outcome& baseline) { (void)baseline; }
  /// What the backend knows of `config` without compiling or running it: the outcome of a
  /// configuration it rejects before compiling (cuda: the launch shape over the device's limits,
  /// resource_check.hpp launch_verdict), else nothing. The tuning gives it to the strategy
  /// (StrategyOptions::static_check), whose knowledge base then never proposes such a configuration.
  /// Must be thread-safe: prepare() calls it from the compiling threads, the strategy from the
  /// tuning loop's.
  virtual std::optional<Outcome> check_statically(const Config& config) const {
    (void)config;
    return std::nullopt;
  }
};

}  // namespace adaexplore
