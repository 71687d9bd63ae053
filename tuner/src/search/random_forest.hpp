// A small random-forest regressor: the surrogate model of the `adaexplore` strategy.
//
// Method: bagged CART regression trees with random feature subsets at each split (Breiman,
// "Random Forests", Machine Learning 45, 2001; CART: Breiman, Friedman, Olshen and Stone,
// "Classification and Regression Trees", 1984). The spread of the trees' predictions serves as
// the uncertainty estimate, as in SMAC (Hutter, Hoos and Leyton-Brown, "Sequential Model-Based
// Optimization for General Algorithm Configuration", LION 2011).
//
// Sizes: a few hundred samples, up to ~20 features; fit is O(trees * n log n * features * depth).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace adaexplore {

class RandomForest {
 public:
  struct Options {
    int trees = 24;
    int min_leaf = 2;              // samples per leaf at least
    double feature_fraction = 0.7; // features tried per split
    int max_depth = 12;
  };

  struct Prediction {
    double mean = 0;
    double stdev = 0;  // across trees
  };

  RandomForest() = default;
  explicit RandomForest(Options options) : options_(options) {}

  /// Fits on rows `x` (all the same length) and targets `y`. Deterministic for a given rng state.
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, std::mt19937_64& rng);
  Prediction predict(const std::vector<double>& x) const;
  bool empty() const { return trees_.empty(); }

 private:
  struct Node {
    int feature = -1;      // -1: leaf
    double threshold = 0;  // go left when x[feature] <= threshold
    int left = -1, right = -1;
    double value = 0;      // leaf mean
  };
  using Tree = std::vector<Node>;

  int grow(Tree& tree, const std::vector<std::vector<double>>& x, const std::vector<double>& y,
           std::vector<int>& rows, int depth, std::mt19937_64& rng) const;
  static double predict_tree(const Tree& tree, const std::vector<double>& x);

  Options options_;
  std::vector<Tree> trees_;
};

}  // namespace adaexplore
