#include <gtest/gtest.h>

#include <fstream>
#include <unordered_set>

#include "commands.hpp"
#include "replay_backend.hpp"
#include "strategy.hpp"

namespace adaexplore {
namespace {

using nlohmann::json;

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::path(testing::TempDir()) / "replay_test";
  std::filesystem::create_directories(dir);
  return dir;
}

// A recorded 8x8 space (a, b in 1..8): time = |a-5| + |b-3| + 1 ms (optimum 1 ms at a=5, b=3);
// a*b > 40 failed to compile, a == 1 failed to launch; a == 2 && b == 2 was never recorded.
std::filesystem::path synthetic_cache() {
  json cache = json::object();
  for (int a = 1; a <= 8; ++a)
    for (int b = 1; b <= 8; ++b) {
      if (a == 2 && b == 2) continue;
      json r = {{"a", a}, {"b", b}};
      if (a * b > 40)
        r["time"] = "CompilationFailedConfig";
      else if (a == 1)
        r["time"] = "RuntimeFailedConfig";
      else
        r["time"] = std::abs(a - 5) + std::abs(b - 3) + 1.0;
      cache[std::to_string(a) + "," + std::to_string(b)] = r;
    }
  json root = {{"device_name", "Test GPU"},
               {"kernel_name", "synthetic"},
               {"tune_params_keys", {"a", "b"}},
               {"tune_params", {{"a", {1, 2, 3, 4, 5, 6, 7, 8}}, {"b", {1, 2, 3, 4, 5, 6, 7, 8}}}},
               {"objective", "time"},
               {"cache", cache}};
  const auto path = temp_dir() / "synthetic.json";
  std::ofstream(path) << root.dump();
  return path;
}

std::vector<std::string> labels(const TuneReport& r) {
  std::vector<std::string> out;
  for (const auto& o : r.outcomes) out.push_back(o.label);
  return out;
}

// Checks the budget and record shape of one replay: exactly `budget` distinct configurations of
// the space, each satisfying the constraints, with the recorded outcome.
void check_replay(const TuneReport& r, const ReplayBackend& backend, std::size_t budget) {
  const Space& space = backend.cache().space;
  ASSERT_EQ(r.outcomes.size(), budget);
  std::unordered_set<Config, ConfigHash> seen;
  std::size_t counted = 0;
  for (const auto& o : r.outcomes) {
    ASSERT_EQ(o.config.size(), space.dimension());
    EXPECT_TRUE(seen.insert(o.config).second) << "evaluated twice: " << o.label;
    EXPECT_TRUE(space.satisfies(o.config)) << o.label;
    EXPECT_EQ(o.label, space.label(o.config));
    EXPECT_EQ(o.objective.has_value(), is_success(o.status)) << o.label;
    const Outcome* recorded = backend.lookup(o.config);
    if (recorded) {
      EXPECT_EQ(o.status, recorded->status) << o.label;
      EXPECT_EQ(o.objective, recorded->objective) << o.label;
    } else {
      EXPECT_EQ(o.status, Status::invalid) << o.label;
    }
  }
  for (const auto& [status, n] : r.counts) counted += n;
  EXPECT_EQ(counted, budget);
  if (r.best && backend.optimum()) EXPECT_LE(optimum_ratio(backend.optimum(), r.best), 1.0);
}

TEST(ReplayBackend, AnswersWithTheRecordedOutcome) {
  const KernelTunerCache cache = read_kernel_tuner_cache(synthetic_cache());
  ReplayBackend backend(cache);
  Prepared p = backend.prepare(Config{4, 2});  // a=5, b=3
  EXPECT_FALSE(p.failure.has_value());
  const Outcome best = backend.measure(p);
  EXPECT_EQ(best.status, Status::ok);
  EXPECT_DOUBLE_EQ(*best.objective, 1.0);
  EXPECT_EQ(best.label, "a=5,b=3");
  Prepared f = backend.prepare(Config{7, 7});
  EXPECT_EQ(backend.measure(f).status, Status::compile_error);
  Prepared l = backend.prepare(Config{0, 0});
  EXPECT_EQ(backend.measure(l).status, Status::launch_error);
  Prepared absent = backend.prepare(Config{1, 1});
  const Outcome missing = backend.measure(absent);
  EXPECT_EQ(missing.status, Status::invalid);
  EXPECT_NE(missing.message.find("not in the recorded space"), std::string::npos);
  EXPECT_EQ(missing.label, "a=2,b=2");
  ASSERT_TRUE(backend.optimum().has_value());
  EXPECT_EQ(backend.optimum()->label, "a=5,b=3");
  EXPECT_EQ(backend.device()["kernel"], "synthetic");
}

TEST(ReplayBackend, BudgetCountsDistinctConfigurationsFailuresIncluded) {
  const KernelTunerCache cache = read_kernel_tuner_cache(synthetic_cache());
  ReplayBackend backend(cache);
  for (std::size_t budget : {1u, 7u, 30u}) {
    const TuneReport r = replay_tuning(backend, "random", json::object(), budget, 3);
    check_replay(r, backend, budget);
    EXPECT_EQ(r.stop_reason, "budget");
  }
  // The whole space (64 configurations): every failure and the unrecorded one are counted.
  const TuneReport all = replay_tuning(backend, "random", json::object(), 100, 3);
  check_replay(all, backend, 64);
  EXPECT_EQ(all.stop_reason, "space exhausted");
  EXPECT_EQ(all.counts.at("invalid"), 1u);
  EXPECT_EQ(all.counts.at("launch_error"), 8u);
  EXPECT_EQ(all.counts.at("compile_error"), 8u);  // a*b > 40: 6x7 6x8 7x6 7x7 7x8 8x6 8x7 8x8
  EXPECT_DOUBLE_EQ(optimum_ratio(backend.optimum(), all.best), 1.0);
}

TEST(ReplayBackend, DoesNotEvaluateTheDefaultsFirst) {
  const KernelTunerCache cache = read_kernel_tuner_cache(synthetic_cache());
  ReplayBackend backend(cache);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    StrategyOptions so;
    so.seed = seed;
    so.budget = 5;
    const auto first = make_strategy("random", cache.space, so)->propose(5);
    const TuneReport r = replay_tuning(backend, "random", json::object(), 5, seed);
    ASSERT_EQ(r.outcomes.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i)
      EXPECT_EQ(r.outcomes[i].config, first[i]) << "seed " << seed;
    EXPECT_FALSE(r.baseline.has_value());
  }
}

TEST(ReplayBackend, SameSeedSameTraceForEveryStrategy) {
  const KernelTunerCache cache = read_kernel_tuner_cache(synthetic_cache());
  ReplayBackend backend(cache);
  for (const auto& s : registered_strategies()) {
    const auto a = labels(replay_tuning(backend, s.name, json::object(), 40, 11));
    const auto b = labels(replay_tuning(backend, s.name, json::object(), 40, 11));
    EXPECT_EQ(a, b) << s.name;
    EXPECT_NE(a, labels(replay_tuning(backend, s.name, json::object(), 40, 12))) << s.name;
  }
}

TEST(ReplayBackend, ConstraintsInEitherSyntaxRestrictWhatIsEvaluated) {
  for (const std::string constraint : {"a*b <= 40 and a != 1", "a*b <= 40 && !(a == 1)"}) {
    const KernelTunerCache cache = read_kernel_tuner_cache(synthetic_cache(), {constraint});
    ReplayBackend backend(cache);
    const TuneReport r = replay_tuning(backend, "ga", json::object(), 1000, 5);
    // 64 - 8 (a*b > 40) - 8 (a == 1) = 48 valid configurations, one of them unrecorded.
    check_replay(r, backend, 48);
    EXPECT_EQ(r.counts.size(), 2u) << constraint;
    EXPECT_EQ(r.counts.at("ok"), 47u) << constraint;
    EXPECT_EQ(r.counts.at("invalid"), 1u) << constraint;
  }
}

// Kernel Tuner's test/strategies in spirit: every registered strategy on a real recorded space.
TEST(ReplayBackend, EveryRegisteredStrategyOnARecordedSpace) {
  const std::filesystem::path file = std::filesystem::path(ADAEXPLORE_SHARED_DIR) /
                                     "spaces/kernel_tuner_bruteforce/convolution/RTX_3090.json.gz";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "recorded space not found: " << file;
  const KernelTunerCache cache = read_kernel_tuner_cache(
      file, {"block_size_x*block_size_y>=64", "block_size_x*block_size_y<=1024",
             "tile_size_x*tile_size_y<30"});
  EXPECT_EQ(cache.records.size(), 6768u);
  EXPECT_EQ(cache.records_outside_constraints, 0u);
  EXPECT_EQ(cache.space.enumerate_valid().size(),
            6768u);  // the restrictions give exactly the recorded space
  ReplayBackend backend(cache);
  ASSERT_TRUE(backend.optimum().has_value());
  EXPECT_NEAR(*backend.optimum()->objective, 0.5229, 1e-4);
  for (const auto& s : registered_strategies()) {
    SCOPED_TRACE(s.name);
    const TuneReport r = replay_tuning(backend, s.name, json::object(), 60, 1);
    check_replay(r, backend, 60);
    ASSERT_TRUE(r.best.has_value());
    EXPECT_EQ(r.counts.count("invalid"), 0u);  // nothing outside the recorded space was proposed
  }
}

// Runs `adaexplore-tuner replay ARGS...` in-process; returns the exit code and stdout.
std::pair<int, std::string> run_replay_command(std::vector<std::string> args) {
  CLI::App app;
  const Command replay = register_replay_command(app);
  args.insert(args.begin(), {"adaexplore-tuner", "replay"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  testing::internal::CaptureStdout();
  const int rc = replay.run();
  return {rc, testing::internal::GetCapturedStdout()};
}

std::string last_line(const std::string& text) {
  return text.substr(text.rfind('\n', text.size() - 2) + 1);
}

// The command line as scripts call it: the last line and the --json trace.
TEST(ReplayCommand, PrintsTheSummaryLastAndWritesTheTrace) {
  const auto out = temp_dir() / "trace.json";
  const auto [rc, text] = run_replay_command({"--cache", synthetic_cache().string(), "--constraint",
                                              "a != 1", "--strategy", "random", "--budget", "12",
                                              "--seed", "4", "--json", out.string()});
  ASSERT_EQ(rc, kExitOk) << text;
  const std::string last = last_line(text);
  EXPECT_EQ(last.rfind("best_ms=", 0), 0u) << last;
  EXPECT_NE(last.find(" optimum_ms=1 ratio="), std::string::npos) << last;
  json trace;
  std::ifstream(out) >> trace;
  ASSERT_EQ(trace["evaluations"].size(), 12u);
  EXPECT_EQ(trace["seed"], 4);
  EXPECT_EQ(trace["budget"], 12);
  for (const auto& e : trace["evaluations"]) {
    EXPECT_EQ(e["config"].size(), 2u);
    EXPECT_NE(e["config"]["a"], 1);
    EXPECT_TRUE(e["config"]["a"].is_number_integer());  // as the file wrote it
    const Status st = status_from_string(e["status"].get<std::string>());
    EXPECT_EQ(e["objective"].is_number(), is_success(st));
  }
  const double ratio = std::stod(last.substr(last.find("ratio=") + 6));
  EXPECT_DOUBLE_EQ(ratio, trace["ratio"].get<double>());
}

TEST(ReplayCommand, RepeatRunsConsecutiveSeedsAndSpecAddsConstraints) {
  const auto spec = temp_dir() / "spec.json";
  std::ofstream(spec) << R"({"constraints": ["a != 1", "a*b <= 40"]})";
  const auto out = temp_dir() / "runs.json";
  const std::vector<std::string> common = {"--cache",    synthetic_cache().string(),
                                           "--spec",     spec.string(),
                                           "--strategy", "ga",
                                           "--budget",   "15"};
  auto repeat = common;
  repeat.insert(repeat.end(), {"--seed", "7", "--repeat", "3", "--json", out.string()});
  const auto [rc, text] = run_replay_command(repeat);
  ASSERT_EQ(rc, kExitOk) << text;
  EXPECT_NE(last_line(text).find(" seeds=3"), std::string::npos) << text;
  json runs;
  std::ifstream(out) >> runs;
  ASSERT_EQ(runs["runs"].size(), 3u);
  auto single = common;
  single.insert(single.end(), {"--seed", "8", "--json", out.string()});
  ASSERT_EQ(run_replay_command(single).first, kExitOk);
  json alone;
  std::ifstream(out) >> alone;
  EXPECT_EQ(runs["runs"][1]["evaluations"], alone["evaluations"]);  // seed 8 is the second run
  EXPECT_EQ(alone["constraints"].size(), 2u);
  for (const auto& e : alone["evaluations"])
    EXPECT_EQ(e["status"], "ok");  // both failure regions excluded
}

TEST(ReplayCommand, RefusesBadArguments) {
  const std::string cache = synthetic_cache().string();
  auto message = [&](const std::vector<std::string>& args) {
    try {
      run_replay_command(args);
    } catch (const std::exception& e) {
      testing::internal::GetCapturedStdout();
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message({"--cache", cache, "--strategy", "nope", "--budget", "3"}).find("registered: random"),
      std::string::npos);
  EXPECT_NE(message({"--cache", cache, "--strategy", "random", "--budget", "0"}).find("--budget"),
            std::string::npos);
  EXPECT_NE(
      message({"--cache", cache, "--strategy", "random", "--budget", "3", "--constraint", "c > 1"})
          .find("synthetic.json: constraint"),
      std::string::npos);
  EXPECT_NE(message({"--cache", cache, "--strategy", "random", "--budget", "3",
                     "--strategy-options", "[1]"})
                .find("JSON object"),
            std::string::npos);
}

}  // namespace
}  // namespace adaexplore
