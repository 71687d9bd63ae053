#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <unordered_set>

#include "cli/commands.hpp"
#include "store/database.hpp"
#include "replay/replay_backend.hpp"
#include "store/results.hpp"
#include "model/spec.hpp"
#include "search/strategy.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"
#include "store/key.hpp"

namespace adaexplore {
namespace {

using nlohmann::json;

std::filesystem::path temp_dir() { return test::process_test_directory("replay-test"); }

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
  const std::filesystem::path file =
      std::filesystem::path(ADAEXPLORE_TEST_DATA) / "spaces/convolution/RTX_3090.json.gz";  // spaces/README.md
  ASSERT_TRUE(std::filesystem::exists(file)) << "recorded space not found: " << file;
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

// --warm-start: the best successful configurations of another replay's trace that are
// configurations of this space (and satisfy its constraints) are evaluated first, best first.
TEST(ReplayCommand, WarmStartEvaluatesTheSourcesBestConfigurationsFirst) {
  const auto source = temp_dir() / "source_trace.json";
  std::ofstream(source) << json{
      {"evaluations",
       {{{"config", {{"a", 6}, {"b", 2}}}, {"status", "ok"}, {"objective", 5.0}},
        {{"config", {{"a", 9}, {"b", 1}}}, {"status", "ok"}, {"objective", 0.5}},  // a=9: not in this space
        {{"config", {{"a", 4}, {"b", 4}}}, {"status", "ok"}, {"objective", 3.0}},
        {{"config", {{"a", 6}, {"b", 6}}}, {"status", "compile_error"}, {"objective", nullptr}},
        {{"config", {{"a", 5}, {"b", 3}}}, {"status", "ok"}, {"objective", 2.0}}}}}
                                  .dump();
  const auto out = temp_dir() / "warm_trace.json";
  auto run = [&](const std::vector<std::string>& extra, const std::string& budget = "10",
                 const std::string& count = "2") {
    std::vector<std::string> args = {"--cache", synthetic_cache().string(), "--strategy", "random", "--budget",
                                     budget, "--seed", "3", "--warm-start", source.string(), "--warm-start-count",
                                     count, "--json", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto [rc, text] = run_replay_command(args);
    EXPECT_EQ(rc, kExitOk) << text;
    json trace;
    std::ifstream(out) >> trace;
    return trace;
  };
  json trace = run({});
  ASSERT_EQ(trace["evaluations"].size(), 10u);
  EXPECT_EQ(trace["evaluations"][0]["config"], json({{"a", 5}, {"b", 3}}));
  EXPECT_EQ(trace["evaluations"][1]["config"], json({{"a", 4}, {"b", 4}}));
  EXPECT_EQ(trace["warm_start"]["configs"], 2);
  EXPECT_EQ(trace["warm_start"]["file"], source.string());
  EXPECT_DOUBLE_EQ(trace["ratio"].get<double>(), 1.0);  // (5,3) is this space's optimum (1 ms here)
  // A constraint of this space leaves (5,3) out: the next best, (4,4) and (6,2), are taken.
  trace = run({"--constraint", "a != 5"});
  EXPECT_EQ(trace["evaluations"][0]["config"], json({{"a", 4}, {"b", 4}}));
  EXPECT_EQ(trace["evaluations"][1]["config"], json({{"a", 6}, {"b", 2}}));
  // The budget counts them: a budget of 1 evaluates the best only.
  trace = run({}, "1");
  ASSERT_EQ(trace["evaluations"].size(), 1u);
  EXPECT_EQ(trace["evaluations"][0]["config"], json({{"a", 5}, {"b", 3}}));
  // A count of 0 is no warm start: the same trace as without --warm-start.
  trace = run({}, "10", "0");
  EXPECT_EQ(trace["warm_start"]["configs"], 0);
  const auto cold_out = temp_dir() / "cold_trace.json";
  ASSERT_EQ(run_replay_command({"--cache", synthetic_cache().string(), "--strategy", "random", "--budget", "10",
                                "--seed", "3", "--json", cold_out.string()})
                .first,
            kExitOk);
  json cold;
  std::ifstream(cold_out) >> cold;
  EXPECT_EQ(trace["evaluations"], cold["evaluations"]);
}

TEST(ReplayCommand, WarmStartRefusesWhatIsNotOneReplaysTrace) {
  const std::string cache = synthetic_cache().string();
  auto message = [&](const std::string& content) {
    const auto source = temp_dir() / "bad_source.json";
    std::ofstream(source) << content;
    try {
      run_replay_command({"--cache", cache, "--strategy", "random", "--budget", "3", "--warm-start", source.string()});
    } catch (const std::exception& e) {
      testing::internal::GetCapturedStdout();
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"runs": []})").find("not the trace of one replay"), std::string::npos);
  EXPECT_NE(message("{").find("not valid JSON"), std::string::npos);
  const std::string no_objective = message(R"({"evaluations": [{"config": {"a": 5, "b": 3}, "status": "ok"}]})");
  EXPECT_NE(no_objective.find("bad_source.json: evaluation 1 succeeded but has no numeric"), std::string::npos)
      << no_objective;
  EXPECT_NE(message(R"({"evaluations": [{"status": "ok"}]})").find("evaluation 1 has no"), std::string::npos);
  EXPECT_NE(message(R"({"evaluations": [{"config": {"a": 5, "b": 3}, "status": "fine"}]})").find("evaluation 1: "),
            std::string::npos);
  EXPECT_NE(message(R"({"evaluations": [{"config": {"a": true, "b": 3}, "status": "ok", "objective": 1}]})")
                .find("evaluation 1: a is true, not a number or a string"),
            std::string::npos);
}

// ---------------------------------------------------------------- results files (--results)

// A tuning spec over a, b in 1..6 with a*b <= 24 (32 valid configurations), with the template and
// benchmark it names (so that its content hash can be taken).
std::filesystem::path results_spec() {
  const auto dir = temp_dir() / "results_space";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.hpp.in") << "constexpr int A = ${a}, B = ${b};\n";
  std::ofstream(dir / "k_bench.cpp") << "int main() {}\n";
  std::ofstream(dir / "spec.json") << R"({"name": "synthetic_host", "backend": "host",
    "template": "k.hpp.in", "benchmark": "k_bench.cpp",
    "parameters": [{"name": "a", "range": {"from": 1, "to": 6}},
                   {"name": "b", "values": [1, 2, 3, 4, 5, 6]}],
    "constraints": ["a*b <= 24"], "budget": {"evaluations": 40}})";
  return dir / "spec.json";
}

// The recorded outcome of (a, b): a == 1 compile_error, b == 1 resource_limit, one each of
// launch_error (2,2), crash (3,3), wrong_result (4,4), timeout (5,2), slow (6,2, 9 ms); the rest
// ok with |a-4| + |b-5| + 1 ms (optimum 1 ms at a=4, b=5). (2,3) is not recorded.
Outcome results_record(const Space& space, int a, int b) {
  Outcome o;
  o.config = space.config_from_texts({{"a", std::to_string(a)}, {"b", std::to_string(b)}});
  o.label = space.label(o.config);
  const std::pair<int, int> ab{a, b};
  if (a == 1) o.status = Status::compile_error;
  else if (b == 1) o.status = Status::resource_limit;
  else if (ab == std::pair{2, 2}) o.status = Status::launch_error;
  else if (ab == std::pair{3, 3}) o.status = Status::crash;
  else if (ab == std::pair{4, 4}) o.status = Status::wrong_result;
  else if (ab == std::pair{5, 2}) o.status = Status::timeout;
  else if (ab == std::pair{6, 2}) o.status = Status::slow, o.objective = 9.0;
  else o.status = Status::ok, o.objective = std::abs(a - 4) + std::abs(b - 5) + 1.0;
  if (!is_success(o.status)) o.message = "recorded failure of " + o.label;
  return o;
}

// Writes the results file with the tuner's own writer; `spec_hash` overrides key_parts.spec.
std::filesystem::path synthetic_results(const std::string& name, const std::string& spec_hash = "") {
  const Spec spec = load_spec(results_spec());
  ResultsHeader h;
  h.kernel = spec.name;
  h.key_parts = content_key_parts(spec);
  if (!spec_hash.empty()) h.key_parts["spec"] = spec_hash;
  h.key = content_hash(h.key_parts.dump());
  h.device = {{"name", "Test CPU"}};
  h.strategy = "random";
  h.started = utc_now();
  const auto path = temp_dir() / name;
  std::filesystem::remove(path);
  ResultsWriter writer(path, h, spec.space);
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; b <= 6; ++b)
      if (a * b <= 24 && !(a == 2 && b == 3)) writer.append(results_record(spec.space, a, b));
  Outcome repeat = results_record(spec.space, 4, 5);  // measured twice: the first record counts
  repeat.objective = 0.5;
  writer.append(repeat);
  return path;
}

TEST(ReplayResults, RecordedStatusesReplayAsRecorded) {
  const RecordedSpace space = read_results_space(synthetic_results("ok.jsonl"), results_spec());
  EXPECT_EQ(space.format, "adaexplore_results");
  EXPECT_EQ(space.kernel_name, "synthetic_host");
  EXPECT_EQ(space.device_name, "Test CPU");
  EXPECT_EQ(space.records.size(), 31u);
  EXPECT_EQ(space.duplicates, 1u);
  EXPECT_EQ(space.records_outside_constraints, 0u);
  EXPECT_TRUE(space.warnings.empty()) << space.warnings.front();
  EXPECT_EQ(space.space.constraints().size(), 1u);  // the spec's a*b <= 24
  ReplayBackend backend(space);
  ASSERT_TRUE(backend.optimum().has_value());
  EXPECT_EQ(backend.optimum()->label, "a=4,b=5");
  EXPECT_DOUBLE_EQ(*backend.optimum()->objective, 1.0);  // not the repeated record's 0.5
  for (const auto& [a, b, status] : std::vector<std::tuple<int, int, Status>>{
           {1, 4, Status::compile_error}, {3, 1, Status::resource_limit}, {2, 2, Status::launch_error},
           {3, 3, Status::crash},         {4, 4, Status::wrong_result},   {5, 2, Status::timeout},
           {6, 2, Status::slow},          {2, 3, Status::invalid},        {6, 4, Status::ok}}) {
    Prepared p = backend.prepare(space.space.config_from_texts({{"a", std::to_string(a)}, {"b", std::to_string(b)}}));
    const Outcome o = backend.measure(p);
    EXPECT_EQ(o.status, status) << o.label;
    if (status != Status::invalid && !is_success(status))
      EXPECT_EQ(o.message, "recorded failure of " + o.label);
  }
  // The whole space: every valid configuration once, the unrecorded one invalid. Without the
  // knowledge base: with it, adaexplore stops once everything left is known to fail, so failures
  // its rules predict may never be evaluated.
  const TuneReport all = replay_tuning(backend, "adaexplore", json{{"knowledge_base", false}}, 100, 2);
  check_replay(all, backend, 32);
  EXPECT_EQ(all.stop_reason, "space exhausted");
  const std::map<std::string, std::size_t> expected = {
      {"ok", 15},    {"slow", 1},         {"compile_error", 6}, {"resource_limit", 5}, {"launch_error", 1},
      {"crash", 1},  {"wrong_result", 1}, {"timeout", 1},       {"invalid", 1}};
  EXPECT_EQ(all.counts, expected);
}

TEST(ReplayResults, AConstraintGivenRestrictsTheSpecsSpace) {
  const RecordedSpace space = read_results_space(synthetic_results("c.jsonl"), results_spec(), {"a != 1"});
  EXPECT_EQ(space.space.constraints().size(), 2u);
  EXPECT_EQ(space.records_outside_constraints, 6u);  // a == 1
  ReplayBackend backend(space);
  const TuneReport r = replay_tuning(backend, "random", json::object(), 100, 1);
  check_replay(r, backend, 26);
  EXPECT_EQ(r.counts.count("compile_error"), 0u);
}

TEST(ReplayResults, AnotherSpecIsAWarning) {
  const RecordedSpace space = read_results_space(synthetic_results("other.jsonl", "0123"), results_spec());
  ASSERT_EQ(space.warnings.size(), 1u);
  EXPECT_NE(space.warnings[0].find("recorded with another spec"), std::string::npos) << space.warnings[0];
  EXPECT_NE(space.warnings[0].find("other.jsonl"), std::string::npos) << space.warnings[0];
}

std::string results_error(const std::filesystem::path& file, const std::filesystem::path& spec) {
  try {
    read_results_space(file, spec);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReplayResults, MalformedFilesNameTheFileAndLine) {
  const auto good = synthetic_results("good.jsonl");
  std::ifstream in(good);
  std::string header, record;
  std::getline(in, header);
  std::getline(in, record);
  auto write = [&](const std::string& name, const std::string& text) {
    const auto path = temp_dir() / name;
    std::ofstream(path) << text;
    return path;
  };
  const auto bad_json = write("bad_json.jsonl", header + "\n" + record + "\n{\"config\": \n" + record + "\n");
  EXPECT_NE(results_error(bad_json, results_spec()).find("bad_json.jsonl:3: not valid JSON"), std::string::npos)
      << results_error(bad_json, results_spec());
  json unknown = json::parse(record);
  unknown["status"] = "exploded";
  const auto bad_status = write("bad_status.jsonl", header + "\n" + unknown.dump() + "\n");
  EXPECT_NE(results_error(bad_status, results_spec()).find("bad_status.jsonl:2: bad record"), std::string::npos)
      << results_error(bad_status, results_spec());
  json no_objective = json::parse(record);
  no_objective["status"] = "ok";
  no_objective["objective_ms"] = nullptr;
  const auto bad_ok = write("bad_ok.jsonl", header + "\n" + record + "\n" + no_objective.dump() + "\n");
  EXPECT_NE(results_error(bad_ok, results_spec()).find("bad_ok.jsonl:3: status ok without"), std::string::npos)
      << results_error(bad_ok, results_spec());
  json outside = json::parse(record);
  outside["config"]["a"] = 7;
  const auto bad_config = write("bad_config.jsonl", header + "\n" + outside.dump() + "\n");
  EXPECT_NE(results_error(bad_config, results_spec()).find("bad_config.jsonl:2: bad record"), std::string::npos)
      << results_error(bad_config, results_spec());
  const auto not_results = write("not_results.jsonl", record + "\n");
  EXPECT_NE(results_error(not_results, results_spec()).find("not_results.jsonl:1: not an AdaExplore results file"),
            std::string::npos)
      << results_error(not_results, results_spec());
  // Without a spec the space cannot be rebuilt: the header holds hashes only.
  const std::string no_spec = results_error(good, "");
  EXPECT_NE(no_spec.find("good.jsonl:1: the search space cannot be rebuilt"), std::string::npos) << no_spec;
  EXPECT_NE(no_spec.find("--spec"), std::string::npos) << no_spec;
  EXPECT_NE(results_error(temp_dir() / "missing.jsonl", results_spec()).find("missing.jsonl: no such file"),
            std::string::npos);
}

TEST(ReplayCommand, ReplaysAResultsFileWithItsSpec) {
  const auto out = temp_dir() / "results_trace.json";
  const auto results = synthetic_results("command.jsonl");
  const auto [rc, text] = run_replay_command({"--results", results.string(), "--spec", results_spec().string(),
                                              "--strategy", "adaexplore", "--strategy-options",
                                              R"({"knowledge_base": false})", "--budget", "40", "--seed", "3",
                                              "--json", out.string()});
  ASSERT_EQ(rc, kExitOk) << text;
  EXPECT_NE(last_line(text).find(" optimum_ms=1 ratio=1"), std::string::npos) << text;  // whole space
  json trace;
  std::ifstream(out) >> trace;
  EXPECT_EQ(trace["results"], results.string());
  EXPECT_EQ(trace["format"], "adaexplore_results");
  EXPECT_FALSE(trace.contains("cache"));
  EXPECT_EQ(trace["constraints"], json::array({"a*b <= 24"}));
  ASSERT_EQ(trace["evaluations"].size(), 32u);
  std::size_t timeouts = 0;
  for (const auto& e : trace["evaluations"]) timeouts += e["status"] == "timeout" ? 1 : 0;
  EXPECT_EQ(timeouts, 1u);
}

// `replay --results` of the gemm space recorded at size `size` (tests/data/spaces/sizes/gemm,
// "M512_N512_K512") with its spec, `strategy`, `budget`, `seed`, the trace written to `out` and
// read back; `extra` arguments appended. Expects success.
json replay_gemm_size(const std::string& size, const std::string& budget, const std::string& seed,
                      const std::filesystem::path& out, const std::vector<std::string>& extra = {},
                      const std::string& strategy = "adaexplore") {
  const std::filesystem::path dir =
      std::filesystem::path(ADAEXPLORE_TEST_DATA) / "spaces/sizes/gemm";
  std::vector<std::string> args = {"--results",  (dir / ("h200." + size + ".jsonl")).string(),
                                   "--spec",     (dir / "spec.json").string(),
                                   "--strategy", strategy,
                                   "--budget",   budget,
                                   "--seed",     seed,
                                   "--json",     out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto [rc, text] = run_replay_command(args);
  EXPECT_EQ(rc, kExitOk) << text;
  json trace;
  std::ifstream(out) >> trace;
  return trace;
}

// Transfer between problem sizes on a space recorded at two sizes on an H200 (tests/data/spaces/
// README.md): a replay at 512^3 started from a trace at 256^3 evaluates that trace's best
// configurations first, never one of its size-independent failures, and (the best configurations
// of both sizes being alike) ends nearer 512's optimum than the same budget without the transfer
// on these seeds.
TEST(ReplayCommand, TransferFromAnotherSizesTraceStartsFromItsBestAndKnowsItsFailures) {
  const auto source = temp_dir() / "size256_trace.json";
  // The source: random sampling (it evaluates configurations over 1024 threads per block, which
  // adaexplore's static check never proposes), so the trace has failures to transfer.
  const json small = replay_gemm_size("M256_N256_K256", "80", "1", source, {}, "random");
  std::vector<std::pair<double, json>> best;
  std::set<std::string> failed;
  for (const auto& e : small["evaluations"]) {
    if (e["objective"].is_number()) best.emplace_back(e["objective"].get<double>(), e["config"]);
    else failed.insert(e["config"].dump());
  }
  std::stable_sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ASSERT_GE(best.size(), 4u);
  ASSERT_GE(failed.size(), 2u);
  // Without the size model (option size_model false) a later size starts from the other sizes'
  // winners, as `tune` did before 2026-12-06.
  for (const std::string seed : {"1", "2", "3"}) {
    const json warm =
        replay_gemm_size("M512_N512_K512", "20", seed, temp_dir() / "size512_transfer.json",
                         {"--transfer", source.string(), "--transfer-count", "4",
                          "--strategy-options", R"({"size_model": false})"});
    ASSERT_EQ(warm["evaluations"].size(), 20u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(warm["evaluations"][i]["config"], best[i].second) << i;
    EXPECT_EQ(warm["transfer"]["configs"], 4);
    EXPECT_EQ(warm["transfer"]["traces"], 1);
    EXPECT_EQ(warm["transfer"]["prior"].get<std::size_t>(), failed.size());
    for (const auto& e : warm["evaluations"]) EXPECT_EQ(failed.count(e["config"].dump()), 0u) << e.dump();
  }
  // From a tuning of 256^3 as `tune` makes it (adaexplore, budget 60), 512^3 at budget 20 (tune's
  // later budget): nearer its optimum than without the transfer.
  const auto tuned = temp_dir() / "size256_adaexplore.json";
  replay_gemm_size("M256_N256_K256", "60", "1", tuned);
  double with = 0, without = 0;
  for (const std::string seed : {"1", "2", "3", "4", "5"}) {
    with += replay_gemm_size("M512_N512_K512", "20", seed, temp_dir() / "size512_transfer.json",
                             {"--transfer", tuned.string()})["ratio"]
                .get<double>();
    without +=
        replay_gemm_size("M512_N512_K512", "20", seed, temp_dir() / "size512_cold.json")["ratio"]
            .get<double>();
  }
  std::cout << "mean optimum/best at 512^3, budget 20: " << with / 5 << " with the transfer, "
            << without / 5 << " without\n";
  EXPECT_GT(with / 5, without / 5 + 0.05);
}

// With the size model (the default), a later size starts from the configurations the model fitted
// on the other sizes' traces predicts best at this size: not the winners' list, none known to
// fail there, each evaluation's trace line says nothing new, and the start is as good as the
// winners' (the model knows their times and the size's shape).
TEST(ReplayCommand, TransferThroughTheModelStartsFromThePredictedBest) {
  const auto tuned = temp_dir() / "size256_model.json";
  const json source = replay_gemm_size("M256_N256_K256", "60", "1", tuned);
  EXPECT_EQ(source["size"], json::array({256, 256, 256}));  // the trace says its size
  double model = 0, winners = 0;
  for (const std::string seed : {"1", "2", "3", "4", "5"}) {
    const json m = replay_gemm_size("M512_N512_K512", "20", seed, temp_dir() / "size512_model.json",
                                    {"--transfer", tuned.string(), "--transfer-count", "4"});
    const json w =
        replay_gemm_size("M512_N512_K512", "20", seed, temp_dir() / "size512_winners.json",
                         {"--transfer", tuned.string(), "--transfer-count", "4",
                          "--strategy-options", R"({"size_model": false})"});
    ASSERT_EQ(m["evaluations"].size(), 20u);
    EXPECT_EQ(m["transfer"]["configs"], 4);
    std::set<std::string> start_m, start_w;
    for (std::size_t i = 0; i < 4; ++i) {
      start_m.insert(m["evaluations"][i]["config"].dump());
      start_w.insert(w["evaluations"][i]["config"].dump());
      EXPECT_TRUE(m["evaluations"][i]["objective"].is_number()) << m["evaluations"][i].dump();
    }
    EXPECT_NE(start_m, start_w) << "seed " << seed << ": the model's start is the winners' list";
    model += m["ratio"].get<double>();
    winners += w["ratio"].get<double>();
  }
  std::cout << "mean optimum/best at 512^3, budget 20, from 256^3: " << model / 5 << " through the model, "
            << winners / 5 << " from the winners\n";
  EXPECT_GE(model / 5, winners / 5 - 0.02);
  // A trace that does not say its size (written before 2026-12-06) cannot teach the model how times
  // move with the size: the start is the winners', as with size_model false.
  json unsized = source;
  unsized.erase("size");
  const auto unsized_path = temp_dir() / "size256_unsized.json";
  std::ofstream(unsized_path) << unsized.dump();
  const json u = replay_gemm_size("M512_N512_K512", "20", "1", temp_dir() / "size512_unsized.json",
                                  {"--transfer", unsized_path.string(), "--transfer-count", "4"});
  const json w = replay_gemm_size("M512_N512_K512", "20", "1", temp_dir() / "size512_winners.json",
                                  {"--transfer", tuned.string(), "--transfer-count", "4",
                                   "--strategy-options", R"({"size_model": false})"});
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(u["evaluations"][i]["config"], w["evaluations"][i]["config"]) << i;
}

// --device-transfer model (issue 39, a new GPU through the model): another recorded space's trace
// of the same kernel (here 256^3 standing in for another GPU: a trace of the same size is all the
// option needs) goes to the strategy's model, which picks a start of --warm-start-count: its picks
// alternate with the trace's best, so the start holds configurations that are not among them, and
// the JSON line says how the start was chosen. winners (the default) keeps the trace's best; the
// option without --warm-start is refused.
TEST(ReplayCommand, DeviceTransferModelStartsFromTheOtherGpusModel) {
  const std::filesystem::path dir = std::filesystem::path(ADAEXPLORE_TEST_DATA) / "spaces/sizes/gemm";
  const std::string spec = (dir / "spec.json").string();
  const auto source = temp_dir() / "other_gpu.json";
  auto replay = [](const std::string& size, const std::string& budget,
                   const std::filesystem::path& out, const std::vector<std::string>& extra = {}) {
    return replay_gemm_size(size, budget, "2", out, extra);
  };
  const json other = replay("M512_N512_K512", "60", source);
  std::vector<std::pair<double, std::string>> best;
  for (const auto& e : other["evaluations"])
    if (e["objective"].is_number()) best.emplace_back(e["objective"].get<double>(), e["config"].dump());
  std::sort(best.begin(), best.end());
  std::set<std::string> top4;
  for (std::size_t i = 0; i < 4; ++i) top4.insert(best[i].second);
  const json w = replay("M512_N512_K512", "20", temp_dir() / "gpu_winners.json",
                        {"--warm-start", source.string(), "--warm-start-count", "4"});
  const json m = replay("M512_N512_K512", "20", temp_dir() / "gpu_model.json",
                        {"--warm-start", source.string(), "--warm-start-count", "8", "--device-transfer", "model"});
  EXPECT_EQ(w["warm_start"]["by"], "winners");
  EXPECT_EQ(m["warm_start"]["by"], "model");
  std::size_t picks = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    const std::string c = m["evaluations"][i]["config"].dump();
    picks += top4.count(c) == 0;
    if (i < 4) EXPECT_TRUE(top4.count(w["evaluations"][i]["config"].dump())) << w["evaluations"][i].dump();
  }
  EXPECT_GE(picks, 3u) << "the model's picks in the start of 8";
  std::string refused = "no error";
  try {
    run_replay_command({"--results", (dir / "h200.M512_N512_K512.jsonl").string(), "--spec", spec, "--strategy",
                        "adaexplore", "--budget", "5", "--device-transfer", "model"});
  } catch (const std::exception& e) {
    refused = e.what();
  }
  EXPECT_NE(refused.find("--device-transfer requires --warm-start"), std::string::npos) << refused;
}

TEST(ReplayCommand, TakesExactlyOneRecordedSpace) {
  const std::string cache = synthetic_cache().string();
  const std::string results = synthetic_results("one.jsonl").string();
  EXPECT_THROW(run_replay_command({"--cache", cache, "--results", results, "--strategy", "random", "--budget", "3"}),
               CLI::ExcludesError);
  try {
    run_replay_command({"--strategy", "random", "--budget", "3"});
    ADD_FAILURE() << "no error without --cache or --results";
  } catch (const std::invalid_argument& e) {
    testing::internal::GetCapturedStdout();
    EXPECT_NE(std::string(e.what()).find("--cache FILE or --results FILE"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace adaexplore
