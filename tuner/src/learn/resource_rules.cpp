#include "learn/resource_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "learn/rule_text.hpp"

namespace adaexplore {
namespace {

// A fit within 0.1 % of every report left out of it: the figure is a product of parameter powers.
constexpr double kExactLogError = 1e-3;

std::set<std::string> figure_names(const std::vector<Observation>& observations) {
  std::set<std::string> names;
  for (const auto& o : observations)
    for (const auto& f : o.figures) names.insert(f.first);
  return names;
}

// The smallest limit reported for the figure, if any evaluation reported one.
std::optional<double> reported_limit(const std::string& name, const std::vector<Observation>& observations) {
  std::optional<double> limit;
  for (const auto& o : observations) {
    auto it = o.limits.find(name);
    if (it != o.limits.end() && it->second > 0) limit = std::min(limit.value_or(it->second), it->second);
  }
  return limit;
}

std::optional<MonomialFit> fit_figure(const Space& space, const std::string& name,
                                      const std::vector<Observation>& observations) {
  std::vector<const Config*> x;
  std::vector<double> y;
  for (const auto& o : observations) {
    auto it = o.figures.find(name);
    if (it == o.figures.end()) continue;
    x.push_back(&o.config);
    y.push_back(it->second);
  }
  return fit_monomial(space, x, y);
}

// Sets limit, fails_from and the counts; false when the figure does not separate the data.
bool separate(const Space& space, const std::vector<Observation>& observations, std::optional<double> reported,
              std::size_t min_failures, ResourceRule& rule) {
  auto figure = [&](const Observation& o) {
    auto it = o.figures.find(rule.figure);
    return it != o.figures.end() ? it->second : rule.fit.predict(space, o.config);
  };
  double success_max = -std::numeric_limits<double>::infinity();
  for (const auto& o : observations)
    if (is_success(o.status)) {
      success_max = std::max(success_max, figure(o));
      ++rule.successes;
    }
  rule.limit_reported = reported.has_value();
  rule.limit = reported.value_or(success_max);
  if (success_max > rule.limit || !std::isfinite(rule.limit)) return false;
  std::array<std::size_t, std::size(kAllStatuses)> above{};
  rule.fails_from = std::numeric_limits<double>::infinity();
  for (const auto& o : observations) {
    if (is_success(o.status) || !(figure(o) > rule.limit)) continue;
    ++above[static_cast<std::size_t>(o.status)];
    ++rule.failures_above;
    rule.fails_from = std::min(rule.fails_from, figure(o));
  }
  if (rule.limit_reported) rule.fails_from = rule.limit;
  const auto most = std::max_element(above.begin(), above.end());
  rule.status = kAllStatuses[most - above.begin()];
  rule.of_status = *most;
  if (rule.failures_above >= min_failures) return true;
  // A figure the backend computes exactly and states with the device's limit on every outcome
  // (threads per block from the launch expression) needs no failure to be believed: an exact fit
  // from successes and the reported limit say where the limit is met, and past it the backend's
  // own check answers resource_limit.
  if (rule.limit_reported && rule.fit.loo_max_log_error <= kExactLogError) {
    if (rule.failures_above == 0) rule.status = Status::resource_limit;
    return true;
  }
  return false;
}

}  // namespace

bool ResourceRule::predicts_failure(const Space& space, const Config& c) const {
  // Twice the largest leave-one-out error: a fit that is not exact (shared memory 4*S*K*(M+N) is
  // no product of powers) errs most at the corners of the space, farther than any report left out
  // of it showed (tests: FailureLearning.HardRulesAreSoundOnTheRecordedGemmSpace).
  const double lower = fit.predict(space, c) * std::exp(-2.0 * fit.loo_max_log_error);
  return limit_reported ? lower > limit : lower >= fails_from;
}

bool ResourceRule::suggests_failure(const Space& space, const Config& c) const {
  const double lower = fit.predict(space, c) * std::exp(-fit.loo_max_log_error);
  return limit_reported ? lower > limit : lower >= fails_from;
}

std::string ResourceRule::describe(const Space& space) const {
  const double within = 100.0 * (std::exp(fit.loo_max_log_error) - 1.0);
  return figure + " ~ " + fit.describe(space) + " (fitted on " + std::to_string(fit.samples) + " reports, within " +
         format_number(within, 2) + " %): " + figure + " > " + format_number(limit, 8) +
         (limit_reported ? " (the reported limit)" : " (the largest among successes)") + " => " + to_string(status) +
         " (" + std::to_string(failures_above) + " evaluations above it, all failed, " + std::to_string(of_status) +
         " " + to_string(status) + "; none of the " + std::to_string(successes) + " successes)";
}

std::vector<ResourceRule> learn_resource_rules(const Space& space, const std::vector<Observation>& observations,
                                               const ResourceRuleOptions& options) {
  std::vector<ResourceRule> rules;
  for (const auto& name : figure_names(observations)) {
    auto fit = fit_figure(space, name, observations);
    // A fit is believed only with reports to spare (twice as many as it has unknowns) and when a
    // report left out of it is still predicted within max_loo_log_error: a product of parameter
    // powers through 6 reports of 6 parameters fits anything, stack_bytes included, which no limit
    // governs here (tests: FailureLearning.HardRulesAreSoundOnTheRecordedGemmSpace).
    if (!fit || fit->constant() || fit->rms_log_error > options.max_rms_log_error ||
        fit->samples < 2 * (fittable_parameters(space) + 1) || fit->loo_max_log_error > options.max_loo_log_error)
      continue;
    ResourceRule rule;
    rule.figure = name;
    rule.fit = *fit;
    if (separate(space, observations, reported_limit(name, observations), options.min_failures, rule))
      rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace adaexplore
