// A resource figure as a product of parameter powers, y ~ c * x1^a1 * x2^a2 * ..., fitted by
// ordinary least squares in log space (log y = log c + sum a_j log x_j; Gauss's normal
// equations, centred, with a tiny ridge for parameters that move together). Only numeric
// parameters whose values are all positive and that vary among the samples take part.
//
// Exponents are then snapped to integers (or halves) when that costs little accuracy, so that
// the fit reads like the formula in the kernel ("4*TILE^2" for 4*TILE*(TILE+1) bytes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/space.hpp"

namespace adaexplore {

struct MonomialFit {
  double coefficient = 1.0;
  std::vector<double> exponents;  // one per parameter of the space; 0: not in the product
  double rms_log_error = 0;       // root mean square of log(y / fit) over the samples
  double max_log_error = 0;       // largest |log(y / fit)| over the samples
  /// The largest leave-one-out error of the least-squares fit (how far a report the fit did not
  /// see can be off), at least max_log_error; infinite when one report alone decides an exponent.
  /// How resource rules use it for configurations never compiled: resource_rules.hpp.
  double loo_max_log_error = 0;
  std::size_t samples = 0;

  double predict(const Space& space, const Config& c) const;
  /// "4*TILE^2*VEC", "0.5*N/UNROLL" (exponents -1), "6.2" (a constant figure).
  std::string describe(const Space& space) const;
  bool constant() const;
};

/// Parameters of `space` a fit can give an exponent: values all positive numbers, more than one.
std::size_t fittable_parameters(const Space& space);

/// Fits `y` (figures, > 0; other samples are skipped) over the configurations `x`. Nothing when
/// fewer than 3 samples remain.
std::optional<MonomialFit> fit_monomial(const Space& space, const std::vector<const Config*>& x,
                                        const std::vector<double>& y);

}  // namespace adaexplore
