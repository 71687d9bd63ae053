// The strategy contract (strategy.hpp), checked for every registered strategy, and the shared
// UnseenSampler.
#include "search/strategy.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::range;

// 6 x 6 x 4 = 144 configurations, 3 constraints.
Space small_space() {
  return Space({range("A", 6), range("B", 6), range("C", 4)}, {"A + B <= 7", "C != 2", "A * C <= 12"});
}

std::set<Config> valid_set(const Space& s) {
  const auto v = s.enumerate_valid();
  return {v.begin(), v.end()};
}

// A deterministic objective with a failing region (A == 0 does not compile).
Outcome evaluate(const Space& s, const Config& c) {
  Outcome o;
  o.config = c;
  o.label = s.label(c);
  if (c[0] == 0) {
    o.status = Status::compile_error;
    o.message = "error: A must be positive";
    return o;
  }
  double sum = 1.0;
  for (std::size_t i = 0; i < c.size(); ++i) sum += (c[i] - 2.0) * (c[i] - 2.0) * (i + 1);
  o.objective = sum;
  return o;
}

std::unique_ptr<Strategy> make(const std::string& name, const Space& s, std::uint64_t seed) {
  StrategyOptions options;
  options.seed = seed;
  options.budget = 1000;
  return make_strategy(name, s, options);
}

// Proposes in batches of `batch` and observes every proposal, until the strategy has nothing left
// or `limit` proposals were made. Returns the proposals in order.
std::vector<Config> drive(Strategy& strategy, const Space& s, std::size_t batch, std::size_t limit = 100000) {
  std::vector<Config> proposed;
  while (proposed.size() < limit) {
    const auto got = strategy.propose(batch);
    EXPECT_LE(got.size(), batch);
    if (got.empty()) break;
    for (const auto& c : got) {
      proposed.push_back(c);
      strategy.observe(evaluate(s, c));
    }
  }
  return proposed;
}

// random and ga go on until every valid configuration was proposed or observed; a strategy that
// learns from failures (adaexplore) may leave out configurations it predicts to fail.
bool exhaustive(const std::string& strategy) { return strategy == "random" || strategy == "ga"; }

class EveryStrategy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryStrategy, ExhaustsASmallSpaceExactlyWithValidConfigurationsOnly) {
  const Space s = small_space();
  auto strategy = make(GetParam(), s, 11);
  const auto proposed = drive(*strategy, s, 7);
  for (const auto& c : proposed) EXPECT_TRUE(s.satisfies(c)) << s.label(c);
  const std::set<Config> unique(proposed.begin(), proposed.end());
  EXPECT_EQ(unique.size(), proposed.size()) << "a configuration was proposed twice";
  if (exhaustive(GetParam())) EXPECT_EQ(unique, valid_set(s));
  EXPECT_TRUE(strategy->propose(5).empty());
  EXPECT_TRUE(strategy->propose(1).empty());
}

TEST_P(EveryStrategy, ExhaustsWithoutAnyObservation) {
  const Space s = small_space();
  auto strategy = make(GetParam(), s, 3);
  std::vector<Config> proposed;
  for (auto got = strategy->propose(10); !got.empty(); got = strategy->propose(10))
    proposed.insert(proposed.end(), got.begin(), got.end());
  const std::set<Config> unique(proposed.begin(), proposed.end());
  EXPECT_EQ(unique.size(), proposed.size());
  EXPECT_EQ(unique, valid_set(s));
}

TEST_P(EveryStrategy, NeverProposesWhatWasObservedWithoutBeingProposed) {
  const Space s = small_space();
  auto strategy = make(GetParam(), s, 5);
  std::vector<Config> proposed = drive(*strategy, s, 1, 1);  // a first batch starts the strategy's plans
  std::set<Config> observed;
  for (const auto& c : s.enumerate_valid())
    if (c[1] % 2 == 0 && std::find(proposed.begin(), proposed.end(), c) == proposed.end()) {
      strategy->observe(evaluate(s, c));  // e.g. results of an earlier, resumed tuning
      observed.insert(c);
    }
  ASSERT_GT(observed.size(), 20u);
  const auto rest = drive(*strategy, s, 4);
  proposed.insert(proposed.end(), rest.begin(), rest.end());
  for (const auto& c : proposed) EXPECT_EQ(observed.count(c), 0u) << "proposed after being observed: " << s.label(c);
  const std::set<Config> unique(proposed.begin(), proposed.end());
  EXPECT_EQ(unique.size(), proposed.size());
  if (exhaustive(GetParam())) EXPECT_EQ(unique.size() + observed.size(), valid_set(s).size());
}

TEST_P(EveryStrategy, SameSeedSameProposals) {
  const Space s = small_space();
  auto a = make(GetParam(), s, 42), b = make(GetParam(), s, 42), c = make(GetParam(), s, 43);
  const auto pa = drive(*a, s, 6, 60), pb = drive(*b, s, 6, 60), pc = drive(*c, s, 6, 60);
  ASSERT_EQ(pa.size(), 60u);
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
}

TEST_P(EveryStrategy, LargeSpacesAreSampledWithoutRepeats) {
  // 16^6 = 16.7 million configurations: more than the samplers enumerate.
  const Space s({range("A", 16), range("B", 16), range("C", 16), range("D", 16), range("E", 16), range("F", 16)},
                {"A + B + C <= 30", "D != E"});
  auto strategy = make(GetParam(), s, 9);
  const auto proposed = drive(*strategy, s, 20, 300);
  ASSERT_EQ(proposed.size(), 300u);
  for (const auto& c : proposed) EXPECT_TRUE(s.satisfies(c)) << s.label(c);
  EXPECT_EQ(std::set<Config>(proposed.begin(), proposed.end()).size(), proposed.size());
}

TEST_P(EveryStrategy, SingleConfigurationSpace) {
  const Space s({range("A", 1)}, {});
  auto strategy = make(GetParam(), s, 1);
  EXPECT_EQ(strategy->propose(4), std::vector<Config>{Config{0}});
  EXPECT_TRUE(strategy->propose(4).empty());
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto& s : registered_strategies()) names.push_back(s.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryStrategy, ::testing::ValuesIn(registered_names()),
                         [](const auto& info) { return info.param; });

TEST(Strategy, RegistryHasTheBaselinesAndDescriptions) {
  const auto names = registered_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "a name registered twice";
  EXPECT_EQ(names.at(0), "random");
  EXPECT_EQ(names.at(1), "ga");
  for (const auto& s : registered_strategies()) EXPECT_FALSE(s.description.empty()) << s.name;
}

TEST(Strategy, UnknownNameListsTheRegisteredOnes) {
  const Space s = small_space();
  try {
    make_strategy("anneal", s, {});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'anneal' (registered: random, ga"), std::string::npos)
        << e.what();
  }
}

TEST(UnseenSampler, DrawsEachValidConfigurationOnce) {
  const Space s = small_space();
  UnseenSampler sampler(s, 1);
  ASSERT_NE(sampler.enumerated(), nullptr);
  EXPECT_EQ(sampler.valid_count(), std::optional<std::size_t>(valid_set(s).size()));
  const Config first = *s.enumerate_valid().begin();
  EXPECT_TRUE(sampler.mark(first));
  EXPECT_FALSE(sampler.mark(first));
  std::set<Config> drawn;
  while (auto c = sampler.draw()) {
    EXPECT_TRUE(s.satisfies(*c));
    EXPECT_NE(*c, first);
    EXPECT_TRUE(sampler.mark(*c));
    drawn.insert(*c);
  }
  EXPECT_EQ(drawn.size() + 1, valid_set(s).size());
}

TEST(UnseenSampler, LargeSpacesAreNotEnumerated) {
  const Space s({range("A", 100), range("B", 100), range("C", 100), range("D", 100)}, {});
  UnseenSampler sampler(s, 1);
  EXPECT_EQ(sampler.enumerated(), nullptr);
  EXPECT_FALSE(sampler.valid_count());
  auto c = sampler.draw();
  ASSERT_TRUE(c);
  EXPECT_FALSE(sampler.seen(*c));
}

}  // namespace
}  // namespace adaexplore
