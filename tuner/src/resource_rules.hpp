// Resource rules: when evaluations report a resource figure (shared memory per block, registers,
// stack; observation.hpp), the figure is fitted as a product of parameter powers
// (monomial_fit.hpp) and compared with the limit, so that the failure can be predicted for
// configurations never compiled:
//
//   shared_bytes ~ 4*TILE^2 (40 reports, within 3 %); above 49152 => resource_limit
//
// The limit is the one the compiler or the static check reported ("0xc000 max") when there is
// one; otherwise the largest figure among successes. A rule is stated only when it separates
// the data: no success above the limit, and at least `min_failures` failures above it (the
// figure of a failure is the reported one when present, the fitted one otherwise), or, with no
// failure needed, a reported limit and an exact fit (within 0.1 % of every report, from at least
// 3 more reports than the space has numeric parameters): a figure the backend computes and
// reports with its limit on every outcome, as the cuda backend does for threads per block. A fit worse
// than `max_rms_log_error` (the figure is not a product of parameters) states nothing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "monomial_fit.hpp"
#include "observation.hpp"

namespace adaexplore {

struct ResourceRule {
  std::string figure;
  MonomialFit fit;
  double limit = 0;             // no success above it
  bool limit_reported = false;  // from a diagnostic or the backend, not inferred
  double fails_from = 0;        // failing figures start here (the limit itself when reported)
  Status status = Status::ok;   // the most frequent failure above the limit
  std::size_t failures_above = 0, of_status = 0, successes = 0;

  /// True when even the fit's lower bound (prediction / exp(max_log_error)) is past the failing
  /// edge: a configuration that certainly needs more than the limit.
  bool predicts_failure(const Space& space, const Config& c) const;
  std::string describe(const Space& space) const;
};

struct ResourceRuleOptions {
  std::size_t min_failures = 3;
  double max_rms_log_error = 0.1;  // about 10 %
};

std::vector<ResourceRule> learn_resource_rules(const Space& space, const std::vector<Observation>& observations,
                                               const ResourceRuleOptions& options);

}  // namespace adaexplore
