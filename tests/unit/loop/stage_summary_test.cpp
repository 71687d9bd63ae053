#include "loop/stage_summary.hpp"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

// An outcome reporting `stages` (ms) and, when successful, a median time of `median_ms`.
Outcome outcome(const std::map<std::string, double>& stages, Status status = Status::ok, double median_ms = 1.0) {
  Outcome o;
  o.status = status;
  o.stage_ms = stages;
  if (is_success(status)) {
    o.objective = median_ms;
    Timing t;
    t.median_ms = median_ms;
    t.samples = 10;
    o.timing = t;
  }
  return o;
}

const StageFigures* find(const StageSummary& s, const std::string& name) {
  for (const auto& f : s.stages)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(StageSummary, CountsTotalsMediansMaximaAndShares) {
  // 4 evaluations over 10 s of wall time; compile reported by all, run by three (one failed to compile).
  const std::vector<Outcome> fresh = {
      outcome({{"render", 1}, {"compile", 4000}, {"run", 300}}),
      outcome({{"render", 3}, {"compile", 6000}, {"run", 500}}),
      outcome({{"render", 2}, {"compile", 9000}, {"run", 100}}),
      outcome({{"render", 2}, {"compile", 5000}}, Status::compile_error),
  };
  const StageSummary s = summarize_stages(fresh, 10.0);
  EXPECT_EQ(s.evaluations, 4u);
  EXPECT_DOUBLE_EQ(s.evaluations_per_minute, 24.0);  // 4 / (10 s / 60)
  const StageFigures* compile = find(s, "compile");
  ASSERT_NE(compile, nullptr);
  EXPECT_EQ(compile->count, 4u);
  EXPECT_DOUBLE_EQ(compile->total_ms, 24000);
  EXPECT_DOUBLE_EQ(compile->median_ms, 5500);  // even count: mean of 5000 and 6000
  EXPECT_DOUBLE_EQ(compile->max_ms, 9000);
  EXPECT_DOUBLE_EQ(compile->share_pct, 240);   // parallel compiles: more than the wall time
  EXPECT_TRUE(compile->parallel);
  const StageFigures* run = find(s, "run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->count, 3u);
  EXPECT_DOUBLE_EQ(run->median_ms, 300);  // odd count: the middle one
  EXPECT_DOUBLE_EQ(run->share_pct, 9);    // 900 ms of 10 s
  EXPECT_FALSE(run->parallel);
  // No warmup/measure stages: the kernel-timing share is the run stage's.
  EXPECT_EQ(s.timing_source, "run");
  EXPECT_DOUBLE_EQ(s.timing_pct, 9);
}

TEST(StageSummary, StagesInPipelineOrderThenUnknownOnesAlphabetically) {
  const std::vector<Outcome> fresh = {outcome({{"zeta", 1},
                                               {"measure", 1},
                                               {"alpha", 1},
                                               {"load", 1},
                                               {"compile", 1},
                                               {"verify", 1},
                                               {"warmup", 1},
                                               {"setup", 1},
                                               {"render", 1}})};
  const StageSummary s = summarize_stages(fresh, 1.0);
  std::vector<std::string> names;
  for (const auto& f : s.stages) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"render", "compile", "load", "setup", "verify", "warmup", "measure",
                                             "alpha", "zeta"}));
}

TEST(StageSummary, KernelTimingPrefersWarmupAndMeasureOverRun) {
  // A long-lived runner reports warmup and measure; the run stage around them is not counted.
  const std::vector<Outcome> fresh = {
      outcome({{"compile", 1000}, {"warmup", 50}, {"measure", 200}, {"run", 900}}),
      outcome({{"compile", 1000}, {"measure", 250}}),
  };
  StageSummary s = summarize_stages(fresh, 5.0);
  EXPECT_EQ(s.timing_source, "warmup+measure");
  EXPECT_DOUBLE_EQ(s.timing_pct, 10);  // 500 ms of 5 s
  // Outcomes of both kinds: each contributes its own, and the source says both.
  s = summarize_stages({fresh[0], outcome({{"run", 500}})}, 5.0);
  EXPECT_EQ(s.timing_source, "warmup+measure and run");
  EXPECT_DOUBLE_EQ(s.timing_pct, 15);  // 250 + 500 ms of 5 s
}

TEST(StageSummary, EmptyAndZeroWallTimeGiveZeros) {
  const StageSummary none = summarize_stages({}, 3.0);
  EXPECT_TRUE(none.stages.empty());
  EXPECT_EQ(none.evaluations_per_minute, 0);
  EXPECT_TRUE(stage_table(none).empty());
  const StageSummary instant = summarize_stages({outcome({{"run", 5}})}, 0.0);
  EXPECT_EQ(instant.evaluations_per_minute, 0);
  ASSERT_EQ(instant.stages.size(), 1u);
  EXPECT_EQ(instant.stages[0].share_pct, 0);
}

TEST(StageSummary, TableAndJsonCarryTheFigures) {
  const StageSummary s = summarize_stages({outcome({{"compile", 3000}, {"run", 250}}),
                                           outcome({{"compile", 5000}, {"run", 750}})},
                                          2.0);
  const auto lines = stage_table(s);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_NE(lines[0].find("2 new evaluations in 2.0 s (60.0 evaluations/min)"), std::string::npos) << lines[0];
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  EXPECT_NE(text.find("compile"), std::string::npos) << text;
  EXPECT_NE(text.find("8000.0"), std::string::npos) << text;          // compile total ms
  EXPECT_NE(text.find("400.0%  CPU-side, in parallel"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel timing: 50.0 % of the wall time (sum of run"), std::string::npos) << text;

  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j["evaluations"], 2);
  EXPECT_DOUBLE_EQ(j["evaluations_per_minute"].get<double>(), 60);
  EXPECT_DOUBLE_EQ(j["timing_pct"].get<double>(), 50);
  ASSERT_EQ(j["stages"].size(), 2u);
  EXPECT_EQ(j["stages"][0]["name"], "compile");
  EXPECT_EQ(j["stages"][0]["parallel"], true);
  EXPECT_DOUBLE_EQ(j["stages"][1]["median_ms"].get<double>(), 500);
  EXPECT_DOUBLE_EQ(j["stages"][1]["share_pct"].get<double>(), 50);
}

std::vector<Outcome> timed(const std::vector<double>& medians) {
  std::vector<Outcome> out;
  for (double m : medians) out.push_back(outcome({{"run", 10}}, Status::ok, m));
  return out;
}

TEST(SameTimingGate, EightEqualTimesWarnWithTheTime) {
  const auto warning = same_timing_warning(timed({2.000, 2.001, 2.002, 2.003, 2.004, 2.005, 2.006, 2.008}));
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("may not time the kernel"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("every one of the 8 configurations"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("timed 2.003 ms"), std::string::npos) << *warning;  // the medians' median
}

TEST(SameTimingGate, FewerThanEightOrASpreadOfHalfAPercentDoNotWarn) {
  EXPECT_FALSE(same_timing_warning(timed({1, 1, 1, 1, 1, 1, 1})));
  EXPECT_FALSE(same_timing_warning(timed({1, 1, 1, 1, 1, 1, 1, 1.005})));  // max/min = 1.005: not below
  EXPECT_TRUE(same_timing_warning(timed({1, 1, 1, 1, 1, 1, 1, 1.0049})));
  EXPECT_FALSE(same_timing_warning(timed({1, 1, 1, 1, 1, 1, 1, 1, 1.2})));
}

TEST(SameTimingGate, FailuresAreNotCountedAndSlowOnesAre) {
  std::vector<Outcome> fresh = timed({3, 3, 3, 3, 3, 3, 3});
  for (int i = 0; i < 5; ++i) fresh.push_back(outcome({{"compile", 1}}, Status::compile_error));
  EXPECT_FALSE(same_timing_warning(fresh));  // 7 successes
  fresh.push_back(outcome({{"run", 10}}, Status::slow, 3.001));
  EXPECT_TRUE(same_timing_warning(fresh));
}

}  // namespace
}  // namespace adaexplore
