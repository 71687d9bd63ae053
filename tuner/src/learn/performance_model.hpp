// The performance model: predicts a configuration's time (log milliseconds, with an uncertainty)
// from its parameters and its behavioural features (features.hpp), fit on what was measured: the
// tuning's own evaluations and, for a size tuned after others, the other sizes' evaluations of
// the same kernel. adaexplore ranks and pre-screens its proposals with it (expected improvement
// over its prediction; its uncertainty drives exploration) and starts a later size from the
// configurations it predicts best there (docs/search-method.md, The performance model).
//
// Model: a random forest (random_forest.hpp: bagged CART regression trees, the spread of the
// trees as the uncertainty) on the input
//   [each parameter's value index / (values - 1)] ++ [alignment features, given by the caller]
//   ++ FeatureMap::model_input(config, size)   (log2 threads per block, blocks, work per thread,
//                                                waves, ...; ln of each size value)
// Failures are not its business: the knowledge base (knowledge_base.hpp) predicts them (P(fail))
// and the strategy combines both. Samples of several sizes are centred per size (each size's mean
// log time subtracted): what carries from one size to another is which configurations are fast
// relative to the others, and the behavioural features say how a configuration's shape changes
// with the size (a 128 x 128 tile that leaves SMs idle at 1024 fills them at 2048).
#pragma once

#include <random>
#include <vector>

#include "learn/features.hpp"
#include "model/space.hpp"
#include "search/random_forest.hpp"

namespace adaexplore {

class PerformanceModel {
 public:
  struct Sample {
    Config config;
    std::vector<long long> size;  // one value per size name; empty: none
    double log_ms = 0;            // ln(objective in ms)
  };

  PerformanceModel() = default;
  /// `features` may be null (indices and alignment only) and must outlive the model;
  /// `alignment[p]` is parameter p's alignment feature by value index, or empty (none).
  PerformanceModel(const Space& space, const FeatureMap* features, std::vector<std::vector<double>> alignment,
                   RandomForest::Options forest = {});

  /// The model's input row for `config` at `size` (null or empty: no size).
  std::vector<double> input(const Config& config, const std::vector<long long>* size) const;
  /// Fits on `samples` (successes only). With several sizes among them, each size's log times are
  /// centred on that size's mean (see above); `center` says whether to, also for one size.
  void fit(const std::vector<Sample>& samples, std::mt19937_64& rng, bool center = false);
  /// ln(ms) predicted (centred when fit() centred) and the trees' spread.
  RandomForest::Prediction predict(const Config& config, const std::vector<long long>* size) const;
  bool empty() const { return forest_.empty(); }

 private:
  const Space* space_ = nullptr;
  const FeatureMap* features_ = nullptr;
  std::vector<std::vector<double>> alignment_;
  RandomForest forest_;
};

}  // namespace adaexplore
