#include "learn/learned_rules.hpp"
#include "test_support.hpp"

#include <functional>
#include <random>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::numbers;

// A x B x C x D; the oracles below decide which configurations fail.
Space space4() {
  return Space({numbers("A", {1, 2, 4, 8, 16, 32, 64}), numbers("B", {1, 2, 4, 8, 16, 32, 64}),
                numbers("C", {1, 2, 4, 8}), numbers("D", {0, 1})},
               {});
}

using Oracle = std::function<Status(const Space&, const Config&)>;

// Fails with resource_limit iff A*B > 512; every C=4 configuration is wrong_result.
Status product_oracle(const Space& s, const Config& c) {
  if (s.value(c, 2).number == 4) return Status::wrong_result;
  return s.value(c, 0).number * s.value(c, 1).number > 512 ? Status::resource_limit : Status::ok;
}

struct Learned {
  std::vector<Observation> observations;
  GroupIndex groups;
  LearnedRules rules;
  std::vector<Config> unseen;
};

// Observes a random `fraction` of the space (all of it with 1.0).
Learned learn(const Space& space, const Oracle& oracle, double fraction, std::uint64_t seed = 7) {
  Learned l{{}, GroupIndex(space.dimension()), {}, {}};
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution take(fraction);
  for (const auto& c : space.enumerate_valid()) {
    if (!take(rng)) {
      l.unseen.push_back(c);
      continue;
    }
    l.groups.add(c, l.observations.size());
    l.observations.push_back({c, oracle(space, c), std::nullopt, {}, {}});
  }
  l.rules.learn(space, l.observations, l.groups, RuleOptions{});
  return l;
}

const MonotoneRule* find_monotone(const LearnedRules& r, std::size_t parameter, Status s) {
  for (const auto& m : r.monotone())
    if (m.parameter == parameter && m.status == s) return &m;
  return nullptr;
}

TEST(LearnedRules, AValueThatAlwaysFailsIsARule) {
  const Space space = space4();
  const Learned l = learn(space, product_oracle, 0.3);
  ASSERT_EQ(l.rules.values().size(), 1u);
  const ValueRule& r = l.rules.values()[0];
  EXPECT_EQ(r.parameter, 2u);
  EXPECT_EQ(r.value, 2);  // C = 4
  EXPECT_EQ(r.status, Status::wrong_result);
  EXPECT_GE(r.failures, 3u);
  EXPECT_EQ(r.failures, r.of_status);
  const auto v =
      l.rules.check(space.config_from_texts({{"A", "1"}, {"B", "1"}, {"C", "4"}, {"D", "0"}}), l.observations);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Verdict::Kind::value);
}

TEST(LearnedRules, FewerThanThreeFailuresOfAValueAreNotARule) {
  const Space space({numbers("A", {1, 2}), numbers("B", {1, 2, 3})}, {});
  GroupIndex groups(2);
  std::vector<Observation> obs;
  for (const auto& [c, s] :
       std::vector<std::pair<Config, Status>>{{{1, 0}, Status::crash}, {{1, 1}, Status::crash}, {{0, 0}, Status::ok}}) {
    groups.add(c, obs.size());
    obs.push_back({c, s, std::nullopt, {}, {}});
  }
  LearnedRules rules;
  rules.learn(space, obs, groups, RuleOptions{});
  EXPECT_TRUE(rules.values().empty());
}

// A space where most configurations fail (crash for A < 8, in any B) and every B = 3
// configuration fails to compile: 80 % of all evaluations fail, so "B = 3 failed n times in n"
// is weak evidence by itself (0.8^n), but no other configuration fails to compile, so "B = 3
// fails with compile_error every time" is strong. The failing input of 2026-12-01 (space-filling start of 8): on the host
// failure space (VEC=3 always compile_error, TILE=2048 always crash, UNROLL=3 always
// wrong_result, 63 % failing) the value rules were never significant.
Space crowded_space() {
  return Space({numbers("A", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), numbers("B", {1, 2, 3}), numbers("C", {0, 1})}, {});
}

Status crowded_oracle(const Space& s, const Config& c) {
  if (s.value(c, 1).number == 3) return Status::compile_error;
  return s.value(c, 0).number < 8 ? Status::crash : Status::ok;
}

TEST(LearnedRules, AValueThatAlwaysFailsOneWayAmongFailuresOfAnotherIsARule) {
  const Space space = crowded_space();
  const Learned l = learn(space, crowded_oracle, 1.0);
  ASSERT_EQ(l.rules.values().size(), 1u);
  const ValueRule& r = l.rules.values()[0];
  EXPECT_EQ(r.parameter, 1u);
  EXPECT_EQ(r.value, 2);  // B = 3
  EXPECT_EQ(r.status, Status::compile_error);
  EXPECT_EQ(r.failures, 20u);
}

TEST(LearnedRules, TheStatusIsNoEvidenceWhenEveryFailureHasIt) {
  // The same space and failures, all of one status: the status test is the failure test, which
  // 80 % failing does not let pass.
  const Space space = crowded_space();
  const Learned l = learn(space, [](const Space& s, const Config& c) {
    return crowded_oracle(s, c) == Status::ok ? Status::ok : Status::crash;
  }, 1.0);
  EXPECT_TRUE(l.rules.values().empty());
}

TEST(LearnedRules, AValueThatFailsInMixedWaysGetsNoStatusEvidence) {
  // B = 3 fails to compile for even A and crashes for odd A: no single status to test.
  const Space space = crowded_space();
  const Learned l = learn(space, [](const Space& s, const Config& c) {
    if (s.value(c, 1).number == 3)
      return static_cast<int>(s.value(c, 0).number) % 2 == 0 ? Status::compile_error : Status::crash;
    return crowded_oracle(s, c);
  }, 1.0);
  for (const ValueRule& r : l.rules.values()) EXPECT_FALSE(r.parameter == 1u && r.value == 2) << "B = 3";
  // Positive control: the same failures, all compile errors, make B = 3 a rule.
  const Learned one_way = learn(space, crowded_oracle, 1.0);
  EXPECT_EQ(one_way.rules.values().size(), 1u);
}

TEST(LearnedRules, MonotoneBoundariesInEachParameterOfAProduct) {
  const Space space = space4();
  const Learned l = learn(space, product_oracle, 1.0);
  const MonotoneRule* a = find_monotone(l.rules, 0, Status::resource_limit);
  const MonotoneRule* b = find_monotone(l.rules, 1, Status::resource_limit);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->direction, +1);
  EXPECT_EQ(b->direction, +1);
  EXPECT_FALSE(a->global_from);  // A=64 succeeds with a small B: the boundary depends on B
  for (const auto& g : a->groups) {
    const double others = space.value(g.member, 1).number;
    EXPECT_LE(space.parameters()[0].values[g.success].number * others, 512);
    EXPECT_GT(space.parameters()[0].values[g.failure].number * others, 512);
    EXPECT_EQ(g.failure, g.success + 1);  // everything observed: each boundary is pinned
  }
  EXPECT_EQ(find_monotone(l.rules, 2, Status::resource_limit), nullptr);
}

// From 40 % of the space the rules must never call a feasible configuration infeasible, and
// should recognise a good part of the unseen failures through the boundaries' dominance.
TEST(LearnedRules, DominanceIsSoundOnUnseenConfigurations) {
  const Space space = space4();
  const Learned l = learn(space, product_oracle, 0.4);
  std::size_t failing = 0, recognised = 0;
  for (const auto& c : l.unseen) {
    const Status truth = product_oracle(space, c);
    const auto v = l.rules.check(c, l.observations);
    if (v) EXPECT_FALSE(is_success(truth)) << space.label(c);
    if (truth == Status::resource_limit) {
      ++failing;
      recognised += v ? 1 : 0;
    }
  }
  EXPECT_GT(recognised, failing / 2) << recognised << " of " << failing;
}

TEST(LearnedRules, AThresholdThatHoldsWhateverTheOthersIsGlobal) {
  const Space space = space4();
  const Learned l = learn(
      space,
      [](const Space& s, const Config& c) { return s.value(c, 0).number >= 32 ? Status::compile_error : Status::ok; },
      0.5);
  const MonotoneRule* a = find_monotone(l.rules, 0, Status::compile_error);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->global_from);
  EXPECT_EQ(*a->global_from, 5);  // A = 32
  EXPECT_EQ(a->global_failures, a->global_of_status);
  const auto lines = l.rules.describe(space);
  bool found = false;
  for (const auto& line : lines) found = found || line.rfind("A >= 32 fails whatever the other parameters: ", 0) == 0;
  EXPECT_TRUE(found) << ::testing::PrintToString(lines);
}

TEST(LearnedRules, AContradictingGroupPreventsAMonotoneRule) {
  // Fails at A=4 only: no direction orders the failures after the successes.
  const Space space = space4();
  const Learned l = learn(
      space,
      [](const Space& s, const Config& c) {
        return s.value(c, 0).number == 4 && s.value(c, 3).number == 1 ? Status::crash : Status::ok;
      },
      1.0);
  EXPECT_EQ(find_monotone(l.rules, 0, Status::crash), nullptr);
  EXPECT_TRUE(l.rules.values().empty());  // A=4 succeeds where D=0
}

TEST(LearnedRules, InvarianceLetsAFailureCoverTheIgnoredParameter) {
  // crash iff B >= 32, whatever D: D is invariant for crash, B monotone.
  const Space space = space4();
  const Learned l = learn(
      space, [](const Space& s, const Config& c) { return s.value(c, 1).number >= 32 ? Status::crash : Status::ok; },
      0.5);
  bool d_invariant = false;
  for (const auto& v : l.rules.invariances())
    d_invariant = d_invariant || (v.parameter == 3 && v.status == Status::crash);
  EXPECT_TRUE(d_invariant);
  for (const auto& c : l.unseen) {
    const auto v = l.rules.check(c, l.observations);
    EXPECT_EQ(v.has_value(), space.value(c, 1).number >= 32) << space.label(c);
  }
}

TEST(LearnedRules, DescriptionsCarryTheirCounts) {
  const Space space = space4();
  const Learned l = learn(space, product_oracle, 1.0);
  const auto lines = l.rules.describe(space);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "C=4 always fails: 98 of 98 evaluations wrong_result, no success");
  bool monotone = false;
  for (const auto& line : lines)
    monotone = monotone || line.rfind("resource_limit is monotone in A: with the other parameters fixed", 0) == 0;
  EXPECT_TRUE(monotone) << ::testing::PrintToString(lines);
}

}  // namespace
}  // namespace adaexplore
