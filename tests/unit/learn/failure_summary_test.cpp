#include "learn/failure_summary.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::numbers;

Space space() {
  return Space({numbers("VEC", {1, 2, 4}), numbers("BLOCK", {256, 512, 1024}), numbers("ONE", {7})}, {});
}

std::vector<Outcome> outcomes(const Space& s, Status (*oracle)(const Space&, const Config&)) {
  std::vector<Outcome> all;
  for (int repeat = 0; repeat < 4; ++repeat)
    for (const auto& c : s.enumerate_valid()) {
      Outcome o;
      o.config = c;
      o.status = oracle(s, c);
      all.push_back(o);
    }
  return all;
}

TEST(FailureAlignment, EveryConfigurationOfAValueFailingTheSameWay) {
  const Space s = space();
  const auto lines = failure_alignment(s, outcomes(s, [](const Space& sp, const Config& c) {
                                         return sp.value(c, 0).number == 4 ? Status::wrong_result : Status::ok;
                                       }));
  EXPECT_EQ(lines, std::vector<std::string>{"every VEC=4 configuration is wrong_result (12 of 12)"});
}

TEST(FailureAlignment, FailuresConfinedToOneValue) {
  const Space s = space();
  const auto lines = failure_alignment(s, outcomes(s, [](const Space& sp, const Config& c) {
                                         if (sp.value(c, 1).number != 1024 || sp.value(c, 0).number == 1)
                                           return Status::ok;
                                         return sp.value(c, 0).number == 2 ? Status::crash : Status::launch_error;
                                       }));
  EXPECT_EQ(lines,
            (std::vector<std::string>{"all 4 crash failures have VEC=2 (4 of 12 VEC=2 evaluations)",
                                      "all 4 launch_error failures have VEC=4 (4 of 12 VEC=4 evaluations)",
                                      "all 4 launch_error failures have BLOCK=1024 (4 of 12 BLOCK=1024 evaluations)",
                                      "all 4 crash failures have BLOCK=1024 (4 of 12 BLOCK=1024 evaluations)"}));
}

TEST(FailureAlignment, EveryConfigurationOfAValueFailingInSeveralWays) {
  const Space s = space();
  const auto lines = failure_alignment(s, outcomes(s, [](const Space& sp, const Config& c) {
                                         if (sp.value(c, 1).number != 1024) return Status::ok;
                                         return sp.value(c, 0).number == 1 ? Status::crash : Status::launch_error;
                                       }));
  EXPECT_EQ(lines,
            (std::vector<std::string>{"all 4 crash failures have VEC=1 (4 of 12 VEC=1 evaluations)",
                                      "every BLOCK=1024 configuration failed (12 of 12: launch_error 8, crash 4)"}));
}

TEST(FailureAlignment, NothingToSayWithoutEnoughEvaluationsOrWithOneValueParameters) {
  const Space s = space();
  std::vector<Outcome> two;
  for (int i = 0; i < 2; ++i) {
    Outcome o;
    o.config = Config{2, 0, 0};
    o.status = Status::crash;
    two.push_back(o);
  }
  EXPECT_TRUE(failure_alignment(s, two).empty());
}

}  // namespace
}  // namespace adaexplore
