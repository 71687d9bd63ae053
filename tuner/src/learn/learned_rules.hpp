// Hard constraints the knowledge base learns from outcomes, each stated over parameters and
// carrying the evaluations behind it. A rule is stated only when no observation contradicts it
// and the data are unlikely to line up that way by chance (significance `alpha`, Bonferroni-
// corrected for the number of rules that could have been stated), so that a few unlucky
// samples in a space where failures are common do not forbid a region.
//
//  (a) ValueRule: every evaluation with TILE=128 failed: at least `min_value_failures` of one
//      status, no success, and its failures are unlikely were TILE=128 an ordinary value: the
//      product over them of their chance to fail anyway, p_i, is at most alpha / (number of
//      values of all parameters). p_i comes from a null model (NullFailure: the knowledge base
//      passes its logistic failure model without TILE=128's own weight, failure_model.hpp), so
//      failures that the other parameters explain (sampled where something else fails, as an
//      adaptive search does) count for little; without one, p_i is the overall failure rate p0
//      (Laplace-smoothed) and the test is p0^n <= alpha / (values). The
//      test is run after each of the value's failures, in evaluation
//      order, with the counts of that moment; once passed, the rule stands until an evaluation
//      with the value succeeds (so it does not come and go as the failure rate elsewhere moves).
//      The status test: while every failure with the value has one status S, the value also
//      passes when the product over its failures of their chance to fail anyway *with S*, s_i,
//      is at most alpha / (values x failure statuses seen): the union over the statuses the
//      value could have failed with. s_i is the largest of p_i times S's share among the
//      failures without the value (Laplace-smoothed over the statuses seen) and, for each other
//      parameter, the rate of S among the evaluations without the value that share its value of
//      that parameter (so a status another value explains counts for little). In a space that
//      fails one way only s_i = p_i and the test is the one above; where failures are common but
//      of several kinds (the host failure space: VEC=3 always compile_error among crashes and
//      wrong results) it needs far fewer failures of the value. Either test states the rule, so
//      a value's chance to become a rule by accident is at most 2 x alpha / values (a union
//      bound over the two).
//  (b) MonotoneRule: failures of one status are monotone in one parameter given the others.
//      Learned from groups of observations that differ only in that parameter (a "group"): a
//      group supports "fails for larger TILE" when all its failures of that status lie above
//      all its successes. The rule needs `min_groups` supporting groups, no group that orders
//      them otherwise, and significance: a group of s successes and f failures is ordered so by
//      chance with probability 1 / C(s + f, f), and the product over the groups must be at most
//      alpha / (2 x parameters) (either direction of any parameter could have been found).
//      Generalised to "TILE >= 64 fails whatever the others" (a global threshold) when no
//      success anywhere has TILE >= 64 and the failures there pass the test of (a) (on the
//      current counts).
//      InvarianceRule: a status does not depend on one parameter: `min_invariance_groups` groups
//      along it hold that failure and no success, no group holds both, and significance: were
//      the parameter to matter, the other members of a group of m would all fail with the
//      overall failure rate p0, chance p0^(m-1); the product over the groups must be at most
//      alpha / (2 x parameters). (A member may fail in another way: the rule is used to say
//      "fails", and a failure is a failure.)
//  Dominance: from an observed failure f of status S, a configuration that differs from f only
//      by steps in the failing direction of S's monotone parameters, or in parameters S is
//      invariant to, fails too (each step keeps the others fixed, so the single-parameter rules
//      chain). The chained reading is checked against every success; when one would be
//      predicted to fail, the invariances are dropped, then chaining is limited to one step.
//
// Resource rules (figure fits) are in resource_rules.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "learn/observation.hpp"
#include "model/space.hpp"

namespace adaexplore {

struct RuleOptions {
  std::size_t min_value_failures = 3;     // (a) failures of the most frequent status
  std::size_t min_groups = 2;             // (b) groups behind a monotone rule
  std::size_t min_invariance_groups = 3;  // (b) groups behind an invariance
  double alpha = 0.01;                    // significance of a rule, before correction
  bool status_test = true;                // (a) the status test (false: the value rules before 2026-12-01 (status test))
};

/// For each parameter p, the observations grouped by their configuration with p left out.
/// Incremental: add() costs O(parameters^2).
class GroupIndex {
 public:
  using Groups = std::unordered_map<Config, std::vector<std::size_t>, ConfigHash>;
  explicit GroupIndex(std::size_t dimension = 0) : groups_(dimension) {}
  void add(const Config& c, std::size_t observation);
  const Groups& along(std::size_t p) const { return groups_[p]; }

 private:
  std::vector<Groups> groups_;
};

struct ValueRule {
  std::size_t parameter = 0;
  std::uint16_t value = 0;
  Status status = Status::ok;  // the most frequent failure
  std::size_t failures = 0;    // evaluations with the value (all failed)
  std::size_t of_status = 0;   // of which with `status`
};

/// One group's boundary along a monotone rule's parameter: its success nearest the failures and
/// its failure nearest the successes (indices).
struct GroupBoundary {
  Config member;  // a member of the group (the others' values); its entry for the parameter varies
  std::uint16_t success = 0, failure = 0;
  std::size_t evaluations = 0;
};

struct MonotoneRule {
  std::size_t parameter = 0;
  int direction = +1;  // +1: fails for larger indices; -1: for smaller
  Status status = Status::ok;
  std::vector<GroupBoundary> groups;         // the supporting groups
  std::size_t evaluations = 0;               // in the supporting groups
  double chance = 1;                         // probability of groups this ordered by chance
  std::optional<std::uint16_t> global_from;  // fails whatever the others at this index and beyond
  std::size_t global_failures = 0;           // evaluations at or beyond global_from (all failed)
  std::size_t global_of_status = 0;          // of which with `status`

  /// True when `index` is at `from` or beyond it in the failing direction.
  bool beyond(std::uint16_t index, std::uint16_t from) const { return direction > 0 ? index >= from : index <= from; }
};

struct InvarianceRule {
  std::size_t parameter = 0;
  Status status = Status::ok;
  std::size_t groups = 0, evaluations = 0;
};

/// Why a configuration is known to fail.
struct Verdict {
  enum class Kind { observed, value, threshold, dominance, resource, declared };
  Kind kind = Kind::observed;
  Status status = Status::ok;
  std::size_t evidence = 0;  // evaluations behind the rule
  std::size_t rule = 0;      // index into the list of its kind; the observation for observed/dominance
};

class LearnedRules {
 public:
  /// The null model of the tests of (a): P(fail) of configuration `c` were its value of
  /// `parameter` an ordinary one (in (0, 1]).
  using NullFailure = std::function<double(const Config& c, std::size_t parameter)>;

  /// Relearns everything from `observations` (grouped in `groups`); O(observations * parameters)
  /// plus the dominance check, O(successes * failures * parameters) at worst.
  /// `null_failure`: see NullFailure; empty: the overall failure rate.
  /// `explained`: per observation, whether a resource rule accounts for it (knowledge_base.cpp);
  /// value rules (a) leave those out, as the null model does.
  void learn(const Space& space, const std::vector<Observation>& observations, const GroupIndex& groups,
             const RuleOptions& options, NullFailure null_failure = {}, const std::vector<bool>* explained = nullptr);

  /// A value, global threshold or dominance rule that says `c` fails (observed configurations
  /// are the caller's business). `observations` are those learn() saw.
  std::optional<Verdict> check(const Config& c, const std::vector<Observation>& observations) const;
  /// The part of check() that needs no observations: value rules and global thresholds.
  std::optional<Verdict> check_ranges(const Config& c) const;

  const std::vector<ValueRule>& values() const { return values_; }
  const std::vector<MonotoneRule>& monotone() const { return monotone_; }
  const std::vector<InvarianceRule>& invariances() const { return invariances_; }

  /// One line per rule, with its counts.
  std::vector<std::string> describe(const Space& space) const;
  /// The rule behind a verdict of check(), in words.
  std::string describe(const Space& space, const Verdict& v, const std::vector<Observation>& observations) const;

 public:
  struct Tally;  // what the groups along one parameter say about one status (learned_rules.cpp)

 private:
  // Dominance for one failure status: per parameter 0 (must match), +1/-1 (monotone: steps in
  // that direction keep failing), 2 (invariant: any value).
  struct Dominance {
    Status status = Status::ok;
    std::vector<int> step;
    // The failures (observation indices) by their values of the parameters that must match
    // (the others blanked): only a failure in the bucket of `c` can dominate `c`.
    std::unordered_map<Config, std::vector<std::size_t>, ConfigHash> buckets;
    std::size_t evidence = 0;  // evaluations behind the rules combined
    enum class Chain { full, monotone_only, single } chain = Chain::full;
    std::size_t contradictions = 0;  // successes the full chaining would have called failures
  };

  void learn_values(const Space& space, const std::vector<Observation>& observations, const std::vector<bool>* explained);
  void learn_monotone(const Space& space, const std::vector<Observation>& observations, const GroupIndex& groups);
  void conclude(std::size_t parameter, Status status, Tally& tally, double max_chance);
  void learn_global(MonotoneRule& rule, const std::vector<Observation>& observations) const;
  /// A failure's chance under the null hypothesis of (a): null_failure_, else `rate`.
  double null_chance(const Config& c, std::size_t parameter, double rate) const;
  void learn_dominance(std::size_t dimension, const std::vector<Observation>& observations);
  void choose_chain(Dominance& d, const std::vector<Observation>& observations) const;
  bool dominated(const Dominance& d, const Config& failure, const Config& c) const;
  /// The first failure of `d` that dominates `c`, if any.
  std::optional<std::size_t> dominating(const Dominance& d, const Config& c,
                                        const std::vector<Observation>& observations) const;

  RuleOptions options_;
  NullFailure null_failure_;
  double failure_rate_ = 0.5;   // overall, Laplace-smoothed
  std::size_t hypotheses_ = 1;  // parameter values in the space: candidate value rules
  std::vector<ValueRule> values_;
  std::vector<MonotoneRule> monotone_;
  std::vector<InvarianceRule> invariances_;
  std::vector<Dominance> dominance_;
};

}  // namespace adaexplore
