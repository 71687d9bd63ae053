// `random`: uniform sampling of valid configurations without replacement.
#include "search/strategy.hpp"

namespace adaexplore {
namespace {

class RandomStrategy : public Strategy {
 public:
  RandomStrategy(const Space& space, const StrategyOptions& options) : sampler_(space, options.seed) {}

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    while (out.size() < count) {
      auto c = sampler_.draw();
      if (!c) break;
      sampler_.mark(*c);
      out.push_back(*c);
    }
    return out;
  }

  void observe(const Outcome& outcome) override { sampler_.mark(outcome.config); }

 private:
  UnseenSampler sampler_;
};

}  // namespace

std::unique_ptr<Strategy> make_random_strategy(const Space& space, const StrategyOptions& options) {
  return std::make_unique<RandomStrategy>(space, options);
}

}  // namespace adaexplore
