#include "learn/slow_preferences.hpp"

#include <algorithm>
#include <cmath>

#include "learn/rule_text.hpp"

namespace adaexplore {
namespace {

constexpr double kMinZ = 2.0;

double slow_rate(std::size_t slow, std::size_t successes) {
  return (static_cast<double>(slow) + 1.0) / (static_cast<double>(successes) + 2.0);
}

// One-sided binomial test, normal approximation: are `slow` of `n` more than rate p0 explains?
bool significantly_slow(std::size_t slow, std::size_t n, double p0) {
  if (slow < 2 || p0 <= 0 || p0 >= 1) return false;
  const double expected = n * p0;
  return (slow - expected) / std::sqrt(expected * (1 - p0)) >= kMinZ;
}

}  // namespace

void SlowPreferences::learn(const Space& space, const std::vector<Observation>& observations, double floor) {
  weights_.assign(space.dimension(), {});
  entries_.clear();
  std::size_t slow = 0, successes = 0;
  for (const auto& o : observations)
    if (is_success(o.status)) {
      ++successes;
      slow += o.status == Status::slow ? 1 : 0;
    }
  const double base = slow_rate(slow, successes);
  const double p0 = successes ? static_cast<double>(slow) / successes : 0.0;
  for (std::size_t p = 0; p < space.dimension(); ++p) {
    const std::size_t n = space.parameters()[p].values.size();
    weights_[p].assign(n, 1.0);
    std::vector<std::size_t> value_slow(n, 0), value_successes(n, 0);
    for (const auto& o : observations)
      if (is_success(o.status)) {
        ++value_successes[o.config[p]];
        value_slow[o.config[p]] += o.status == Status::slow ? 1 : 0;
      }
    for (std::size_t v = 0; v < n; ++v) {
      const double r = slow_rate(value_slow[v], value_successes[v]);
      if (!significantly_slow(value_slow[v], value_successes[v], p0) || r <= base) continue;
      weights_[p][v] = std::max(floor, (1.0 - r) / (1.0 - base));
      entries_.push_back({p, static_cast<std::uint16_t>(v), value_slow[v], value_successes[v], weights_[p][v]});
    }
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.weight < b.weight; });
}

double SlowPreferences::weight(const Config& c) const {
  double w = 1.0;
  for (std::size_t p = 0; p < weights_.size() && p < c.size(); ++p) w = std::min(w, weights_[p][c[p]]);
  return w;
}

std::vector<std::string> SlowPreferences::describe(const Space& space) const {
  std::vector<std::string> lines;
  for (const auto& e : entries_) {
    const auto& p = space.parameters()[e.parameter];
    lines.push_back("sample less where " + p.name + "=" + p.values[e.value].text + ": " + std::to_string(e.slow) +
                    " of " + std::to_string(e.successes) + " successes slow (weight " + format_number(e.weight, 2) +
                    ")");
  }
  return lines;
}

}  // namespace adaexplore
