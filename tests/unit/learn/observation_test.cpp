#include "learn/observation.hpp"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

Space space() {
  Parameter tile{"TILE", {Value::from_number(32), Value::from_number(64)}};
  return Space({tile}, {});
}

TEST(Observation, FiguresFromThePtxasReportTakeTheLargestKernel) {
  Outcome o;
  o.config = {1};
  o.status = Status::ok;
  o.objective = 2.5;
  o.resources.push_back(KernelResources{"a", 40, 1024, 16});
  o.resources.push_back(KernelResources{"b", 32, 8192, 0});
  const Observation ob = observation_of(o);
  EXPECT_EQ(ob.figures.at("shared_bytes"), 8192);
  EXPECT_EQ(ob.figures.at("registers"), 40);
  EXPECT_EQ(ob.figures.at("stack_bytes"), 16);
  EXPECT_TRUE(ob.limits.empty());
  EXPECT_EQ(ob.objective, 2.5);
}

TEST(Observation, FigureAndLimitFromACompilerRejection) {
  Outcome o;
  o.config = {1};
  o.status = Status::resource_limit;
  o.message = "ptxas error   : Entry function '_Z1kPf' uses too much shared data (0xe2e0 bytes, 0xc000 max)\n";
  const Observation ob = observation_of(o);
  EXPECT_EQ(ob.figures.at("shared_bytes"), 0xe2e0);
  EXPECT_EQ(ob.limits.at("shared_bytes"), 0xc000);
  EXPECT_FALSE(ob.objective);
}

TEST(Observation, FiguresAndLimitsABackendPutsInExtra) {
  Outcome o;
  o.config = {0};
  o.status = Status::launch_error;
  o.extra = {{"figures", {{"threads", 2048}}}, {"limits", {{"threads", 1024}}}, {"gbps", 12}};
  const Observation ob = observation_of(o);
  EXPECT_EQ(ob.figures, (std::map<std::string, double>{{"threads", 2048}}));
  EXPECT_EQ(ob.limits, (std::map<std::string, double>{{"threads", 1024}}));
}

TEST(Observation, JsonRoundTripAndValidation) {
  const Space s = space();
  Observation o{{1}, Status::slow, 3.5, {{"shared_bytes", 4096}}, {{"shared_bytes", 49152}}};
  const Observation back = observation_from_json(nlohmann::json::parse(to_json(o).dump()), s);
  EXPECT_EQ(back.config, o.config);
  EXPECT_EQ(back.status, o.status);
  EXPECT_EQ(back.objective, o.objective);
  EXPECT_EQ(back.figures, o.figures);
  EXPECT_EQ(back.limits, o.limits);
  EXPECT_THROW(observation_from_json({{"config", {2}}, {"status", "ok"}}, s), std::invalid_argument);
  EXPECT_THROW(observation_from_json({{"config", {0, 0}}, {"status", "ok"}}, s), std::invalid_argument);
  EXPECT_THROW(observation_from_json({{"config", {0}}, {"status", "fine"}}, s), std::invalid_argument);
}

}  // namespace
}  // namespace adaexplore
