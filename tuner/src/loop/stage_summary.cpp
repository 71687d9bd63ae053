#include "loop/stage_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "loop/significance.hpp"

namespace adaexplore {
namespace {

// Position in kStagePipeline; unknown stages after every known one.
std::size_t pipeline_rank(const std::string& stage) {
  const auto begin = std::begin(kStagePipeline), end = std::end(kStagePipeline);
  return static_cast<std::size_t>(std::find(begin, end, stage) - begin);
}

bool runs_in_parallel(const std::string& stage) {
  return stage == "render" || stage == "compile" || stage == "link";
}

StageFigures figures(const std::string& name, const std::vector<double>& ms, double wall_ms) {
  StageFigures f;
  f.name = name;
  f.count = ms.size();
  for (double x : ms) f.total_ms += x;
  f.median_ms = median_of(ms);
  f.max_ms = ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
  f.share_pct = wall_ms > 0 ? 100.0 * f.total_ms / wall_ms : 0;
  f.parallel = runs_in_parallel(name);
  return f;
}

// Time the device spent timing kernels, ms, and which stages that came from.
double timing_ms(const std::vector<Outcome>& fresh, std::string& source) {
  double total = 0;
  bool fine = false, whole = false;
  for (const auto& o : fresh) {
    const auto warmup = o.stage_ms.find("warmup"), measure = o.stage_ms.find("measure");
    if (warmup != o.stage_ms.end() || measure != o.stage_ms.end()) {
      fine = true;
      if (warmup != o.stage_ms.end()) total += warmup->second;
      if (measure != o.stage_ms.end()) total += measure->second;
    } else if (const auto run = o.stage_ms.find("run"); run != o.stage_ms.end()) {
      whole = true;
      total += run->second;
    }
  }
  source = fine && whole ? "warmup+measure and run" : fine ? "warmup+measure" : whole ? "run" : "";
  return total;
}

std::string format(const char* fmt, double a) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, a);
  return buffer;
}

}  // namespace

StageSummary summarize_stages(const std::vector<Outcome>& fresh, double wall_s) {
  StageSummary s;
  s.evaluations = fresh.size();
  s.wall_s = wall_s;
  s.evaluations_per_minute = wall_s > 0 ? fresh.size() / (wall_s / 60.0) : 0;
  std::map<std::string, std::vector<double>> times;
  for (const auto& o : fresh)
    for (const auto& [stage, ms] : o.stage_ms) times[stage].push_back(ms);
  const double wall_ms = wall_s * 1000.0;
  for (const auto& [stage, ms] : times) s.stages.push_back(figures(stage, ms, wall_ms));
  std::stable_sort(s.stages.begin(), s.stages.end(), [](const StageFigures& a, const StageFigures& b) {
    return pipeline_rank(a.name) < pipeline_rank(b.name);  // unknown ones keep the map's alphabetical order
  });
  const double timed = timing_ms(fresh, s.timing_source);
  s.timing_pct = wall_ms > 0 ? 100.0 * timed / wall_ms : 0;
  return s;
}

std::vector<std::string> stage_table(const StageSummary& s) {
  if (s.stages.empty()) return {};
  std::vector<std::string> lines;
  char line[200];
  std::snprintf(line, sizeof line, "time per stage: %zu new evaluations in %.1f s (%.1f evaluations/min)",
                s.evaluations, s.wall_s, s.evaluations_per_minute);
  lines.push_back(line);
  std::snprintf(line, sizeof line, "  %-10s %6s %12s %11s %11s %10s", "stage", "count", "total ms", "median ms",
                "max ms", "% of wall");
  lines.push_back(line);
  bool parallel = false;
  for (const auto& f : s.stages) {
    std::snprintf(line, sizeof line, "  %-10s %6zu %12.1f %11.2f %11.2f %9.1f%%%s", f.name.c_str(), f.count,
                  f.total_ms, f.median_ms, f.max_ms, f.share_pct, f.parallel ? "  CPU-side, in parallel" : "");
    lines.push_back(line);
    parallel = parallel || f.parallel;
  }
  if (parallel)
    lines.push_back("  (CPU-side stages run in parallel workers, overlapping the measurements: their % of wall can "
                    "exceed 100)");
  if (!s.timing_source.empty())
    lines.push_back("kernel timing: " + format("%.1f", s.timing_pct) + " % of the wall time (sum of " +
                    s.timing_source + (s.timing_source == "run" ? ", the whole benchmark process" : "") + ")");
  return lines;
}

nlohmann::json to_json(const StageSummary& s) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& f : s.stages)
    stages.push_back({{"name", f.name},
                      {"count", f.count},
                      {"total_ms", f.total_ms},
                      {"median_ms", f.median_ms},
                      {"max_ms", f.max_ms},
                      {"share_pct", f.share_pct},
                      {"parallel", f.parallel}});
  return {{"evaluations", s.evaluations},   {"wall_s", s.wall_s},
          {"evaluations_per_minute", s.evaluations_per_minute},
          {"timing_pct", s.timing_pct},     {"timing_source", s.timing_source},
          {"stages", stages}};
}

std::optional<std::string> same_timing_warning(const std::vector<Outcome>& fresh) {
  std::vector<double> medians;
  for (const auto& o : fresh) {
    if (!is_success(o.status)) continue;
    if (o.timing) medians.push_back(o.timing->median_ms);
    else if (o.objective) medians.push_back(*o.objective);
  }
  if (medians.size() < kSameTimingMinimum) return std::nullopt;
  const auto [low, high] = std::minmax_element(medians.begin(), medians.end());
  if (!(*low > 0) || !(*high / *low < kSameTimingRatio)) return std::nullopt;
  return "the benchmark may not time the kernel: every one of the " + std::to_string(medians.size()) +
         " configurations measured successfully so far timed " + format("%.4g", median_of(medians)) +
         " ms (medians from " + format("%.4g", *low) + " to " + format("%.4g", *high) +
         " ms, within 0.5 %); check that the timed region launches the kernel, and that the kernel uses the "
         "parameters (the rendered template, ADAEXPLORE_PARAM_<NAME>)";
}

}  // namespace adaexplore
