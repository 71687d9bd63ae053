#include "loop/confirm.hpp"

#include <algorithm>
#include <cstdio>
#include <future>

#include "loop/significance.hpp"
#include "loop/crown.hpp"

namespace adaexplore {
namespace {

std::string ms(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

std::vector<Outcome> near_ties(const std::vector<Outcome>& outcomes, const ConfirmOptions& options) {
  const auto crowned = crown(outcomes);  // rule 2: within 1 % of the fastest
  if (!crowned) return {};
  double fastest = *crowned->objective;
  for (const auto& o : outcomes)
    if (crownable(o)) fastest = std::min(fastest, *o.objective);
  std::vector<Outcome> candidates;
  for (const auto& o : outcomes)  // a suspicious outcome is never a contender
    if (crownable(o) && *o.objective <= fastest * (1 + options.margin)) candidates.push_back(o);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Outcome& a, const Outcome& b) { return *a.objective < *b.objective; });
  if (candidates.size() > options.max_contenders) {
    const bool kept = std::any_of(candidates.begin(), candidates.begin() + static_cast<long>(options.max_contenders),
                                  [&](const Outcome& o) { return o.config == crowned->config; });
    candidates.resize(options.max_contenders);
    if (!kept && options.max_contenders > 0) candidates.back() = *crowned;  // the rule's pick competes too
  }
  if (candidates.size() < 2) return {};
  return candidates;
}

Confirmation confirm_near_ties(Backend& backend, const std::vector<Outcome>& contenders,
                               const ConfirmOptions& options) {
  Confirmation c;
  c.rounds = options.rounds;
  if (contenders.size() < 2 || options.rounds == 0) return c;
  // Prepared in parallel (compiles), like a batch of the tuning.
  std::vector<std::future<Prepared>> compiling;
  for (const auto& o : contenders)
    compiling.push_back(std::async(std::launch::async, [&backend, config = o.config] { return backend.prepare(config); }));
  std::vector<Prepared> prepared;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    prepared.push_back(compiling[i].get());
    prepared.back().keep_artifact = true;
    Confirmation::Contender k;
    k.label = contenders[i].label;
    k.config = contenders[i].config;
    k.tuning_ms = *contenders[i].objective;
    if (prepared.back().failure) k.failure = to_string(prepared.back().failure->status);
    c.contenders.push_back(k);
  }
  for (std::size_t round = 0; round < options.rounds; ++round) {
    for (std::size_t step = 0; step < contenders.size(); ++step) {
      const std::size_t i = (round + step) % contenders.size();  // A B C, B C A, C A B, ...
      auto& k = c.contenders[i];
      if (!k.failure.empty()) continue;
      const Outcome o = backend.measure(prepared[i]);
      if (!is_success(o.status) || !o.objective) {
        k.failure = std::string(to_string(o.status)) + " in round " + std::to_string(round + 1) + ": " +
                    o.message.substr(0, o.message.find('\n'));
        continue;
      }
      k.round_ms.push_back(*o.objective);
    }
  }
  std::vector<std::size_t> standing;
  std::vector<Config> configs;
  std::vector<double> medians;
  for (std::size_t i = 0; i < c.contenders.size(); ++i) {
    prepared[i].keep_artifact = false;
    backend.discard(prepared[i]);
    auto& k = c.contenders[i];
    if (!k.failure.empty()) continue;
    k.median_ms = median_of(k.round_ms);
    standing.push_back(i);
    configs.push_back(k.config);
    medians.push_back(k.median_ms);
  }
  if (const auto first = first_of_ties(configs, medians)) c.winner = standing[*first];  // crown.hpp rule 2
  c.changed = c.winner && *c.winner != 0;
  return c;
}

nlohmann::json Confirmation::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const auto& k = contenders[i];
    list.push_back({{"label", k.label},
                    {"tuning_ms", k.tuning_ms},
                    {"round_ms", k.round_ms},
                    {"median_ms", k.median_ms},
                    {"failure", k.failure},
                    {"winner", winner && *winner == i}});
  }
  return {{"rounds", rounds}, {"contenders", list}, {"changed", changed}, {"tie_margin", kTieMargin}};
}

std::vector<std::string> Confirmation::describe() const {
  std::vector<std::string> lines;
  double lowest = 0;
  for (const auto& k : contenders)
    if (k.failure.empty() && (lowest == 0 || k.median_ms < lowest)) lowest = k.median_ms;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const auto& k = contenders[i];
    std::string line = "  " + k.label + ":" + (k.tuning_ms > 0 ? " tuning " + ms(k.tuning_ms) + " ms," : "") + " rounds";
    for (double r : k.round_ms) line += " " + ms(r);
    if (!k.failure.empty())
      line += " -- dropped out: " + k.failure;
    else
      line += " -> median " + ms(k.median_ms) + " ms";
    if (winner && *winner == i) {
      line += "  <- winner";
      if (k.median_ms > lowest)
        line += " (within " + ms(kTieMargin * 100) + " % of the lowest median: a tie, the first in PARAMS order wins)";
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace adaexplore
