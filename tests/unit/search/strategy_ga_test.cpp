#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "search/strategy.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

using test::range;

// 8^4 = 4096 configurations; a smooth objective with its optimum at (6, 1, 5, 2).
Space space() { return Space({range("A", 8), range("B", 8), range("C", 8), range("D", 8)}, {}); }

Outcome evaluate(const Config& c) {
  static const int target[] = {6, 1, 5, 2};
  Outcome o;
  o.config = c;
  double sum = 1.0;
  for (std::size_t i = 0; i < 4; ++i) sum += (c[i] - target[i]) * (c[i] - target[i]);
  o.objective = sum;
  return o;
}

std::unique_ptr<Strategy> make_ga(const Space& s, std::uint64_t seed, const nlohmann::json& options = {}) {
  StrategyOptions o;
  o.seed = seed;
  o.options = options.is_null() ? nlohmann::json::object() : options;
  return make_strategy("ga", s, o);
}

double mean_objective(const std::vector<Config>& configs) {
  double sum = 0;
  for (const auto& c : configs) sum += *evaluate(c).objective;
  return sum / configs.size();
}

TEST(GeneticStrategy, FirstGenerationExploresInsteadOfMutatingTheBaseline) {
  // The tuning loop observes the baseline before the first proposal.
  const Space s = space();
  auto ga = make_ga(s, 3);
  const Config baseline = {3, 3, 3, 3};
  ga->observe(evaluate(baseline));
  const auto first = ga->propose(19);
  ASSERT_EQ(first.size(), 19u);
  double distance = 0;
  for (const auto& c : first) distance += s.distance(c, baseline);
  // Uniform draws average about 0.29 from the middle of this space; one-gene mutants about 0.07.
  EXPECT_GT(distance / first.size(), 0.2);
}

TEST(GeneticStrategy, SelectionImprovesTheProposals) {
  const Space s = space();
  auto ga = make_ga(s, 5);
  std::vector<Config> all;
  while (all.size() < 200) {
    const auto batch = ga->propose(10);
    ASSERT_FALSE(batch.empty());
    for (const auto& c : batch) all.push_back(c), ga->observe(evaluate(c));
  }
  const std::vector<Config> first(all.begin(), all.begin() + 20), last(all.end() - 60, all.end());
  EXPECT_LT(mean_objective(last), 0.5 * mean_objective(first));
}

TEST(GeneticStrategy, FailuresAreNeverPreferred) {
  // Half the space fails; later generations should mostly avoid it.
  const Space s = space();
  auto ga = make_ga(s, 7);
  std::size_t late_failures = 0, late = 0;
  for (int round = 0; round < 20; ++round) {
    for (const auto& c : ga->propose(10)) {
      Outcome o = evaluate(c);
      if (c[0] < 4) {
        o.status = Status::crash;
        o.objective.reset();
      }
      ga->observe(o);
      if (round >= 10) late += 1, late_failures += c[0] < 4;
    }
  }
  ASSERT_GT(late, 0u);
  EXPECT_LT(static_cast<double>(late_failures) / late, 0.35);
}

TEST(GeneticStrategy, OptionsAreValidated) {
  const Space s = space();
  EXPECT_NO_THROW(make_ga(s, 1, {{"population", 8}, {"elites", 1}, {"mutation_rate", 0.5}}));
  for (const auto& bad : {nlohmann::json{{"population", 1}}, nlohmann::json{{"population", -4}},
                          nlohmann::json{{"population", "many"}}, nlohmann::json{{"elites", 20}},
                          nlohmann::json{{"mutation_rate", 1.5}}, nlohmann::json{{"mutation_rate", -0.1}}}) {
    try {
      make_ga(s, 1, bad);
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ga: option " + bad.begin().key()), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace adaexplore
