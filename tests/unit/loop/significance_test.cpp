// The `slow` decision (significance.hpp). Reference p-values are SciPy 1.17's:
//   scipy.stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic")
//   scipy.stats.ttest_ind_from_stats(..., equal_var=False, alternative="greater")
#include "loop/significance.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace adaexplore {
namespace {

// A Timing as the harness reports it: statistics of `values` (sample standard deviation).
Timing timing(std::vector<double> values) {
  Timing t;
  t.values_ms = values;
  t.samples = static_cast<int>(values.size());
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  t.median_ms = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  t.min_ms = values.front();
  t.max_ms = values.back();
  t.mean_ms = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double ss = 0;
  for (double v : values) ss += (v - t.mean_ms) * (v - t.mean_ms);
  t.stdev_ms = n > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  return t;
}

Timing summary(double median, double mean, double stdev, int samples) {
  Timing t;
  t.median_ms = median;
  t.mean_ms = mean;
  t.stdev_ms = stdev;
  t.samples = samples;
  return t;
}

const std::vector<double> kBaseline = {0.371, 0.369, 0.373, 0.370, 0.372, 0.368, 0.374, 0.371, 0.370, 0.372};

TEST(Significance, IdenticalSamplesAreNotSlow) {
  const SlowdownEvidence e = compare_with_baseline(timing(kBaseline), timing(kBaseline));
  EXPECT_EQ(e.test, SlowdownTest::mann_whitney);
  EXPECT_DOUBLE_EQ(e.median_ratio, 1.0);
  EXPECT_GT(e.p_value, 0.4);  // U = n1 n2 / 2 exactly: z = -0.5 / sigma
  EXPECT_FALSE(e.significant);
  EXPECT_FALSE(e.slower);
  EXPECT_FALSE(significantly_slower(timing(kBaseline), timing(kBaseline)));
  // Every value tied (a clock with coarse resolution): no evidence, p = 1.
  const std::vector<double> flat(8, 0.25);
  EXPECT_EQ(compare_with_baseline(timing(flat), timing(flat)).p_value, 1.0);
}

// 200 against 200 samples, fully separated: z is about 17 and erfc underflows far below what the
// normal approximation can vouch for; the text says p<1e-12, never "p=0" (seen on the H200).
TEST(Significance, AVanishingPValueIsPrintedAsABoundNotAsZero) {
  std::vector<double> base, slow;
  for (int i = 0; i < 200; ++i) {
    base.push_back(0.148 + 1e-5 * i);
    slow.push_back(0.179 + 1e-5 * i);
  }
  const SlowdownEvidence e = compare_with_baseline(timing(slow), timing(base));
  ASSERT_TRUE(e.slower);
  EXPECT_LT(e.p_value, 1e-12);
  EXPECT_NE(e.describe().find("Mann-Whitney p<1e-12"), std::string::npos) << e.describe();
  EXPECT_EQ(e.describe().find("p=0"), std::string::npos) << e.describe();
}

TEST(Significance, ClearlySeparatedSamplesAreSlowWithTheirEvidence) {
  const std::vector<double> candidate = {0.512, 0.509, 0.515, 0.511, 0.513, 0.510, 0.514, 0.512, 0.508, 0.516};
  const SlowdownEvidence e = compare_with_baseline(timing(candidate), timing(kBaseline));
  EXPECT_EQ(e.test, SlowdownTest::mann_whitney);
  EXPECT_NEAR(e.p_value, 8.930724418684081e-05, 1e-12);  // SciPy; U = 100 of 100 pairs
  EXPECT_GT(e.statistic, 3.7);  // (100 - 50 - 0.5) / sigma, sigma tie-corrected (0.371 twice, ...)
  EXPECT_NEAR(0.5 * std::erfc(e.statistic / std::sqrt(2.0)), e.p_value, 1e-15);
  EXPECT_NEAR(e.median_ratio, 0.512 / 0.371, 1e-12);
  EXPECT_DOUBLE_EQ(e.candidate_median_ms, 0.512);
  EXPECT_DOUBLE_EQ(e.baseline_median_ms, 0.371);
  EXPECT_TRUE(e.significant);
  EXPECT_TRUE(e.slower);
  EXPECT_EQ(e.describe(), "slower than the defaults: median 0.512 ms vs 0.371 ms (x1.38), Mann-Whitney p=8.9e-5");
  // The other way round: faster is never slow.
  const SlowdownEvidence reverse = compare_with_baseline(timing(kBaseline), timing(candidate));
  EXPECT_GT(reverse.p_value, 0.99);
  EXPECT_FALSE(reverse.slower);
}

TEST(Significance, MannWhitneyWithTiesMatchesScipy) {
  const TestResult r = mann_whitney_greater({1, 2, 2, 3, 3, 3, 4}, {1, 1, 2, 2, 2, 3});
  EXPECT_NEAR(r.p_value, 0.08845593659724332, 1e-12);
  EXPECT_GT(r.statistic, 0);
  EXPECT_EQ(mann_whitney_greater({}, {1.0}).p_value, 1.0);
}

TEST(Significance, ThreePercentDrownedInAWideSpreadIsNotSlow) {
  const std::vector<double> base = {1.00, 0.80, 1.20, 0.90, 1.10, 0.85, 1.15, 0.95, 1.05, 1.02};
  const std::vector<double> cand = {1.03, 0.82, 1.25, 0.92, 1.12, 0.88, 1.18, 0.99, 1.07, 1.05};
  const SlowdownEvidence e = compare_with_baseline(timing(cand), timing(base));
  EXPECT_NEAR(e.median_ratio, 1.0297, 1e-4);  // over the margin ...
  EXPECT_NEAR(e.p_value, 0.3250123149530506, 1e-12);  // ... but no evidence
  EXPECT_FALSE(e.significant);
  EXPECT_FALSE(e.slower);
}

TEST(Significance, HalfAPercentWithATightSpreadIsSignificantButUnderTheMargin) {
  const std::vector<double> base = {1.000, 1.001, 1.002, 1.003, 1.004, 1.0005, 1.0015, 1.0025, 1.0035, 1.0045};
  std::vector<double> cand;
  for (double v : base) cand.push_back(v + 0.005);  // thermal drift
  const SlowdownEvidence e = compare_with_baseline(timing(cand), timing(base));
  EXPECT_NEAR(e.p_value, 9.133589555477501e-05, 1e-12);
  EXPECT_TRUE(e.significant);
  EXPECT_LT(e.median_ratio, 1 + kSlowMargin);
  EXPECT_FALSE(e.slower);
  EXPECT_EQ(e.describe().rfind("not significantly slower than the defaults: median 1.01 ms vs 1 ms (x1.00)", 0), 0u)
      << e.describe();
}

TEST(Significance, FewSamplesFallBackToWelch) {
  // Four values on one side: below kMinRankSamples, so Welch on the summary statistics.
  Timing cand = summary(2.0, 2.0, 0.1, 3);
  cand.values_ms = {1.9, 2.0, 2.1};
  const SlowdownEvidence e = compare_with_baseline(cand, timing(kBaseline));
  EXPECT_EQ(e.test, SlowdownTest::welch);
  EXPECT_TRUE(e.slower);
  EXPECT_NE(e.describe().find("Welch t-test p="), std::string::npos) << e.describe();

  const SlowdownEvidence welch = compare_with_baseline(summary(2.0, 2.0, 0.1, 3), summary(1.0, 1.0, 0.1, 3));
  EXPECT_EQ(welch.test, SlowdownTest::welch);
  EXPECT_NEAR(welch.statistic, 12.24744871391589, 1e-9);
  EXPECT_NEAR(welch.p_value, 0.0001276083747209634, 1e-9);  // SciPy, df = 4
  EXPECT_TRUE(welch.slower);

  // 10% slower on 4 and 3 samples: p = 0.0105, just short of the 0.01 level.
  const SlowdownEvidence weak = compare_with_baseline(summary(1.1, 1.1, 0.05, 4), summary(1.0, 1.0, 0.02, 3));
  EXPECT_NEAR(weak.p_value, 0.010455365040735734, 1e-9);
  EXPECT_FALSE(weak.slower);

  // Zero spread on both sides: decided by the means.
  EXPECT_EQ(welch_greater(2.0, 0, 5, 1.0, 0, 5).p_value, 0.0);
  EXPECT_EQ(welch_greater(1.0, 0, 5, 1.0, 0, 5).p_value, 1.0);
}

TEST(Significance, OneSampleIsNoEvidence) {
  const SlowdownEvidence e = compare_with_baseline(summary(5.0, 5.0, 0, 1), summary(1.0, 1.0, 0.01, 20));
  EXPECT_EQ(e.test, SlowdownTest::none);
  EXPECT_FALSE(e.slower);
  EXPECT_NE(e.describe().find("no test"), std::string::npos) << e.describe();
}

}  // namespace
}  // namespace adaexplore
