// A smooth feasibility model for the knowledge base: Bayesian logistic regression of "fails"
// on the parameter values, so that a value (or a size) that failed 3 times in 3 is ranked down
// strongly long before a hard rule is significant, and so that a boundary along a product of
// parameters, which no single value and no axis-aligned split of a shallow tree captures, is
// learned from a few failures.
//
// Method: logistic regression, log-odds(fail) = w0 + sum_j w_j x_j, with a Gaussian prior
// N(0, prior_sd^2) on each w_j (on w0 a weak N(0, 10^2), only to keep the Newton system
// definite): the maximum a-posteriori fit is L2-regularised
// logistic regression, fitted by Newton's method (iteratively reweighted least squares),
// Bishop, "Pattern Recognition and Machine Learning" (2006), sections 4.3.2-4.3.3 and 4.5.
// The prior is what makes small counts usable: with no data a weight is 0 (the overall rate),
// the evidence moves it as far as it outweighs the prior, and a value that always failed (a
// perfect separation, where plain maximum likelihood diverges) gets a finite weight that grows
// with its failures.
//
// Features x_j of a configuration (from the space; none is learned):
//   - one indicator per value of every parameter with two or more values (value rules, pairs
//     of values add up in the log-odds);
//   - for every numeric parameter whose values are all positive and not all equal,
//     log2(value), centred on the middle of its range and divided by the range's width: a sum
//     a1 log v1 + a2 log v2 + ... is the log of a monomial v1^a1 v2^a2 ..., so "fails when
//     (block_size_x*tile_size_x)*(block_size_y*tile_size_y) is large" is one linear boundary in
//     these features (the same device that makes the resource rules' monomial fits linear,
//     monomial_fit.hpp).
//
// Cost: O(iterations * (n * d^2 + f^3)) per fit for n observations of d parameters and f
// features (a row has d to 2d non-zero features); about 5 ms for 400 observations of 15
// parameters of 6 values (f = 106), typically 6 to 10 Newton steps; a query is O(parameters).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

class FailureModel {
 public:
  struct Options {
    double prior_sd = 3.0;     // standard deviation of the Gaussian prior of a weight (log-odds)
    int iterations = 25;       // Newton steps at most
    double tolerance = 1e-6;   // stop when no weight moves by more than this
    std::size_t min_samples = 4;  // fewer observations: no fit, failure_probability() = the smoothed rate
  };

  /// Fits on the configurations `x` of `space` with statuses `y` (same length); a failure is any
  /// status for which is_success() is false.
  void fit(const Space& space, const std::vector<const Config*>& x, const std::vector<Status>& y, Options options);
  void fit(const Space& space, const std::vector<const Config*>& x, const std::vector<Status>& y) {
    fit(space, x, y, Options{});
  }

  /// P(fail) of `c` in (0, 1): the fitted logistic model; before a fit, or with fewer than
  /// min_samples observations, the Laplace-smoothed overall failure rate (1/2 with no data).
  double failure_probability(const Config& c) const;
  /// P(fail) of `c` were its value of `parameter` an ordinary one: the model without that value's
  /// indicator weight. Its size term is kept: a value at the end of a trend along the parameter
  /// (pnpoly's block_size_x=992, where large blocks with large tiles fail) is explained by the
  /// trend; removing the whole parameter let "block_size_x=992 always fails" through on a
  /// benchmark trace, where 992 succeeds with small tiles. The null model of the knowledge
  /// base's value and threshold rules (learned_rules.hpp (a)).
  double failure_probability_without_value(const Config& c, std::size_t parameter) const;
  bool fitted() const { return fitted_; }

  /// The features that raise P(fail) most, as "TILE=2048 +2.3" (value indicators) or
  /// "log2 TILE +1.8" (sizes), largest log-odds weight first, those above `min_weight` only.
  std::vector<std::string> describe(const Space& space, double min_weight, std::size_t at_most) const;

 private:
  struct Feature {
    std::size_t parameter = 0;
    int value = -1;            // indicator of this value index; -1: the scaled log2 of the value
    double centre = 0, scale = 1;
  };
  void features(const Space& space, const Config& c, std::vector<double>& x) const;  // x[0] = 1 (intercept)

  std::vector<Feature> features_;
  std::vector<double> w_;                   // per feature, intercept first
  std::vector<std::vector<double>> table_;      // per parameter and value index: its log-odds contribution
  std::vector<std::vector<double>> indicator_;  // per parameter and value index: its indicator's weight
  double base_rate_ = 0.5;
  bool fitted_ = false;
};

}  // namespace adaexplore
