#include "resource_rules.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

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
