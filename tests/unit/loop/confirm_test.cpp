// Which configurations are near-ties (confirm.hpp near_ties): successful, not suspicious, within
// the margin of the best, the best first, at most max_contenders; fewer than two is none.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace adaexplore
