#include "loop/significance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include <boost/math/distributions/students_t.hpp>

namespace adaexplore {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
namespace {

// 1 - Phi(z), the upper tail of the standard normal distribution.
double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// "2e-09" -> "2e-9"; 2 significant digits.
std::string p_text(double p) {
  // The normal approximation says nothing useful this far out (and erfc underflows to 0).
  if (p < 1e-12) return "<1e-12";
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", p);
  std::string s = text;
  for (const char* zero : {"e-0", "e+0"})
    if (const auto at = s.find(zero); at != std::string::npos) s.erase(at + 2, 1);
  return s;
}

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g ms", ms);
  return text;
}

}  // namespace

const char* to_string(SlowdownTest t) {
  switch (t) {
    case SlowdownTest::none: return "none";
    case SlowdownTest::mann_whitney: return "Mann-Whitney";
    case SlowdownTest::welch: return "Welch t-test";
  }
  return "?";
}

TestResult mann_whitney_greater(const std::vector<double>& a, const std::vector<double>& b) {
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return {};
  // Pool the samples (value, from a?), sort, give each group of ties its average rank.
  std::vector<std::pair<double, bool>> pooled;
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_a += average_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double n = n1 + n2;
  const double u = rank_sum_a - n1 * (n1 + 1) / 2.0;  // pairs where a is larger, ties 1/2
  const double variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return {};  // every value tied: no evidence either way
  const double z = (u - n1 * n2 / 2.0 - 0.5) / std::sqrt(variance);
  return {z, normal_upper_tail(z)};
}

TestResult welch_greater(double mean_a, double stdev_a, int n_a, double mean_b, double stdev_b, int n_b) {
  if (n_a < 2 || n_b < 2) return {};
  const double va = stdev_a * stdev_a / n_a, vb = stdev_b * stdev_b / n_b;
  const double se = std::sqrt(va + vb);
  if (!(se > 0)) {
    if (mean_a > mean_b) return {std::numeric_limits<double>::infinity(), 0.0};
    return {mean_a < mean_b ? -std::numeric_limits<double>::infinity() : 0.0, 1.0};
  }
  const double t = (mean_a - mean_b) / se;
  const double df = (va + vb) * (va + vb) / (va * va / (n_a - 1) + vb * vb / (n_b - 1));
  const boost::math::students_t distribution(df);
  return {t, boost::math::cdf(boost::math::complement(distribution, t))};
}

SlowdownEvidence compare_with_baseline(const Timing& candidate, const Timing& baseline) {
  SlowdownEvidence e;
  e.candidate_median_ms = candidate.median_ms;
  e.baseline_median_ms = baseline.median_ms;
  e.median_ratio = baseline.median_ms > 0 ? candidate.median_ms / baseline.median_ms : 1.0;
  TestResult r;
  if (static_cast<int>(candidate.values_ms.size()) >= kMinRankSamples &&
      static_cast<int>(baseline.values_ms.size()) >= kMinRankSamples) {
    e.test = SlowdownTest::mann_whitney;
    r = mann_whitney_greater(candidate.values_ms, baseline.values_ms);
  } else if (candidate.samples >= 2 && baseline.samples >= 2) {
    e.test = SlowdownTest::welch;
    r = welch_greater(candidate.mean_ms, candidate.stdev_ms, candidate.samples, baseline.mean_ms,
                      baseline.stdev_ms, baseline.samples);
  }
  e.statistic = r.statistic;
  e.p_value = r.p_value;
  e.significant = e.test != SlowdownTest::none && e.p_value < kSlowAlpha;
  e.slower = e.significant && e.median_ratio >= 1.0 + kSlowMargin;
  return e;
}

bool significantly_slower(const Timing& candidate, const Timing& baseline) {
  return compare_with_baseline(candidate, baseline).slower;
}

std::string SlowdownEvidence::describe() const {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "x%.2f", median_ratio);
  std::string text = std::string(slower ? "slower" : "not significantly slower") + " than the defaults: median " +
                     ms_text(candidate_median_ms) + " vs " + ms_text(baseline_median_ms) + " (" + ratio + "), ";
  if (test == SlowdownTest::none) return text + "no test (fewer than 2 samples on a side)";
  return text + to_string(test) + " p" + (p_value < 1e-12 ? std::string() : std::string("=")) + p_text(p_value);
}

}  // namespace adaexplore
