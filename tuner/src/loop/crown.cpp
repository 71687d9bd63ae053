#include "loop/crown.hpp"

#include <nlohmann/json.hpp>

#include "util/files.hpp"

namespace adaexplore {
namespace {

// Rules 1-2.
std::optional<Outcome> fastest(const std::vector<Outcome>& outcomes, const std::set<Config>* excluded) {
  std::optional<Outcome> best;
  for (const auto& o : outcomes)
    if (crownable(o) && !(excluded && excluded->count(o.config)) && (!best || *o.objective < *best->objective))
      best = o;
  return best;
}

// Rule 3: the verdict's winner when the verdict applies to `best`, else `best`.
std::optional<Outcome> confirmed(const std::vector<Outcome>& outcomes, std::optional<Outcome> best,
                                 const CrownEvidence& evidence) {
  if (!best || (evidence.results_file.empty() && !evidence.verdict)) return best;
  const auto path = confirmation_path(evidence.results_file);
  std::error_code ec;
  if (!evidence.verdict && !std::filesystem::exists(path, ec)) return best;
  try {
    const auto verdict = evidence.verdict ? *evidence.verdict : nlohmann::json::parse(read_file(path));
    if (verdict.value("key", std::string()) != evidence.key) return best;  // another key's verdict
    bool contender = false;
    for (const auto& k : verdict.at("contenders")) contender = contender || k.at("label").get<std::string>() == best->label;
    if (!contender) return best;  // the tuning went on since: a newer best
    for (const auto& k : verdict.at("contenders"))
      if (k.value("winner", false))
        for (const auto& o : outcomes)
          if (o.label == k.at("label").get<std::string>() && is_success(o.status)) {
            Outcome winner = o;
            winner.objective = k.at("median_ms").get<double>();
            winner.extra["confirmation"] = verdict;
            return winner;
          }
  } catch (const std::exception&) {
  }
  return best;
}

}  // namespace

bool crownable(const Outcome& o) {
  if (!is_success(o.status) || !o.objective) return false;
  const auto it = o.extra.find("suspicious");
  if (it == o.extra.end()) return true;
  return it->is_array() ? it->empty() : !(it->is_string() && !it->get<std::string>().empty());
}

std::optional<Outcome> crown(const std::vector<Outcome>& outcomes, const CrownEvidence& evidence) {
  auto winner = confirmed(outcomes, fastest(outcomes, nullptr), evidence);
  if (winner && evidence.excluded && evidence.excluded->count(winner->config))  // rule 4
    return fastest(outcomes, evidence.excluded);
  return winner;
}

std::filesystem::path confirmation_path(const std::filesystem::path& results_file) {
  return results_file.string() + ".confirmation.json";
}

}  // namespace adaexplore
