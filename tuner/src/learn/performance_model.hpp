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
// and the strategy combines both.
//
// Several sizes (Scale::per_size): a size's times differ from another's by a factor that has
// nothing to do with the configuration (gemm on an H200: a typical configuration takes 0.04 ms at
// 256^3 and 1.0 ms at 2048^3), and a forest cannot extrapolate it to a size it never saw (a tree
// predicts a leaf's mean). So fit() estimates one ln-time offset per size and the forest learns
// what is left: which configurations are fast relative to the others, with the behavioural
// features saying how a configuration's shape changes with the size (a 128 x 128 tile that leaves
// SMs idle at 1024 fills them at 2048). predict() adds the offset of the size asked for back, so
// its predictions are absolute ln(ms) at that size:
//   - a size among the samples (the size being tuned, once the tuning has evaluations there): its
//     offset as fitted. The offsets are the size effects of a two-way additive fit
//     ln t(c, s) = offset(s) + effect(c) over the configurations measured at several sizes (least
//     squares, by alternating means), so the offset of a size is set by how the configurations it
//     shares with the others compare with them, not by which configurations each size happened to
//     sample (a size's mean would be: a search samples good configurations at a later size). A
//     size that shares no configuration with the others keeps its mean.
//   - another size: interpolated or extrapolated in ln(volume) (volume: the product of the size's
//     values) from the two fitted sizes nearest in ln(volume), the slope clamped to [0, 1] (a time
//     neither falls as the problem grows nor grows faster than its volume; measured on the H200
//     from size to size, gemm 0.28, 0.40, 0.85 and vector_add 0.29, 0.60, 0.81); with one fitted
//     volume, slope 1 (the throughput-bound limit; it overestimates latency-bound sizes). This
//     offset only scales what is reported (it is the same for every configuration at that size,
//     so it does not change how they rank).
// Other GPUs (Sample::device > 0: the kernel's records on another GPU, from the tuning database)
// are groups of their own in the same additive fit: a GPU's times differ from another's by a
// factor too (an A4000 takes about twice an A100's time on most convolution configurations), and
// what carries is which configurations are fast relative to the others. predict() is always for
// the GPU being tuned (device 0); before it has samples there, its offset is the nearest group's
// in ln(volume) (an equal volume on another GPU: that GPU's offset), as above.
#pragma once

#include <map>
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
    int device = 0;               // 0: the GPU being tuned; 1, 2, ...: other GPUs (their records)
  };

  PerformanceModel() = default;
  /// `features` may be null (indices and alignment only) and must outlive the model;
  /// `alignment[p]` is parameter p's alignment feature by value index, or empty (none).
  PerformanceModel(const Space& space, const FeatureMap* features, std::vector<std::vector<double>> alignment,
                   RandomForest::Options forest = {});

  /// The model's input row for `config` at `size` (null or empty: no size).
  std::vector<double> input(const Config& config, const std::vector<long long>* size) const;
  /// How fit() puts the samples' ln times on one scale.
  enum class Scale {
    absolute,  // as they are: the samples are of one size, or already on one size's scale
    per_size,  // per-size offsets fitted and added back by predict() (see above)
  };
  /// Fits on `samples` (successes only).
  void fit(const std::vector<Sample>& samples, std::mt19937_64& rng, Scale scale = Scale::absolute);
  /// Predicted ln(ms) of `config` at `size` (null or empty: no size) and the trees' spread; with
  /// Scale::per_size the offset of `size` is added (offset()).
  RandomForest::Prediction predict(const Config& config, const std::vector<long long>* size) const;
  /// The ln(ms) offset predict() adds at `size` (0 after a Scale::absolute fit).
  double offset(const std::vector<long long>* size) const;
  /// True when a Scale::per_size fit had samples of `size` (its offset is fitted, not scaled).
  bool fitted_size(const std::vector<long long>* size) const;
  bool empty() const { return forest_.empty(); }

 private:
  const Space* space_ = nullptr;
  const FeatureMap* features_ = nullptr;
  std::vector<std::vector<double>> alignment_;
  RandomForest forest_;
  /// A group of samples with one ln-time offset: (device, size).
  using Group = std::pair<int, std::vector<long long>>;
  std::map<Group, double> offsets_;  // per_size: each fitted group's ln-time offset
};

}  // namespace adaexplore
