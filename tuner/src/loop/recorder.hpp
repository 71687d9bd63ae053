// The recording side of a tuning (tuner.hpp run_tuning): every outcome, resumed or fresh, recorded
// in order, observed by the strategy and (fresh ones) appended to the results file; the baseline
// adopted wherever its outcome comes from (a previous run, this tuning, another process sharing
// the results file); a fresh `ok` outcome significantly slower than the baseline classified
// `slow`; the same-timing gate warned once; a broken setup judged, its failures held back from
// the results file meanwhile. The pipeline that produces the fresh outcomes is pipeline.hpp.
#pragma once

#include <optional>
#include <unordered_set>
#include <vector>

#include "evaluate/backend.hpp"
#include "loop/tuner.hpp"
#include "search/strategy.hpp"
#include "store/results.hpp"

namespace adaexplore {

class Recorder {
 public:
  /// `writer` may be null (nothing is written); `baseline`: the defaults' configuration.
  Recorder(Backend& backend, Strategy& strategy, const TuneOptions& options, ResultsWriter* writer, Config baseline);

  /// Outcomes of an earlier run of the same key, recorded first (never evaluated again). From
  /// then on, a baseline outcome arriving is adopted only with TuneOptions::evaluate_baseline.
  void resume(const std::vector<Outcome>& previous);
  /// The baseline is queued: until its outcome is recorded, baseline_pending().
  void expect_baseline() { baseline_pending_ = true; }
  bool baseline_pending() const { return baseline_pending_; }

  /// A fresh outcome, just measured: classified `slow` against the baseline when it is one
  /// (significance.hpp; its message and extra.slowdown state the evidence), then recorded.
  void measured(Outcome o);
  /// Records the outcomes other processes appended to the results file since the last look
  /// (ResultsWriter::refresh); nothing without a writer.
  void take_arrivals();
  /// Whether `config`'s outcome is recorded (never measured again).
  bool recorded(const Config& config) const { return seen_.count(config) > 0; }
  const std::vector<Outcome>& outcomes() const { return report_.outcomes; }
  /// The outcomes this tuning evaluated (not resumed, not another process's), in order.
  const std::vector<Outcome>& fresh() const { return fresh_; }

  /// Whether the outcomes so far are those of a broken setup (setup_failures_only over
  /// TuneOptions::setup_failure_window).
  bool setup_broken() const;
  /// Throws SetupError, saying why and which failures are not kept, when setup_broken().
  void check_setup() const;
  /// Appends, in order, the failures held back while the setup was in doubt: the setup is not
  /// broken, or the tuning ended (or stopped on another error) before it could tell.
  void write_held();

  /// The report under construction: outcomes, new evaluations, baseline, warnings; the loop adds
  /// the rest.
  TuneReport& report() { return report_; }

 private:
  void record(const Outcome& o, bool fresh);
  void append(const Outcome& o);
  bool setup_in_doubt();
  void adopt_baseline();
  void classify_slow(Outcome& o) const;
  void check_same_timing();
  void warn_damaged_inputs(const Outcome& o);

  Backend& backend_;
  Strategy& strategy_;
  const TuneOptions& options_;
  ResultsWriter* writer_;
  Config baseline_;
  TuneReport report_;
  std::unordered_set<Config, ConfigHash> seen_;
  std::optional<Timing> baseline_timing_;  // set once the baseline succeeded with a timing
  bool adopt_arrivals_ = true;             // record() adopts the baseline's outcome (see resume())
  bool baseline_pending_ = false;          // the baseline is queued and not yet recorded
  std::vector<Outcome> fresh_;             // the outcomes evaluated by this tuning, in order
  bool same_timing_warned_ = false;
  // Setup failures are not configuration outcomes: while setup_in_doubt(), this tuning's new
  // outcomes (all failures) wait here instead of the results file. A SetupError drops them (a
  // later tuning, the setup fixed, evaluates those configurations again and calibrates its run
  // limit on the defaults); the first success or differing failure, the end of the tuning, or any
  // other error appends them in order (write_held).
  std::vector<Outcome> held_;
  bool setup_judged_ = false;  // setup_in_doubt() was false once
};

}  // namespace adaexplore
