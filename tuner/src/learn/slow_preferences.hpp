// Soft preferences from `slow` outcomes (successes significantly slower than the baseline):
// parameter values where successes were slow more often than elsewhere get a sampling weight
// below 1. Never a constraint: the weight has a floor above 0.
//
// A value counts as slow when its successes were slow significantly more often than all
// successes together: a one-sided binomial test (normal approximation, z >= 2, about 98 %) of
// its slow count against the overall slow rate p0, with at least two slow outcomes. It then
// weighs (1 - r) / (1 - r0), with r and r0 the Laplace-smoothed slow rates (k + 1) / (n + 2) of
// the value and of all successes; a configuration weighs the smallest weight of its values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "learn/observation.hpp"

namespace adaexplore {

class SlowPreferences {
 public:
  void learn(const Space& space, const std::vector<Observation>& observations, double floor);
  /// In [floor, 1]; 1 where nothing is known.
  double weight(const Config& c) const;
  /// "sample less where VEC=1: 9 of 10 successes slow (weight 0.17)", lightest first.
  std::vector<std::string> describe(const Space& space) const;

 private:
  struct Entry {
    std::size_t parameter = 0;
    std::uint16_t value = 0;
    std::size_t slow = 0, successes = 0;
    double weight = 1;
  };
  std::vector<std::vector<double>> weights_;  // [parameter][value]
  std::vector<Entry> entries_;                // the values weighing less than 1
};

}  // namespace adaexplore
