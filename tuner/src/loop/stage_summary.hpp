// Where a tuning's time went ("measure first", issue 6): per stage of the evaluation pipeline
// (render, compile, load, setup, verify, warmup, measure, run, ...) the count, total, median and
// maximum of the stage times the fresh outcomes report (Outcome::stage_ms, wall-clock ms), each
// total as a share of the tuning's wall time; evaluations per minute; and the share of the wall
// time the device spent timing kernels. Also the "every configuration timing the same" gate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"

namespace adaexplore {

/// One stage's figures over the fresh outcomes that report it.
struct StageFigures {
  std::string name;         // the stage_ms key: "compile", "run", ...
  std::size_t count = 0;    // fresh outcomes reporting the stage
  double total_ms = 0;      // sum of their stage times, ms
  double median_ms = 0;     // median of their stage times, ms (mean of the middle two for an even count)
  double max_ms = 0;        // ms
  double share_pct = 0;     // total_ms / the tuning's wall time, % (100 = the whole wall time)
  /// The stage runs in the parallel prepare workers (render, compile): CPU-side, overlapping the
  /// measurements and each other, so its total (and share_pct) can exceed the wall time.
  bool parallel = false;
};

struct StageSummary {
  std::vector<StageFigures> stages;  // pipeline order (kStagePipeline), then other names alphabetically
  std::size_t evaluations = 0;       // fresh outcomes summarized (TuneReport::new_evaluations)
  double wall_s = 0;                 // the tuning's wall time, s
  double evaluations_per_minute = 0; // evaluations / (wall_s / 60); 0 when wall_s is 0
  /// Share of the wall time the device spent timing kernels, %: per fresh outcome the sum of its
  /// "warmup" and "measure" stages when it reports either, else its "run" stage (the whole
  /// benchmark process: start, warm-up, measurement, verification, so an upper bound). For the
  /// host backend the "device" is the CPU.
  double timing_pct = 0;
  /// Which stages timing_pct sums: "warmup+measure", "run", "warmup+measure and run" (outcomes
  /// differ), or "" (none reported).
  std::string timing_source;
};

/// The known stages, in the order an evaluation passes them.
inline constexpr const char* kStagePipeline[] = {"render", "compile", "link",    "runner_start", "load", "setup",
                                                 "verify", "warmup",  "measure", "run"};

/// Summarizes the stage times of `fresh` (the outcomes evaluated by this tuning, not resumed
/// ones) over a tuning of `wall_s` seconds.
StageSummary summarize_stages(const std::vector<Outcome>& fresh, double wall_s);

/// The summary as text lines for the progress stream: a header line, a table (stage, count,
/// total ms, median ms, max ms, % of wall; parallel stages marked "CPU-side, in parallel") and
/// the kernel-timing share. Lines carry no prefix and no newline. Empty when no stage was reported.
std::vector<std::string> stage_table(const StageSummary& summary);

/// {"evaluations", "wall_s", "evaluations_per_minute", "timing_pct", "timing_source",
///  "stages": [{"name", "count", "total_ms", "median_ms", "max_ms", "share_pct", "parallel"}]}.
nlohmann::json to_json(const StageSummary& summary);

/// The same-timing gate's thresholds: at least kSameTimingMinimum successful fresh outcomes (of
/// different configurations), their median times' max/min below kSameTimingRatio.
inline constexpr std::size_t kSameTimingMinimum = 8;
inline constexpr double kSameTimingRatio = 1.005;  // within 0.5 %

/// The warning when every successful outcome of `fresh` (at least kSameTimingMinimum of them)
/// timed the same: median times (Timing::median_ms, else the objective, ms) with max/min <
/// kSameTimingRatio, which suggests the benchmark does not time the kernel. nullopt otherwise.
std::optional<std::string> same_timing_warning(const std::vector<Outcome>& fresh);

}  // namespace adaexplore
