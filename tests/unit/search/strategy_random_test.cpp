#include <set>

#include <gtest/gtest.h>

#include "search/strategy.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

using test::range;

Space space() { return Space({range("A", 5), range("B", 5), range("C", 3)}, {"A != B", "A + C < 6"}); }

Outcome outcome(const Config& c, double objective) {
  Outcome o;
  o.config = c;
  o.objective = objective;
  return o;
}

std::unique_ptr<Strategy> make_random(const Space& s, std::uint64_t seed) {
  StrategyOptions options;
  options.seed = seed;
  return make_strategy("random", s, options);
}

TEST(RandomStrategy, ProposesEveryValidConfigurationOnceThenNothing) {
  const Space s = space();
  auto r = make_random(s, 4);
  const auto all = r->propose(1000);
  const auto valid = s.enumerate_valid();
  ASSERT_EQ(all.size(), valid.size());
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()), std::set<Config>(valid.begin(), valid.end()));
  EXPECT_NE(all, valid) << "not shuffled";
  EXPECT_TRUE(r->propose(1).empty());
}

TEST(RandomStrategy, BatchesContinueOneSequence) {
  const Space s = space();
  auto whole = make_random(s, 8), pieces = make_random(s, 8);
  const auto expected = whole->propose(20);
  std::vector<Config> got;
  for (std::size_t n : {1, 7, 12}) {
    const auto part = pieces->propose(n);
    EXPECT_EQ(part.size(), n);
    got.insert(got.end(), part.begin(), part.end());
  }
  EXPECT_EQ(got, expected);
}

TEST(RandomStrategy, ObjectivesDoNotSteerIt) {
  const Space s = space();
  auto a = make_random(s, 2), b = make_random(s, 2);
  std::vector<Config> pa, pb;
  for (int round = 0; round < 5; ++round) {
    for (const auto& c : a->propose(6)) pa.push_back(c), a->observe(outcome(c, 1.0));
    for (const auto& c : b->propose(6)) pb.push_back(c), b->observe(outcome(c, c[0] * 10.0 + c[1]));
  }
  EXPECT_EQ(pa, pb);
}

TEST(RandomStrategy, SkipsObservedConfigurations) {
  const Space s = space();
  auto r = make_random(s, 6);
  const auto valid = s.enumerate_valid();
  for (std::size_t i = 0; i + 1 < valid.size(); ++i) r->observe(outcome(valid[i], 1.0));
  EXPECT_EQ(r->propose(10), std::vector<Config>{valid.back()});
  EXPECT_TRUE(r->propose(10).empty());
}

}  // namespace
}  // namespace adaexplore
