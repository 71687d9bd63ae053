// Crowning (crown.hpp): the fastest crownable outcome, the near-tie verdict beside the results,
// configurations excluded at another size.
#include "loop/crown.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "test_support.hpp"

namespace adaexplore {
namespace {

Outcome timed(const Space& space, int x, Status status, double ms) {
  Outcome o;
  o.config = space.config_from_texts({{"X", std::to_string(x)}});
  o.label = space.label(o.config);
  o.status = status;
  if (is_success(status)) o.objective = ms;
  return o;
}

TEST(Crown, TheLowestSuccessfulObjectiveTiesToTheEarlier) {
  auto make = [](Config c, Status st, std::optional<double> ms) {
    Outcome o;
    o.config = c;
    o.status = st;
    o.objective = ms;
    return o;
  };
  EXPECT_FALSE(crown({}));
  EXPECT_FALSE(crown({make({0, 0}, Status::crash, std::nullopt)}));
  const std::vector<Outcome> all = {make({1, 0}, Status::ok, 3.0), make({2, 0}, Status::wrong_result, 0.5),
                                    make({3, 0}, Status::slow, 2.0), make({4, 0}, Status::ok, 2.0),
                                    make({5, 0}, Status::ok, std::nullopt)};
  ASSERT_TRUE(crown(all));
  EXPECT_EQ(crown(all)->config, (Config{3, 0}));
}

// Rule 3: a verdict beside the results file crowns its winner with its confirmed median
// while it belongs to the same key and the stored best is among its contenders.
TEST(Crown, AVerdictOfTheSameKeyWhoseContendersHoldTheBestCrownsItsWinner) {
  const Space space({test::range("X", 4)}, {});
  const std::vector<Outcome> all = {timed(space, 0, Status::ok, 1.00), timed(space, 1, Status::ok, 1.01),
                                    timed(space, 2, Status::ok, 2.00)};
  const auto dir = test::fresh_test_directory("crown");
  const auto results = dir / "results.jsonl";
  EXPECT_EQ(crown(all, {results, "k1"}).value_or(Outcome{}).label, "X=0");  // no verdict: the fastest
  auto write_verdict = [&](const std::string& key, const std::string& first) {
    nlohmann::json v = {{"key", key},
                        {"rounds", 3},
                        {"contenders",
                         {{{"label", first}, {"median_ms", 1.02}, {"winner", false}},
                          {{"label", "X=1"}, {"median_ms", 0.99}, {"winner", true}}}}};
    std::ofstream(confirmation_path(results)) << v.dump();
  };
  write_verdict("k1", "X=0");
  const auto crowned = crown(all, {results, "k1"});
  ASSERT_TRUE(crowned);
  EXPECT_EQ(crowned->label, "X=1");
  EXPECT_DOUBLE_EQ(*crowned->objective, 0.99);
  EXPECT_TRUE(crowned->extra.contains("confirmation"));
  EXPECT_EQ(crown(all, {results, "k2"}).value_or(Outcome{}).label, "X=0");  // another key's verdict
  write_verdict("k1", "X=3");
  EXPECT_EQ(crown(all, {results, "k1"}).value_or(Outcome{}).label, "X=0");  // the best is not among its contenders
  std::ofstream(confirmation_path(results)) << "{broken";
  EXPECT_EQ(crown(all, {results, "k1"}).value_or(Outcome{}).label, "X=0");  // unreadable: ignored
  std::filesystem::remove_all(dir);
}

// Rule 4: an excluded configuration never wins, neither as the fastest nor as the verdict's winner.
TEST(Crown, AnExcludedConfigurationNeverWinsNorDoesAVerdictNamingIt) {
  const Space space({test::range("X", 4)}, {});
  const std::vector<Outcome> all = {timed(space, 0, Status::ok, 1.00), timed(space, 1, Status::ok, 1.01),
                                    timed(space, 2, Status::ok, 2.00)};
  const auto dir = test::fresh_test_directory("crown");
  const auto results = dir / "results.jsonl";
  const std::set<Config> fastest = {all[0].config}, second = {all[1].config};
  EXPECT_EQ(crown(all, {{}, "", &fastest}).value_or(Outcome{}).label, "X=1");
  nlohmann::json v = {{"key", "k1"},
                      {"rounds", 3},
                      {"contenders",
                       {{{"label", "X=0"}, {"median_ms", 1.02}, {"winner", false}},
                        {{"label", "X=1"}, {"median_ms", 0.99}, {"winner", true}}}}};
  std::ofstream(confirmation_path(results)) << v.dump();
  EXPECT_DOUBLE_EQ(crown(all, {results, "k1", &fastest}).value_or(Outcome{}).objective.value_or(0), 0.99);  // the verdict's winner, allowed
  const auto without_winner = crown(all, {results, "k1", &second});  // the verdict's winner excluded
  ASSERT_TRUE(without_winner);
  EXPECT_EQ(without_winner->label, "X=0");
  EXPECT_DOUBLE_EQ(*without_winner->objective, 1.00);  // its tuning median: no verdict applies
  const std::set<Config> all_but_last = {all[0].config, all[1].config};
  EXPECT_EQ(crown(all, {results, "k1", &all_but_last}).value_or(Outcome{}).label, "X=2");
  std::filesystem::remove_all(dir);
}

// Issue 37: near-ties 0.03 % apart crowned whichever measured faster, so fresh tunings of one space
// wrote different constants. Within 1 % (kTieMargin) the first in the space's order wins, in any
// evaluation order; outside it the fastest.
TEST(Crown, NearTiesCrownTheFirstInTheSpacesOrderWhateverTheEvaluationOrder) {
  const Space space({test::range("X", 8)}, {});
  std::vector<Outcome> all = {timed(space, 0, Status::ok, 2.0), timed(space, 5, Status::ok, 1.0003),
                              timed(space, 3, Status::ok, 1.0), timed(space, 6, Status::ok, 1.0095)};
  for (int shuffle = 0; shuffle < 4; ++shuffle) {  // every rotation of the evaluation order
    std::rotate(all.begin(), all.begin() + 1, all.end());
    EXPECT_EQ(crown(all).value_or(Outcome{}).label, "X=3") << shuffle;
  }
  std::sort(all.begin(), all.end(), [](const Outcome& a, const Outcome& b) { return a.label < b.label; });
  ASSERT_EQ(all[2].label, "X=5");
  all[2].objective = 0.9997;  // X=5 0.03 % faster than X=3
  EXPECT_EQ(crown(all).value_or(Outcome{}).label, "X=3");
  all[2].objective = 0.98;  // 2 % faster: no tie
  EXPECT_EQ(crown(all).value_or(Outcome{}).label, "X=5");
  // Rule 4 with a tie: the first of the others in the space's order.
  all[2].objective = 1.0003;
  const std::set<Config> excluded = {space.config_from_texts({{"X", "3"}})};
  EXPECT_EQ(crown(all, {{}, "", &excluded}).value_or(Outcome{}).label, "X=5");
  EXPECT_EQ(first_of_ties({}, {}), std::nullopt);
  EXPECT_EQ(first_of_ties({{4}, {2}, {1}}, {1.0, 1.005, 1.02}), std::optional<std::size_t>(1));
}

TEST(Crown, CrownableIsASuccessWithATrustedObjective) {
  const Space space({test::range("X", 4)}, {});
  Outcome o = timed(space, 0, Status::ok, 1.0);
  EXPECT_TRUE(crownable(o));
  o.extra["suspicious"] = nlohmann::json::array();
  EXPECT_TRUE(crownable(o));  // an empty list: nothing flagged
  o.extra["suspicious"] = {"bandwidth above the device's peak"};
  EXPECT_FALSE(crownable(o));
  o.extra["suspicious"] = "median under the launch-overhead floor";
  EXPECT_FALSE(crownable(o));
  EXPECT_FALSE(crownable(timed(space, 1, Status::wrong_result, 1.0)));
  Outcome no_time = timed(space, 2, Status::slow, 1.0);
  no_time.objective.reset();
  EXPECT_FALSE(crownable(no_time));
}

}  // namespace
}  // namespace adaexplore
