// Resource rules: when evaluations report a resource figure (shared memory per block, registers,
// stack; observation.hpp), the figure is fitted as a product of parameter powers
// (monomial_fit.hpp) and compared with the limit, so that the failure can be predicted for
// configurations never compiled:
//
//   shared_bytes ~ 4*TILE^2 (fitted on 40 reports, within 3 %); above 49152 => resource_limit
//   ("within": the largest leave-one-out error, how far a report the fit did not see was off)
//
// The limit is the one the compiler or the static check reported ("0xc000 max") when there is
// one; otherwise the largest figure among successes. A rule is stated only when it separates
// the data: no success above the limit, and at least `min_failures` failures above it (the
// figure of a failure is the reported one when present, the fitted one otherwise), or, with no
// failure needed, a reported limit and an exact fit (within 0.1 % of every report left out of the
// fit; the status resource_limit when no failure is above it yet): a figure the backend computes and
// reports with its limit on every outcome, as the cuda backend does for threads per block. A fit worse
// than `max_rms_log_error` (the figure is not a product of parameters), from fewer than twice as
// many reports as it can have unknowns (the space's parameters whose values are all positive
// numbers, more than one, + 1 for the coefficient), or whose leave-one-out error exceeds
// `max_loo_log_error` (it would not predict a configuration it never saw) states nothing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "learn/monomial_fit.hpp"
#include "learn/observation.hpp"

namespace adaexplore {

struct ResourceRule {
  std::string figure;
  MonomialFit fit;
  double limit = 0;             // no success above it
  bool limit_reported = false;  // from a diagnostic or the backend, not inferred
  double fails_from = 0;        // failing figures start here (the limit itself when reported)
  Status status = Status::ok;   // the most frequent failure above the limit
  std::size_t failures_above = 0, of_status = 0, successes = 0;

  /// True when even the fit's lower bound (prediction / exp(2 x loo_max_log_error), twice the
  /// largest leave-one-out error: how far off a configuration the fit never saw can be) is past the failing
  /// edge: a configuration that certainly needs more than the limit.
  bool predicts_failure(const Space& space, const Config& c) const;
  /// The weaker reading: the prediction / exp(loo_max_log_error) is past the failing edge. Not a
  /// hard verdict (an inexact fit errs farther at the corners of the space than any report left
  /// out of it showed); the knowledge base ranks such a configuration down instead.
  bool suggests_failure(const Space& space, const Config& c) const;
  std::string describe(const Space& space) const;
};

struct ResourceRuleOptions {
  std::size_t min_failures = 3;
  double max_rms_log_error = 0.1;  // about 10 %
  double max_loo_log_error = 0.4;  // about 50 %: the largest leave-one-out error (MonomialFit)
};

std::vector<ResourceRule> learn_resource_rules(const Space& space, const std::vector<Observation>& observations,
                                               const ResourceRuleOptions& options);

}  // namespace adaexplore
