// Which configurations are near-ties (confirm.hpp near_ties): successful, not suspicious, within
// the margin of the best, the best first, at most max_contenders; fewer than two is none.
#include <gtest/gtest.h>

#include "loop/confirm.hpp"
#include "loop/crown.hpp"
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

// Each contender's artifact is kept through the rounds (keep_artifact) and then discarded by the
// backend (Backend::discard), once, after its last measurement.
class RoundsBackend : public Backend {
 public:
  std::string name() const override { return "rounds"; }
  nlohmann::json device() const override { return {{"name", "none"}}; }
  Prepared prepare(const Config& config) override {
    Prepared p;
    p.config = config;
    return p;
  }
  Outcome measure(Prepared& p) override {
    events.push_back("measure " + std::to_string(p.config[0]) + (p.keep_artifact ? " kept" : ""));
    Outcome o;
    o.status = Status::ok;
    o.objective = 1.0 + p.config[0] / 100.0;
    return o;
  }
  void discard(const Prepared& p) override {
    events.push_back("discard " + std::to_string(p.config[0]) + (p.keep_artifact ? " kept" : ""));
  }
  std::vector<std::string> events;
};

TEST(ConfirmNearTies, TheBackendDiscardsEachContendersArtifactAfterTheRounds) {
  const Space space({test::range("X", 4)}, {});
  RoundsBackend backend;
  ConfirmOptions options;
  options.rounds = 2;
  const Confirmation c = confirm_near_ties(
      backend, {timed(space, 0, Status::ok, 1.00), timed(space, 1, Status::ok, 1.01)}, options);
  ASSERT_TRUE(c.winner);
  EXPECT_EQ(backend.events, (std::vector<std::string>{"measure 0 kept", "measure 1 kept", "measure 1 kept",
                                                      "measure 0 kept", "discard 0", "discard 1"}));
}

// The rounds' medians of two contenders 0.03 % apart: the first in the space's order wins, whichever
// measured faster, and the verdict says why; 2 % apart, the faster one.
class NoisyBackend : public RoundsBackend {
 public:
  explicit NoisyBackend(double later_ms) : later_ms_(later_ms) {}
  Outcome measure(Prepared& p) override {
    Outcome o;
    o.status = Status::ok;
    o.objective = p.config[0] == 0 ? 1.0 : later_ms_;
    return o;
  }
  double later_ms_;
};

TEST(ConfirmNearTies, RoundsWithinOnePercentCrownTheFirstInTheSpacesOrder) {
  const Space space({test::range("X", 4)}, {});
  ConfirmOptions options;
  const std::vector<Outcome> contenders = {timed(space, 2, Status::ok, 1.00), timed(space, 0, Status::ok, 1.0002)};
  NoisyBackend tie(0.9997);  // X=2 measures 0.03 % faster than X=0 in every round
  Confirmation c = confirm_near_ties(tie, contenders, options);
  ASSERT_TRUE(c.winner);
  EXPECT_EQ(c.contenders[*c.winner].label, "X=0");
  EXPECT_TRUE(c.changed);
  EXPECT_EQ(c.to_json()["tie_margin"], kTieMargin);
  bool said = false;
  for (const auto& line : c.describe()) said = said || line.find("<- winner (within 1 % of the lowest median") != std::string::npos;
  EXPECT_TRUE(said);
  NoisyBackend apart(0.98);
  c = confirm_near_ties(apart, contenders, options);
  ASSERT_TRUE(c.winner);
  EXPECT_EQ(c.contenders[*c.winner].label, "X=2");
}

}  // namespace
}  // namespace adaexplore
