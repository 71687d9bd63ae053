// The knowledge base's searches over the space: repair (nearest acceptable configuration) and
// boundary probes (just inside learned boundaries, near the best configurations).
#include <algorithm>
#include <queue>
#include <unordered_set>

#include "learn/knowledge_base.hpp"

namespace adaexplore {
namespace {

struct Candidate {
  double distance = 0;
  std::uint64_t tie = 0;
  Config config;
  bool operator>(const Candidate& o) const { return distance != o.distance ? distance > o.distance : tie > o.tie; }
};

// Uniform-cost search frontier: configurations by distance from the origin, ties by a random key.
struct Frontier {
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  std::unordered_set<Config, ConfigHash> pushed;

  void push(const Space& space, const Config& origin, Config c, std::mt19937_64& rng) {
    if (!pushed.insert(c).second) return;
    const double d = space.distance(origin, c);
    queue.push({d, rng(), std::move(c)});
  }
  // Every configuration one index step from `x`.
  void push_neighbours(const Space& space, const Config& origin, const Config& x, std::mt19937_64& rng) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int step : {-1, +1}) {
        const int v = x[q] + step;
        if (v < 0 || v >= static_cast<int>(space.parameters()[q].values.size())) continue;
        Config n = x;
        n[q] = static_cast<std::uint16_t>(v);
        push(space, origin, std::move(n), rng);
      }
  }
};

// The best successes, best first (ties: evaluation order).
std::vector<const Observation*> best_successes(const std::vector<Observation>& observations, std::size_t n) {
  std::vector<const Observation*> s;
  for (const auto& o : observations)
    if (is_success(o.status) && o.objective) s.push_back(&o);
  std::stable_sort(s.begin(), s.end(),
                   [](const Observation* a, const Observation* b) { return *a->objective < *b->objective; });
  if (s.size() > n) s.resize(n);
  return s;
}

// `c` with one parameter moved to `index`, when that moves it toward the failing side.
std::optional<Config> toward(const Config& c, std::size_t p, int index, int direction) {
  if (index < 0 || (direction > 0 ? index <= c[p] : index >= c[p])) return std::nullopt;
  Config probe = c;
  probe[p] = static_cast<std::uint16_t>(index);
  return probe;
}

}  // namespace

std::optional<Config> KnowledgeBase::repair(const Config& c, std::mt19937_64& rng, const Accept& accept) const {
  refresh();
  Frontier frontier;
  frontier.push(*space_, c, c, rng);
  std::optional<Config> fallback;
  double fallback_p = 2;
  for (std::size_t visits = 0; !frontier.queue.empty() && visits < options_.repair_visits; ++visits) {
    const Candidate x = frontier.queue.top();
    frontier.queue.pop();
    // Cheapest test first: a configuration neither good enough nor better than the fallback
    // needs no other check.
    const double p = model_probability(x.config);
    const bool wanted = p <= options_.low_failure || p < fallback_p;
    if (wanted && !observed(x.config) && (!accept || accept(x.config)) && space_->satisfies(x.config) &&
        !known_infeasible(x.config)) {
      if (p <= options_.low_failure) return x.config;
      fallback = x.config;
      fallback_p = p;
    }
    frontier.push_neighbours(*space_, c, x.config, rng);
  }
  return fallback;
}

// The directions in which parameters meet a learned boundary: those of monotone rules, and
// those in which a resource figure grows.
std::vector<std::pair<std::size_t, int>> KnowledgeBase::boundary_directions() const {
  std::vector<std::pair<std::size_t, int>> dirs;
  auto add = [&dirs](std::size_t p, int d) {
    if (std::find(dirs.begin(), dirs.end(), std::make_pair(p, d)) == dirs.end()) dirs.emplace_back(p, d);
  };
  for (const auto& m : rules_.monotone()) add(m.parameter, m.direction);
  for (const auto& r : resource_rules_)
    for (std::size_t p = 0; p < r.fit.exponents.size(); ++p)
      if (r.fit.exponents[p] != 0) add(p, r.fit.exponents[p] > 0 ? +1 : -1);
  return dirs;
}

// From `c`, steps along parameter p in `direction` up to the first configuration known or
// predicted to fail; the last valid one before it, when that is not `c` itself.
std::optional<Config> KnowledgeBase::walk_to_boundary(const Config& c, std::size_t p, int direction) const {
  const int last = static_cast<int>(space_->parameters()[p].values.size()) - 1;
  Config x = c;
  std::optional<Config> inside;
  for (int i = c[p] + direction; i >= 0 && i <= last; i += direction) {
    x[p] = static_cast<std::uint16_t>(i);
    if (beyond_boundary(x)) return inside;
    if (space_->satisfies(x)) inside = x;
  }
  return std::nullopt;  // no boundary in this direction
}

bool KnowledgeBase::beyond_boundary(const Config& c) const {
  return model_probability(c) > options_.low_failure || known_infeasible(c);
}

std::vector<Config> KnowledgeBase::boundary_probes(std::size_t k, const Accept& accept) const {
  refresh();
  const auto bests = best_successes(observations_, std::max<std::size_t>(k, 5));
  std::vector<std::pair<double, Config>> found;  // (distance to the nearest best, probe)
  auto add = [&](std::optional<Config> probe) {
    if (!probe || observed(*probe) || (accept && !accept(*probe)) || !space_->satisfies(*probe) ||
        beyond_boundary(*probe))
      return;
    double d = 2;
    for (const Observation* b : bests) d = std::min(d, space_->distance(b->config, *probe));
    found.emplace_back(d, std::move(*probe));
  };
  for (const auto& [p, direction] : boundary_directions())
    for (const Observation* b : bests) add(walk_to_boundary(b->config, p, direction));
  for (const auto& m : rules_.monotone())
    for (const auto& g : m.groups) {  // boundaries not pinned yet: a gap between success and failure
      Config success = g.member;
      success[m.parameter] = g.success;
      add(toward(success, m.parameter, g.failure - m.direction, m.direction));
    }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Config> probes;
  for (auto& f : found) {
    if (probes.size() == k) break;
    if (std::find(probes.begin(), probes.end(), f.second) == probes.end()) probes.push_back(std::move(f.second));
  }
  return probes;
}

}  // namespace adaexplore
