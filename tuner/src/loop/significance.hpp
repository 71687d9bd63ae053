// Whether a configuration is significantly slower than the baseline (the defaults): the decision
// behind the status `slow`. Both a statistical test on the measured samples and a practical
// margin on the medians must agree, so that neither noise (a wide spread) nor drift of a fraction
// of a percent (clock boost, temperature) between two tight measurements marks a near-tie slow.
//
// The test, one-sided (H1: the candidate's times are larger), at kSlowAlpha:
//  * Mann-Whitney U (Wilcoxon rank-sum) when both sides carry at least kMinRankSamples per-run
//    values (Timing::values_ms): U counts the pairs (candidate, baseline) where the candidate is
//    slower, ties counting 1/2. p from the normal approximation with the tie-corrected variance
//      sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))),   n = n1 + n2,
//    t the size of each group of tied values, and a continuity correction of 1/2:
//      z = (U - n1 n2 / 2 - 1/2) / sigma,   p = 1 - Phi(z)
//    (H. B. Mann and D. R. Whitney, Ann. Math. Statist. 18 (1947) 50-60; tie correction as in
//    E. L. Lehmann, "Nonparametrics: Statistical Methods Based on Ranks" (1975), eq. 1.29 — the
//    same p as scipy.stats.mannwhitneyu(alternative="greater", method="asymptotic")).
//    Rank-based: robust to the outliers of timing samples (a preempted run), no normality assumed.
//  * Welch's t-test otherwise (older results without values, or fewer samples), on the mean,
//    standard deviation and count of each side, with the Welch-Satterthwaite degrees of freedom
//    and Student's t distribution (Boost.Math). It needs at least 2 samples on each side.
// The practical margin: the candidate's median must be at least (1 + kSlowMargin) times the
// baseline's median (median_ms; the objective the tuner minimises).
#pragma once

#include <string>
#include <vector>

#include "model/outcome.hpp"

namespace adaexplore {

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> values);

/// One-sided significance level of the test.
inline constexpr double kSlowAlpha = 0.01;
/// Smallest median slowdown that counts (0.02: at least 2% slower).
inline constexpr double kSlowMargin = 0.02;
/// Per-run values needed on each side for the rank test; fewer: Welch's t-test.
inline constexpr int kMinRankSamples = 5;

enum class SlowdownTest {
  none,          ///< too little data for any test (fewer than 2 samples on a side): never slow
  mann_whitney,  ///< one-sided Mann-Whitney U, normal approximation with tie correction
  welch,         ///< one-sided Welch's t-test on mean, stdev and samples
};
const char* to_string(SlowdownTest t);

/// The evidence for one comparison of a candidate with the baseline.
struct SlowdownEvidence {
  SlowdownTest test = SlowdownTest::none;
  double statistic = 0;     ///< Mann-Whitney: z; Welch: t (positive: the candidate is slower)
  double p_value = 1;       ///< one-sided, H1: the candidate is slower
  double median_ratio = 1;  ///< candidate median_ms / baseline median_ms (1 when the baseline's is 0)
  double candidate_median_ms = 0, baseline_median_ms = 0;
  bool significant = false;  ///< p_value < kSlowAlpha
  bool slower = false;       ///< significant and median_ratio >= 1 + kSlowMargin: status `slow`

  /// "slower than the defaults: median 0.512 ms vs 0.371 ms (x1.38), Mann-Whitney p=2e-09".
  std::string describe() const;
};

/// Compares the candidate's timing with the baseline's (both in ms; see the file comment).
SlowdownEvidence compare_with_baseline(const Timing& candidate, const Timing& baseline);

/// compare_with_baseline(candidate, baseline).slower.
bool significantly_slower(const Timing& candidate, const Timing& baseline);

/// One-sided Mann-Whitney U test that `a` is stochastically larger than `b` (normal approximation,
/// tie and continuity corrected): {z, p}. p = 1 when a side is empty or every value is tied.
struct TestResult {
  double statistic = 0;
  double p_value = 1;
};
TestResult mann_whitney_greater(const std::vector<double>& a, const std::vector<double>& b);

/// One-sided Welch's t-test that mean a > mean b, from summary statistics (sample standard
/// deviations): {t, p}. p = 1 when a side has fewer than 2 samples; with both spreads 0, p is 0
/// when mean a > mean b, else 1.
TestResult welch_greater(double mean_a, double stdev_a, int n_a, double mean_b, double stdev_b, int n_b);

}  // namespace adaexplore
