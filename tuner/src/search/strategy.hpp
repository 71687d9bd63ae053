// The search seam: a strategy proposes configurations and observes their outcomes.
//
// Contract for every strategy:
//  - propose(n) returns at most n configurations, each satisfying every constraint of the space
//    and none proposed or observed before (no configuration is evaluated twice); it returns
//    fewer, or none, when the space is exhausted;
//  - observe() is called once per evaluated configuration, in evaluation order, also for
//    configurations the strategy did not propose (results of an earlier, resumed tuning);
//  - the sequence of proposals is a function of the seed and the observed outcomes only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "learn/features.hpp"
#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

struct StrategyOptions {
  std::uint64_t seed = 1;
  std::size_t budget = 0;  // evaluations the tuning may spend (0: unknown); strategies may plan with it
  nlohmann::json options = nlohmann::json::object();  // strategy-specific, validated by the strategy
  /// The backend's check before compiling (Backend::check_statically): the outcome of a
  /// configuration known to fail without evaluating it, else nothing; empty when the backend has
  /// none. adaexplore's knowledge base takes it as a known rule (never proposed); random and ga
  /// ignore it (baselines).
  std::function<std::optional<Outcome>(const Config&)> static_check;
  /// Outcomes learned elsewhere that hold here too: the failures of the kernel's other problem
  /// sizes that do not depend on the size (sizes.hpp size_independent). adaexplore's knowledge
  /// base observes them before the first proposal (they are not evaluations of this tuning and
  /// never count against its budget); random and ga ignore them (baselines).
  std::vector<Outcome> prior;
  /// Behavioural features of a configuration (features.hpp): the spec's launch shape, the sizes'
  /// names and the device; null or undeclared: none (adaexplore then takes its "launch" option, if
  /// any). adaexplore's surrogate learns on them; random and ga ignore them.
  std::shared_ptr<const FeatureMap> features;
  /// The size being tuned, one value per FeatureContext::size_names; empty: none.
  std::vector<long long> size;
  /// Other sizes' evaluations of the same kernel, each with its size (one value per size name),
  /// and other GPUs' (`device` names the GPU; empty: the GPU being tuned): adaexplore's
  /// performance model fits on them too (performance_model.hpp) and predicts where this tuning
  /// starts (Strategy::predicted_start). Not evaluations of this tuning.
  struct SizedOutcome {
    Outcome outcome;
    std::vector<long long> size;
    std::string device;
  };
  std::vector<SizedOutcome> transfer;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::vector<Config> propose(std::size_t count) = 0;
  virtual void observe(const Outcome& outcome) = 0;
  /// What the strategy's model believed of `config` when it proposed it: a JSON object
  /// ({"predicted_ms", "interval_ms": [low, high], "p_fail"}, see strategy_adaexplore.cpp), recorded
  /// in the outcome's extra.model; null when it has no model or did not propose `config`.
  virtual nlohmann::json belief(const Config& /*config*/) const { return nullptr; }
  /// Up to `count` configurations to evaluate first at this size (or on this GPU), chosen with a
  /// model fitted on StrategyOptions::transfer (and, as the strategy decides, from `winners`: the
  /// other sizes' or GPUs' best, sizes.hpp transfer_from, warm_start.hpp); none of them in
  /// `exclude` (measured here already, or evaluated first anyway); empty when the strategy has no
  /// such model (the caller then starts from the winners).
  virtual std::vector<Config> predicted_start(std::size_t /*count*/, const std::vector<Config>& /*winners*/,
                                              const std::vector<Config>& /*exclude*/ = {}) {
    return {};
  }
};

struct StrategyInfo {
  std::string name;
  std::string description;  // one line, shown by --help and `adaexplore-tuner strategies`
  std::function<std::unique_ptr<Strategy>(const Space&, const StrategyOptions&)> make;
};

/// Every registered strategy, in the order `--help` lists them.
const std::vector<StrategyInfo>& registered_strategies();
/// Throws std::invalid_argument naming the unknown strategy and listing the registered ones.
std::unique_ptr<Strategy> make_strategy(const std::string& name, const Space& space, const StrategyOptions& options);

/// `ga`'s crossover and mutation of one child, shared with adaexplore's `evolve`: for each gene
/// (parameter index) of `genes`, in order, `other`'s value with probability 1/2, then a uniformly
/// random value of the parameter with probability `mutation_rate`.
void crossover_and_mutate(Config& child, const Config& other, const Space& space, const std::vector<std::size_t>& genes,
                          double mutation_rate, std::mt19937_64& rng);

/// Bookkeeping shared by strategies: what was seen, and uniform draws of unseen valid
/// configurations (from a seeded shuffle of the enumerated space when it is small enough to
/// enumerate, by rejection sampling otherwise).
class UnseenSampler {
 public:
  UnseenSampler(const Space& space, std::uint64_t seed);
  /// Marks a configuration as proposed or observed. Returns false if it already was.
  bool mark(const Config& c) { return seen_.insert(c).second; }
  bool seen(const Config& c) const { return seen_.count(c) != 0; }
  /// A uniformly random valid configuration not seen yet (not marked by this call).
  std::optional<Config> draw();
  /// Number of valid configurations, when the space was enumerated.
  std::optional<std::size_t> valid_count() const;
  const std::vector<Config>* enumerated() const { return enumerated_ ? &pool_ : nullptr; }
  std::mt19937_64& rng() { return rng_; }

 private:
  const Space& space_;
  std::mt19937_64 rng_;
  std::unordered_set<Config, ConfigHash> seen_;
  std::vector<Config> pool_;  // shuffled valid configurations (when enumerated)
  std::size_t next_ = 0;
  bool enumerated_ = false;
};

}  // namespace adaexplore
