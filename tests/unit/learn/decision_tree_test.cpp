#include "learn/decision_tree.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::numbers;

struct Data {
  std::vector<Config> configs;
  std::vector<const Config*> x;
  std::vector<Status> y;
};

Data label(const Space& space, Status (*oracle)(const Space&, const Config&)) {
  Data d;
  d.configs = space.enumerate_valid();
  for (const auto& c : d.configs) {
    d.x.push_back(&c);
    d.y.push_back(oracle(space, c));
  }
  return d;
}

Status tile_oracle(const Space& s, const Config& c) {
  return s.value(c, 0).number >= 64 ? Status::resource_limit : Status::ok;
}

TEST(DecisionTree, AnUnfittedTreeKnowsNothing) {
  DecisionTree t;
  EXPECT_DOUBLE_EQ(t.leaf(Config{0}).failure_probability(), 0.5);
}

// Leaves are smoothed toward the overall failure rate p0 = (4 + 1) / (10 + 2).
TEST(DecisionTree, LearnsAThresholdWithSmoothedLeaves) {
  const Space space({numbers("TILE", {8, 16, 32, 64, 128}), numbers("VEC", {1, 2})}, {});
  const Data d = label(space, tile_oracle);
  DecisionTree t;
  t.fit(space, d.x, d.y);
  EXPECT_EQ(t.leaves(), 2u);
  const auto& fail = t.leaf(Config{4, 0});
  EXPECT_EQ(fail.samples, 4u);  // TILE in {64, 128} x VEC in {1, 2}
  const double p0 = 5.0 / 12.0;
  EXPECT_DOUBLE_EQ(fail.failure_probability(), (4 + 2 * p0) / 6);
  EXPECT_EQ(fail.majority(true), Status::resource_limit);
  EXPECT_DOUBLE_EQ(t.leaf(Config{0, 1}).failure_probability(), 2 * p0 / 8);
  EXPECT_EQ(t.leaf(Config{0, 1}).majority(false), Status::ok);
  EXPECT_EQ(t.describe_failing_leaves(space, 0.5),
            std::vector<std::string>{"TILE >= 64: 4 of 4 failed (resource_limit 4), P(fail) 0.81"});
}

// The cut falls halfway between the observed indices, so an unobserved value between the last
// success and the first failure is split evenly instead of siding with one of them. Half the
// samples fail: the smoothing is Laplace's rule of succession.
TEST(DecisionTree, CutsHalfwayBetweenObservedValues) {
  const Space space({numbers("TILE", {8, 16, 32, 64, 128, 256})}, {});
  const std::vector<Config> configs{{0}, {1}, {4}, {5}};
  std::vector<const Config*> x;
  for (const auto& c : configs) x.push_back(&c);
  DecisionTree t;
  t.fit(space, x, {Status::ok, Status::ok, Status::crash, Status::crash}, DecisionTree::Options{6, 2, 1});
  EXPECT_DOUBLE_EQ(t.leaf(Config{2}).failure_probability(), 1.0 / 4);  // 32: nearer the successes
  EXPECT_DOUBLE_EQ(t.leaf(Config{3}).failure_probability(), 3.0 / 4);  // 64: nearer the failures
}

TEST(DecisionTree, TwoParameterRegionAndCategoricalSplits) {
  Parameter layout{"LAYOUT", {Value::from_text("row"), Value::from_text("col"), Value::from_text("tiled")}};
  const Space space({numbers("A", {1, 2, 4, 8}), numbers("B", {1, 2, 4, 8}), layout}, {});
  const Data d = label(space, [](const Space& s, const Config& c) {
    if (s.value(c, 2).text == "col") return Status::wrong_result;
    return s.value(c, 0).number * s.value(c, 1).number >= 32 ? Status::launch_error : Status::ok;
  });
  DecisionTree t;
  t.fit(space, d.x, d.y);
  EXPECT_GT(t.leaf(Config{3, 3, 0}).failure_probability(), 0.5);
  EXPECT_GT(t.leaf(Config{0, 0, 1}).failure_probability(), 0.5);
  EXPECT_EQ(t.leaf(Config{0, 0, 1}).majority(true), Status::wrong_result);
  EXPECT_LT(t.leaf(Config{0, 0, 2}).failure_probability(), 0.5);
  const auto lines = t.describe_failing_leaves(space, 0.5);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("LAYOUT = col: 16 of 16 failed (wrong_result 16)", 0), 0u) << lines[0];
}

}  // namespace
}  // namespace adaexplore
