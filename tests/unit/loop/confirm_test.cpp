// Which configurations are near-ties (confirm.hpp near_ties): successful, not suspicious, within
// the margin of the best, the best first, at most max_contenders; fewer than two is none.
#include <gtest/gtest.h>

#include <fstream>

#include "loop/confirm.hpp"
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

TEST(NearTies, WithinTheMarginOfTheBestSuccessfulOnesBestFirst) {
  const Space space({test::range("X", 8)}, {});
  std::vector<Outcome> all = {timed(space, 0, Status::ok, 1.05),  timed(space, 1, Status::ok, 1.00),
                              timed(space, 2, Status::slow, 1.02), timed(space, 3, Status::ok, 1.04),
                              timed(space, 4, Status::crash, 0),  timed(space, 5, Status::ok, 1.50)};
  ConfirmOptions options;
  options.margin = 0.03;
  const auto ties = near_ties(all, options);
  ASSERT_EQ(ties.size(), 2u);  // 1.00 and 1.02; 1.04 and 1.05 are more than 3 % above
  EXPECT_EQ(ties[0].label, "X=1");
  EXPECT_EQ(ties[1].label, "X=2");
  options.margin = 0.06;
  options.max_contenders = 3;
  const auto wider = near_ties(all, options);
  ASSERT_EQ(wider.size(), 3u);
  EXPECT_EQ(wider[2].label, "X=3");
}

TEST(NearTies, SuspiciousOutcomesAreNeverContendersAndALoneBestIsNone) {
  const Space space({test::range("X", 4)}, {});
  std::vector<Outcome> all = {timed(space, 0, Status::ok, 1.00), timed(space, 1, Status::ok, 0.50),
                              timed(space, 2, Status::ok, 2.00)};
  all[1].extra["suspicious"] = {"median 0.0011 ms is under the 0.002 ms launch-overhead floor"};
  ConfirmOptions options;
  EXPECT_TRUE(near_ties(all, options).empty());  // X=0 alone within 3 % of itself
  all[2].objective = 1.01;
  const auto ties = near_ties(all, options);
  ASSERT_EQ(ties.size(), 2u);
  EXPECT_EQ(ties[0].label, "X=0");
  EXPECT_EQ(ties[1].label, "X=2");
}

// confirmed_best: a verdict beside the results file crowns its winner with its confirmed median
// while it belongs to the same key and the stored best is among its contenders.
TEST(ConfirmedBest, AppliesAVerdictOfTheSameKeyWhoseContendersHoldTheBest) {
  const Space space({test::range("X", 4)}, {});
  const std::vector<Outcome> all = {timed(space, 0, Status::ok, 1.00), timed(space, 1, Status::ok, 1.01),
                                    timed(space, 2, Status::ok, 2.00)};
  const auto dir = test::fresh_test_directory("confirm");
  const auto results = dir / "results.jsonl";
  EXPECT_EQ(confirmed_best(results, "k1", all)->label, "X=0");  // no verdict: best_of
  auto write_verdict = [&](const std::string& key, const std::string& first) {
    nlohmann::json v = {{"key", key},
                        {"rounds", 3},
                        {"contenders",
                         {{{"label", first}, {"median_ms", 1.02}, {"winner", false}},
                          {{"label", "X=1"}, {"median_ms", 0.99}, {"winner", true}}}}};
    std::ofstream(confirmation_path(results)) << v.dump();
  };
  write_verdict("k1", "X=0");
  const auto crowned = confirmed_best(results, "k1", all);
  ASSERT_TRUE(crowned);
  EXPECT_EQ(crowned->label, "X=1");
  EXPECT_DOUBLE_EQ(*crowned->objective, 0.99);
  EXPECT_TRUE(crowned->extra.contains("confirmation"));
  EXPECT_EQ(confirmed_best(results, "k2", all)->label, "X=0");  // another key's verdict
  write_verdict("k1", "X=3");
  EXPECT_EQ(confirmed_best(results, "k1", all)->label, "X=0");  // the best is not among its contenders
  std::ofstream(confirmation_path(results)) << "{broken";
  EXPECT_EQ(confirmed_best(results, "k1", all)->label, "X=0");  // unreadable: ignored
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace adaexplore
