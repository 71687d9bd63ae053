// `ga`: a plain elitist genetic algorithm, the baseline the AdaExplore search is measured
// against. Generational; tournament selection (size 2), uniform crossover, per-gene mutation
// with probability 1/dimension to a random value, the best `elites` carried over unchanged.
// Failed configurations have infinite objective. Children that violate a constraint or were
// already evaluated are re-drawn a few times, then replaced by a random unseen configuration.
// Options: population (default 20), elites (2), mutation_rate (1/dimension).
#include <algorithm>
#include <numeric>
#include <limits>

#include "search/strategy.hpp"

namespace adaexplore {
namespace {

std::size_t count_option(const nlohmann::json& options, const char* key, std::size_t fallback) {
  if (!options.contains(key)) return fallback;
  if (!options[key].is_number_integer() || options[key].get<long long>() < 0)
    throw std::invalid_argument(std::string("ga: option ") + key + " must be a non-negative integer, not " +
                                options[key].dump());
  return options[key].get<std::size_t>();
}

struct Member {
  Config config;
  double fitness = std::numeric_limits<double>::infinity();  // objective (ms); lower is better
};

class GeneticStrategy : public Strategy {
 public:
  GeneticStrategy(const Space& space, const StrategyOptions& options)
      : space_(space), sampler_(space, options.seed) {
    population_size_ = count_option(options.options, "population", 20);
    elites_ = count_option(options.options, "elites", 2);
    mutation_rate_ = 1.0 / static_cast<double>(std::max<std::size_t>(1, space.dimension()));
    if (options.options.contains("mutation_rate")) {
      const auto& rate = options.options["mutation_rate"];
      if (!rate.is_number() || rate.get<double>() < 0 || rate.get<double>() > 1)
        throw std::invalid_argument("ga: option mutation_rate must be a number in [0, 1], not " + rate.dump());
      mutation_rate_ = rate.get<double>();
    }
    if (population_size_ < 2) throw std::invalid_argument("ga: option population must be at least 2");
    if (elites_ >= population_size_) throw std::invalid_argument("ga: option elites must be below population");
    genes_.resize(space.dimension());
    std::iota(genes_.begin(), genes_.end(), std::size_t{0});
  }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    while (out.size() < count) {
      if (queue_.empty() && !breed()) break;
      Config c = std::move(queue_.back());
      queue_.pop_back();
      if (!observed_.count(c)) out.push_back(std::move(c));  // else observed since it was bred (resumed results)
    }
    return out;
  }

  void observe(const Outcome& outcome) override {
    sampler_.mark(outcome.config);
    observed_.insert(outcome.config);
    Member m{outcome.config, outcome.objective && is_success(outcome.status) ? *outcome.objective
                                                                              : std::numeric_limits<double>::infinity()};
    archive_.push_back(m);
  }

 private:
  // Produces the next generation into queue_. Returns false when nothing new can be made.
  bool breed() {
    std::vector<Config> next;
    if (archive_.size() < population_size_) {
      // The first generation is random; the baseline and resumed outcomes are part of it.
      while (archive_.size() + next.size() < population_size_) {
        auto c = sampler_.draw();
        if (!c) break;
        sampler_.mark(*c);
        next.push_back(*c);
      }
    } else {
      std::vector<Member> parents = current_population();
      while (next.size() + std::min(elites_, parents.size()) < population_size_) {
        auto child = make_child(parents);
        if (!child) break;
        sampler_.mark(*child);
        next.push_back(*child);
      }
    }
    std::reverse(next.begin(), next.end());  // queue_ pops from the back: keep breeding order
    queue_ = std::move(next);
    return !queue_.empty();
  }

  // The best population_size_ members observed so far (elitism: the best survive).
  std::vector<Member> current_population() const {
    std::vector<Member> all = archive_;
    std::stable_sort(all.begin(), all.end(), [](const Member& a, const Member& b) { return a.fitness < b.fitness; });
    if (all.size() > population_size_) all.resize(population_size_);
    return all;
  }

  const Member& tournament(const std::vector<Member>& pop) {
    std::uniform_int_distribution<std::size_t> pick(0, pop.size() - 1);
    const Member& a = pop[pick(sampler_.rng())];
    const Member& b = pop[pick(sampler_.rng())];
    return a.fitness <= b.fitness ? a : b;
  }

  std::optional<Config> make_child(const std::vector<Member>& pop) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      const Member& a = tournament(pop);
      const Member& b = tournament(pop);
      Config child = a.config;
      crossover_and_mutate(child, b.config, space_, genes_, mutation_rate_, sampler_.rng());
      if (!sampler_.seen(child) && space_.satisfies(child)) return child;
    }
    return sampler_.draw();
  }

  const Space& space_;
  UnseenSampler sampler_;
  std::size_t population_size_ = 20, elites_ = 2;
  double mutation_rate_ = 0.1;
  std::vector<std::size_t> genes_;  // every parameter, in order
  std::vector<Member> archive_;
  std::unordered_set<Config, ConfigHash> observed_;
  std::vector<Config> queue_;
};

}  // namespace

std::unique_ptr<Strategy> make_ga_strategy(const Space& space, const StrategyOptions& options) {
  return std::make_unique<GeneticStrategy>(space, options);
}

}  // namespace adaexplore
