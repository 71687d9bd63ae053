// The feasibility model of the knowledge base: a classification tree over parameter value
// indices that predicts whether an unseen configuration fails, and how.
//
// Method: CART (Breiman, Friedman, Olshen and Stone, "Classification and Regression Trees",
// 1984): binary splits chosen greedily by the largest decrease of Gini impurity of the
// fail/success label; an ordinal split sends `index <= threshold` left (thresholds halfway
// between observed indices), a categorical parameter (text values) also gets `index == v`
// splits. Growth stops at `max_depth`, at pure nodes, and below `min_split` samples; no pruning
// (the tree is refitted from scratch every batch and stays small).
//
// Leaf probabilities are Laplace-smoothed toward the overall failure rate of the training data,
// itself smoothed, p0 = (F + 1) / (N + 2): P(fail) = (failures + 2 p0) / (samples + 2), the m-estimate of Cestnik
// ("Estimating probabilities: a crucial task in machine learning", ECAI 1990) with m = 2, which is Laplace's rule of
// succession (failures + 1) / (samples + 2) when p0 = 1/2. A leaf of one failure in a space where 5 % fail says 0.37,
// not 0.67; an empty tree says 1/2.
//
// Cost: O(depth * parameters * samples * log samples) per fit: about a millisecond for 400
// samples of 15 parameters.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

class DecisionTree {
 public:
  struct Options {
    int max_depth = 8;
    std::size_t min_split = 4;  // a node with fewer samples is a leaf
    std::size_t min_leaf = 1;   // samples each side of a split at least
  };

  /// What a leaf (or any node) holds: its samples' statuses.
  struct Counts {
    std::array<std::size_t, std::size(kAllStatuses)> by_status{};
    std::size_t samples = 0, failures = 0;
    double prior = 0.5;                  // the overall failure rate of the training data
    double failure_probability() const;  // smoothed toward the prior
    /// The most frequent status among failures (when `failing`) or successes; ties go to the
    /// status listed first in kAllStatuses. Status::ok when the node has none of that kind.
    Status majority(bool failing) const;
  };

  /// Fits on the configurations `x` of `space` with statuses `y` (same length).
  void fit(const Space& space, const std::vector<const Config*>& x, const std::vector<Status>& y, Options options);
  void fit(const Space& space, const std::vector<const Config*>& x, const std::vector<Status>& y) {
    fit(space, x, y, Options{});
  }

  /// The leaf `c` falls into; an unfitted tree answers with empty counts (P(fail) = 0.5).
  const Counts& leaf(const Config& c) const;
  std::size_t leaves() const;

  /// One line per leaf with P(fail) >= `min_probability`: the path as conditions on values, the
  /// counts and the probability ("TILE >= 64 and VEC <= 2: 9 of 10 failed (resource_limit 9),
  /// P(fail) 0.83"), most probable first.
  std::vector<std::string> describe_failing_leaves(const Space& space, double min_probability) const;

 private:
  struct Node {
    int parameter = -1;     // -1: leaf
    bool equality = false;  // categorical split: index == threshold goes left
    double threshold = 0;   // ordinal split: index <= threshold goes left
    int left = -1, right = -1;
    Counts counts;
  };
  struct Split;
  struct Path;  // the conditions on the way from the root to a node

  int grow(std::vector<std::size_t>& rows, int depth);
  Split best_split(const std::vector<std::size_t>& rows) const;
  bool goes_left(const Node& n, const Config& c) const;
  void collect_leaves(const Space& space, int node, Path path, double min_probability,
                      std::vector<std::pair<double, std::string>>& out) const;
  static std::string render(const Space& space, const Path& path);

  std::vector<Node> nodes_;
  Options options_;
  double prior_ = 0.5;
  // Training data, valid during fit() only.
  const Space* space_ = nullptr;
  const std::vector<const Config*>* x_ = nullptr;
  const std::vector<Status>* y_ = nullptr;
};

}  // namespace adaexplore
