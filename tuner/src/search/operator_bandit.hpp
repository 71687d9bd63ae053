// A discounted UCB1 bandit over the search operators of the `adaexplore` strategy: it learns
// which operator currently produces good configurations and shifts proposals towards it, as
// OpenTuner's AUC bandit does over techniques (Ansel et al., "OpenTuner: An Extensible Framework
// for Program Autotuning", PACT 2014). Discounting (Garivier and Moulines, "On Upper-Confidence
// Bound Policies for Switching Bandit Problems", ALT 2011) lets the mix follow a search whose
// best operator changes (exploration early, local refinement late).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace adaexplore {

class OperatorBandit {
 public:
  /// `arms` operator names; `discount` in (0, 1]: weight kept by older rewards per pull.
  OperatorBandit(std::vector<std::string> arms, double discount = 0.95, double exploration = 0.5)
      : names_(std::move(arms)), pulls_(names_.size(), 0.0), rewards_(names_.size(), 0.0),
        discount_(discount), exploration_(exploration) {}

  /// The arm with the highest upper confidence bound plus `bonus[arm]` (may be empty); arms
  /// never credited come first, in order.
  std::size_t choose(const std::vector<double>& bonus = {}) const {
    double total = 0;
    for (double n : pulls_) total += n;
    std::size_t best = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < names_.size(); ++a) {
      if (pulls_[a] <= 0) return a;
      const double mean = rewards_[a] / pulls_[a];
      double score = mean + exploration_ * std::sqrt(std::log(std::max(total, 1.0)) / pulls_[a]);
      if (a < bonus.size()) score += bonus[a];
      if (score > best_score) {
        best_score = score;
        best = a;
      }
    }
    return best;
  }

  /// Credits `reward` in [0, 1] to `arm`; every arm's history is discounted first.
  void credit(std::size_t arm, double reward) {
    for (std::size_t a = 0; a < names_.size(); ++a) {
      pulls_[a] *= discount_;
      rewards_[a] *= discount_;
    }
    pulls_[arm] += 1;
    rewards_[arm] += reward;
  }

  const std::string& name(std::size_t arm) const { return names_[arm]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<double> pulls_, rewards_;
  double discount_, exploration_;
};

}  // namespace adaexplore
