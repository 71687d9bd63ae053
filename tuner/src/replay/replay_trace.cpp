// Replay traces (`replay --json` of one run) read back (replay_trace.hpp).
#include "replay/replay_trace.hpp"
#include "replay/replay_backend.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>


namespace adaexplore {

using nlohmann::json;

// The evaluations of a replay trace (`--json` of one replay) that are configurations of `space`
// (others counted in `foreign`), as outcomes: config, status, objective (ms), message. `option`
// names the command-line option in messages.
std::vector<Outcome> trace_outcomes(const std::string& option, const std::string& path, const Space& space,
                                    std::size_t& foreign) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(option + " " + path + ": cannot be read");
  json trace;
  try {
    trace = json::parse(in);
  } catch (const json::exception& e) {
    throw std::invalid_argument(option + " " + path + ": not valid JSON: " + e.what());
  }
  if (!trace.is_object() || !trace.contains("evaluations") || !trace["evaluations"].is_array())
    throw std::invalid_argument(option + " " + path +
                                ": not the trace of one replay (a JSON object with an \"evaluations\" "
                                "array, as `replay --json` writes without --repeat)");
  std::vector<Outcome> out;
  std::size_t index = 0;
  foreign = 0;
  for (const auto& e : trace["evaluations"]) {
    ++index;
    const std::string where = option + " " + path + ": evaluation " + std::to_string(index);
    if (!e.is_object() || !e.contains("config") || !e["config"].is_object() || !e.contains("status") ||
        !e["status"].is_string())
      throw std::invalid_argument(where + " has no \"config\" object or \"status\" string");
    Outcome o;
    try {
      o.status = status_from_string(e["status"].get<std::string>());
    } catch (const std::exception& x) {
      throw std::invalid_argument(where + ": " + x.what());
    }
    if (is_success(o.status)) {
      if (!e.contains("objective") || !e["objective"].is_number())
        throw std::invalid_argument(where + " succeeded but has no numeric \"objective\" (ms)");
      o.objective = e["objective"].get<double>();
    }
    o.message = e.value("message", std::string());
    std::vector<std::pair<std::string, std::string>> texts;
    try {
      texts = config_texts(e["config"]);
    } catch (const std::invalid_argument& x) {
      throw std::invalid_argument(where + ": " + x.what());
    }
    try {
      o.config = space.config_from_texts(texts);
    } catch (const std::exception&) {
      ++foreign;  // a parameter or value this space does not have
      continue;
    }
    if (!space.satisfies(o.config)) {
      ++foreign;
      continue;
    }
    o.label = space.label(o.config);
    out.push_back(std::move(o));
  }
  return out;
}

// --warm-start: the `count` best successful configurations of a replay trace (`--json` of one
// replay) that are configurations of this space, lowest objective first.
std::vector<Config> warm_start_configs(const std::string& path, std::size_t count, const Space& space,
                                       std::ostream& log, std::vector<StrategyOptions::SizedOutcome>* records) {
  std::size_t foreign = 0;
  const std::vector<Outcome> outcomes = trace_outcomes("--warm-start", path, space, foreign);
  if (records)
    for (auto& r : sized_records(path, outcomes)) {
      r.device = path;
      records->push_back(std::move(r));
    }
  std::vector<std::pair<double, Config>> ranked;
  for (const auto& o : outcomes)
    if (is_success(o.status)) ranked.emplace_back(*o.objective, o.config);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Config> out;
  for (const auto& [ms, c] : ranked) {
    if (out.size() == count) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  log << "[adaexplore] warm start: " << out.size() << " of the " << ranked.size()
            << " successful evaluations of " << path << " that are configurations of this space";
  if (foreign) log << " (" << foreign << " others are not)";
  log << std::endl;
  if (ranked.empty())
    log << "[adaexplore] warning: --warm-start " << path
              << ": no successful evaluation in it is a configuration of this space; is it a trace of the "
                 "same kernel?"
              << std::endl;
  return out;
}

// --transfer: what `tune` gives a problem size from the other sizes (sizes.hpp transfer_from),
// from their replay traces, nearest size first.
SizeTransfer size_transfer(const std::vector<std::string>& paths, std::size_t count, const Space& space,
                           std::ostream& log, std::vector<StrategyOptions::SizedOutcome>* records) {
  std::vector<std::vector<Outcome>> traces;
  for (const auto& path : paths) {
    std::size_t foreign = 0;
    traces.push_back(trace_outcomes("--transfer", path, space, foreign));
    if (records) {
      const auto sized = sized_records(path, traces.back());  // with the trace's "size" (model transfer)
      records->insert(records->end(), sized.begin(), sized.end());
    }
  }
  std::vector<const std::vector<Outcome>*> others;
  for (const auto& t : traces) others.push_back(&t);
  SizeTransfer t = transfer_from(others, count, {});
  log << "[adaexplore] transfer: " << t.describe() << std::endl;
  return t;
}

}  // namespace adaexplore
