#include "emit/report.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "evaluate/profile.hpp"
#include "model/spec.hpp"
#include "test_support.hpp"
#include "store/key.hpp"
#include "store/profiles.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::shared_ptr<const Space> space3() {
  return std::make_shared<const Space>(
      std::vector<Parameter>{test::numbers("X", {1, 2, 4}), test::numbers("Y", {1, 2, 4}), test::numbers("Z", {0, 1})},
      std::vector<std::string>{});
}

Outcome ok(const Space& s, const Config& c, double ms) {
  Outcome o;
  o.config = c;
  o.label = s.label(c);
  o.status = Status::ok;
  o.objective = ms;
  return o;
}

Outcome failed(const Space& s, const Config& c, Status status, const std::string& message = "") {
  Outcome o;
  o.config = c;
  o.label = s.label(c);
  o.status = status;
  o.message = message;
  return o;
}

// Every configuration of X x Y x Z: X=4 with Y=4 fails (resource_limit, or crash when Z=1);
// otherwise the time is 10 / (x * y) + z ms. The defaults {1,1,0} first.
ReportInput grid_input() {
  ReportInput in;
  in.kernel = "k";
  in.space = space3();
  const Space& s = *in.space;
  in.defaults = Config{0, 0, 0};
  std::vector<Config> order = {{0, 0, 0}};
  for (std::uint16_t x = 0; x < 3; ++x)
    for (std::uint16_t y = 0; y < 3; ++y)
      for (std::uint16_t z = 0; z < 2; ++z)
        if (Config{x, y, z} != Config{0, 0, 0}) order.push_back({x, y, z});
  const double values[] = {1, 2, 4};
  for (const auto& c : order) {
    if (c[0] == 2 && c[1] == 2)
      in.outcomes.push_back(failed(s, c, c[2] ? Status::crash : Status::resource_limit, "too much\nsecond line"));
    else
      in.outcomes.push_back(ok(s, c, 10.0 / (values[c[0]] * values[c[1]]) + c[2]));
  }
  for (std::size_t i = 0; i < in.outcomes.size(); ++i) in.elapsed_s.push_back(1.5 * static_cast<double>(i + 1));
  in.winner = in.outcomes[0];
  for (const auto& o : in.outcomes)
    if (o.objective && *o.objective < *in.winner->objective) in.winner = o;
  return in;
}

TEST(ReportData, BestSoFarDefaultsAndSummaryFollowTheEvaluations) {
  const ReportInput in = grid_input();
  const json d = report_data(in);
  ASSERT_EQ(d["evaluations"].size(), in.outcomes.size());
  std::optional<double> best;
  for (std::size_t i = 0; i < in.outcomes.size(); ++i) {
    const auto& o = in.outcomes[i];
    const json& e = d["evaluations"][i];
    EXPECT_EQ(e["n"], i + 1);
    EXPECT_EQ(e["label"], o.label);
    EXPECT_EQ(e["status"], to_string(o.status));
    EXPECT_DOUBLE_EQ(e["elapsed_s"].get<double>(), in.elapsed_s[i].value());
    if (o.objective && (!best || *o.objective < *best)) best = o.objective;
    EXPECT_DOUBLE_EQ(e["best_ms"].get<double>(), *best) << i;
    if (is_success(o.status)) {
      EXPECT_DOUBLE_EQ(e["objective_ms"].get<double>(), *o.objective);
    } else {
      EXPECT_TRUE(e["objective_ms"].is_null());
      EXPECT_EQ(e["message"], "too much");  // the first line only
    }
  }
  EXPECT_EQ(d["defaults"]["n"], 1);
  EXPECT_DOUBLE_EQ(d["defaults"]["objective_ms"].get<double>(), 10.0);
  const json& s = d["summary"];
  EXPECT_EQ(s["evaluations"], 18);
  EXPECT_EQ(s["failures"], 2);
  EXPECT_EQ(s["counts"]["crash"], 1);
  EXPECT_EQ(s["counts"]["resource_limit"], 1);
  EXPECT_EQ(s["counts"]["ok"], 16);
  // The best success: X=4,Y=2,Z=0 or X=2,Y=4,Z=0 (1.25 ms); the first of them in order wins.
  EXPECT_DOUBLE_EQ(s["best_ms"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(s["speedup"].get<double>(), 8.0);
  const std::size_t at = s["evaluations_to_best"].get<std::size_t>();
  EXPECT_EQ(in.outcomes[at - 1].config, in.winner->config);
  EXPECT_DOUBLE_EQ(s["time_to_best_s"].get<double>(), 1.5 * static_cast<double>(at));
  EXPECT_TRUE(s["timestamps"].get<bool>());
  EXPECT_DOUBLE_EQ(s["wall_s"].get<double>(), 1.5 * 18);
}

TEST(ReportData, WithoutFinishedTimesThereIsNoWallTimeAxis) {
  ReportInput in = grid_input();
  in.elapsed_s[3].reset();
  const json d = report_data(in);
  EXPECT_FALSE(d["summary"]["timestamps"].get<bool>());
  EXPECT_TRUE(d["summary"]["wall_s"].is_null());
  EXPECT_TRUE(d["summary"]["time_to_best_s"].is_null());
  EXPECT_TRUE(d["evaluations"][3]["elapsed_s"].is_null());
}

TEST(ReportData, FailureMapLeadsWithThePairWhereTheFailuresAre) {
  const json d = report_data(grid_input());
  const json& fm = d["failure_map"];
  EXPECT_EQ(fm["failures"], 2);
  ASSERT_FALSE(fm["pairs"].empty());
  EXPECT_LE(fm["pairs"].size(), kFailureMapPairs);
  const json& top = fm["pairs"][0];
  EXPECT_EQ(top["x"], 0);  // X
  EXPECT_EQ(top["y"], 1);  // Y
  std::size_t total = 0;
  for (const auto& c : top["cells"]) {
    total += c["total"].get<std::size_t>();
    EXPECT_EQ(c["total"], 2);  // Z's two values
    if (c["xi"] == 2 && c["yi"] == 2) {
      EXPECT_EQ(c["failures"], 2);
      EXPECT_EQ(c["counts"]["crash"], 1);
      EXPECT_EQ(c["counts"]["resource_limit"], 1);
    } else {
      EXPECT_EQ(c["failures"], 0);
    }
  }
  EXPECT_EQ(total, 18);
  for (std::size_t i = 1; i < fm["pairs"].size(); ++i)
    EXPECT_LE(fm["pairs"][i]["score"].get<double>(), fm["pairs"][i - 1]["score"].get<double>());
}

TEST(ReportData, NoFailuresNoMap) {
  ReportInput in = grid_input();
  std::vector<Outcome> kept;
  for (const auto& o : in.outcomes)
    if (is_success(o.status)) kept.push_back(o);
  in.outcomes = kept;
  in.elapsed_s.resize(kept.size());
  const json d = report_data(in);
  EXPECT_EQ(d["failure_map"]["failures"], 0);
  EXPECT_TRUE(d["failure_map"]["pairs"].empty());
}

TEST(ReportData, EffectsGiveBestMedianAndFailuresPerValue) {
  const json d = report_data(grid_input());
  const json& x = d["effects"][0];
  EXPECT_EQ(x["parameter"], "X");
  ASSERT_EQ(x["values"].size(), 3);
  // X=1: Y in {1,2,4} x Z in {0,1}: 10/y + z = 10, 11, 5, 6, 2.5, 3.5 -> best 2.5, median 5.5.
  EXPECT_EQ(x["values"][0]["value"], "1");
  EXPECT_EQ(x["values"][0]["evaluations"], 6);
  EXPECT_DOUBLE_EQ(x["values"][0]["best_ms"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(x["values"][0]["median_ms"].get<double>(), 5.5);
  EXPECT_TRUE(x["values"][0]["failures"].empty());
  // X=4: two failures, four successes.
  EXPECT_EQ(x["values"][2]["successes"], 4);
  EXPECT_EQ(x["values"][2]["failures"]["crash"], 1);
  EXPECT_EQ(x["values"][2]["failures"]["resource_limit"], 1);
}

TEST(ReportData, WinnerCardHasResourcesFiguresIntervalAndNearTies) {
  ReportInput in = grid_input();
  Outcome& w = *in.winner;
  w.timing = Timing{1.25, 1.26, 1.2, 1.4, 0.05, 10, {1.2, 1.21, 1.22, 1.23, 1.24, 1.25, 1.26, 1.3, 1.35, 1.4}};
  w.resources.push_back({"_Z1kv", 40, 4096, 0, 8, 16, 0, 1, "k()", "sm_90"});
  w.extra = {{"GFLOP/s", 100.0},
             {"figures", {{"bytes", 1e9}, {"GB/s", 800.0}}},
             {"peak", {{"GB/s", 4800.0}, {"GFLOP/s", 66900.0}}},
             {"kernels", {{{"occupancy", 0.5}, {"blocks_per_sm", 4}, {"warps_per_sm", 32}, {"threads_per_block", 256}}}}};
  const json d = report_data(in);
  const json& c = d["winner"];
  EXPECT_EQ(c["label"], w.label);
  EXPECT_EQ(c["config"]["X"], in.space->value(w.config, 0).text);
  EXPECT_DOUBLE_EQ(c["objective_ms"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(c["ci"]["low_ms"].get<double>(), 1.21);  // x_(2) of 10
  EXPECT_DOUBLE_EQ(c["ci"]["high_ms"].get<double>(), 1.35);  // x_(9)
  EXPECT_NEAR(c["ci"]["level"].get<double>(), 1 - 22.0 / 1024, 1e-12);
  EXPECT_EQ(c["resources"][0]["registers"], 40);
  EXPECT_EQ(c["resources"][0]["spill_store_bytes"], 8);
  EXPECT_EQ(c["resources"][0]["spill_load_bytes"], 16);
  EXPECT_DOUBLE_EQ(c["launch"]["occupancy"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(c["figures"]["GB/s"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(c["figures"]["GFLOP/s"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(c["peak"]["GB/s"].get<double>(), 4800.0);
  EXPECT_DOUBLE_EQ(c["speedup"].get<double>(), 8.0);
  // The other configuration at 1.25 ms is a near-tie (ratio 1); 2.5 ms ones are not.
  ASSERT_EQ(c["near_ties"].size(), 1);
  EXPECT_DOUBLE_EQ(c["near_ties"][0]["ratio"].get<double>(), 1.0);
  EXPECT_NE(c["near_ties"][0]["label"], w.label);
}

// The model section: the fastest successes (at most kModelFinalists) with what the strategy's
// model believed of each (extra.model) beside the measured time; the crowned winner among them
// even when slower; null without any belief.
TEST(ReportData, ModelPredictionsOfTheFinalistsBesideTheirMeasuredTimes) {
  ReportInput in = grid_input();
  EXPECT_TRUE(report_data(in)["model"].is_null());  // no record has a belief

  Outcome *fastest = nullptr, *tie = nullptr;  // the two configurations at 1.25 ms
  std::size_t tie_n = 0;
  for (std::size_t i = 0; i < in.outcomes.size(); ++i) {
    Outcome& o = in.outcomes[i];
    if (o.config == in.winner->config) fastest = &o;
    else if (o.objective && *o.objective == 1.25) tie = &o, tie_n = i + 1;
  }
  ASSERT_NE(fastest, nullptr);
  ASSERT_NE(tie, nullptr);
  fastest->extra["model"] = {{"predicted_ms", 1.0}, {"interval_ms", {0.8, 1.2}}, {"p_fail", 0.125}};
  tie->extra["model"] = {{"predicted_relative", 0.5}, {"source", "other sizes"}, {"p_fail", 0.0}};
  // Crowned after a near-tie round: a slow success, not among the 8 fastest.
  const Outcome* slow = nullptr;
  for (const auto& o : in.outcomes)
    if (o.objective && (!slow || *o.objective > *slow->objective)) slow = &o;
  in.winner = *slow;

  const json m = report_data(in)["model"];
  ASSERT_TRUE(m.is_object()) << m.dump();
  EXPECT_EQ(m["believed"], 2);
  const json& f = m["finalists"];
  ASSERT_EQ(f.size(), kModelFinalists);
  for (std::size_t i = 0; i + 2 < f.size(); ++i)  // fastest first (the last one is the slow winner)
    EXPECT_LE(f[i]["measured_ms"].get<double>(), f[i + 1]["measured_ms"].get<double>()) << f.dump();
  EXPECT_EQ(f[0]["label"], fastest->label);
  EXPECT_DOUBLE_EQ(f[0]["measured_ms"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(f[0]["predicted_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(f[0]["ratio"].get<double>(), 1.25);  // measured / predicted: slower than predicted
  EXPECT_DOUBLE_EQ(f[0]["interval_ms"][1].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(f[0]["p_fail"].get<double>(), 0.125);
  EXPECT_FALSE(f[0]["winner"].get<bool>());
  EXPECT_EQ(f.back()["label"], slow->label);
  EXPECT_TRUE(f.back()["winner"].get<bool>());
  EXPECT_TRUE(f.back()["predicted_ms"].is_null());  // no belief: no prediction, no ratio
  EXPECT_TRUE(f.back()["ratio"].is_null());
  const json& relative = f[1];  // the other configuration at 1.25 ms (stable order: the winner came first)
  EXPECT_EQ(relative["label"], tie->label);
  EXPECT_EQ(relative["n"], tie_n);
  EXPECT_DOUBLE_EQ(relative["predicted_relative"].get<double>(), 0.5);
  EXPECT_EQ(relative["source"], "other sizes");
  EXPECT_TRUE(relative["predicted_ms"].is_null());
  EXPECT_TRUE(relative["ratio"].is_null());
  const std::string page = render_report_html(report_data(in), std::nullopt);
  EXPECT_NE(page.find("Predicted vs measured"), std::string::npos);  // report.js draws the section
}

TEST(ReportData, NothingSucceededNoWinner) {
  ReportInput in;
  in.kernel = "k";
  in.space = space3();
  in.outcomes = {failed(*in.space, {0, 0, 0}, Status::compile_error, "error: x")};
  in.elapsed_s = {std::nullopt};
  const json d = report_data(in);
  EXPECT_TRUE(d["winner"].is_null());
  EXPECT_TRUE(d["summary"]["best_ms"].is_null());
  EXPECT_EQ(d["profiles"]["state"], "not run");
}

TEST(ReportData, RulesComeFromTheKnowledgeBase) {
  const json d = report_data(grid_input());
  ASSERT_TRUE(d["rules"]["lines"].is_array());
  EXPECT_FALSE(d["rules"]["lines"].empty());  // at least the knowledge base's summary line
}

TEST(ReportData, ProfilesAreTheBatchAsRecordedWithTheMetricsLabels) {
  ReportInput in = grid_input();
  in.profiles = json::array({{{"role", "winner"}, {"label", "w"}, {"error", ""}, {"ncu_version", "Version 2025.3.1.0"}},
                             {{"role", "defaults"}, {"label", "d"}, {"error", "ncu failed"}}});
  in.profiled = "2026-12-02T18:26:16.883Z";
  json p = report_data(in)["profiles"];
  EXPECT_EQ(p["state"], "profiled");
  ASSERT_EQ(p["results"].size(), 2);
  EXPECT_EQ(p["results"][1]["error"], "ncu failed");
  EXPECT_EQ(p["tool"], "Version 2025.3.1.0");
  EXPECT_EQ(p["profiled"], in.profiled);
  // The counters' labels come from profile_metrics(), the stall reasons left out (they are a chart).
  bool dram = false;
  for (const auto& m : p["metrics"]) {
    EXPECT_EQ(m["name"].get<std::string>().find("_stalled_"), std::string::npos);
    dram = dram || m["name"] == "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  }
  EXPECT_TRUE(dram);
  in.profiles = json::array({{{"role", "winner"}, {"label", "w"}, {"error", "ncu failed"}}});
  EXPECT_EQ(report_data(in)["profiles"]["state"], "failed");
}

TEST(MedianInterval, OrderStatisticsWithBinomialCoverage) {
  EXPECT_FALSE(median_interval({1, 2, 3, 4, 5}).has_value());  // 5 runs: at best 93.75 %
  const auto six = median_interval({6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(six.has_value());
  EXPECT_DOUBLE_EQ(six->low, 1);
  EXPECT_DOUBLE_EQ(six->high, 6);
  EXPECT_NEAR(six->coverage, 1 - 2.0 / 64, 1e-12);
  std::vector<double> many;
  for (int i = 1; i <= 100; ++i) many.push_back(i);
  const auto hundred = median_interval(many);
  ASSERT_TRUE(hundred.has_value());
  // The classic n = 100 interval: x_(40) .. x_(61), 96.5 % (x_(41)..x_(60) covers 94.3 %).
  EXPECT_DOUBLE_EQ(hundred->low, 40);
  EXPECT_DOUBLE_EQ(hundred->high, 61);
  EXPECT_GE(hundred->coverage, 0.95);
}

class ReportFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_test_directory("report"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  Spec spec() const {
    std::ofstream(dir_ / "k.cpp.in") << "// ${X} ${Y} ${Z}\n";
    std::ofstream(dir_ / "k_bench.cpp") << "// benchmark\n";
    json j = {{"name", "k"},
              {"backend", "host"},
              {"template", (dir_ / "k.cpp.in").string()},
              {"benchmark", (dir_ / "k_bench.cpp").string()},
              {"parameters",
               {{{"name", "X"}, {"values", {1, 2, 4}}},
                {{"name", "Y"}, {"values", {1, 2, 4}}},
                {{"name", "Z"}, {"values", {0, 1}}}}},
              {"defaults", {{"X", 1}, {"Y", 1}, {"Z", 0}}}};
    return parse_spec(j, dir_ / "spec.json");
  }
  fs::path dir_;
};

// Issue 37: `report` with another kernel's spec reported without a word; with an edited spec it
// told the user to move a good results file aside as corrupt; a torn last record was dropped
// without the warning `tune` gives.
TEST_F(ReportFiles, ASpecThatIsNotTheResultsOneIsSaidSo) {
  const Spec s = spec();
  ResultsHeader h = tuning_header(s, "host", {{"name", "cpu"}});
  const fs::path results = dir_ / "results.jsonl";
  {
    ResultsWriter w(results, h, s.space);
    w.append(ok(s.space, {0, 0, 0}, 10));
    w.append(ok(s.space, {2, 1, 0}, 1.25));
  }
  EXPECT_TRUE(report_input_from_results(s, results).warnings.empty());
  // Another kernel's spec: refused, naming both kernels.
  json other = s.raw;
  other["name"] = "other";
  try {
    report_input_from_results(parse_spec(other, dir_ / "other.json"), results);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("holds results of kernel 'k', and the spec " + (dir_ / "other.json").string() +
                                         " names kernel 'other'"),
              std::string::npos)
        << e.what();
  }
  // An edited spec whose space no longer holds a record: the spec is named, not the file as corrupt.
  json edited = s.raw;
  edited["parameters"][0]["values"] = {1, 2};
  edited["defaults"]["X"] = 1;
  try {
    report_input_from_results(parse_spec(edited, dir_ / "edited.json"), results);
    FAIL() << "expected an error";
  } catch (const ResultsError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("If the spec was edited since these results were tuned (kernel 'k', key " + h.key.substr(0, 16) +
                     "), or is another kernel's, give the spec they were tuned with: the file is fine."),
              std::string::npos)
        << m;
  }
  // An edited spec that still holds every record: reported, with a warning that it differs.
  json flags = s.raw;
  flags["compiler"] = {{"flags", {"-O3"}}};
  const ReportInput in = report_input_from_results(parse_spec(flags, dir_ / "flags.json"), results);
  ASSERT_EQ(in.warnings.size(), 1u);
  EXPECT_NE(in.warnings[0].find("tuned with content (spec) other than " + (dir_ / "flags.json").string()),
            std::string::npos)
      << in.warnings[0];
  // A half-written last record: dropped, with the warning.
  std::ofstream(results, std::ios::app) << "{\"config\": {\"X\": 4";
  const ReportInput torn = report_input_from_results(s, results);
  EXPECT_EQ(torn.outcomes.size(), 2u);
  ASSERT_EQ(torn.warnings.size(), 1u);
  EXPECT_NE(torn.warnings[0].find("dropped a half-written last record"), std::string::npos) << torn.warnings[0];
}

TEST_F(ReportFiles, ResultsGiveElapsedTimesDefaultsWinnerAndProfiles) {
  const Spec s = spec();
  ResultsHeader h;
  h.kernel = "k";
  h.key = "abc";
  h.started = utc_now();
  h.device = {{"name", "Test GPU"}, {"sm_count", 4}, {"uuid", "left out"}};
  const fs::path results = dir_ / "results.jsonl";
  {
    ResultsWriter w(results, h, s.space);
    w.append(ok(s.space, {0, 0, 0}, 10));
    w.append(ok(s.space, {2, 1, 0}, 1.25));
    w.append(failed(s.space, {2, 2, 1}, Status::crash, "illegal address"));
  }
  // Two batches of this key (the newest is the profile) and one of another key (ignored).
  append_profile_batch(results, "abc", json::array({{{"role", "winner"}, {"label", "old"}, {"error", ""}}}));
  append_profile_batch(results, "abc",
                       json::array({{{"role", "winner"}, {"label", s.space.label({2, 1, 0})}, {"error", ""}},
                                    {{"role", "defaults"}, {"label", s.space.label({0, 0, 0})}, {"error", "ncu failed"}}}));
  append_profile_batch(results, "another key", json::array({{{"role", "winner"}, {"label", "other"}, {"error", ""}}}));
  const ReportInput in = report_input_from_results(s, results);
  ASSERT_EQ(in.outcomes.size(), 3);
  ASSERT_EQ(in.elapsed_s.size(), 3);
  for (const auto& t : in.elapsed_s) {
    ASSERT_TRUE(t.has_value());
    EXPECT_GE(*t, 0.0);
    EXPECT_LT(*t, 60.0);
  }
  EXPECT_EQ(in.defaults, s.defaults);
  ASSERT_TRUE(in.winner.has_value());
  EXPECT_EQ(in.winner->config, (Config{2, 1, 0}));
  ASSERT_EQ(in.profiles.size(), 2);
  EXPECT_EQ(in.profiles[0]["label"], s.space.label({2, 1, 0}));
  EXPECT_FALSE(in.profiled.empty());
  const json d = report_data(in);
  EXPECT_EQ(d["meta"]["device"]["name"], "Test GPU");
  EXPECT_FALSE(d["meta"]["device"].contains("uuid"));
  EXPECT_DOUBLE_EQ(d["summary"]["speedup"].get<double>(), 8.0);
  EXPECT_EQ(d["summary"]["sessions"], 1);
  EXPECT_EQ(d["profiles"]["state"], "profiled");
  EXPECT_FALSE(d["profiles"]["metrics"].empty());
  // The results file holds records only: the profiles are beside it.
  EXPECT_EQ(read_raw_results(results).records.size(), 3);
  EXPECT_TRUE(fs::exists(profiles_path(results)));
}

TEST_F(ReportFiles, WallTimeLeavesOutTheGapBetweenSessionsAndMergedRecords) {
  const Spec s = spec();
  ResultsHeader h;
  h.kernel = "k";
  h.key = "abc";
  h.started = "2026-12-02T10:00:00Z";
  const fs::path results = dir_ / "results.jsonl";
  std::ofstream f(results);
  f << header_to_json(h).dump() << "\n";
  auto record = [&](const Config& c, double ms, const std::string& finished, long pid, bool merged = false) {
    json j = to_json(ok(s.space, c, ms), s.space);
    j["finished"] = finished;
    j["origin"] = {{"host", "h"}, {"pid", pid}};
    if (merged) j["merged_from"] = {{"path", "/elsewhere"}};
    f << j.dump() << "\n";
  };
  record({0, 0, 0}, 10, "2026-12-02T10:00:02Z", 1);
  record({1, 0, 0}, 9, "2026-12-02T10:00:05Z", 1);
  record({2, 0, 0}, 8, "2026-12-03T09:00:00Z", 2);  // resumed the next day: the gap is left out
  record({2, 1, 0}, 7, "2026-12-03T09:00:04Z", 2);
  record({2, 2, 0}, 6, "2026-12-03T09:00:06Z", 2, true);  // merged from another machine: no time
  f.close();
  const ReportInput in = report_input_from_results(s, results);
  ASSERT_EQ(in.elapsed_s.size(), 5);
  EXPECT_DOUBLE_EQ(in.elapsed_s[0].value(), 2);
  EXPECT_DOUBLE_EQ(in.elapsed_s[1].value(), 5);
  EXPECT_DOUBLE_EQ(in.elapsed_s[2].value(), 5);
  EXPECT_DOUBLE_EQ(in.elapsed_s[3].value(), 9);
  EXPECT_FALSE(in.elapsed_s[4].has_value());
  EXPECT_EQ(in.sessions, 2);
}

TEST_F(ReportFiles, TraceGivesItsOwnSpaceAndNoTimes) {
  const json trace = {{"kernel", "conv"},
                      {"strategy", "adaexplore"},
                      {"device", "A100"},
                      {"evaluations",
                       {{{"config", {{"B", 64}, {"M", "fast"}}}, {"status", "ok"}, {"objective", 2.0}},
                        {{"config", {{"B", 16}, {"M", "fast"}}}, {"status", "ok"}, {"objective", 1.0}},
                        {{"config", {{"B", 32}, {"M", "slow"}}}, {"status", "compile_error"}, {"objective", nullptr},
                         {"message", "error"}}}}};
  const ReportInput in = report_input_from_trace(trace, dir_ / "t.json");
  EXPECT_EQ(in.kind, "replay");
  ASSERT_EQ(in.space->dimension(), 2);
  EXPECT_EQ(in.space->parameters()[0].name, "B");
  ASSERT_EQ(in.space->parameters()[0].values.size(), 3);
  EXPECT_EQ(in.space->parameters()[0].values[0].text, "16");  // numbers sorted
  EXPECT_EQ(in.space->parameters()[1].values[0].text, "fast");  // text in order of appearance
  ASSERT_TRUE(in.winner.has_value());
  EXPECT_DOUBLE_EQ(*in.winner->objective, 1.0);
  const json d = report_data(in);
  EXPECT_FALSE(d["summary"]["timestamps"].get<bool>());
  EXPECT_TRUE(d["pipeline"].is_null());
  EXPECT_EQ(d["evaluations"][2]["status"], "compile_error");
  EXPECT_THROW(report_input_from_trace(json{{"runs", json::array()}}, dir_ / "bad.json"), std::invalid_argument);
}

TEST_F(ReportFiles, PageInlinesDataScriptAndLibraryAndKeepsScriptElementsClosed) {
  ReportInput in = grid_input();
  in.outcomes[1].message = "</script><b>oops</b>";
  in.outcomes[1].status = Status::compile_error;
  in.outcomes[1].objective.reset();
  const fs::path lib = dir_ / "chart.min.js";
  std::ofstream(lib) << "/*!\n * Chart.js v3.9.1\n */\nwindow.Chart = function () {}; // </script> inside\n";
  const auto library = find_chart_library(lib);
  ASSERT_TRUE(library.has_value());
  EXPECT_EQ(library->version, "3.9.1");
  in.outcomes[2].message = "<!-- <script> /*@SCRIPT@*/ /*@LIBRARY@*/";
  in.outcomes[2].status = Status::crash;
  in.outcomes[2].objective.reset();
  const std::string page = render_report_html(report_data(in), library);
  // The data's '<' are \u003c, and the markers in it stay text: the script and library went to
  // the template's places.
  EXPECT_NE(page.find("\\u003c!-- \\u003cscript> /*@SCRIPT@*/ /*@LIBRARY@*/"), std::string::npos);
  EXPECT_EQ(page.find("<!-- <script>"), std::string::npos);
  EXPECT_LT(page.find("window.Chart = function"), page.find("window.ADAEXPLORE_REPORT = {"));
  EXPECT_GT(page.find("Draws the AdaExplore tuning report"), page.find("window.ADAEXPLORE_REPORT = {"));
  EXPECT_EQ(page.find("@TITLE@"), std::string::npos);
  EXPECT_EQ(page.find("/*@DATA@*/"), std::string::npos);
  EXPECT_NE(page.find("window.ADAEXPLORE_REPORT = {"), std::string::npos);
  EXPECT_NE(page.find("\"version\":\"3.9.1\""), std::string::npos);
  EXPECT_NE(page.find("data-report-status"), std::string::npos);  // the script is in
  // Four <script> elements (error catcher, library, data, script), four closings: nothing inlined
  // closed one early.
  std::size_t opens = 0, closes = 0;
  for (std::size_t at = page.find("<script>"); at != std::string::npos; at = page.find("<script>", at + 1)) ++opens;
  for (std::size_t at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) ++closes;
  EXPECT_EQ(opens, 4);
  EXPECT_EQ(closes, 4);
  EXPECT_NE(page.find("\\u003c/script>\\u003cb>oops"), std::string::npos);
}

TEST_F(ReportFiles, WithoutChartJsTheReportSaysSo) {
  const fs::path out = dir_ / "r.html";
  const std::string note = write_report(grid_input(), out, std::nullopt);
  EXPECT_NE(note.find("Chart.js not found"), std::string::npos);
  EXPECT_NE(note.find("libjs-chart.js"), std::string::npos);
  const std::string page = [&] {
    std::ifstream f(out);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }();
  EXPECT_NE(page.find("window.ADAEXPLORE_LIBRARY = null"), std::string::npos);
}

// A machine without Debian's libjs-chart.js (a GPU image: Ubuntu with the CUDA toolkit): the
// Chart.js compiled into the tuner (third_party/chartjs/) is inlined, and the report has its charts.
TEST_F(ReportFiles, WithoutChartJsOnTheMachineTheBundledCopyIsInlined) {
  test::ScopedEnv env("ADAEXPLORE_CHARTJS", "");
  const auto library = find_chart_library({}, {dir_ / "no-such-package/chart.min.js"});
  ASSERT_TRUE(library.has_value());
  EXPECT_EQ(library->path, fs::path(kBundledChartLibraryPath));
  EXPECT_EQ(library->version, "3.9.1");
  const std::string shipped = read_file(fs::path(ADAEXPLORE_SOURCE_DIR) / "third_party/chartjs/chart.umd.min.js");
  EXPECT_EQ(library->source, shipped);
  const fs::path out = dir_ / "bundled.html";
  EXPECT_EQ(write_report(grid_input(), out, library), "");  // no "Chart.js not found" note
  const std::string page = read_file(out);
  EXPECT_NE(page.find(" * Chart.js v3.9.1"), std::string::npos);
  EXPECT_NE(page.find(" * @kurkle/color v0.2.1"), std::string::npos);
  EXPECT_NE(page.find("\"path\":\"(bundled with adaexplore-tuner"), std::string::npos);
  EXPECT_EQ(page.find("window.ADAEXPLORE_LIBRARY = null"), std::string::npos);
  // The machine's package, where there is one, overrides the bundled copy.
  const fs::path package = dir_ / "package/chart.min.js";
  fs::create_directories(package.parent_path());
  std::ofstream(package) << "/*!\n * Chart.js v3.9.2\n */\nwindow.Chart = function () {};\n";
  EXPECT_EQ(find_chart_library({}, {dir_ / "none.js", package})->path, package);
  // And a broken one is skipped for the bundled copy.
  std::ofstream(package) << "/*! Chart.js v2.9.4 */\n";
  EXPECT_EQ(find_chart_library({}, {package})->path, fs::path(kBundledChartLibraryPath));
}

TEST_F(ReportFiles, ChartLibraryErrorsNameTheFile) {
  const fs::path other = dir_ / "other.js";
  std::ofstream(other) << "console.log('not a chart library');\n";
  try {
    find_chart_library(other);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(other.string()), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not Chart.js"), std::string::npos);
  }
  const fs::path old = dir_ / "old.js";
  std::ofstream(old) << "/*! Chart.js v2.9.4 */\n";
  EXPECT_THROW(find_chart_library(old), std::runtime_error);
  test::ScopedEnv env("ADAEXPLORE_CHARTJS", (dir_ / "missing.js").string());
  try {
    find_chart_library();
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ADAEXPLORE_CHARTJS"), std::string::npos);
  }
}

TEST(ReportPath, BesideTheResults) {
  EXPECT_EQ(report_path_for("a/results.jsonl"), fs::path("a/results.report.html"));
  EXPECT_EQ(report_path_for("a/results.M512.jsonl"), fs::path("a/results.M512.report.html"));
  EXPECT_EQ(report_path_for("db/k/0123.jsonl"), fs::path("db/k/0123.report.html"));
}

TEST(ParseUtc, ReadsWhatUtcNowAndUtcNowMsWrite) {
  EXPECT_DOUBLE_EQ(parse_utc("1970-01-01T00:00:01Z").value(), 1.0);
  EXPECT_NEAR(parse_utc("2026-12-02T18:00:00.250Z").value() - parse_utc("2026-12-02T18:00:00Z").value(), 0.25, 1e-6);
  EXPECT_TRUE(parse_utc(utc_now_ms()).has_value());
  EXPECT_TRUE(parse_utc(utc_now()).has_value());
  EXPECT_FALSE(parse_utc("yesterday").has_value());
  EXPECT_FALSE(parse_utc("2026-12-02T18:00:00+01:00").has_value());
}

}  // namespace
}  // namespace adaexplore
