// The tuning loop: baseline first, then batches proposed by the strategy, prepared (compiled)
// in parallel ahead of measurement, measured one at a time, observed, appended to the results.
// A successful baseline calibrates the backend (Backend::calibrate) and is the reference of the
// status `slow`: a new `ok` outcome significantly slower than it (significance.hpp) becomes `slow`.
// The loop (tuner.cpp) keeps the budget, the time limit and the progress lines; the pipeline
// (pipeline.hpp) prepares and measures; the recorder (recorder.hpp) records; the winner is
// crowned by crown.hpp.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "evaluate/backend.hpp"
#include "store/results.hpp"
#include "loop/stage_summary.hpp"
#include "search/strategy.hpp"

namespace adaexplore {

class Clock;  // clock.hpp

struct TuneOptions {
  std::string kernel;             // name used in progress lines
  std::size_t budget = 100;       // evaluations, baseline and resumed ones included
  bool evaluate_baseline = true;  // false: no baseline evaluation first (replay benchmarks)
  double time_limit_s = 0;        // wall-clock limit for new evaluations; 0 = none
  std::size_t batch = 0;          // proposals per round; 0 = as many as can start compiling now (pipeline.cpp)
  /// Configurations in flight at most (proposed and not yet observed: queued, compiling, waiting,
  /// measuring); the strategy is asked again as soon as fewer are, so each proposal is made
  /// without the outcomes of at most in_flight - 1 others. The defaults and `warm_start` are
  /// queued at the start regardless (and count). Overrides `batch`. 0 = automatic (`batch`
  /// unset): as many as keep the measuring workers busy, from the measured compile and
  /// measurement times, at most ceil(budget / 8) on one GPU, one more per further GPU
  /// (pipeline.cpp, depth()); with one compile worker, one at a time.
  std::size_t in_flight = 0;
  std::size_t setup_failure_window = 6;  // this many identical failures with no success = SetupError
  std::ostream* progress = nullptr;      // when set, one line per `batch` outcomes (0: max(8, 2 x parallelism))
  /// Each TuneReport::warnings entry as it arises, one line "[adaexplore] <kernel>: warning: ...".
  std::ostream* warnings = nullptr;
  /// Evaluated right after the baseline, before the strategy's first batch (the strategy observes
  /// them like its own): e.g. the best configurations of earlier keys of a tuning database.
  /// Configurations already measured or violating a constraint are skipped; the budget applies.
  std::vector<Config> warm_start;
  /// The clock of the time limit, the wall times and the progress lines (clock.hpp); null: the
  /// steady clock. Tests give one of their own.
  const Clock* clock = nullptr;
};

struct TuneReport {
  std::vector<Outcome> outcomes;  // every evaluation, resumed ones first, in order
  std::size_t new_evaluations = 0;
  std::optional<Outcome> best;
  std::optional<Outcome> baseline;
  std::map<std::string, std::size_t> counts;  // per status name
  std::string stop_reason;        // "budget", "time limit", "space exhausted"
  /// Stopped "space exhausted": the valid configurations never evaluated (unevaluated_valid()),
  /// each one the strategy predicted to fail and never proposed (adaexplore's knowledge base:
  /// the backend's check before compiling and the learned rules). Unset otherwise, or when the
  /// space is too large to count.
  std::optional<std::size_t> skipped;
  double wall_s = 0;
  /// Where the time went: the new evaluations' stage times (stage_summary.hpp; ms, % of wall_s).
  StageSummary stages;
  /// Implausible results noticed during the tuning, one sentence each: the same-timing gate
  /// (same_timing_warning: at least 8 successful new evaluations whose medians lie within 0.5 %).
  std::vector<std::string> warnings;
  /// The limit on configurations in flight at the end of the tuning (TuneOptions::in_flight, or
  /// the automatic depth from the mean prepare and measurement wall times, ms, of the last 32 new
  /// evaluations; 8 before the first outcome) and whether it was automatic. 0 when proposals
  /// came in fixed batches (TuneOptions::batch, or one compile worker) or nothing new was evaluated.
  std::size_t in_flight = 0;
  bool in_flight_automatic = false;
  bool in_flight_every_worker = false;  // automatic, and every compile worker busy: compile-bound
  /// Automatic, and the budget's cap (ceil(budget / 8) on one GPU, one more per further GPU, at
  /// least the GPUs + 1: pipeline.cpp, budget_depth()) was below what keeps the GPUs busy: that
  /// cap; 0 otherwise.
  std::size_t in_flight_budget = 0;
  double mean_prepare_ms = 0, mean_measure_ms = 0;
  std::size_t rate_samples = 0;  // the new evaluations those means are over (at most 32)
};

/// Runs a tuning. `previous` are outcomes of an earlier run with the same key: observed by the
/// strategy, never evaluated again. `writer` (optional) receives each new outcome as it finishes;
/// the outcomes other processes appended to its file meanwhile (ResultsWriter::take_foreign) are
/// observed and counted like `previous`, and a configuration among them is not measured again.
TuneReport run_tuning(const Space& space, const Config& baseline, Backend& backend, Strategy& strategy,
                      const TuneOptions& options, ResultsWriter* writer, const std::vector<Outcome>& previous = {});

/// A failure's signature, what "failed in the same way" compares: its status and the first line of
/// its message without what differs between the configurations of one broken setup: paths into a
/// configuration's own folder (".../evals/<16 hex>/" as "<eval>/"), hashes and addresses ("<hex>"),
/// numbers (sizes, line numbers, values: "#"), and the configuration's own non-numeric values
/// ("<value>"). "wrong_result:# of # values differ from the reference; first at index #: got #,
/// expected # (max abs error #)" is one shape of mismatch.
std::string failure_signature(const Outcome& o);
/// What a broken setup left (setup_failures): `shown`, the index of an outcome with the shared
/// failure; `other`, the index of the one outcome that failed otherwise, if any.
struct SetupFailures {
  std::size_t shown = 0;
  std::optional<std::size_t> other;
};
/// Whether `outcomes` are what a broken setup leaves: at least `window` (and one) of them, none
/// successful, and either all failed in the same way (failure_signature), or all but one failed
/// with the same wrong_result (every configuration that ran disagrees with the reference in the
/// same way: a broken reference, with one configuration that really fails mixed in). The tuning
/// stops with a SetupError then and keeps none of its own failures in the results file; a file
/// holding only such failures (written before that) is set aside by `tune` (command_tune.cpp).
std::optional<SetupFailures> setup_failures(const std::vector<Outcome>& outcomes, std::size_t window);
bool setup_failures_only(const std::vector<Outcome>& outcomes, std::size_t window);
/// The valid configurations of `space` (constraints satisfied) that no outcome holds; std::nullopt
/// when the Cartesian product exceeds 4e6 (not enumerated).
std::optional<std::size_t> unevaluated_valid(const Space& space, const std::vector<Outcome>& outcomes);

}  // namespace adaexplore
