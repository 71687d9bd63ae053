// The knowledge base: what the outcomes of a tuning teach about its search space, in the form
// strategies need it (filter, repair, steer, probe) and people can read (explain).
//
// It observes outcomes one at a time (observe() is O(parameters^2): it only stores and groups)
// and relearns lazily, on the first query after new observations: about 6 ms for 400
// observations of 15 parameters of 6 values (-O2; most of it the logistic model's Newton steps),
// so relearning once per batch is cheap; a query then
// costs microseconds (a repair some hundred). What it learns:
//   - hard constraints (learned_rules.hpp): always-failing values, monotone boundaries in one
//     parameter with their global thresholds and the dominance they imply, invariances;
//   - resource rules (resource_rules.hpp): reported figures fitted as monomials of parameters
//     and compared with their limit; the failures a rule accounts for are explained away (left
//     out of the value rules' counts, the logistic model and the tree, which model the rest);
//   - a feasibility model: a CART tree on value indices with smoothed leaves
//     (decision_tree.hpp), trained on the observations that the always-failing values and global
//     thresholds do not explain, and a Bayesian logistic regression on value indicators and log2
//     sizes (failure_model.hpp), trained on all; P(fail) of an unseen configuration is the larger
//     of the two (the tree catches interactions, the logistic model single values from a few
//     failures and boundaries along products of parameters); the likely status is the tree's;
//   - soft preferences (slow_preferences.hpp): weights below 1 where successes were slow.
// And what it is told: the backend's check before compiling (declare()), known from the start.
//
// Observed configurations answer from their outcome: a failed one is known infeasible.
//
// Persistence: to_json() stores the observations (compact: indices, status, objective, figures)
// and, for people, the explanation; from_json() rebuilds by replaying the observations, so
// every learned rule is recomputed by the same code that learned it.
//
// Not thread-safe: queries relearn lazily (const, with mutable state). One knowledge base per
// strategy, used from the tuning loop's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "learn/decision_tree.hpp"
#include "learn/failure_model.hpp"
#include "learn/learned_rules.hpp"
#include "learn/observation.hpp"
#include "learn/resource_rules.hpp"
#include "learn/slow_preferences.hpp"

namespace adaexplore {

struct KnowledgeBaseOptions {
  RuleOptions rules;
  ResourceRuleOptions resources;
  DecisionTree::Options tree;
  FailureModel::Options model;
  double low_failure = 0.5;          // repair, probes: "low predicted failure" is P(fail) at most this
  std::size_t repair_visits = 3000;  // repair: configurations examined at most
  double min_weight = 0.05;          // soft preferences: the floor of a weight
};

class KnowledgeBase {
 public:
  /// Which configurations a query may return (e.g. not proposed yet); empty accepts all.
  using Accept = std::function<bool(const Config&)>;

  /// `space` must outlive the knowledge base.
  explicit KnowledgeBase(const Space& space, KnowledgeBaseOptions options = {});

  /// What the backend rejects before compiling (Backend::check_statically: the launch shape over
  /// the device's limits): a configuration it returns an outcome for is known infeasible from the
  /// start, with that outcome's status and message (why_infeasible), and P(fail) 1. Not persisted:
  /// the backend declares it again each tuning.
  using StaticCheck = std::function<std::optional<Outcome>(const Config&)>;
  void declare(StaticCheck check) { declared_ = std::move(check); }

  void observe(const Outcome& outcome);
  void observe(Observation observation);
  std::size_t size() const { return observations_.size(); }
  const std::vector<Observation>& observations() const { return observations_; }
  /// The outcome recorded for `c` (the latest, if observed twice), or nullptr.
  const Observation* observed(const Config& c) const;

  /// A hard rule (or the configuration's own outcome) says `c` fails.
  bool known_infeasible(const Config& c) const;
  /// The rule behind known_infeasible, in words with its counts; nothing when none applies.
  std::optional<std::string> why_infeasible(const Config& c) const;
  /// The largest of the tree's smoothed leaf probability, the logistic model's and, where a
  /// resource rule's weaker reading says the figure is past its limit (resource_rules.hpp
  /// suggests_failure), that rule's confidence (see the file comment); for a known infeasible configuration at least the
  /// rule's confidence (evidence + 1) / (evidence + 2); 1 for an observed failure and for a
  /// configuration the declared check rejects, 0 for an observed success.
  double failure_probability(const Config& c) const;
  /// The observed status; else the status of the rule that applies; else the tree's guess
  /// (its leaf's most frequent failure when P(fail) > 0.5, otherwise ok or slow).
  Status likely_status(const Config& c) const;
  /// Soft preference weight in [min_weight, 1]: how much to sample `c` (1: no objection).
  double preference(const Config& c) const;

  /// The nearest configuration to `c` (by Space::distance, uniform-cost search over one-index
  /// steps) that is unobserved, satisfies the constraints, is not known infeasible, has
  /// P(fail) <= low_failure and is accepted; `c` itself when it qualifies. When none within
  /// repair_visits qualifies, the one with the lowest P(fail) among those meeting the other
  /// conditions; nothing when there is none. Ties in distance are broken by `rng`, so the answer
  /// is a function of the observations and the rng state.
  std::optional<Config> repair(const Config& c, std::mt19937_64& rng, const Accept& accept = {}) const;

  /// Up to `k` unobserved, valid, accepted configurations just inside learned boundaries: one
  /// index step on the feasible side of where the knowledge base starts to say "fails" (a hard
  /// rule, or P(fail) > low_failure). From each of the best configurations found so far, a walk
  /// along each parameter that has a monotone rule (or grows a resource figure), in its failing
  /// direction, to the first such configuration; and in each group of a monotone rule whose
  /// boundary is not pinned yet, one step short of its first failure. Nearest to the best
  /// first; deterministic. A probe is an experiment: it succeeds near the limit (where the
  /// fastest configurations often are) or fails and tightens the boundary.
  std::vector<Config> boundary_probes(std::size_t k, const Accept& accept = {}) const;

  /// Human-readable lines: a summary, hard rules, resource rules, the tree's failing leaves and
  /// the soft preferences, each with the number of evaluations behind it.
  std::vector<std::string> explain() const;

  const LearnedRules& rules() const;
  const std::vector<ResourceRule>& resource_rules() const;
  const DecisionTree& tree() const;

  nlohmann::json to_json() const;
  /// Throws std::invalid_argument when the stored parameters (names, value counts) are not those
  /// of `space`, naming both.
  static KnowledgeBase from_json(const Space& space, const nlohmann::json& j, KnowledgeBaseOptions options = {});

 private:
  void refresh() const;
  std::optional<Verdict> hard(const Config& c) const;
  std::string describe(const Verdict& v) const;
  double model_probability(const Config& c) const;  // max(tree leaf, logistic model)
  std::vector<std::pair<std::size_t, int>> boundary_directions() const;
  std::optional<Config> walk_to_boundary(const Config& c, std::size_t p, int direction) const;
  bool beyond_boundary(const Config& c) const;

  const Space* space_;
  KnowledgeBaseOptions options_;
  StaticCheck declared_;
  std::vector<Observation> observations_;
  std::unordered_map<Config, std::size_t, ConfigHash> index_;
  GroupIndex groups_;

  // Learned state, rebuilt by refresh() when stale.
  mutable bool stale_ = true;
  mutable LearnedRules rules_;
  mutable std::vector<ResourceRule> resource_rules_;
  mutable DecisionTree tree_;
  mutable FailureModel model_;
  mutable std::size_t explained_count_ = 0;  // failures the resource rules account for (left out of the models)
  mutable SlowPreferences slow_;
};

}  // namespace adaexplore
