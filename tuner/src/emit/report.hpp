// The tuning report: one self-contained HTML file that shows how a winner was found (issue 22).
//
// Two steps, so that what is plotted can be tested apart from how it is drawn:
//  1. report_data(): everything the page shows, computed here from the evaluations (JSON, below);
//  2. render_report_html(): the page, tuner/report/report.html with its script and styles
//     (report_assets.cpp, generated at build time from tuner/report/) and the data inlined, and the
//     plotting library Chart.js inlined: the one find_chart_library() finds (Debian's
//     libjs-chart.js: /usr/share/javascript/chart.js/chart.min.js), else the copy compiled into the
//     tuner (third_party/chartjs/: Chart.js 3.9.1, MIT), so every report has its charts. Nothing is
//     fetched when the page opens: it works offline, from a file or an e-mail attachment. Given no
//     library (render_report_html with none) the page still has every table and says which charts
//     are missing.
//
// Why Chart.js: Debian ships it as one minified UMD file of 200 KB (libjs-chart.js, MIT), it
// draws scatter, line, bar and bubble charts with logarithmic axes and tooltips on a <canvas>
// without a build step or other scripts, and it renders the same in a headless browser (the test).
// D3 would mean writing each chart by hand; Vega needs vega-lite and vega-embed besides (three
// packages) and a JSON spec per chart.
//
// The data (format "adaexplore-report-data", version 1); times in ms unless the name says s:
//   meta        {kernel, kind ("tuning" | "replay"), source, key, strategy, seed, started, host,
//                device: {name, compute_capability, sm_count, memory_bytes, arch} (as recorded),
//                size, generated (UTC)}
//   statuses    every status name, in the order of outcome.hpp kAllStatuses
//   parameters  [{name, values: [text]}]                       the search space's parameters
//   evaluations [{n (1-based, evaluation order), label, values: [index into parameters.values],
//                status, objective_ms|null, elapsed_s|null (ReportInput::elapsed_s), best_ms|null
//                (best success so far, this one included), message (first line of a failure's
//                diagnostic, <= 240 bytes)}]
//   defaults    {n, label, status, objective_ms|null} of the defaults' evaluation, or null
//   summary     {evaluations, successes, failures, counts {status: n}, best_ms (the crowned
//                winner's: after a near-tie re-measurement, its confirmed median), defaults_ms,
//                speedup (defaults / winner), wall_s|null, evaluations_to_best,
//                time_to_best_s|null, timestamps (every record had a wall time), sessions,
//                near_tie_margin (kNearTieMargin)}
//   failure_map {failures, pairs: [{x, y (parameter indices), score, cells: [{xi, yi, total,
//                failures, counts {status: n}}]}]}: the pairs of parameters whose cells separate
//                failures from successes best (score: the evaluations' mean |cell failure share -
//                overall failure share|), at most kFailureMapPairs, best first
//   effects     [{parameter, values: [{value, evaluations, successes, best_ms|null,
//                median_ms|null, failures {status: n}}]}]
//   rules       {lines: explain()'s lines, failures: failure_alignment()'s lines}
//   pipeline    stage_summary.hpp to_json over the evaluations with stage times, or null
//   winner      {n, label, config {name: text}, objective_ms (as summary.best_ms), status,
//                timing {median_ms, mean_ms, min_ms, max_ms, stdev_ms, samples} (its runs in the
//                tuning), ci {low_ms, high_ms, level} (distribution-free interval of the median of
//                those runs, median_interval()), speedup, resources [{kernel, registers,
//                shared_bytes, stack_bytes, spill_store_bytes, spill_load_bytes, arch}], launch
//                {occupancy, blocks_per_sm, warps_per_sm, threads_per_block, name} (the harness's
//                launch record), figures {GB/s, GFLOP/s, bytes, flops}, peak {GB/s, GFLOP/s} (the
//                harness's device peaks), confirmation (the near-tie verdict, confirm.hpp),
//                near_ties [{label, objective_ms, ratio}]} or null
//   model       what the strategy's model believed of the finalists when it proposed them (the
//                records' extra.model, Strategy::belief), or null when no record has a belief:
//                {believed (evaluations with a belief), finalists: [{n, label, winner (bool),
//                measured_ms, predicted_ms|null, interval_ms [low, high]|null (the trees' spread),
//                predicted_relative|null (records written before 2026-12-06 only), source|null
//                ("other sizes": a later size's start), p_fail|null, ratio (measured / predicted)|null}]}: the
//                kModelFinalists fastest successes, fastest first, the crowned winner among them
//   profiles    {state ("profiled" | "not run" | "failed"), note, tool, profiled (UTC of the
//                batch), metrics [{name, label, group}] (profile.hpp profile_metrics(), stall
//                reasons left out), results: [profile.hpp to_json, one per role, of the newest batch]}
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "store/results.hpp"
#include "model/space.hpp"

namespace adaexplore {

struct Spec;

/// The failure map shows at most this many pairs of parameters.
inline constexpr std::size_t kFailureMapPairs = 4;
/// The model section shows the predictions of at most this many of the fastest successes.
inline constexpr std::size_t kModelFinalists = 8;
/// Near-ties on the winner's card: successes within this share of the winner's objective.
inline constexpr double kNearTieMargin = 0.03;

/// What a report is made of: the evaluations in order and where they come from.
struct ReportInput {
  std::string kernel;
  std::string kind = "tuning";  // "tuning" (a results file) or "replay" (a replay trace)
  std::string source;           // the file read
  std::string key, strategy, started, host;
  std::uint64_t seed = 0;
  nlohmann::json device = nlohmann::json::object();
  std::string size;             // "M=4096 N=4096" for a size of a kernel with sizes, else empty
  std::shared_ptr<const Space> space;
  std::vector<Outcome> outcomes;                // evaluation order
  /// Per outcome: its wall time, seconds since `started` with the gaps between tuning sessions left
  /// out (report_input_from_results); nullopt when unknown.
  std::vector<std::optional<double>> elapsed_s;
  std::size_t sessions = 0;  // tuning sessions the timed records come from (a resumed file: > 1)
  std::optional<Config> defaults;
  std::optional<Outcome> winner;                // crowned (crown.hpp: with the near-tie verdict beside the results)
  nlohmann::json profiles = nlohmann::json::array();  // the newest profile batch's results (profile.hpp)
  std::string profiled;      // when that batch was written (UTC), empty without one
  std::string profile_note;  // why there are no profiles ("ncu was not found: ..."), when none
  /// What the reader of the report should know before trusting it (report_input_from_results):
  /// a half-written last record dropped, a spec whose content differs from the one the results
  /// were tuned with. `report` prints them; the page does not show them.
  std::vector<std::string> warnings;
};

/// The input of a results file and its spec: the records' "finished" times, the defaults of the
/// spec, the crowned winner (crown() with the near-tie verdict of the file's key), the newest profile batch of the
/// key beside it (store/profiles.hpp latest_profile_batch).
/// Throws ResultsError for an unreadable file (results.hpp).
ReportInput report_input_from_results(const Spec& spec, const std::filesystem::path& results);
/// The input of a replay trace (`replay --json`, one run): the space is the parameters and values
/// the trace's configurations use (in order of first appearance, numbers sorted); no times, no
/// defaults, no profiles. Throws std::invalid_argument naming the file for a trace without
/// "evaluations".
ReportInput report_input_from_trace(const nlohmann::json& trace, const std::filesystem::path& file);

/// Everything the page shows (the file comment lists the fields).
nlohmann::json report_data(const ReportInput& input);

/// A distribution-free confidence interval of the median from `values` (order statistics, the
/// binomial(n, 1/2) distribution): the narrowest symmetric [x_(k), x_(n+1-k)] whose coverage is at
/// least `level`; nullopt for fewer than 6 values (no such interval reaches 95 %). {low, high,
/// coverage}.
struct MedianInterval {
  double low = 0, high = 0, coverage = 0;
};
std::optional<MedianInterval> median_interval(std::vector<double> values, double level = 0.95);

/// The plotting library to inline: its file, text and version ("3.9.1").
struct ChartLibrary {
  std::filesystem::path path;
  std::string source;
  std::string version;
};
/// Chart.js, from `explicit_path`, else $ADAEXPLORE_CHARTJS, else the first usable of
/// `candidates` (default chart_library_candidates(): the machine's packages, which override the
/// bundled copy; one that is not Chart.js 3 or 4 is skipped with a warning on stderr), else
/// bundled_chart_library(): never none. Throws std::runtime_error naming the file when the one
/// given (`explicit_path`, $ADAEXPLORE_CHARTJS) is missing, unreadable or not Chart.js 3 or 4.
std::optional<ChartLibrary> find_chart_library(const std::filesystem::path& explicit_path = {});
std::optional<ChartLibrary> find_chart_library(const std::filesystem::path& explicit_path,
                                               const std::vector<std::filesystem::path>& candidates);
/// The Chart.js compiled into the tuner: third_party/chartjs/chart.umd.min.js (3.9.1, MIT; its
/// README says where it came from), with path kBundledChartLibraryPath.
ChartLibrary bundled_chart_library();
inline constexpr const char* kBundledChartLibraryPath = "(bundled with adaexplore-tuner: third_party/chartjs/chart.umd.min.js)";
/// The packages' places find_chart_library looks at, in order: Debian's
/// /usr/share/javascript/chart.js/chart.min.js (libjs-chart.js), then Chart.js 4 and node
/// packages' folders.
std::vector<std::filesystem::path> chart_library_candidates();

/// The page: the template with the data, its script and styles and `library` inlined.
std::string render_report_html(const nlohmann::json& data, const std::optional<ChartLibrary>& library);

/// report_data + render_report_html into `out` (written only when changed). Returns a one-line
/// note for the progress stream when the charts are missing (`library` none: "Chart.js not found
/// ..."), else "".
std::string write_report(const ReportInput& input, const std::filesystem::path& out,
                         const std::optional<ChartLibrary>& library);

/// Where `tune` writes the report of a results file: <results without .jsonl>.report.html.
std::filesystem::path report_path_for(const std::filesystem::path& results);

}  // namespace adaexplore
