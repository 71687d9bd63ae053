// How far a harness timing can be trusted (issue 6): the repetition rule of harness_common.hpp
// (warm-up until the timings settle; measurement until the median's distribution-free 95 %
// confidence interval is within ci_rel, or a cap) on synthetic timed runs; the sanity gates
// (launch-overhead floor, peak bandwidth, NVML clock slowdowns); the record's stages_ms,
// suspicious and clocks as program_outcome.cpp reads them; crown() never crowning a suspicious
// outcome; and a host benchmark (harness_host.hpp) run end to end by the host backend.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <random>

#include "../../../templates/adaexplore/harness_common.hpp"
#include "evaluate/backends.hpp"
#include "evaluate/program_outcome.hpp"
#include "test_support.hpp"
#include "loop/crown.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

HarnessOptions options(double measure_ms = 1e9, int max_reps = 100000) {
  HarnessOptions o;
  o.measure_ms = measure_ms;
  o.max_reps = max_reps;
  return o;
}

// A timed run whose times are `median_ms` x a log-normal factor of relative spread `sigma`.
auto noisy(double median_ms, double sigma, unsigned seed, int* calls = nullptr) {
  return [=, rng = std::mt19937_64(seed), dist = std::normal_distribution<double>(0, sigma)]() mutable {
    if (calls) ++*calls;
    return median_ms * std::exp(dist(rng));
  };
}

TEST(MedianInterval, RanksFollowConoversNormalApproximation) {
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(i);
  // n = 10: r = ceil(5 - 3.10) = 2, s = ceil(5 + 3.10) = 9.
  EXPECT_EQ(median_interval(v).low, 2);
  EXPECT_EQ(median_interval(v).high, 9);
  for (int i = 11; i <= 100; ++i) v.push_back(i);
  // n = 100: r = ceil(50 - 9.8) = 41, s = ceil(50 + 9.8) = 60.
  EXPECT_EQ(median_interval(v).low, 41);
  EXPECT_EQ(median_interval(v).high, 60);
  // Few values: the whole range (clamped ranks).
  EXPECT_EQ(median_interval({3.0}).low, 3);
  EXPECT_EQ(median_interval({3.0}).high, 3);
  EXPECT_EQ(median_interval({1.0, 2.0, 7.0}).low, 1);
  EXPECT_EQ(median_interval({1.0, 2.0, 7.0}).high, 7);
}

TEST(MedianInterval, CoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Exponential times (median ln 2): n = 50 gives ranks 19 and 32, exact coverage 0.935.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> dist(1.0);
  int covered = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(50);
    for (double& x : v) x = dist(rng);
    std::sort(v.begin(), v.end());
    const MedianInterval ci = median_interval(v);
    covered += ci.low <= std::log(2.0) && std::log(2.0) <= ci.high;
  }
  EXPECT_GT(covered, 0.92 * trials);
  EXPECT_LT(covered, 0.95 * trials);
}

TEST(MeasureUntilTight, ConstantTimesConvergeAtMinReps) {
  const TimeStats s = measure_until_tight(options(), [] { return 5.0; });
  EXPECT_EQ(s.values.size(), 10u);
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(s.ci_low, 5.0);
  EXPECT_EQ(s.ci_high, 5.0);
  EXPECT_EQ(s.ci_rel, 0.0);
}

TEST(MeasureUntilTight, NoisyTimesTakeMoreRepsUntilTheIntervalIsTight) {
  // 5 % spread: the CI half-width is about 1.2533 x 1.96 x 0.05 / sqrt(n) of the median, <= 1 %
  // after about 150 runs.
  const TimeStats s = measure_until_tight(options(), noisy(0.01, 0.05, 1));
  EXPECT_TRUE(s.converged);
  EXPECT_GT(s.values.size(), 60u);
  EXPECT_LT(s.values.size(), 600u);
  EXPECT_LE(s.ci_rel, 0.01);
  EXPECT_NEAR(s.ci_rel, (s.ci_high - s.ci_low) / 2 / s.median, 1e-12);
  EXPECT_LE(s.ci_low, s.median);
  EXPECT_GE(s.ci_high, s.median);
  // A tighter ci_rel asks for more runs.
  HarnessOptions tight = options();
  tight.ci_rel = 0.005;
  const TimeStats t = measure_until_tight(tight, noisy(0.01, 0.05, 1));
  EXPECT_TRUE(t.converged);
  EXPECT_GT(t.values.size(), 2 * s.values.size());
}

TEST(MeasureUntilTight, TheCapsAreRespected) {
  // measure_ms: 30 % spread around 1 ms cannot reach 1 % in 50 ms of runs.
  TimeStats s = measure_until_tight(options(50), noisy(1.0, 0.3, 2));
  EXPECT_FALSE(s.converged);
  double total = 0;
  for (double x : s.values) total += x;
  EXPECT_GE(total, 50.0);
  EXPECT_LT(total - s.values.back(), 50.0);  // it stopped at the first run past the cap
  // max_reps.
  s = measure_until_tight(options(1e9, 25), noisy(1.0, 0.3, 3));
  EXPECT_EQ(s.values.size(), 25u);
  EXPECT_FALSE(s.converged);
  // min_reps comes first even past measure_ms: 10 runs of 100 ms with a 1 ms cap.
  s = measure_until_tight(options(1), noisy(100.0, 0.3, 4));
  EXPECT_EQ(s.values.size(), 10u);
}

TEST(WarmUp, StopsOnceTheTimingsSettle) {
  // Medians of 3: (5,4,3) 4 vs (2,1,1) 1, ..., (2,1,1) 1 vs (1,1,1) 1 -> settled after 9 runs.
  const std::vector<double> times = {5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1};
  std::size_t i = 0;
  HarnessOptions o = options();
  o.warmup_ms = 1e9;
  EXPECT_EQ(warm_up(o, [&] { return times[std::min(i++, times.size() - 1)]; }), 9);
  // Within 2 % is settled: 1.0 then 1.015.
  i = 0;
  const std::vector<double> close = {1.0, 1.0, 1.0, 1.015, 1.015, 1.015, 1.015};
  EXPECT_EQ(warm_up(o, [&] { return close[std::min(i++, close.size() - 1)]; }), 6);
}

TEST(WarmUp, WarmupMsCapsItAndTwoRunsAreTheMinimum) {
  HarnessOptions o = options();
  double t = 0;
  o.warmup_ms = 50;  // 1 + 2 + ... + 10 = 55: times that never settle stop at the cap
  EXPECT_EQ(warm_up(o, [&] { return t += 1; }), 10);
  o.warmup_ms = 0;
  t = 0;
  EXPECT_EQ(warm_up(o, [&] { return t += 1; }), 2);
  o.warmup_ms = 1e9;
  o.max_reps = 4;
  t = 0;
  EXPECT_EQ(warm_up(o, [&] { return t += 1; }), 4);
}

TEST(RepeatAndTime, ReportsWarmupRunsAndWallTimes) {
  HarnessOptions o = options();
  int warmup_runs = 0;
  RepetitionWallTimes wall;
  const TimeStats s = repeat_and_time(o, [] { return 2.0; }, warmup_runs, &wall);
  EXPECT_EQ(warmup_runs, 6);  // constant times settle as soon as two medians of 3 exist
  EXPECT_EQ(s.values.size(), 10u);
  EXPECT_GE(wall.warmup_ms, 0);
  EXPECT_GE(wall.measure_ms, 0);
}

// A wrong result whose mismatches are all NaN (issue 23: its message said "max abs error 0", as if
// the values were right): the message counts the NaN and says the error is the finite values'.
TEST(Verification, AllNaNMismatchesAreCountedAndNamed) {
  std::vector<float> expected(1024, 1.5f), got = expected;
  for (std::size_t i = 0; i < 12; ++i) got[3 + 80 * i] = std::numeric_limits<float>::quiet_NaN();
  const Verification v = compare_values(got.data(), expected.data(), got.size(), Tolerance{});
  EXPECT_EQ(v.mismatches, 12u);
  EXPECT_EQ(v.nan, 12u);
  EXPECT_EQ(v.infinite, 0u);
  EXPECT_EQ(describe(v),
            "12 of 1024 values differ from the reference (12 NaN); first at index 3: got nan, expected 1.5 (max abs "
            "error of the finite values 0)");
  ResultRecord r;
  r.status = "wrong_result";
  r.verified = true;
  r.verification = v;
  const auto record = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(record["verification"]["nan"], 12) << record.dump();
  EXPECT_EQ(record["verification"]["infinite"], 0) << record.dump();
}

TEST(Verification, NaNInfiniteAndFiniteMismatchesTogether) {
  std::vector<double> expected(100, 2.0), got = expected;
  got[10] = std::numeric_limits<double>::quiet_NaN();
  got[20] = -std::numeric_limits<double>::infinity();
  got[30] = 2.5;  // a finite mismatch: the max abs error is its
  const Verification v = compare_values(got.data(), expected.data(), got.size(), Tolerance{});
  EXPECT_EQ(v.mismatches, 3u);
  EXPECT_EQ(describe(v),
            "3 of 100 values differ from the reference (1 NaN, 1 infinite); first at index 10: got nan, expected 2 "
            "(max abs error of the finite values 0.5)");
  got[10] = got[20] = 2.0;  // finite mismatches alone: the message as it always was
  EXPECT_EQ(describe(compare_values(got.data(), expected.data(), got.size(), Tolerance{})),
            "1 of 100 values differ from the reference; first at index 30: got 2.5, expected 2 (max abs error 0.5)");
}

TEST(HarnessOptions, ParsesCiRel) {
  const char* argv[] = {"bench", "--adaexplore-ci-rel", "0.02", "user"};
  const HarnessOptions o = HarnessOptions::parse(4, const_cast<char**>(argv));
  EXPECT_EQ(o.ci_rel, 0.02);
  EXPECT_EQ(o.user_args, std::vector<std::string>{"user"});
  EXPECT_EQ(HarnessOptions().ci_rel, 0.01);
}

TEST(SanityGates, LaunchOverheadFloor) {
  std::vector<std::string> s;
  check_launch_floor(TimeStats::of({0.0011, 0.0011, 0.0012}), 0.002, s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], "median 0.0011 ms is under the 0.002 ms launch-overhead floor: the benchmark may not time the kernel");
  s.clear();
  check_launch_floor(TimeStats::of({0.0021}), 0.002, s);
  check_launch_floor(TimeStats::of({0.0011}), 0, s);  // no floor (host harness)
  EXPECT_TRUE(s.empty());
}

TEST(SanityGates, PeakBandwidthOnlyBeyondTheL2) {
  // H100 SXM: 2619 MHz HBM3 on a 5120-bit bus: 3352 GB/s.
  const double peak = peak_bandwidth_gbs(2619000, 5120);
  EXPECT_NEAR(peak, 3352.32, 0.01);
  EXPECT_EQ(peak_bandwidth_gbs(0, 5120), 0);
  const double l2 = 50e6;
  std::vector<std::string> s;
  check_peak_bandwidth(4e9, TimeStats::of({1.0}), peak, l2, s);  // 4000 GB/s > 1.05 x peak
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find("4000 GB/s"), std::string::npos) << s[0];
  EXPECT_NE(s[0].find("above 1.05 x the device's peak of 3352"), std::string::npos) << s[0];
  s.clear();
  check_peak_bandwidth(3.4e9, TimeStats::of({1.0}), peak, l2, s);  // within 5 %
  check_peak_bandwidth(0.08e9, TimeStats::of({0.01}), peak, l2, s);  // 8000 GB/s, but fits in 2 x L2
  check_peak_bandwidth(4e9, TimeStats::of({1.0}), 0, l2, s);         // peak unknown
  check_peak_bandwidth(0, TimeStats::of({1.0}), peak, l2, s);        // no bytes given
  EXPECT_TRUE(s.empty());
}

TEST(SanityGates, ThermalAndPowerBrakeSlowdownsAreNoisy) {
  EXPECT_EQ(clock_event_names(0x1 | 0x80 | 0x400),
            (std::vector<std::string>{"gpu_idle", "hw_power_brake_slowdown", "0x400"}));
  ClockRecord c;
  c.present = true;
  c.sm_mhz_start = 1980;
  c.sm_mhz_end = 1755;
  c.reasons = 0x1 | 0x4;  // idle, power cap: expected, not noisy
  std::vector<std::string> s;
  check_clocks(c, s);
  EXPECT_TRUE(s.empty());
  for (unsigned long long bit : {0x8ull, 0x20ull, 0x40ull, 0x80ull}) {
    c.reasons = 0x4 | bit;
    s.clear();
    check_clocks(c, s);
    ASSERT_EQ(s.size(), 1u) << bit;
    EXPECT_EQ(s[0].rfind("noisy: ", 0), 0u) << s[0];
    EXPECT_NE(s[0].find(clock_event_names(bit)[0]), std::string::npos) << s[0];
    EXPECT_EQ(s[0].find("sw_power_cap"), std::string::npos) << s[0];
    EXPECT_NE(s[0].find("1980 -> 1755 MHz"), std::string::npos) << s[0];
  }
  c.present = false;  // NVML absent: nothing
  s.clear();
  check_clocks(c, s);
  EXPECT_TRUE(s.empty());
}

class TrustRecordTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_test_directory("harness-trust"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  Outcome outcome_of(const std::string& text, bool ok) {
    std::ofstream(dir_ / "result.json") << text;
    ProcessResult run;
    run.argv = {"./benchmark", "--adaexplore-result", (dir_ / "result.json").string()};
    run.exit_code = ok ? 0 : 1;
    return benchmark_outcome(run, dir_ / "result.json", 30);
  }
  static ResultRecord ok_record() {
    ResultRecord r;
    r.time = TimeStats::of({0.0011, 0.0011, 0.0012});
    r.time.converged = true;
    r.stages_ms = {{"setup", 120.5}, {"verify", 3.25}, {"warmup", 0.5}, {"measure", 2.0}};
    return r;
  }
  fs::path dir_;
};

TEST_F(TrustRecordTest, StagesSuspiciousAndClocksReachTheOutcome) {
  ResultRecord r = ok_record();
  check_launch_floor(r.time, 0.002, r.suspicious);
  r.clocks = {true, 1980, 1980, 0x1};
  const std::string text = to_json(r);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["time_ms"]["converged"], true);
  EXPECT_EQ(j["time_ms"]["ci_low"], 0.0011);
  EXPECT_EQ(j["time_ms"]["ci_high"], 0.0012);
  const Outcome o = outcome_of(text, true);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  EXPECT_EQ(o.stage_ms.at("setup"), 120.5);
  EXPECT_EQ(o.stage_ms.at("verify"), 3.25);
  EXPECT_EQ(o.stage_ms.at("warmup"), 0.5);
  EXPECT_EQ(o.stage_ms.at("measure"), 2.0);
  ASSERT_TRUE(o.extra.contains("suspicious")) << o.extra.dump();
  EXPECT_EQ(o.extra["suspicious"][0],
            "median 0.0011 ms is under the 0.002 ms launch-overhead floor: the benchmark may not time the kernel");
  EXPECT_EQ(o.extra["clocks"]["sm_mhz_start"], 1980);
  EXPECT_EQ(o.extra["clocks"]["reasons"], nlohmann::json::array({"gpu_idle"}));
}

TEST_F(TrustRecordTest, FailedRecordKeepsTheStagesItReached) {
  ResultRecord r;
  r.status = "wrong_result";
  r.message = "3 of 4096 values differ from the reference";
  r.stages_ms = {{"setup", 10.0}, {"verify", 1.5}};
  const Outcome o = outcome_of(to_json(r), false);
  EXPECT_EQ(o.status, Status::wrong_result);
  EXPECT_EQ(o.stage_ms.at("verify"), 1.5);
  EXPECT_FALSE(o.stage_ms.count("measure"));
}

TEST_F(TrustRecordTest, OlderRecordsWithoutThemAreRead) {
  const Outcome o = outcome_of(
      R"({"adaexplore_harness": 1, "status": "ok", "message": "", "error_name": "",
          "time_ms": {"median": 1, "mean": 1, "min": 1, "max": 1, "stdev": 0, "samples": 10}})",
      true);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  EXPECT_TRUE(o.stage_ms.empty());
  EXPECT_FALSE(o.extra.contains("suspicious"));
  EXPECT_FALSE(o.extra.contains("clocks"));
}

TEST_F(TrustRecordTest, MalformedStagesOrSuspiciousBreakTheProtocol) {
  ResultRecord r = ok_record();
  auto j = nlohmann::json::parse(to_json(r));
  j["stages_ms"]["measure"] = "long";
  Outcome o = outcome_of(j.dump(), true);
  EXPECT_EQ(o.status, Status::crash);
  EXPECT_NE(o.message.find("stages_ms.measure is \"long\", not a number of ms >= 0"), std::string::npos)
      << o.message;
  j = nlohmann::json::parse(to_json(r));
  j["suspicious"] = "too fast";
  o = outcome_of(j.dump(), true);
  EXPECT_EQ(o.status, Status::crash);
  EXPECT_NE(o.message.find("\"suspicious\" is not an array of strings"), std::string::npos) << o.message;
}

TEST(CrownTrust, SuspiciousOutcomesAreNeverCrowned) {
  auto make = [](Config c, double ms, nlohmann::json suspicious) {
    Outcome o;
    o.config = c;
    o.objective = ms;
    if (!suspicious.is_null()) o.extra["suspicious"] = suspicious;
    return o;
  };
  const std::vector<Outcome> all = {
      make({0, 0}, 2.0, nullptr), make({1, 0}, 0.001, nlohmann::json::array({"median 0.001 ms is under the 0.002 ms floor"})),
      make({2, 0}, 1.5, nlohmann::json::array()),  // empty: nothing fired
      make({3, 0}, 1.0, nlohmann::json::array({"noisy: the GPU's clocks were slowed"}))};
  ASSERT_TRUE(crown(all));
  EXPECT_EQ(crown(all)->config, (Config{2, 0}));
  EXPECT_EQ(all[1].status, Status::ok);  // kept as ok: recorded, not crowned
  EXPECT_FALSE(crown({all[1], all[3]}));
}

// The host harness end to end: the record's stages reach the outcome, the interval brackets the
// median, and nothing is flagged (the host harness has no gates).
TEST(HostHarnessTrust, StagesAndIntervalEndToEnd) {
  const fs::path dir = test::fresh_test_directory("harness-trust-host");
  std::ofstream(dir / "twice.hpp.in") << "#pragma once\n#include <cstddef>\n"
                                         "inline void twice(float* y, const float* x, std::size_t n) {\n"
                                         "  for (std::size_t i = 0; i < n; i += ${STEP}) y[i] = 2.0f * x[i];\n}\n";
  std::ofstream(dir / "twice_bench.cpp") << R"(#include <adaexplore/harness_host.hpp>
#include "twice.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = 1 << 16;
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = 2.0f * x[i];
  bench.bytes(2.0 * n * sizeof(float));
  return bench.run([&] { twice(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
)";
  const nlohmann::json j = {{"name", "twice"},
                            {"backend", "host"},
                            {"template", "twice.hpp.in"},
                            {"benchmark", "twice_bench.cpp"},
                            {"parameters", {{{"name", "STEP"}, {"values", {1}}}}},
                            {"run", {{"timeout_s", 30}, {"args", {"--adaexplore-measure-ms", "50"}}}}};
  const Spec spec = parse_spec(j, dir / "spec.json");
  auto backend = make_host_backend(spec);
  Prepared p = backend->prepare(spec.space.config_from_texts({{"STEP", "1"}}));
  ASSERT_FALSE(p.failure) << p.failure->message;
  const Outcome o = backend->measure(p);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  for (const char* stage : {"setup", "verify", "warmup", "measure", "run"})
    EXPECT_TRUE(o.stage_ms.count(stage)) << stage;
  EXPECT_LE(o.stage_ms.at("measure"), o.stage_ms.at("run"));
  EXPECT_FALSE(o.extra.contains("suspicious")) << o.extra.dump();
  EXPECT_FALSE(o.extra.contains("clocks"));
  std::ifstream in(p.directory / "result.json");
  const auto record = nlohmann::json::parse(in);
  const auto& t = record["time_ms"];
  EXPECT_LE(t["ci_low"].get<double>(), t["median"].get<double>());
  EXPECT_GE(t["ci_high"].get<double>(), t["median"].get<double>());
  EXPECT_TRUE(t["converged"].is_boolean());
  EXPECT_GE(t["samples"].get<int>(), 10);
  if (t["converged"] == true) EXPECT_LE(t["ci_rel"].get<double>(), 0.01);
  EXPECT_GE(record["warmup_runs"].get<int>(), 2);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace adaexplore
