// `replay`: a backend that answers from a recorded, exhaustively measured search space (a Kernel
// Tuner cache file, see kernel_tuner_cache.hpp, or a results file of `adaexplore-tuner tune`, see
// read_results_space below) instead of compiling and running anything. Used to benchmark
// strategies offline: same strategy, seed and file, same trace.
#pragma once

#include <optional>
#include <unordered_map>

#include "evaluate/backend.hpp"
#include "replay/kernel_tuner_cache.hpp"
#include "loop/tuner.hpp"
#include "search/strategy.hpp"

namespace adaexplore {

class ReplayBackend : public Backend {
 public:
  /// `cache` must outlive the backend. Stateless after construction: one backend serves any
  /// number of tunings (several seeds) of the same file.
  explicit ReplayBackend(const RecordedSpace& cache);

  std::string name() const override { return "replay"; }
  /// {"name": device_name, "kernel": kernel_name, "recorded": file path, "problem_size": ...}.
  nlohmann::json device() const override;
  /// Never fails: everything is decided in measure().
  Prepared prepare(const Config& config) override;
  /// The recorded outcome of the configuration (config, label, status, objective in ms, timing,
  /// stage_ms as recorded). A configuration absent from the file has status invalid and the
  /// message "not in the recorded space".
  Outcome measure(Prepared& prepared) override;

  /// A results file of a cuda tuning with launch expressions: what the cuda backend decided
  /// before compiling, with the recorded device's limits (RecordedSpace::static_check).
  std::optional<Outcome> check_statically(const Config& config) const override;

  /// The recorded outcome of `config`, or nullptr when the file does not hold it.
  const Outcome* lookup(const Config& config) const;
  /// The best recorded success (lowest objective, first in file order on ties); none when every
  /// record is a failure.
  const std::optional<Outcome>& optimum() const { return optimum_; }
  const RecordedSpace& cache() const { return cache_; }

 private:
  const RecordedSpace& cache_;
  std::unordered_map<Config, std::size_t, ConfigHash> index_;
  std::optional<Outcome> optimum_;
};

/// Reads a results file written by `adaexplore-tuner tune` (JSON Lines, results.hpp) as a recorded
/// space: every record replays with its recorded status (ok, slow, compile_error, resource_limit,
/// launch_error, crash, wrong_result, timeout, invalid), objective (ms), timing, resources and
/// message; a configuration recorded twice replays its first record (`duplicates` counts the
/// others). The header's key_parts hold only content hashes of the spec, the template and the
/// benchmark, not the parameters and constraints, so the space comes from `spec`: the tuning spec
/// (spec.hpp) the results were recorded with, whose parameters and constraints it takes, plus the
/// caller's `constraints` (product or Python syntax). When the spec's content hash differs from
/// key_parts.spec, a warning says so (records are matched by parameter name and value text).
/// For a cuda spec with launch expressions and a header that records the device's limits, the
/// space gets the cuda backend's check before compiling (RecordedSpace::static_check).
/// Throws ResultsError "<file>:<line>: ..." for a malformed file or a record that is not a
/// configuration of the space, and for a missing `spec` (naming the file and --spec); SpecError for a
/// bad spec; CacheFileError for a constraint that does not parse.
RecordedSpace read_results_space(const std::filesystem::path& results, const std::filesystem::path& spec,
                                 const std::vector<std::string>& constraints = {});

/// One replayed tuning: `strategy` (a registered name, with its JSON `options`) seeded with
/// `seed`, run through run_tuning with no baseline first and no setup-failure stop, until
/// `budget` distinct configurations (failures included, as Kernel Tuner's max_fevals) were
/// evaluated or the space is exhausted. `warm_start` configurations are evaluated first, before
/// the strategy's first proposal (TuneOptions::warm_start; the budget counts them). Proposals
/// come in rounds of 8, each made with every earlier outcome known; `in_flight` N > 0 replays a
/// tuning that keeps N configurations in flight instead (TuneOptions::in_flight: each proposal
/// without the outcomes of N - 1 others, as a real tuning's compile workers make them).
/// `prior`: StrategyOptions::prior (another problem size's evidence, sizes.hpp). Deterministic:
/// same arguments, same outcomes.
TuneReport replay_tuning(ReplayBackend& backend, const std::string& strategy,
                         const nlohmann::json& options, std::size_t budget, std::uint64_t seed,
                         const std::vector<Config>& warm_start = {}, std::size_t in_flight = 0,
                         const std::vector<Outcome>& prior = {});

/// What a problem size takes from the other sizes' replays (`replay --transfer`).
struct ReplayTransfer {
  std::vector<Config> winners;  // their best configurations (sizes.hpp transfer_from)
  std::vector<Outcome> prior;   // their size-independent failures (StrategyOptions::prior)
  std::vector<StrategyOptions::SizedOutcome> records;  // their evaluations with their sizes
  /// Configurations evaluated first (after `warm_start`): the strategy's predicted_start(count)
  /// when it has a model fitted on `records`, else the first `count` of `winners`; 0: none.
  std::size_t count = 0;
};

/// replay_tuning above, a later problem size: `transfer` as ReplayTransfer says. The recorded
/// space's behavioural features (RecordedSpace::features) and size reach the strategy
/// (StrategyOptions::features, size).
TuneReport replay_tuning(ReplayBackend& backend, const std::string& strategy,
                         const nlohmann::json& options, std::size_t budget, std::uint64_t seed,
                         const std::vector<Config>& warm_start, std::size_t in_flight,
                         const ReplayTransfer& transfer);

/// The evaluations of a replay trace (`replay --json` of one run) paired with the size the trace
/// records ("size": one value per size name, written for results files recorded at a size); an
/// empty size when it records none. `outcomes` are the trace's evaluations as read.
std::vector<StrategyOptions::SizedOutcome> sized_records(const std::string& trace_path,
                                                         const std::vector<Outcome>& outcomes);

/// optimum / best: 1 when the optimum was found, 0 when nothing succeeded (or nothing did in the
/// file).
double optimum_ratio(const std::optional<Outcome>& optimum, const std::optional<Outcome>& best);

}  // namespace adaexplore
