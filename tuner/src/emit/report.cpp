#include "emit/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include <boost/math/distributions/binomial.hpp>

#include "loop/crown.hpp"
#include "learn/failure_summary.hpp"
#include "learn/knowledge_base.hpp"
#include "evaluate/profile.hpp"
#include "loop/significance.hpp"
#include "model/spec.hpp"
#include "loop/stage_summary.hpp"
#include "util/files.hpp"
#include "store/key.hpp"
#include "store/profiles.hpp"

namespace adaexplore {

namespace fs = std::filesystem;
using nlohmann::json;

// The page's template, script and styles (tuner/report/*, report_assets.cpp generated at build
// time by tuner/report/embed.cmake).
extern const char* const kReportTemplate;
extern const char* const kReportScript;
extern const char* const kReportStyles;
extern const char* const kBundledChartJs;

namespace {

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// The first line of `text`, at most `limit` bytes, cut at a UTF-8 character boundary.
std::string first_line(const std::string& text, std::size_t limit = 240) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= limit) return line;
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  return line.substr(0, cut) + "...";
}

// A number from a JSON object's field, or `fallback` when it is absent or not a number (the
// harness writes null for a figure it could not compute).
double number_at(const json& j, const char* name, double fallback = 0) {
  return j.contains(name) && j[name].is_number() ? j[name].get<double>() : fallback;
}

std::string label_of(const Space& space, const Outcome& o) { return o.label.empty() ? space.label(o.config) : o.label; }

json config_object(const Space& space, const Config& c) {
  json out = json::object();
  for (std::size_t i = 0; i < space.dimension(); ++i) out[space.parameters()[i].name] = space.value(c, i).text;
  return out;
}

std::string size_label(const json& key_parts) {
  if (!key_parts.contains("size") || !key_parts["size"].is_object()) return "";
  std::string label;
  for (const auto& [name, value] : key_parts["size"].items())
    label += (label.empty() ? "" : " ") + name + "=" + value.dump();
  return label;
}

json evaluations_json(const ReportInput& in) {
  const Space& space = *in.space;
  json out = json::array();
  std::optional<double> best;
  for (std::size_t i = 0; i < in.outcomes.size(); ++i) {
    const Outcome& o = in.outcomes[i];
    if (is_success(o.status) && o.objective && (!best || *o.objective < *best)) best = o.objective;
    json values = json::array();
    for (std::size_t p = 0; p < space.dimension(); ++p) values.push_back(o.config[p]);
    json e = {{"n", i + 1},
              {"label", label_of(space, o)},
              {"values", values},
              {"status", to_string(o.status)},
              {"objective_ms", number_or_null(is_success(o.status) ? o.objective : std::nullopt)},
              {"elapsed_s", number_or_null(i < in.elapsed_s.size() ? in.elapsed_s[i] : std::nullopt)},
              {"best_ms", number_or_null(best)}};
    if (!is_success(o.status) && !o.message.empty()) e["message"] = first_line(o.message);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<std::size_t> index_of_config(const std::vector<Outcome>& outcomes, const Config& c) {
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i].config == c) return i;
  return std::nullopt;
}

json summary_json(const ReportInput& in, const std::optional<std::size_t>& defaults_at) {
  json counts = json::object();
  std::size_t successes = 0;
  for (const auto& o : in.outcomes) {
    counts[to_string(o.status)] = counts.value(to_string(o.status), 0) + 1;
    successes += is_success(o.status) ? 1 : 0;
  }
  bool timestamps = !in.outcomes.empty();
  std::optional<double> wall_s;
  for (std::size_t i = 0; i < in.outcomes.size(); ++i) {
    const auto t = i < in.elapsed_s.size() ? in.elapsed_s[i] : std::nullopt;
    if (!t) timestamps = false;
    else wall_s = std::max(wall_s.value_or(0.0), *t);
  }
  json s = {{"evaluations", in.outcomes.size()},
            {"successes", successes},
            {"failures", in.outcomes.size() - successes},
            {"counts", counts},
            {"timestamps", timestamps},
            {"sessions", in.sessions},
            {"wall_s", timestamps ? number_or_null(wall_s) : json(nullptr)},
            {"best_ms", nullptr},
            {"defaults_ms", nullptr},
            {"speedup", nullptr},
            {"evaluations_to_best", nullptr},
            {"time_to_best_s", nullptr},
            {"near_tie_margin", kNearTieMargin}};
  const Outcome* d = defaults_at ? &in.outcomes[*defaults_at] : nullptr;
  if (d && is_success(d->status) && d->objective) s["defaults_ms"] = *d->objective;
  if (in.winner && in.winner->objective) {
    s["best_ms"] = *in.winner->objective;
    if (d && is_success(d->status) && d->objective && *in.winner->objective > 0)
      s["speedup"] = *d->objective / *in.winner->objective;
    if (const auto at = index_of_config(in.outcomes, in.winner->config)) {
      s["evaluations_to_best"] = *at + 1;
      if (timestamps) s["time_to_best_s"] = number_or_null(in.elapsed_s[*at]);
    }
  }
  return s;
}

// Per pair of parameters, the evaluations per cell (value of x, value of y) and their statuses.
json failure_map_json(const ReportInput& in) {
  const Space& space = *in.space;
  std::size_t failures = 0;
  for (const auto& o : in.outcomes) failures += is_success(o.status) ? 0 : 1;
  json out = {{"failures", failures}, {"pairs", json::array()}};
  if (failures == 0 || in.outcomes.empty()) return out;
  const double overall = static_cast<double>(failures) / static_cast<double>(in.outcomes.size());
  struct Pair {
    std::size_t x, y;
    double score;
    json cells;
  };
  std::vector<Pair> pairs;
  for (std::size_t x = 0; x < space.dimension(); ++x) {
    if (space.parameters()[x].values.size() < 2) continue;
    for (std::size_t y = x + 1; y < space.dimension(); ++y) {
      if (space.parameters()[y].values.size() < 2) continue;
      struct Cell {
        std::size_t total = 0, failures = 0;
        std::map<std::string, std::size_t> counts;
      };
      std::map<std::pair<std::size_t, std::size_t>, Cell> cells;
      for (const auto& o : in.outcomes) {
        Cell& c = cells[{o.config[x], o.config[y]}];
        ++c.total;
        ++c.counts[to_string(o.status)];
        c.failures += is_success(o.status) ? 0 : 1;
      }
      double score = 0;
      json list = json::array();
      for (const auto& [where, c] : cells) {
        score += static_cast<double>(c.total) *
                 std::abs(static_cast<double>(c.failures) / static_cast<double>(c.total) - overall);
        list.push_back({{"xi", where.first},
                        {"yi", where.second},
                        {"total", c.total},
                        {"failures", c.failures},
                        {"counts", c.counts}});
      }
      pairs.push_back({x, y, score / static_cast<double>(in.outcomes.size()), std::move(list)});
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.score > b.score; });
  for (std::size_t i = 0; i < pairs.size() && i < kFailureMapPairs; ++i)
    out["pairs"].push_back({{"x", pairs[i].x}, {"y", pairs[i].y}, {"score", pairs[i].score}, {"cells", pairs[i].cells}});
  return out;
}

json effects_json(const ReportInput& in) {
  const Space& space = *in.space;
  json out = json::array();
  for (std::size_t p = 0; p < space.dimension(); ++p) {
    const Parameter& parameter = space.parameters()[p];
    json values = json::array();
    for (std::size_t v = 0; v < parameter.values.size(); ++v) {
      std::vector<double> times;
      std::size_t evaluations = 0;
      std::map<std::string, std::size_t> failures;
      for (const auto& o : in.outcomes) {
        if (o.config[p] != v) continue;
        ++evaluations;
        if (is_success(o.status) && o.objective)
          times.push_back(*o.objective);
        else if (!is_success(o.status))
          ++failures[to_string(o.status)];
      }
      json best = nullptr, median = nullptr;
      if (!times.empty()) {
        best = *std::min_element(times.begin(), times.end());
        median = median_of(times);
      }
      values.push_back({{"value", parameter.values[v].text},
                        {"evaluations", evaluations},
                        {"successes", times.size()},
                        {"best_ms", best},
                        {"median_ms", median},
                        {"failures", failures}});
    }
    out.push_back({{"parameter", parameter.name}, {"values", values}});
  }
  return out;
}

json pipeline_json(const ReportInput& in, const json& summary) {
  std::vector<Outcome> timed;
  for (const auto& o : in.outcomes)
    if (!o.stage_ms.empty()) timed.push_back(o);
  if (timed.empty()) return nullptr;
  const double wall_s = summary["wall_s"].is_number() ? summary["wall_s"].get<double>() : 0.0;
  return to_json(summarize_stages(timed, wall_s));
}

json winner_json(const ReportInput& in, const json& summary) {
  if (!in.winner || !in.winner->objective) return nullptr;
  const Space& space = *in.space;
  const Outcome& w = *in.winner;
  json out = {{"label", label_of(space, w)},
              {"config", config_object(space, w.config)},
              {"objective_ms", *w.objective},
              {"status", to_string(w.status)},
              {"speedup", summary["speedup"]},
              {"n", summary["evaluations_to_best"]},
              {"timing", nullptr},
              {"ci", nullptr}};
  if (w.timing) {
    out["timing"] = {{"median_ms", w.timing->median_ms}, {"mean_ms", w.timing->mean_ms},  // the tuning's runs
                     {"min_ms", w.timing->min_ms},       {"max_ms", w.timing->max_ms},
                     {"stdev_ms", w.timing->stdev_ms},   {"samples", w.timing->samples}};
    if (const auto ci = median_interval(w.timing->values_ms))
      out["ci"] = {{"low_ms", ci->low}, {"high_ms", ci->high}, {"level", ci->coverage}};
  }
  json resources = json::array();
  for (const auto& r : w.resources)
    resources.push_back({{"kernel", r.demangled.empty() ? r.kernel : r.demangled},
                         {"registers", r.registers},
                         {"shared_bytes", r.shared_bytes},
                         {"stack_bytes", r.stack_bytes},
                         {"spill_store_bytes", r.spill_store_bytes},
                         {"spill_load_bytes", r.spill_load_bytes},
                         {"arch", r.arch}});
  out["resources"] = resources;
  const json& extra = w.extra;
  if (extra.contains("kernels") && extra["kernels"].is_array() && !extra["kernels"].empty()) {
    const json& k = extra["kernels"][0];
    out["launch"] = {{"occupancy", number_at(k, "occupancy")},
                     {"blocks_per_sm", number_at(k, "blocks_per_sm")},
                     {"warps_per_sm", number_at(k, "warps_per_sm")},
                     {"threads_per_block", number_at(k, "threads_per_block")},
                     {"name", k.contains("name") && k["name"].is_string() ? k["name"] : json("")}};
  }
  // The benchmark's figures: at the top of extra (program_outcome.cpp copies the record's
  // "figures" there), or under extra.figures in records of other writers.
  json figures = json::object();
  const json nested = extra.contains("figures") && extra["figures"].is_object() ? extra["figures"] : json::object();
  for (const json* source : {&extra, &nested})
    for (const char* name : {"GB/s", "GFLOP/s", "bytes", "flops"})
      if (source->contains(name) && (*source)[name].is_number()) figures[name] = (*source)[name];
  out["figures"] = figures;
  out["peak"] = extra.contains("peak") && extra["peak"].is_object() ? extra["peak"] : json::object();
  if (extra.contains("confirmation")) out["confirmation"] = extra["confirmation"];
  json ties = json::array();
  for (const auto& o : in.outcomes) {
    if (!is_success(o.status) || !o.objective || o.config == w.config) continue;
    if (*o.objective <= *w.objective * (1 + kNearTieMargin))
      ties.push_back({{"label", label_of(space, o)},
                      {"objective_ms", *o.objective},
                      {"ratio", *o.objective / *w.objective}});
  }
  std::sort(ties.begin(), ties.end(),
            [](const json& a, const json& b) { return a["objective_ms"].get<double>() < b["objective_ms"].get<double>(); });
  out["near_ties"] = ties;
  return out;
}

// One number of a belief (extra.model), or null.
json belief_number(const json& belief, const char* key) {
  return belief.contains(key) && belief[key].is_number() ? belief[key] : json(nullptr);
}

// What the strategy's model believed of the finalists when it proposed them (extra.model,
// search/strategy.hpp Strategy::belief), next to what was measured: the kModelFinalists fastest
// successes and the crowned winner. Null when no evaluation records a belief.
json model_json(const ReportInput& in) {
  std::vector<std::size_t> ok;
  std::size_t believed = 0;
  for (std::size_t i = 0; i < in.outcomes.size(); ++i) {
    const Outcome& o = in.outcomes[i];
    believed += o.extra.contains("model") && o.extra["model"].is_object();
    if (is_success(o.status) && o.objective) ok.push_back(i);
  }
  if (believed == 0) return nullptr;
  std::stable_sort(ok.begin(), ok.end(),
                   [&](std::size_t a, std::size_t b) { return *in.outcomes[a].objective < *in.outcomes[b].objective; });
  if (ok.size() > kModelFinalists) {
    const auto winner = std::find_if(ok.begin(), ok.end(), [&](std::size_t i) {
      return in.winner && in.outcomes[i].config == in.winner->config;
    });
    if (winner != ok.end() && winner - ok.begin() >= static_cast<long>(kModelFinalists))
      std::iter_swap(ok.begin() + (kModelFinalists - 1), winner);  // the winner stays a finalist
    ok.resize(kModelFinalists);
  }
  json finalists = json::array();
  for (std::size_t i : ok) {
    const Outcome& o = in.outcomes[i];
    const json belief = o.extra.contains("model") && o.extra["model"].is_object() ? o.extra["model"] : json::object();
    const json predicted = belief_number(belief, "predicted_ms");
    json interval = nullptr;
    if (belief.contains("interval_ms") && belief["interval_ms"].is_array() && belief["interval_ms"].size() == 2 &&
        belief["interval_ms"][0].is_number() && belief["interval_ms"][1].is_number())
      interval = belief["interval_ms"];
    finalists.push_back({{"n", i + 1},
                         {"label", label_of(*in.space, o)},
                         {"winner", in.winner && o.config == in.winner->config},
                         {"measured_ms", *o.objective},
                         {"predicted_ms", predicted},
                         {"interval_ms", interval},
                         {"predicted_relative", belief_number(belief, "predicted_relative")},
                         {"source", belief.contains("source") && belief["source"].is_string() ? belief["source"] : json(nullptr)},
                         {"p_fail", belief_number(belief, "p_fail")},
                         {"ratio", predicted.is_null() || predicted.get<double>() <= 0
                                       ? json(nullptr) : json(*o.objective / predicted.get<double>())}});
  }
  return {{"believed", believed}, {"finalists", finalists}};
}

json profiles_json(const ReportInput& in) {
  const json& results = in.profiles;
  std::size_t ok = 0;
  for (const auto& r : results) ok += r.value("error", "").empty() ? 1 : 0;
  std::string state = results.empty() ? "not run" : ok ? "profiled" : "failed";
  std::string tool;
  for (const auto& r : results)
    if (tool.empty()) tool = r.value("ncu_version", "");
  json metrics = json::array();
  for (const auto& m : profile_metrics())
    if (stall_reason(m.name).empty()) metrics.push_back({{"name", m.name}, {"label", m.label}, {"group", m.group}});
  return {{"state", state}, {"note", in.profile_note}, {"tool", tool}, {"profiled", in.profiled},
          {"metrics", metrics}, {"results", results}};
}

// Text that may sit inside <script>...</script>: "</" written as "<\/" (the same string in JS
// and JSON), so no "</script>" in the data ends the element early.
std::string script_safe(std::string text) {
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

// JSON for a <script> element: every '<' written as \u003c (the same string once parsed), so that
// no "</script" or "<!--" in the data changes how the HTML parser reads the element.
std::string json_for_script(const json& j) {
  std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

void replace_marker(std::string& page, const std::string& marker, const std::string& text) {
  const std::size_t at = page.find(marker);
  if (at == std::string::npos) throw std::logic_error("report template has no " + marker);
  page.replace(at, marker.size(), text);
}

}  // namespace

std::optional<MedianInterval> median_interval(std::vector<double> values, double level) {
  const std::size_t n = values.size();
  if (n < 6) return std::nullopt;
  std::sort(values.begin(), values.end());
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), 0.5);
  // [x_(k), x_(n+1-k)] (1-based) covers the median with probability 1 - 2 P(B <= k - 1).
  std::optional<MedianInterval> out;
  for (std::size_t k = 1; 2 * k <= n; ++k) {
    const double coverage = 1 - 2 * boost::math::cdf(b, static_cast<double>(k - 1));
    if (coverage < level) break;
    out = MedianInterval{values[k - 1], values[n - k], coverage};
  }
  return out;
}

ReportInput report_input_from_results(const Spec& spec, const fs::path& results) {
  const RawResults raw = read_raw_results(results);
  if (!raw.header.kernel.empty() && raw.header.kernel != spec.name)
    throw std::invalid_argument(results.string() + ": holds results of kernel '" + raw.header.kernel + "', and the spec " +
                                spec.file.string() + " names kernel '" + spec.name +
                                "'; give the spec these results were tuned with");
  ReportInput in;
  in.warnings = raw.warnings;  // e.g. a half-written last record dropped
  try {
    const std::string differ = differing_content(raw.header.key_parts, content_key_parts(spec));
    if (!differ.empty())
      in.warnings.push_back(results.string() + ": tuned with content (" + differ + ") other than " +
                            spec.file.string() + " and its files have now (edited since?); the report shows the "
                            "results as recorded, with this spec's parameters and defaults");
  } catch (const std::exception&) {  // the template or benchmark unreadable: the key is not compared
  }
  in.kernel = raw.header.kernel.empty() ? spec.name : raw.header.kernel;
  in.source = results.string();
  in.key = raw.header.key;
  in.strategy = raw.header.strategy;
  in.started = raw.header.started;
  in.host = raw.header.host;
  in.seed = raw.header.seed;
  in.device = raw.header.device;
  in.size = size_label(raw.header.key_parts);
  in.space = std::make_shared<const Space>(spec.space);
  const ResultsFile file = results_from_raw(raw, results, spec.space);
  in.outcomes = file.outcomes;
  // Every record's wall time: the seconds since the tuning started, the gaps between tuning
  // sessions left out (a session is the run of records of one "origin" {host, pid}: a reconfigure
  // a day later resumes the file and continues the axis where the last session stopped). A
  // record copied by `merge` or without "finished" has none. Each outcome takes its record's.
  const std::optional<double> started = parse_utc(raw.header.started);
  std::vector<std::optional<double>> elapsed(raw.records.size());
  std::optional<double> previous_finished, previous_elapsed;
  json previous_origin;
  for (std::size_t i = 0; i < raw.records.size() && started; ++i) {
    const json& r = raw.records[i].json;
    if (!r.contains("finished") || !r["finished"].is_string() || r.contains("merged_from")) continue;
    const std::optional<double> finished = parse_utc(r["finished"].get<std::string>());
    if (!finished) continue;
    const json origin = r.value("origin", json(nullptr));
    if (!previous_finished) {  // the first timed record: the tuning's start is the header's
      elapsed[i] = std::max(0.0, *finished - *started);
      in.sessions = 1;
    } else if (origin != previous_origin) {  // a new session: its first record is its start
      elapsed[i] = previous_elapsed;
      ++in.sessions;
    } else {
      elapsed[i] = *previous_elapsed + std::max(0.0, *finished - *previous_finished);
    }
    previous_finished = finished;
    previous_elapsed = elapsed[i];
    previous_origin = origin;
  }
  for (std::size_t k : file.record_index) in.elapsed_s.push_back(elapsed[k]);
  in.defaults = spec.defaults;
  in.winner = crown(in.outcomes, {results, raw.header.key});
  const json batch = latest_profile_batch(results, raw.header.key);
  if (batch.is_object()) {
    in.profiles = batch["results"];
    in.profiled = batch.value("profiled", "");
  }
  return in;
}

ReportInput report_input_from_trace(const json& trace, const fs::path& path) {
  if (!trace.is_object() || !trace.contains("evaluations") || !trace["evaluations"].is_array())
    throw std::invalid_argument(path.string() +
                                ": not a replay trace (no \"evaluations\" array; write one with "
                                "`adaexplore-tuner replay ... --json FILE`, without --repeat)");
  // The parameters and values the configurations use: names in order of first appearance,
  // numeric values sorted by number, others in order of appearance.
  std::vector<std::string> names;
  std::map<std::string, std::vector<Value>> values;
  for (const auto& e : trace["evaluations"]) {
    if (!e.contains("config") || !e["config"].is_object())
      throw std::invalid_argument(path.string() + ": an evaluation without a \"config\" object");
    for (const auto& [name, text] : config_texts(e["config"])) {
      if (!values.count(name)) names.push_back(name);
      auto& list = values[name];
      const Value v = Value::from_text(text);
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }
  }
  if (names.empty()) throw std::invalid_argument(path.string() + ": the trace has no evaluations");
  std::vector<Parameter> parameters;
  for (const auto& name : names) {
    auto list = values[name];
    if (std::all_of(list.begin(), list.end(), [](const Value& v) { return v.numeric; }))
      std::sort(list.begin(), list.end(), [](const Value& a, const Value& b) { return a.number < b.number; });
    parameters.push_back({name, list});
  }
  ReportInput in;
  in.kind = "replay";
  in.source = path.string();
  in.kernel = trace.value("kernel", path.stem().string());
  in.strategy = trace.value("strategy", "");
  in.seed = trace.value("seed", std::uint64_t{0});
  in.device = {{"name", trace.value("device", "")}};
  in.space = std::make_shared<const Space>(parameters, std::vector<std::string>{});
  for (const auto& e : trace["evaluations"]) {
    Outcome o;
    o.config = in.space->config_from_texts(config_texts(e["config"]));
    o.label = in.space->label(o.config);
    o.status = status_from_string(e.value("status", "invalid"));
    if (e.contains("objective") && e["objective"].is_number() && is_success(o.status))
      o.objective = e["objective"].get<double>();
    else if (is_success(o.status))
      o.status = Status::invalid;  // a success without a time cannot be plotted or crowned
    o.message = e.value("message", "");
    in.outcomes.push_back(std::move(o));
  }
  in.elapsed_s.assign(in.outcomes.size(), std::nullopt);
  in.winner = crown(in.outcomes);
  in.profile_note = "a replay of recorded evaluations: nothing ran, so nothing was profiled";
  return in;
}

json report_data(const ReportInput& in) {
  if (!in.space) throw std::logic_error("report_data: no search space");
  const Space& space = *in.space;
  json parameters = json::array();
  for (const auto& p : space.parameters()) {
    json values = json::array();
    for (const auto& v : p.values) values.push_back(v.text);
    parameters.push_back({{"name", p.name}, {"values", values}});
  }
  std::optional<std::size_t> defaults_at;
  if (in.defaults) defaults_at = index_of_config(in.outcomes, *in.defaults);
  json defaults = nullptr;
  if (defaults_at) {
    const Outcome& d = in.outcomes[*defaults_at];
    defaults = {{"n", *defaults_at + 1},
                {"label", label_of(space, d)},
                {"status", to_string(d.status)},
                {"objective_ms", number_or_null(is_success(d.status) ? d.objective : std::nullopt)}};
  }
  const json summary = summary_json(in, defaults_at);
  KnowledgeBase kb(space);
  for (const auto& o : in.outcomes) kb.observe(o);
  json device = json::object();
  for (const char* name : {"name", "compute_capability", "sm_count", "memory_bytes", "arch"})
    if (in.device.contains(name)) device[name] = in.device[name];
  json statuses = json::array();
  for (Status s : kAllStatuses) statuses.push_back(to_string(s));
  return {{"format", "adaexplore-report-data"},
          {"version", 1},
          {"meta",
           {{"kernel", in.kernel},
            {"kind", in.kind},
            {"source", in.source},
            {"key", in.key},
            {"strategy", in.strategy},
            {"seed", in.seed},
            {"started", in.started},
            {"host", in.host},
            {"device", device},
            {"size", in.size},
            {"generated", utc_now()}}},
          {"statuses", statuses},
          {"parameters", parameters},
          {"evaluations", evaluations_json(in)},
          {"defaults", defaults},
          {"summary", summary},
          {"failure_map", failure_map_json(in)},
          {"effects", effects_json(in)},
          {"rules", {{"lines", kb.explain()}, {"failures", failure_alignment(space, in.outcomes)}}},
          {"pipeline", pipeline_json(in, summary)},
          {"winner", winner_json(in, summary)},
          {"model", model_json(in)},
          {"profiles", profiles_json(in)}};
}

std::vector<fs::path> chart_library_candidates() {
  std::vector<fs::path> out;
  out.emplace_back("/usr/share/javascript/chart.js/chart.min.js");       // Debian, Ubuntu: libjs-chart.js
  out.emplace_back("/usr/share/javascript/chart.js/chart.umd.js");       // Chart.js 4 packages
  out.emplace_back("/usr/share/nodejs/chart.js/dist/chart.umd.js");      // node-chart.js
  out.emplace_back("/usr/share/nodejs/chart.js/dist/chart.min.js");
  return out;
}

namespace {
ChartLibrary chart_library(const fs::path& path, std::string source) {
  ChartLibrary lib{path, std::move(source), ""};
  const std::size_t at = lib.source.find("Chart.js v");
  if (at == std::string::npos || at > 400)
    throw std::runtime_error(path.string() +
                             ": not Chart.js (no \"Chart.js v...\" banner at its start); give the UMD build, "
                             "e.g. Debian's /usr/share/javascript/chart.js/chart.min.js (libjs-chart.js)");
  const std::size_t start = at + 10;
  const std::size_t end = lib.source.find_first_not_of("0123456789.", start);
  lib.version = lib.source.substr(start, end - start);
  if (lib.version.empty() || (lib.version[0] != '3' && lib.version[0] != '4'))
    throw std::runtime_error(path.string() + ": Chart.js " + lib.version +
                             "; the report needs Chart.js 3 or 4 (Debian's libjs-chart.js is 3.9)");
  return lib;
}

ChartLibrary load_chart_library(const fs::path& path) { return chart_library(path, read_file(path)); }
}  // namespace

ChartLibrary bundled_chart_library() {
  static const ChartLibrary lib = chart_library(kBundledChartLibraryPath, kBundledChartJs);
  return lib;
}

std::optional<ChartLibrary> find_chart_library(const fs::path& explicit_path) {
  return find_chart_library(explicit_path, chart_library_candidates());
}

std::optional<ChartLibrary> find_chart_library(const fs::path& explicit_path, const std::vector<fs::path>& candidates) {
  if (!explicit_path.empty()) return load_chart_library(explicit_path);
  const char* env = std::getenv("ADAEXPLORE_CHARTJS");
  if (env && *env) {
    std::error_code ec;
    if (!fs::is_regular_file(env, ec))
      throw std::runtime_error(std::string("$ADAEXPLORE_CHARTJS=") + env +
                               ": no such file; point it at Chart.js (Debian: /usr/share/javascript/chart.js/chart.min.js) "
                               "or unset it");
    return load_chart_library(env);
  }
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    try {
      return load_chart_library(candidate);
    } catch (const std::exception& e) {  // found, not usable: the next, else the bundled one
      std::cerr << "[adaexplore] warning: skipping " << e.what() << "\n";
    }
  }
  return bundled_chart_library();
}

std::string render_report_html(const json& data, const std::optional<ChartLibrary>& library) {
  std::string page = kReportTemplate;
  const json& meta = data["meta"];
  std::string title = meta.value("kernel", "kernel");
  if (!meta.value("size", "").empty()) title += " (" + meta["size"].get<std::string>() + ")";
  std::string escaped;
  for (char c : title) escaped += c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
  json library_info = library ? json{{"name", "Chart.js"}, {"version", library->version}, {"path", library->path.string()}}
                              : json(nullptr);
  // Each marker is replaced at its first place in the template, ours first and the data last, so
  // that nothing inlined (a diagnostic that happens to contain a marker) is taken for one.
  replace_marker(page, "@TITLE@", escaped);
  replace_marker(page, "/*@STYLES@*/", kReportStyles);
  replace_marker(page, "/*@SCRIPT@*/", script_safe(kReportScript));
  replace_marker(page, "/*@DATA@*/",
                 "window.ADAEXPLORE_REPORT = " + json_for_script(data) + ";\nwindow.ADAEXPLORE_LIBRARY = " +
                     json_for_script(library_info) + ";");
  // The library after the data: the data's markers are gone by now and its text is not searched.
  replace_marker(page, "/*@LIBRARY@*/",
                 library ? script_safe(library->source) : std::string("/* Chart.js was not found when this report was written */"));
  return page;
}

std::string write_report(const ReportInput& input, const fs::path& out, const std::optional<ChartLibrary>& library) {
  const std::string page = render_report_html(report_data(input), library);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  write_file_if_changed(out, page);
  if (library) return "";
  std::string where;
  for (const auto& c : chart_library_candidates()) where += (where.empty() ? "" : ", ") + c.string();
  return "Chart.js not found (looked for " + where +
         ", and none was given): the report has its tables but no charts; install Debian's libjs-chart.js or set "
         "ADAEXPLORE_CHARTJS";
}

fs::path report_path_for(const fs::path& results) {
  fs::path p = results;
  if (p.extension() == ".jsonl") p.replace_extension();
  p += ".report.html";
  return p;
}

}  // namespace adaexplore
