#include "loop/crown.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "util/files.hpp"

namespace adaexplore {
namespace {

// Rule 1 and the lowest objective (ties to the earlier evaluation): the outcome a verdict must hold.
std::optional<Outcome> fastest(const std::vector<Outcome>& outcomes, const std::set<Config>* excluded) {
  std::optional<Outcome> best;
  for (const auto& o : outcomes)
    if (crownable(o) && !(excluded && excluded->count(o.config)) && (!best || *o.objective < *best->objective))
      best = o;
  return best;
}

// Rules 1-2.
std::optional<Outcome> first_within_ties(const std::vector<Outcome>& outcomes, const std::set<Config>* excluded) {
  std::vector<const Outcome*> candidates;
  std::vector<Config> configs;
  std::vector<double> ms;
  for (const auto& o : outcomes)
    if (crownable(o) && !(excluded && excluded->count(o.config))) {
      candidates.push_back(&o);
      configs.push_back(o.config);
      ms.push_back(*o.objective);
    }
  const auto i = first_of_ties(configs, ms);
  if (!i) return std::nullopt;
  return *candidates[*i];
}

// Rule 3: the verdict's winner when the verdict applies to `best` (the fastest), else none.
std::optional<Outcome> confirmed(const std::vector<Outcome>& outcomes, std::optional<Outcome> best,
                                 const CrownEvidence& evidence) {
  if (!best || (evidence.results_file.empty() && !evidence.verdict)) return std::nullopt;
  const auto path = confirmation_path(evidence.results_file);
  std::error_code ec;
  if (!evidence.verdict && !std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    const auto verdict = evidence.verdict ? *evidence.verdict : nlohmann::json::parse(read_file(path));
    if (verdict.value("key", std::string()) != evidence.key) return std::nullopt;  // another key's verdict
    bool contender = false;
    for (const auto& k : verdict.at("contenders")) contender = contender || k.at("label").get<std::string>() == best->label;
    if (!contender) return std::nullopt;  // the tuning went on since: a newer best
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
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> first_of_ties(const std::vector<Config>& candidates, const std::vector<double>& ms) {
  if (candidates.empty()) return std::nullopt;
  const double lowest = *std::min_element(ms.begin(), ms.end());
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (ms[i] <= lowest * (1 + kTieMargin) && (!first || candidates[i] < candidates[*first])) first = i;
  return first;
}

bool crownable(const Outcome& o) {
  if (!is_success(o.status) || !o.objective) return false;
  const auto it = o.extra.find("suspicious");
  if (it == o.extra.end()) return true;
  return it->is_array() ? it->empty() : !(it->is_string() && !it->get<std::string>().empty());
}

std::optional<Outcome> crown(const std::vector<Outcome>& outcomes, const CrownEvidence& evidence) {
  auto winner = confirmed(outcomes, fastest(outcomes, nullptr), evidence);  // rule 3
  if (!winner) winner = first_within_ties(outcomes, nullptr);                // rule 2
  if (winner && evidence.excluded && evidence.excluded->count(winner->config))  // rule 4
    return first_within_ties(outcomes, evidence.excluded);
  return winner;
}

std::filesystem::path confirmation_path(const std::filesystem::path& results_file) {
  return results_file.string() + ".confirmation.json";
}

}  // namespace adaexplore
