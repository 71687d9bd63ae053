// `report`: the tuning report (report.hpp) of a results file and its spec, or of a replay trace,
// as one self-contained HTML file. Reads; writes only --out (and --data).
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "evaluate/profile.hpp"
#include "emit/report.hpp"
#include "model/spec.hpp"
#include "store/profiles.hpp"

namespace adaexplore {
namespace {

struct ReportArgs {
  std::string spec, results, trace, out, data, chartjs;
};

int run_report(const ReportArgs& a) {
  if (a.trace.empty() == a.results.empty())
    throw std::invalid_argument("give either --results (with --spec) or --trace");
  if (!a.results.empty() && a.spec.empty())
    throw std::invalid_argument("--results " + a.results + " needs the --spec it was tuned with");
  ReportInput input;
  if (!a.results.empty()) {
    const Spec spec = load_spec(a.spec);
    input = report_input_from_results(spec, a.results);
    for (const auto& w : input.warnings) std::cerr << "[adaexplore] warning: " << w << "\n";
    if (input.profiles.empty())
      input.profile_note = "no profile beside these results (" + profiles_path(a.results).string() + ")";
  } else {
    std::ifstream in(a.trace);
    nlohmann::json trace;
    try {
      trace = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(a.trace + ": not JSON (" + std::string(e.what()) + ")");
    }
    input = report_input_from_trace(trace, a.trace);
  }
  const std::string out = a.out.empty() ? report_path_for(a.results.empty() ? a.trace : a.results).string() : a.out;
  const auto library = find_chart_library(a.chartjs);
  if (!a.data.empty()) {
    std::ofstream d(a.data);
    d << report_data(input).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!d) throw std::runtime_error("--data " + a.data + ": cannot be written (check the folder exists)");
  }
  const std::string note = write_report(input, out, library);
  if (!note.empty()) std::cerr << "[adaexplore] warning: " << note << "\n";
  std::cout << "[adaexplore] " << input.kernel << ": report " << out << " (" << input.outcomes.size()
            << " evaluations" << (library ? ", charts by Chart.js " + library->version : ", no charts") << ")"
            << std::endl;
  return kExitOk;
}

}  // namespace

Command register_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand(
      "report",
      "Write a tuning's report: one self-contained HTML file (opens offline in any browser) with the search "
      "(best so far against evaluations and wall time, every evaluation by status, the defaults), where the "
      "failures are (pairs of parameters), each parameter's effect, the learned rules, where the time went, the "
      "winner's card (time and its confidence interval, speedup, registers, shared memory, spills, occupancy, "
      "GB/s or GFLOP/s against the device's peak, near-ties), what the strategy's model predicted for the finalists "
      "beside their measured times (extra.model) and the finalists' Nsight Compute profiles when "
      "`tune --profile` recorded them (<results>.profiles.ndjson). Charts by Chart.js, inlined: the machine's "
      "(Debian's libjs-chart.js), else the Chart.js 3.9.1 compiled into the tuner (third_party/chartjs/, MIT). The data behind the page: tuner/src/emit/report.hpp, and --data.");
  sub->add_option("--results", a->results, "results file (JSON Lines, as `tune` writes it)")->check(CLI::ExistingFile);
  sub->add_option("--spec", a->spec, "tuning spec (JSON) the results belong to; needed with --results")
      ->check(CLI::ExistingFile);
  sub->add_option("--trace", a->trace, "a replay trace instead (`replay --json FILE`, one run): no wall time, no profiles")
      ->check(CLI::ExistingFile);
  sub->add_option("--out", a->out,
                  "the HTML file to write. Default: beside the input, <results without .jsonl>.report.html "
                  "(a trace: <trace file>.report.html)");
  sub->add_option("--data", a->data, "also write the report's data (JSON, fields in tuner/src/emit/report.hpp) to this file");
  sub->add_option("--chartjs", a->chartjs,
                  "Chart.js 3 or 4 (UMD build) to inline. Default: $ADAEXPLORE_CHARTJS, else "
                  "/usr/share/javascript/chart.js/chart.min.js (Debian's libjs-chart.js), else the Chart.js "
                  "3.9.1 compiled into the tuner (third_party/chartjs/)")
      ->check(CLI::ExistingFile);
  return {sub, [a] { return run_report(*a); }};
}

}  // namespace adaexplore
