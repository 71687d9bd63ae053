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
  const auto best = crown(outcomes);
  if (!best) return {};
  std::vector<Outcome> candidates;
  for (const auto& o : outcomes)  // a suspicious outcome is never a contender
    if (crownable(o) && *o.objective <= *best->objective * (1 + options.margin)) candidates.push_back(o);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Outcome& a, const Outcome& b) { return *a.objective < *b.objective; });
  if (candidates.size() > options.max_contenders) candidates.resize(options.max_contenders);
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
  for (std::size_t i = 0; i < c.contenders.size(); ++i) {
    prepared[i].keep_artifact = false;
    backend.discard(prepared[i]);
    auto& k = c.contenders[i];
    if (!k.failure.empty()) continue;
    k.median_ms = median_of(k.round_ms);
    if (!c.winner || k.median_ms < c.contenders[*c.winner].median_ms) c.winner = i;
  }
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
  return {{"rounds", rounds}, {"contenders", list}, {"changed", changed}};
}

std::vector<std::string> Confirmation::describe() const {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const auto& k = contenders[i];
    std::string line = "  " + k.label + ":" + (k.tuning_ms > 0 ? " tuning " + ms(k.tuning_ms) + " ms," : "") + " rounds";
    for (double r : k.round_ms) line += " " + ms(r);
    if (!k.failure.empty())
      line += " -- dropped out: " + k.failure;
    else
      line += " -> median " + ms(k.median_ms) + " ms";
    if (winner && *winner == i) line += "  <- winner";
    lines.push_back(line);
  }
  return lines;
}

}  // namespace adaexplore
