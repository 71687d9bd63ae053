#include "model/outcome.hpp"
#include "util/text.hpp"

#include <set>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

Space space() {
  Parameter tile{"TILE", {Value::from_number(16), Value::from_number(32)}};
  Parameter type{"TYPE", {Value::from_text("float"), Value::from_text("half")}};
  return Space({tile, type}, {});
}

TEST(Status, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (Status s : kAllStatuses) {
    EXPECT_EQ(status_from_string(to_string(s)), s);
    names.insert(to_string(s));
  }
  EXPECT_EQ(names.size(), std::size(kAllStatuses));
  try {
    status_from_string("segfault");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'segfault'"), std::string::npos);
  }
}

TEST(Status, OnlyOkAndSlowAreSuccesses) {
  for (Status s : kAllStatuses) EXPECT_EQ(is_success(s), s == Status::ok || s == Status::slow) << to_string(s);
}

TEST(TruncateMiddle, KeepsBothEndsAndSaysHowMuchWasCut) {
  EXPECT_EQ(truncate_middle("short", 10), "short");
  const std::string text = std::string(50, 'a') + std::string(100, 'm') + std::string(50, 'z');
  const std::string t = truncate_middle(text, 100);
  EXPECT_EQ(t.substr(0, 50), std::string(50, 'a'));
  EXPECT_EQ(t.substr(t.size() - 50), std::string(50, 'z'));
  EXPECT_NE(t.find("[... 100 characters cut ...]"), std::string::npos) << t;
}

TEST(OutcomeJson, RecordsConfigurationByNameAndValue) {
  const Space s = space();
  Outcome o;
  o.config = {1, 1};
  o.status = Status::compile_error;
  o.message = "error: half not supported";
  const nlohmann::json j = to_json(o, s);
  EXPECT_EQ(j["label"], "TILE=32,TYPE=half");
  EXPECT_EQ(j["config"], (nlohmann::json{{"TILE", 32}, {"TYPE", "half"}}));
  EXPECT_EQ(j["status"], "compile_error");
  EXPECT_TRUE(j["objective_ms"].is_null());
  EXPECT_FALSE(j.contains("timing"));
  EXPECT_FALSE(j.contains("exit_code"));
  const Outcome back = outcome_from_json(j, s);
  EXPECT_EQ(back.config, o.config);
  EXPECT_EQ(back.status, o.status);
  EXPECT_EQ(back.message, o.message);
  EXPECT_FALSE(back.objective);
}

TEST(OutcomeJson, SuccessKeepsObjectiveAndSignal) {
  const Space s = space();
  Outcome o;
  o.config = {0, 0};
  o.status = Status::ok;
  o.objective = 0.123456789012345;
  o.signal = 11;
  const Outcome back = outcome_from_json(to_json(o, s), s);
  EXPECT_EQ(back.objective, o.objective);
  EXPECT_EQ(back.signal, 11);
  EXPECT_EQ(back.label, "TILE=16,TYPE=float");
}

TEST(OutcomeJson, TimingKeepsItsPerRunValuesAndOlderRecordsWithoutThemLoad) {
  const Space s = space();
  Outcome o;
  o.config = {0, 0};
  o.status = Status::slow;
  o.objective = 0.5;
  o.timing = Timing{0.5, 0.51, 0.49, 0.55, 0.02, 3, {0.49, 0.5, 0.55}};
  const nlohmann::json j = to_json(o, s);
  EXPECT_EQ(j["status"], "slow");
  EXPECT_EQ(j["timing"]["values_ms"], (nlohmann::json{0.49, 0.5, 0.55}));
  const Outcome back = outcome_from_json(j, s);
  EXPECT_EQ(back.status, Status::slow);
  ASSERT_TRUE(back.timing);
  EXPECT_EQ(back.timing->values_ms, o.timing->values_ms);
  EXPECT_EQ(back.timing->samples, 3);
  // A record written before values_ms existed.
  nlohmann::json older = j;
  older["timing"].erase("values_ms");
  const Outcome old = outcome_from_json(older, s);
  ASSERT_TRUE(old.timing);
  EXPECT_TRUE(old.timing->values_ms.empty());
  EXPECT_DOUBLE_EQ(old.timing->median_ms, 0.5);
  // Without values, none are written.
  o.timing->values_ms.clear();
  EXPECT_FALSE(to_json(o, s)["timing"].contains("values_ms"));
}

TEST(OutcomeJson, UnknownValueOrStatusIsAnError) {
  const Space s = space();
  EXPECT_THROW(outcome_from_json({{"config", {{"TILE", 64}, {"TYPE", "float"}}}, {"status", "ok"}}, s),
               std::invalid_argument);
  EXPECT_THROW(outcome_from_json({{"config", {{"TILE", 16}, {"TYPE", "float"}}}, {"status", "great"}}, s),
               std::invalid_argument);
  EXPECT_ANY_THROW(outcome_from_json({{"status", "ok"}}, s));
}

}  // namespace
}  // namespace adaexplore
