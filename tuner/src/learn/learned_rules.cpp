#include "learn/learned_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "learn/rule_text.hpp"

namespace adaexplore {

// Tallies of the groups along one parameter, for one failure status.
struct LearnedRules::Tally {
  std::vector<GroupBoundary> up, down;
  std::size_t up_evaluations = 0, down_evaluations = 0, mixed = 0;
  double up_log_chance = 0, down_log_chance = 0;  // natural log of the chance of such an order
  // For invariance: groups with that failure and no success, and groups with both.
  std::size_t failing = 0, failing_evaluations = 0, with_success = 0;
  double failing_log_chance = 0;  // of groups this uniform if the parameter mattered
};

namespace {

constexpr std::size_t kStatuses = std::size(kAllStatuses);
constexpr std::uint16_t kBlank = 0xFFFF;  // the left-out parameter in a group key
constexpr int kInvariant = 2;             // Dominance::step of a parameter the status ignores

std::size_t status_index(Status s) { return static_cast<std::size_t>(s); }

// What one group along a parameter holds, per failure status: extreme indices of successes and
// of failures with that status, and whether the group mixes that status with other outcomes.
struct GroupSummary {
  int success_min = 1 << 30, success_max = -1;
  std::size_t successes = 0;
  std::array<int, kStatuses> fail_min, fail_max;
  std::array<std::size_t, kStatuses> count{};
  std::size_t size = 0;

  GroupSummary() {
    fail_min.fill(1 << 30);
    fail_max.fill(-1);
  }
  void add(const Observation& o, std::size_t p) {
    const int i = o.config[p];
    ++size;
    if (is_success(o.status)) {
      ++successes;
      success_min = std::min(success_min, i);
      success_max = std::max(success_max, i);
      return;
    }
    const std::size_t s = status_index(o.status);
    ++count[s];
    fail_min[s] = std::min(fail_min[s], i);
    fail_max[s] = std::max(fail_max[s], i);
  }
  bool has_success() const { return success_max >= 0; }
};

// log C(n, k): the orderings of k failures among n outcomes, of which one puts them all last.
double log_binomial(std::size_t n, std::size_t k) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

// `log_failure_rate`: of the overall failure rate, the chance that one more member fails.
void tally_group(const GroupSummary& g, const Config& member, std::size_t s, double log_failure_rate,
                 LearnedRules::Tally& t) {
  if (g.count[s] == 0) return;
  if (!g.has_success()) {
    ++t.failing;
    t.failing_evaluations += g.size;
    t.failing_log_chance += (g.size - 1.0) * log_failure_rate;
    return;
  }
  ++t.with_success;
  if (g.fail_min[s] > g.success_max) {
    t.up.push_back(
        {member, static_cast<std::uint16_t>(g.success_max), static_cast<std::uint16_t>(g.fail_min[s]), g.size});
    t.up_evaluations += g.size;
    t.up_log_chance -= log_binomial(g.successes + g.count[s], g.count[s]);
  } else if (g.fail_max[s] < g.success_min) {
    t.down.push_back(
        {member, static_cast<std::uint16_t>(g.success_min), static_cast<std::uint16_t>(g.fail_max[s]), g.size});
    t.down_evaluations += g.size;
    t.down_log_chance -= log_binomial(g.successes + g.count[s], g.count[s]);
  } else {
    ++t.mixed;
  }
}

// `c` with the parameters a dominance may step in blanked.
Config bucket_key(const std::vector<int>& step, Config c) {
  for (std::size_t q = 0; q < c.size(); ++q)
    if (step[q] != 0) c[q] = kBlank;
  return c;
}

using StatusCounts = std::array<std::size_t, kStatuses>;

// The rule "value v of parameter p always fails" when no evaluation with it succeeded.
std::optional<ValueRule> always_failing(std::size_t p, std::size_t v, const StatusCounts& counts) {
  ValueRule r{p, static_cast<std::uint16_t>(v), Status::ok, 0, 0};
  for (Status s : kAllStatuses) {
    const std::size_t k = counts[status_index(s)];
    if (is_success(s) && k > 0) return std::nullopt;
    if (is_success(s)) continue;
    r.failures += k;
    if (k > r.of_status) {
      r.of_status = k;
      r.status = s;
    }
  }
  return r;
}

// The index of `p` that successes reach furthest in `direction` (-1 or the end when none).
int success_edge(std::size_t p, int direction, const std::vector<Observation>& observations) {
  int edge = direction > 0 ? -1 : 1 << 30;
  for (const auto& o : observations)
    if (is_success(o.status))
      edge = direction > 0 ? std::max<int>(edge, o.config[p]) : std::min<int>(edge, o.config[p]);
  return edge;
}

std::string evaluations_of(std::size_t n, std::size_t of_status, Status s) {
  return std::to_string(of_status) + " of " + std::to_string(n) + " evaluations " + to_string(s);
}

}  // namespace

void GroupIndex::add(const Config& c, std::size_t observation) {
  Config key = c;
  for (std::size_t p = 0; p < groups_.size(); ++p) {
    key[p] = kBlank;
    groups_[p][key].push_back(observation);
    key[p] = c[p];
  }
}

void LearnedRules::learn(const Space& space, const std::vector<Observation>& observations, const GroupIndex& groups,
                         const RuleOptions& options, NullFailure null_failure, const std::vector<bool>* explained) {
  options_ = options;
  null_failure_ = std::move(null_failure);
  // Over all observations: the monotone, invariance and dominance rules, whose tests use it, learn
  // from the failures a resource rule accounts for too (such a failure is monotone as well); the
  // value rules keep their own rate without them (learn_values). Leaving them out here made
  // invariances significant that mix two causes of one status (gemm: resource_limit "invariant"
  // in THREAD_N from shared-memory failures, then a threads failure at THREAD_N=1 "dominated"
  // every THREAD_N; FailureLearning.HardRulesAreSoundOnTheRecordedGemmSpace).
  std::size_t failures = 0;
  for (const auto& o : observations) failures += is_success(o.status) ? 0 : 1;
  failure_rate_ = (failures + 1.0) / (observations.size() + 2.0);
  hypotheses_ = 0;
  for (const auto& p : space.parameters()) hypotheses_ += p.values.size();
  learn_values(space, observations, explained);
  learn_monotone(space, observations, groups);
  learn_dominance(space.dimension(), observations);
}

namespace {

// Evaluations and failures so far per value (an id: the value's index after those of the
// parameters before it) and per pair of values, and the statuses per value (learn_values).
struct ValueTally {
  std::size_t ids;
  std::vector<double> n1, f1, n2, f2;
  std::vector<StatusCounts> counts;
  StatusCounts failures_of{};  // failures so far per status
  std::size_t evaluations = 0, failures = 0;

  explicit ValueTally(std::size_t n)
      : ids(n), n1(n, 0), f1(n, 0), n2(n * n, 0), f2(n * n, 0), counts(n, StatusCounts{}) {}

  // One evaluation whose values are `id`.
  void add(const std::vector<std::size_t>& id, Status status) {
    const bool failed = !is_success(status);
    ++evaluations;
    failures += failed ? 1 : 0;
    if (failed) ++failures_of[status_index(status)];
    for (std::size_t a = 0; a < id.size(); ++a) {
      n1[id[a]] += 1;
      f1[id[a]] += failed ? 1 : 0;
      ++counts[id[a]][status_index(status)];
      for (std::size_t b = 0; b < id.size(); ++b) {
        n2[id[a] * ids + id[b]] += 1;
        f2[id[a] * ids + id[b]] += failed ? 1 : 0;
      }
    }
  }

  // The chance that a failure with value v = id[p] happened anyway: the largest of `prior` and,
  // for each other parameter q, the failure rate among the evaluations without v that share its
  // value of q, smoothed toward `prior`.
  double chance(const std::vector<std::size_t>& id, std::size_t p, double prior) const {
    const std::size_t v = id[p];
    double chance = prior;
    for (std::size_t q = 0; q < id.size(); ++q) {
      if (q == p) continue;
      const std::size_t u = id[q];
      const double n = n1[u] - n2[v * ids + u], f = f1[u] - f2[v * ids + u];  // without v
      chance = std::max(chance, (f + 2.0 * prior) / (n + 2.0));
    }
    return chance;
  }

  // The chance to fail anyway with status s, the largest of: `chance` times the status's
  // share among the failures without the value (Laplace-smoothed over the failure statuses
  // seen so far), and for each other parameter q the rate of this status among the
  // evaluations without v that share its value of q, smoothed toward the null model's P(fail)
  // times that share (v's failures all have this status, so those with v and u are
  // f2[v, u]). The second guards, as `chance` does, against a status that another value
  // explains: one that v was sampled beside and that fails this way. In a space that fails
  // one way only the share is 1 and this is `chance`: the same test as above. `seen`: the
  // failure statuses seen so far.
  double status_chance(const std::vector<std::size_t>& id, std::size_t p, std::size_t s, double prior,
                       double chance, double& seen) const {
    const std::size_t v = id[p];
    const double others = static_cast<double>(failures) - f1[v];
    const double same = static_cast<double>(failures_of[s] - counts[v][s]);
    seen = static_cast<double>(
        std::count_if(failures_of.begin(), failures_of.end(), [](std::size_t k) { return k > 0; }));
    const double share = std::min(1.0, (same + 1.0) / (others + seen));
    double status_chance = chance * share;
    for (std::size_t q = 0; q < id.size(); ++q) {
      if (q == p) continue;
      const std::size_t u = id[q];
      const double n = n1[u] - n2[v * ids + u], f = static_cast<double>(counts[u][s]) - f2[v * ids + u];
      status_chance = std::max(status_chance, (f + 2.0 * prior * share) / (n + 2.0));
    }
    return status_chance;
  }
};

}  // namespace

// The test of (a), run in the order of the evaluations. Under the null hypothesis that v is an
// ordinary value, a failure with v had a chance p_i to fail anyway; the value passes when the
// product of p_i over its failures so far is at most alpha / hypotheses. p_i is the largest of
//   - the null model's P(fail) of its configuration (null_failure: the knowledge base's logistic
//     model without v's own weight; without one, the overall failure rate so far, smoothed), and
//   - for each other parameter q, the failure rate so far among the evaluations without v that
//     share its value of q, smoothed toward that P(fail) (m-estimate, m = 2),
// so failures that another value explains (an adaptive search samples where something else
// fails: pnpoly's block_size_x=992 failed 4 times in 4, all with tile_size >= 16, where failures
// are common, yet it succeeds with small tiles) count for little. Once passed, the rule stands
// until an evaluation with the value succeeds, so it does not come and go as failures elsewhere
// move the rates; failures a resource rule accounts for (`explained`) are no evidence either way,
// so a value rule made of them goes when that resource rule appears. The status test (header,
// (a)) runs beside it, while the value's failures share one status. A pure
// function of the ordered observations (and of the null model), so a rebuilt knowledge base
// states the same rules.
void LearnedRules::learn_values(const Space& space, const std::vector<Observation>& observations,
                                const std::vector<bool>* explained) {
  values_.clear();
  const double log_bound = std::log(options_.alpha / static_cast<double>(hypotheses_));
  const std::size_t d = space.dimension();
  std::vector<std::size_t> offset(d + 1, 0);
  for (std::size_t p = 0; p < d; ++p) offset[p + 1] = offset[p] + space.parameters()[p].values.size();
  const std::size_t ids = offset[d];
  ValueTally tally(ids);
  std::vector<double> log_chance(ids, 0.0);
  // The status test: while every failure with the value has one status, the log of the chance
  // that all of them failed anyway *with that status* (kMixed once a second status appears).
  constexpr std::size_t kMixed = kStatuses;
  std::vector<double> log_status_chance(ids, 0.0);
  std::vector<std::size_t> sole_status(ids, kStatuses + 1);  // kStatuses + 1: no failure yet
  std::vector<char> passed(ids, 0);
  std::vector<std::size_t> id(d);
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const Observation& o = observations[i];
    if (explained && (*explained)[i]) continue;  // a resource rule accounts for it: no evidence about a value
    for (std::size_t p = 0; p < d; ++p) id[p] = offset[p] + o.config[p];
    tally.add(id, o.status);
    if (is_success(o.status)) continue;
    const double rate = (tally.failures + 1.0) / (tally.evaluations + 2.0);
    for (std::size_t p = 0; p < d; ++p) {
      const std::size_t v = id[p];
      if (passed[v] || !always_failing(p, o.config[p], tally.counts[v])) continue;
      const double prior = null_chance(o.config, p, rate);
      const double chance = tally.chance(id, p, prior);
      log_chance[v] += std::log(chance);
      if (log_chance[v] <= log_bound) passed[v] = 1;
      if (!options_.status_test) continue;
      const std::size_t s = status_index(o.status);
      sole_status[v] = sole_status[v] == kStatuses + 1 || sole_status[v] == s ? s : kMixed;
      if (sole_status[v] == kMixed) continue;
      double seen = 0;
      log_status_chance[v] += std::log(tally.status_chance(id, p, s, prior, chance, seen));
      if (log_status_chance[v] <= log_bound - std::log(seen)) passed[v] = 1;
    }
  }
  for (std::size_t p = 0; p < d; ++p)
    for (std::size_t v = 0; v < space.parameters()[p].values.size(); ++v) {
      const auto r = always_failing(p, v, tally.counts[offset[p] + v]);
      if (r && passed[offset[p] + v] && r->of_status >= options_.min_value_failures) values_.push_back(*r);
    }
}

double LearnedRules::null_chance(const Config& c, std::size_t parameter, double rate) const {
  if (!null_failure_) return rate;
  return std::clamp(null_failure_(c, parameter), 1e-6, 1.0);
}

void LearnedRules::learn_monotone(const Space& space, const std::vector<Observation>& observations,
                                  const GroupIndex& groups) {
  monotone_.clear();
  invariances_.clear();
  for (std::size_t p = 0; p < space.dimension(); ++p) {
    std::array<Tally, kStatuses> tallies;
    for (const auto& [key, members] : groups.along(p)) {
      if (members.size() < 2) continue;
      GroupSummary g;
      for (std::size_t i : members) g.add(observations[i], p);
      for (Status s : kAllStatuses)
        if (!is_success(s))
          tally_group(g, observations[members.front()].config, status_index(s), std::log(failure_rate_),
                      tallies[status_index(s)]);
    }
    const double max_chance = options_.alpha / (2.0 * space.dimension());
    for (Status s : kAllStatuses) conclude(p, s, tallies[status_index(s)], max_chance);
  }
  for (auto& rule : monotone_) {
    // Hash order is an accident of insertion; explanations and probes want a stable order.
    std::sort(rule.groups.begin(), rule.groups.end(),
              [](const GroupBoundary& a, const GroupBoundary& b) { return a.member < b.member; });
    learn_global(rule, observations);
  }
}

// A rule from the groups along parameter p when they agree, are enough and significant.
void LearnedRules::conclude(std::size_t p, Status s, Tally& t, double max_chance) {
  const double log_max = std::log(max_chance);
  auto adopt = [&](int direction, std::vector<GroupBoundary>& groups, std::size_t evaluations, double log_chance) {
    MonotoneRule m;
    m.parameter = p;
    m.status = s;
    m.direction = direction;
    m.groups = std::move(groups);
    m.evaluations = evaluations;
    m.chance = std::exp(log_chance);
    monotone_.push_back(std::move(m));
  };
  if (t.mixed == 0 && t.down.empty() && t.up.size() >= options_.min_groups && t.up_log_chance <= log_max)
    adopt(+1, t.up, t.up_evaluations, t.up_log_chance);
  else if (t.mixed == 0 && t.up.empty() && t.down.size() >= options_.min_groups && t.down_log_chance <= log_max)
    adopt(-1, t.down, t.down_evaluations, t.down_log_chance);
  else if (t.with_success == 0 && t.failing >= options_.min_invariance_groups && t.failing_log_chance <= log_max)
    invariances_.push_back({p, s, t.failing, t.failing_evaluations});
}

// The global threshold: the first failing index beyond every success (in the rule's direction),
// kept when enough evaluations there failed with the rule's status.
void LearnedRules::learn_global(MonotoneRule& rule, const std::vector<Observation>& observations) const {
  const std::size_t p = rule.parameter;
  const int edge = success_edge(p, rule.direction, observations);
  std::optional<std::uint16_t> from;  // the failure of the rule's status nearest that edge, past it
  for (const auto& o : observations) {
    const int i = o.config[p];
    const bool past = rule.direction > 0 ? i > edge : i < edge;
    if (past && o.status == rule.status && (!from || rule.beyond(*from, o.config[p]))) from = o.config[p];
  }
  if (!from) return;
  // The test of (a) on the current counts, the region beyond `from` in place of one value: per
  // value of the other parameters, the failure rate of the evaluations outside the region.
  std::vector<std::vector<std::pair<double, double>>> outside(observations.empty() ? 0 : observations[0].config.size());
  for (std::size_t q = 0; q < outside.size(); ++q) {
    std::uint16_t most = 0;
    for (const auto& o : observations) most = std::max(most, o.config[q]);
    outside[q].assign(most + 1u, {0.0, 0.0});
  }
  for (const auto& o : observations)
    if (!rule.beyond(o.config[p], *from))
      for (std::size_t q = 0; q < outside.size(); ++q) {
        outside[q][o.config[q]].first += 1;
        outside[q][o.config[q]].second += is_success(o.status) ? 0 : 1;
      }
  std::size_t failures = 0, of_status = 0;
  double log_chance = 0;  // of these failures under the null hypothesis
  for (const auto& o : observations)
    if (rule.beyond(o.config[p], *from)) {
      ++failures;
      of_status += o.status == rule.status ? 1 : 0;
      const double prior = null_chance(o.config, p, failure_rate_);
      double chance = prior;
      for (std::size_t q = 0; q < outside.size(); ++q)
        if (q != p) {
          const auto [n, f] = outside[q][o.config[q]];
          chance = std::max(chance, (f + 2.0 * prior) / (n + 2.0));
        }
      log_chance += std::log(chance);
    }
  if (of_status < options_.min_value_failures ||
      log_chance > std::log(options_.alpha / static_cast<double>(hypotheses_)))
    return;
  rule.global_from = from;
  rule.global_failures = failures;
  rule.global_of_status = of_status;
}

void LearnedRules::learn_dominance(std::size_t dimension, const std::vector<Observation>& observations) {
  dominance_.clear();
  auto of_status = [this, dimension](Status s) -> Dominance& {
    for (auto& d : dominance_)
      if (d.status == s) return d;
    Dominance d;
    d.status = s;
    d.step.assign(dimension, 0);
    dominance_.push_back(std::move(d));
    return dominance_.back();
  };
  for (const auto& m : monotone_) {
    Dominance& d = of_status(m.status);
    d.step[m.parameter] = m.direction;
    d.evidence += m.evaluations;
  }
  for (const auto& inv : invariances_) {
    Dominance& d = of_status(inv.status);
    d.step[inv.parameter] = kInvariant;
    d.evidence += inv.evaluations;
  }
  for (auto& d : dominance_) {
    for (std::size_t i = 0; i < observations.size(); ++i)
      if (observations[i].status == d.status) d.buckets[bucket_key(d.step, observations[i].config)].push_back(i);
    choose_chain(d, observations);
  }
}

// The widest chaining that calls no observed success a failure.
void LearnedRules::choose_chain(Dominance& d, const std::vector<Observation>& observations) const {
  for (auto chain : {Dominance::Chain::full, Dominance::Chain::monotone_only, Dominance::Chain::single}) {
    d.chain = chain;
    std::size_t wrong = 0;
    for (const auto& s : observations)
      if (is_success(s.status) && dominating(d, s.config, observations)) ++wrong;
    if (chain == Dominance::Chain::full) d.contradictions = wrong;
    if (wrong == 0) return;
  }
}

bool LearnedRules::dominated(const Dominance& d, const Config& failure, const Config& c) const {
  std::size_t steps = 0;
  for (std::size_t q = 0; q < c.size(); ++q) {
    if (c[q] == failure[q]) continue;
    const int step = d.step[q];
    const bool allowed = step == kInvariant ? d.chain != Dominance::Chain::monotone_only
                                            : (step == +1 && c[q] > failure[q]) || (step == -1 && c[q] < failure[q]);
    if (!allowed) return false;
    ++steps;
  }
  return d.chain != Dominance::Chain::single || steps <= 1;
}

std::optional<std::size_t> LearnedRules::dominating(const Dominance& d, const Config& c,
                                                    const std::vector<Observation>& observations) const {
  auto it = d.buckets.find(bucket_key(d.step, c));
  if (it == d.buckets.end()) return std::nullopt;
  for (std::size_t f : it->second)
    if (dominated(d, observations[f].config, c)) return f;
  return std::nullopt;
}

std::optional<Verdict> LearnedRules::check(const Config& c, const std::vector<Observation>& observations) const {
  if (auto v = check_ranges(c)) return v;
  for (const auto& d : dominance_)
    if (auto f = dominating(d, c, observations)) return Verdict{Verdict::Kind::dominance, d.status, d.evidence, *f};
  return std::nullopt;
}

std::optional<Verdict> LearnedRules::check_ranges(const Config& c) const {
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (c[values_[i].parameter] == values_[i].value)
      return Verdict{Verdict::Kind::value, values_[i].status, values_[i].failures, i};
  for (std::size_t i = 0; i < monotone_.size(); ++i) {
    const auto& m = monotone_[i];
    if (m.global_from && m.beyond(c[m.parameter], *m.global_from))
      return Verdict{Verdict::Kind::threshold, m.status, m.global_failures, i};
  }
  return std::nullopt;
}

namespace {

std::string describe_value(const Space& space, const ValueRule& r) {
  const Parameter& p = space.parameters()[r.parameter];
  return p.name + "=" + p.values[r.value].text + " always fails: " + evaluations_of(r.failures, r.of_status, r.status) +
         ", no success";
}

std::string odds(double chance) {
  const double n = 1 / chance;
  return n < 1e6 ? std::to_string(std::llround(n)) : format_number(n, 2);
}

std::string describe_monotone(const Space& space, const MonotoneRule& m) {
  const Parameter& p = space.parameters()[m.parameter];
  return std::string(to_string(m.status)) + " is monotone in " + p.name + ": with the other parameters fixed, " +
         "a failing configuration fails for every " + (m.direction > 0 ? "larger " : "smaller ") + p.name + " too (" +
         std::to_string(m.groups.size()) + " groups, " + std::to_string(m.evaluations) +
         " evaluations, no contradiction; that order by chance: 1 in " + odds(m.chance) + ")";
}

std::string describe_invariance(const Space& space, const InvarianceRule& v) {
  const std::string& name = space.parameters()[v.parameter].name;
  const std::string status = to_string(v.status);
  return status + " does not depend on " + name + ": no group of configurations differing only in " + name +
         " has both " + status + " and a success, " + std::to_string(v.groups) + " groups have " + status +
         " and no success (" + std::to_string(v.evaluations) + " evaluations)";
}

std::string describe_global(const Space& space, const MonotoneRule& m) {
  const Parameter& p = space.parameters()[m.parameter];
  const int from = *m.global_from, last = static_cast<int>(p.values.size()) - 1;
  return describe_range(p, m.direction > 0 ? from : 0, m.direction > 0 ? last : from) +
         " fails whatever the other parameters: " + evaluations_of(m.global_failures, m.global_of_status, m.status) +
         ", no success";
}

}  // namespace

std::string LearnedRules::describe(const Space& space, const Verdict& v,
                                   const std::vector<Observation>& observations) const {
  switch (v.kind) {
    case Verdict::Kind::value:
      return describe_value(space, values_[v.rule]);
    case Verdict::Kind::threshold:
      return describe_global(space, monotone_[v.rule]);
    case Verdict::Kind::dominance:
      return std::string("a step away from the failed ") + space.label(observations[v.rule].config) + " (" +
             to_string(observations[v.rule].status) + ") in the failing direction of rules about " +
             to_string(v.status) + " (" + std::to_string(v.evidence) + " evaluations behind them)";
    default:
      return {};
  }
}

std::vector<std::string> LearnedRules::describe(const Space& space) const {
  std::vector<std::string> lines;
  for (const auto& r : values_) lines.push_back(describe_value(space, r));
  for (const auto& m : monotone_) {
    lines.push_back(describe_monotone(space, m));
    if (m.global_from) lines.push_back(describe_global(space, m));
  }
  for (const auto& v : invariances_) lines.push_back(describe_invariance(space, v));
  for (const auto& d : dominance_)
    if (d.contradictions > 0)
      lines.push_back(std::string(to_string(d.status)) + ": combining these rules would contradict " +
                      std::to_string(d.contradictions) + " successful evaluations; " +
                      (d.chain == Dominance::Chain::single ? "only single-parameter steps are used"
                                                           : "invariances are not combined"));
  return lines;
}

}  // namespace adaexplore
