#include "learn/resource_rules.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace adaexplore {
namespace {

using test::numbers;

// Threads per block BX*BY against 1024, reported by a static check (extra.figures) only for
// the configurations that compiled; no limit reported: it is inferred from the successes.
std::vector<Observation> thread_observations(const Space& space) {
  std::vector<Observation> all;
  for (const auto& c : space.enumerate_valid()) {
    Observation o;
    o.config = c;
    const double threads = space.value(c, 0).number * space.value(c, 1).number;
    o.status = threads > 1024 ? Status::launch_error : Status::ok;
    if (o.status == Status::ok) {
      o.objective = 1;
      o.figures["threads"] = threads;
    }
    all.push_back(o);
  }
  return all;
}

TEST(ResourceRules, InfersTheLimitFromTheSuccessesWhenNoneIsReported) {
  const Space space({numbers("BX", {16, 32, 64, 128, 256}), numbers("BY", {1, 2, 4, 8, 16})}, {});
  const auto rules = learn_resource_rules(space, thread_observations(space), ResourceRuleOptions{});
  ASSERT_EQ(rules.size(), 1u);
  const ResourceRule& r = rules[0];
  EXPECT_EQ(r.figure, "threads");
  EXPECT_EQ(r.fit.describe(space), "BX*BY");
  EXPECT_FALSE(r.limit_reported);
  EXPECT_EQ(r.limit, 1024);
  EXPECT_EQ(r.fails_from, 2048);
  EXPECT_EQ(r.status, Status::launch_error);
  EXPECT_EQ(r.failures_above, 3u);  // 128x16, 256x8, 256x16: figures from the fit
  EXPECT_TRUE(r.predicts_failure(space, Config{4, 4}));
  EXPECT_FALSE(r.predicts_failure(space, Config{2, 4}));
  EXPECT_EQ(r.describe(space).rfind("threads ~ BX*BY (fitted on ", 0), 0u) << r.describe(space);
}

// gemm-like threads per block BM*BN/(TM*TN), reported with the device's limit on every success
// (the cuda backend's extra.figures / extra.limits): no failure has been seen yet.
std::vector<Observation> reported_thread_successes(const Space& space, std::size_t at_most) {
  std::vector<Observation> all;
  std::mt19937_64 rng(7);
  auto configs = space.enumerate_valid();
  std::shuffle(configs.begin(), configs.end(), rng);
  for (const auto& c : configs) {
    const double threads = space.value(c, 0).number * space.value(c, 1).number /
                           (space.value(c, 2).number * space.value(c, 3).number);
    if (threads > 1024) continue;
    Observation o;
    o.config = c;
    o.status = Status::ok;
    o.objective = 1;
    o.figures["threads"] = threads;
    o.limits["threads"] = 1024;
    all.push_back(o);
    if (all.size() == at_most) break;
  }
  return all;
}

Space gemm_threads_space() {
  return Space({numbers("BM", {16, 32, 64, 128, 256}), numbers("BN", {16, 32, 64, 128, 256}),
                numbers("TM", {1, 2, 4, 8}), numbers("TN", {1, 2, 4, 8})},
               {});
}

TEST(ResourceRules, AnExactFigureWithAReportedLimitIsARuleBeforeAnyFailure) {
  const Space space = gemm_threads_space();
  const auto rules = learn_resource_rules(space, reported_thread_successes(space, 10), ResourceRuleOptions{});
  ASSERT_EQ(rules.size(), 1u);
  const ResourceRule& r = rules[0];
  EXPECT_EQ(r.fit.describe(space), "BM*BN/TM/TN") << r.describe(space);
  EXPECT_TRUE(r.limit_reported);
  EXPECT_EQ(r.failures_above, 0u);
  EXPECT_EQ(r.status, Status::resource_limit);
  // 256 x 256 / (1 x 1) = 65536 threads; 256 x 256 / (8 x 8) = 1024 fits; 128 x 256 / (4 x 4) = 2048.
  EXPECT_TRUE(r.predicts_failure(space, Config{4, 4, 0, 0}));
  EXPECT_FALSE(r.predicts_failure(space, Config{4, 4, 3, 3}));
  EXPECT_TRUE(r.predicts_failure(space, Config{3, 4, 2, 2}));
}

TEST(ResourceRules, AnExactFitFromTooFewReportsIsNotBelieved) {
  // 4 parameters, 5 unknowns: a fit needs 2 x 5 = 10 reports.
  const Space space = gemm_threads_space();
  EXPECT_TRUE(learn_resource_rules(space, reported_thread_successes(space, 9), ResourceRuleOptions{}).empty());
  // Without a reported limit, successes alone never make a rule.
  auto unreported = reported_thread_successes(space, 40);
  for (auto& o : unreported) o.limits.clear();
  EXPECT_TRUE(learn_resource_rules(space, unreported, ResourceRuleOptions{}).empty());
}

TEST(ResourceRules, AFigureThatDoesNotSeparateTheDataStatesNothing) {
  const Space space({numbers("BX", {16, 32, 64, 128, 256}), numbers("BY", {1, 2, 4, 8, 16})}, {});
  auto observations = thread_observations(space);
  for (auto& o : observations)  // 256x8 succeeds after all: only 256x16 is left above 2048
    if (o.config == Config{4, 3}) {
      o.status = Status::ok;
      o.objective = 1;
      o.figures["threads"] = 2048;
    }
  EXPECT_TRUE(learn_resource_rules(space, observations, ResourceRuleOptions{}).empty());
  ResourceRuleOptions lenient;
  lenient.min_failures = 1;
  const auto rules = learn_resource_rules(space, observations, lenient);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].limit, 2048);
  EXPECT_EQ(rules[0].failures_above, 1u);
}

TEST(ResourceRules, AFigureThatIsNoProductOfParametersStatesNothing) {
  const Space space({numbers("N", {1, 2, 3, 4, 5, 6})}, {});
  std::vector<Observation> observations;
  for (const auto& c : space.enumerate_valid()) {
    Observation o;
    o.config = c;
    o.status = c[0] % 2 ? Status::resource_limit : Status::ok;
    o.figures["registers"] = c[0] % 2 ? 255 : 16;  // up and down: no monomial fits it
    observations.push_back(o);
  }
  EXPECT_TRUE(learn_resource_rules(space, observations, ResourceRuleOptions{}).empty());
}

}  // namespace
}  // namespace adaexplore
