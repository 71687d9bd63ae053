#include "search/strategy.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace adaexplore {

std::unique_ptr<Strategy> make_random_strategy(const Space&, const StrategyOptions&);
std::unique_ptr<Strategy> make_ga_strategy(const Space&, const StrategyOptions&);
std::unique_ptr<Strategy> make_adaexplore_strategy(const Space&, const StrategyOptions&);

const std::vector<StrategyInfo>& registered_strategies() {
  static const std::vector<StrategyInfo> table = {
      {"random", "uniform sampling of valid configurations without repeats", make_random_strategy},
      {"ga", "plain elitist genetic algorithm (tournament selection, uniform crossover, mutation)", make_ga_strategy},
      {"adaexplore", "failure-driven, diversity-preserving search: space-filling start, niche elites, "
                     "operator bandit, random-forest surrogate, knowledge-base filtering and boundary probes",
       make_adaexplore_strategy},
  };
  return table;
}

void crossover_and_mutate(Config& child, const Config& other, const Space& space, const std::vector<std::size_t>& genes,
                          double mutation_rate, std::mt19937_64& rng) {
  std::bernoulli_distribution coin(0.5), mutate(mutation_rate);
  for (std::size_t p : genes) {
    if (coin(rng)) child[p] = other[p];
    if (mutate(rng)) {
      std::uniform_int_distribution<std::size_t> v(0, space.parameters()[p].values.size() - 1);
      child[p] = static_cast<std::uint16_t>(v(rng));
    }
  }
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const Space& space, const StrategyOptions& options) {
  std::string known;
  for (const auto& s : registered_strategies()) {
    if (s.name == name) return s.make(space, options);
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("unknown strategy '" + name + "' (registered: " + known + ")");
}

// Spaces up to this many Cartesian configurations are enumerated once (fast exact uniform
// sampling); larger ones are sampled by rejection.
constexpr double kEnumerationLimit = 4e6;

UnseenSampler::UnseenSampler(const Space& space, std::uint64_t seed) : space_(space), rng_(seed) {
  if (space.cartesian_size() <= kEnumerationLimit) {
    pool_ = space.enumerate_valid(kEnumerationLimit);
    std::shuffle(pool_.begin(), pool_.end(), rng_);
    enumerated_ = true;
  }
}

std::optional<std::size_t> UnseenSampler::valid_count() const {
  if (!enumerated_) return std::nullopt;
  return pool_.size();
}

std::optional<Config> UnseenSampler::draw() {
  if (enumerated_) {
    while (next_ < pool_.size()) {
      const Config& c = pool_[next_++];
      if (!seen(c)) return c;
    }
    return std::nullopt;
  }
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto c = space_.sample_valid(rng_);
    if (!c) return std::nullopt;
    if (!seen(*c)) return c;
  }
  return std::nullopt;
}

}  // namespace adaexplore
