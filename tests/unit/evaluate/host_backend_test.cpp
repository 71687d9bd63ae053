// The host backend end to end with real programs: each test writes a template and a benchmark
// (harness_host.hpp) into a temporary folder, and the backend renders, compiles with the host
// compiler and runs them. MODE selects what the configuration does: a real compile error, a
// real SIGSEGV, a wrong result, an endless loop, a protocol breach, or a correct kernel.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <sstream>

#include "evaluate/backends.hpp"
#include "cli/commands.hpp"
#include "loop/confirm.hpp"
#include "loop/crown.hpp"
#include "store/database.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
#include "search/strategy.hpp"
#include "loop/tuner.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"
#include "store/key.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

enum Mode {
  kOk = 0,
  kCompileError,
  kCrash,
  kWrongResult,
  kHang,
  kExitWithoutRecord,
  kMalformedRecord
};

const char* kTemplate = R"(// y = 2 x, or one of the failures MODE selects.
#pragma once
#include <cstddef>
inline constexpr int kMode = ${MODE};
inline void scale(float* y, const float* x, std::size_t n) {
#if ${MODE} == 1
  this line is not C++;
#endif
  if constexpr (kMode == 2) {
    volatile int* volatile p = nullptr;
    *p = 42;
  }
  if constexpr (kMode == 4)
    for (volatile unsigned long spin = 0;; ++spin) {}
  for (std::size_t i = 0; i < n; ++i) y[i] = (kMode == 3 && i == 7) ? 0.5f : 2.0f * x[i];
}
)";

// The benchmark reads MODE through the injected macro for the protocol breaches.
const char* kBenchmark = R"(#include <adaexplore/harness_host.hpp>
#include <cstdio>
#include "scale.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
#if ADAEXPLORE_PARAM_MODE == 5
  std::fprintf(stderr, "scale_bench: cannot open the input file\n");
  return 3;
#elif ADAEXPLORE_PARAM_MODE == 6
  if (FILE* f = std::fopen(bench.options().result_file.c_str(), "w")) { std::fputs("{half a record", f); std::fclose(f); }
  return 0;
#endif
  std::size_t n = 4096;  // --n N: another size
  for (std::size_t i = 0; i + 1 < bench.args().size(); ++i)
    if (bench.args()[i] == "--n") n = std::stoul(bench.args()[i + 1]);
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::string count_file;  // --count-file F: each computation of the reference appends a line to F
  for (std::size_t i = 0; i + 1 < bench.args().size(); ++i)
    if (bench.args()[i] == "--count-file") count_file = bench.args()[i + 1];
  const std::vector<float> ref = bench.once("scale reference", [&] {
    if (FILE* f = count_file.empty() ? nullptr : std::fopen(count_file.c_str(), "a")) {
      std::fputs("made\n", f);
      std::fclose(f);
    }
    std::vector<float> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = 2.0f * x[i];
    return r;
  });
  bench.bytes(2.0 * n * sizeof(float));
  return bench.run([&] { scale(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
)";

// Every test runs twice: the benchmark as an executable in its own process (run.runner false),
// and as a module in the long-lived runner (run.runner true, the default; the runner is the built
// adaexplore-tuner, named by ADAEXPLORE_RUNNER since this program is not it). Same verdicts.
class HostBackendTest : public ::testing::TestWithParam<bool> {
 protected:
  bool runner() const { return GetParam(); }
  void SetUp() override {
    if (runner()) ::setenv("ADAEXPLORE_RUNNER", ADAEXPLORE_TUNER_EXECUTABLE, 1);
    dir_ = test::fresh_test_directory(runner() ? "host-backend-runner" : "host-backend");
    write(dir_ / "scale.hpp.in", kTemplate);
    write(dir_ / "scale_bench.cpp", kBenchmark);
  }
  void TearDown() override {
    ::unsetenv("ADAEXPLORE_RUNNER");
    if (!HasFailure()) fs::remove_all(dir_);
  }

  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

  nlohmann::json spec_json() const {
    return {{"name", "scale"},
            {"backend", "host"},
            {"template", "scale.hpp.in"},
            {"benchmark", "scale_bench.cpp"},
            {"parameters", {{{"name", "MODE"}, {"values", {0, 1, 2, 3, 4, 5, 6}}}}},
            {"compiler", {{"flags", {"-O0"}}}},  // fast compiles; -O0 after the backend's -O2 wins
            {"run",
             {{"timeout_s", 1.5},
              {"args", {"--adaexplore-measure-ms", "20", "--adaexplore-warmup-ms", "2"}},
              {"runner", runner()}}}};
  }
  Spec spec(const nlohmann::json& j) const { return parse_spec(j, dir_ / "spec.json"); }
  void write_near_tie_spec();  // spec.json and scale.hpp.in of the near-tie tests

  // Prepares and, when the compile succeeded, measures one MODE; keeps what prepare produced.
  Outcome evaluate(Mode mode) {
    const Spec s = spec(spec_json());
    auto backend = make_host_backend(s);
    prepared_ = backend->prepare(s.space.config_from_texts({{"MODE", std::to_string(mode)}}));
    return prepared_.failure ? *prepared_.failure : backend->measure(prepared_);
  }

  fs::path dir_;
  Prepared prepared_;
};

TEST_P(HostBackendTest, GoodRunIsTimedAndLeavesRenderedSourceAndLogs) {
  const Outcome o = evaluate(kOk);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  ASSERT_TRUE(o.objective && o.timing);
  EXPECT_GT(*o.objective, 0);
  EXPECT_EQ(*o.objective, o.timing->median_ms);
  EXPECT_GE(o.timing->samples, 10);
  ASSERT_EQ(o.timing->values_ms.size(), static_cast<std::size_t>(o.timing->samples));  // time_ms.values
  EXPECT_EQ(*std::min_element(o.timing->values_ms.begin(), o.timing->values_ms.end()), o.timing->min_ms);
  EXPECT_LE(o.timing->min_ms, o.timing->median_ms);
  EXPECT_EQ(o.extra["verification"]["mismatches"], 0);
  EXPECT_TRUE(o.extra.contains("GB/s"));
  EXPECT_TRUE(o.stage_ms.count("run"));
  EXPECT_TRUE(prepared_.stage_ms.count("render") && prepared_.stage_ms.count("compile"));
  // <work_dir>/evals/<hash>/: the rendered template under its name without .in, the logs, the
  // record; the executable is gone once measured.
  EXPECT_EQ(prepared_.directory.parent_path(), dir_ / "scale.work" / "evals");
  EXPECT_NE(read_file(prepared_.directory / "scale.hpp").find("inline constexpr int kMode = 0;"),
            std::string::npos);
  const std::string cmd = read_file(prepared_.directory / "compile.cmd");
  EXPECT_NE(cmd.find("-std=c++17 -O2 -O0"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-DADAEXPLORE_PARAM_MODE=0"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-I" + prepared_.directory.string()), std::string::npos) << cmd;
  EXPECT_TRUE(fs::exists(prepared_.directory / "result.json"));
  EXPECT_FALSE(fs::exists(prepared_.executable));
}

TEST_P(HostBackendTest, CompileErrorKeepsCompilerMessageAndCommand) {
  const Outcome o = evaluate(kCompileError);
  EXPECT_EQ(o.status, Status::compile_error);
  EXPECT_EQ(o.exit_code, 1);
  const std::string first_line = o.message.substr(0, o.message.find('\n'));
  EXPECT_NE(first_line.find("scale.hpp:7"), std::string::npos) << o.message;
  EXPECT_NE(first_line.find("error"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("command: c++ -std=c++17"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("ended: exit code 1"), std::string::npos) << o.message;
  EXPECT_NE(read_file(prepared_.directory / "compile.err").find("this line is not C++"),
            std::string::npos);
}

TEST_P(HostBackendTest, SegfaultIsCrashNamingTheSignal) {
  const Outcome o = evaluate(kCrash);
  EXPECT_EQ(o.status, Status::crash);
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_FALSE(o.exit_code);
  EXPECT_EQ(o.message.rfind("the benchmark was killed by SIGSEGV", 0), 0u) << o.message;
  EXPECT_NE(o.message.find("--adaexplore-result"), std::string::npos) << o.message;
  EXPECT_FALSE(fs::exists(prepared_.executable));
}

TEST_P(HostBackendTest, WrongResultComesFromTheRecordWithItsVerification) {
  const Outcome o = evaluate(kWrongResult);
  EXPECT_EQ(o.status, Status::wrong_result);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_FALSE(o.objective);
  EXPECT_NE(o.message.find("1 of 4096 values differ from the reference; first at index 7"),
            std::string::npos)
      << o.message;
  EXPECT_EQ(o.extra["verification"]["mismatches"], 1);
}

TEST_P(HostBackendTest, EndlessLoopIsKilledAtTheRunTimeLimit) {
  const Outcome o = evaluate(kHang);
  EXPECT_EQ(o.status, Status::timeout);
  EXPECT_NE(o.message.find("run time limit of 1.5 s"), std::string::npos) << o.message;
  EXPECT_EQ(o.extra.value("timeout_stage", ""), "run") << o.extra.dump();  // not the compile's
  EXPECT_GE(o.stage_ms.at("run"), 1500);
  EXPECT_LT(o.stage_ms.at("run"), 10000);
}

// The defaults (kOk) run in tens of milliseconds; with factor 10 and floor 0.5 s the endless loop
// is killed after max(0.5 s, 10 x the defaults' run), far below the 20 s cap. Through the tuning
// loop, which calibrates the backend with the baseline.
TEST_P(HostBackendTest, RunTimeLimitIsDerivedFromTheDefaultsRun) {
  nlohmann::json j = spec_json();
  j["parameters"][0]["values"] = {kOk, kHang};
  j["defaults"] = {{"MODE", kOk}};
  j["run"]["timeout_s"] = 20;
  j["run"]["timeout_factor"] = 10;
  j["run"]["timeout_floor_s"] = 0.5;
  const Spec s = spec(j);
  auto backend = make_host_backend(s);
  StrategyOptions strategy_options;
  auto strategy = make_strategy("random", s.space, strategy_options);
  TuneOptions options;
  options.budget = 2;
  const TuneReport r = run_tuning(s.space, s.defaults, *backend, *strategy, options, nullptr);
  ASSERT_EQ(r.outcomes.size(), 2u);
  const Outcome& defaults = r.outcomes[0];
  const Outcome& hang = r.outcomes[1];
  ASSERT_EQ(defaults.status, Status::ok) << defaults.message;
  const double derived_s = std::max(0.5, 10 * defaults.stage_ms.at("run") / 1000);
  EXPECT_LT(derived_s, 5.0) << "the defaults' run took " << defaults.stage_ms.at("run") << " ms";
  EXPECT_EQ(hang.status, Status::timeout) << hang.message;
  EXPECT_GE(hang.stage_ms.at("run"), derived_s * 1000 - 1);
  EXPECT_LT(hang.stage_ms.at("run"), 10000);  // under half the cap
  EXPECT_NEAR(static_cast<ProgramBackend&>(*backend).run_limit().seconds, derived_s, 1e-9);
  const std::string second_line = hang.message.substr(hang.message.find('\n') + 1);
  EXPECT_EQ(second_line.rfind("  limit: ", 0), 0u) << hang.message;
  EXPECT_NE(second_line.find("x the defaults' run time"), std::string::npos) << hang.message;
  EXPECT_NE(second_line.find("cap run.timeout_s 20 s"), std::string::npos) << hang.message;
}

// The runner keeps one process while configurations succeed or fail in the harness (a wrong
// result, an exit code), and is replaced after one dies (SIGSEGV) or hangs (killed at the limit);
// the next configuration is measured in the new one.
TEST_P(HostBackendTest, RunnerKeepsOneProcessUntilACrashOrHangAndRestarts) {
  if (!runner()) GTEST_SKIP() << "runner mode only";
  const Spec s = spec(spec_json());
  auto backend = make_host_backend(s);
  auto& program = static_cast<ProgramBackend&>(*backend);
  EXPECT_NE(program.evaluation_mode().find("runner"), std::string::npos) << program.evaluation_mode();
  std::vector<Prepared> prepared;
  for (Mode m : {kOk, kWrongResult, kExitWithoutRecord, kCrash, kHang})
    prepared.push_back(backend->prepare(s.space.config_from_texts({{"MODE", std::to_string(m)}})));
  auto measure = [&](std::size_t i) {
    Prepared copy = prepared[i];
    return backend->measure(copy);
  };
  const Outcome ok = measure(0);
  ASSERT_EQ(ok.status, Status::ok) << ok.message;
  EXPECT_TRUE(ok.stage_ms.count("load"));
  EXPECT_EQ(measure(1).status, Status::wrong_result);
  EXPECT_EQ(measure(2).exit_code, 3);
  EXPECT_EQ(program.runner_starts(), 1u);  // three modules, one process
  const Outcome crash = measure(3);
  EXPECT_EQ(crash.signal, SIGSEGV) << crash.message;
  EXPECT_EQ(measure(4).status, Status::timeout);  // a fresh runner, then killed at the limit
  EXPECT_EQ(program.runner_starts(), 2u);
  prepared[0] = backend->prepare(prepared[0].config);  // compiled again: measure removed it
  EXPECT_EQ(measure(0).status, Status::ok);
  EXPECT_EQ(program.runner_starts(), 3u);
}

// Near-ties (confirm.hpp): two configurations that build the same correct kernel (MODE 0 with
// two values of a parameter the code ignores) are re-measured interleaved; each gets one median
// per round, one of them wins, the artifacts are gone afterwards.
TEST_P(HostBackendTest, NearTiesAreReMeasuredInterleavedRounds) {
  nlohmann::json j = spec_json();
  j["parameters"] = {{{"name", "MODE"}, {"values", {0}}}, {{"name", "COPY"}, {"values", {1, 2}}}};
  const Spec s = spec(j);
  auto backend = make_host_backend(s);
  std::vector<Outcome> tuned;
  for (const char* copy : {"1", "2"}) {
    Prepared p = backend->prepare(s.space.config_from_texts({{"MODE", "0"}, {"COPY", copy}}));
    ASSERT_FALSE(p.failure) << p.failure->message;
    Outcome o = backend->measure(p);
    ASSERT_EQ(o.status, Status::ok) << o.message;
    o.config = p.config;
    o.label = s.space.label(p.config);
    tuned.push_back(o);
  }
  ConfirmOptions options;
  options.rounds = 3;
  options.margin = 10.0;  // whatever the noise of this machine: both are contenders
  const auto contenders = near_ties(tuned, options);
  ASSERT_EQ(contenders.size(), 2u);
  const Confirmation c = confirm_near_ties(*backend, contenders, options);
  ASSERT_EQ(c.contenders.size(), 2u);
  ASSERT_TRUE(c.winner);
  for (const auto& k : c.contenders) {
    EXPECT_TRUE(k.failure.empty()) << k.failure;
    ASSERT_EQ(k.round_ms.size(), 3u);
    EXPECT_GT(k.median_ms, 0);
    EXPECT_GE(k.median_ms, *std::min_element(k.round_ms.begin(), k.round_ms.end()));
    EXPECT_LE(k.median_ms, *std::max_element(k.round_ms.begin(), k.round_ms.end()));
  }
  // The faster median wins, or within kTieMargin of it the first in the space's order (crown.hpp).
  EXPECT_LE(c.contenders[*c.winner].median_ms, c.contenders[1 - *c.winner].median_ms * (1 + kTieMargin));
  EXPECT_EQ(c.changed, *c.winner != 0);
  EXPECT_EQ(c.to_json()["contenders"].size(), 2u);
  for (const auto& entry : fs::recursive_directory_iterator(dir_))
    EXPECT_NE(entry.path().filename().string().rfind("benchmark", 0), 0u) << entry.path() << " left behind";
}

// The spec of the two near-tie tests below: three copies of the same code (COPY), budget 3. About
// a millisecond per run, not microseconds, and every configuration within 10x of the best is a
// near-tie (--confirm-margin 10): identical code timed 5 vs 16 us, and at 1e6 elements 2.3 vs 4.8
// ms, on a loaded 2-core CI machine.
void HostBackendTest::write_near_tie_spec() {
  nlohmann::json j = spec_json();
  j["parameters"] = {{{"name", "MODE"}, {"values", {0}}}, {{"name", "COPY"}, {"values", {1, 2, 3}}}};
  j["budget"] = {{"evaluations", 3}};
  j["strategy"] = "random";
  j["run"]["args"].push_back("--n");
  j["run"]["args"].push_back("1000000");
  write(dir_ / "scale.hpp.in", std::string(kTemplate) + "// copy ${COPY}: the same code for every value\n");
  std::ofstream(dir_ / "spec.json") << j.dump(2);
}

// `tune` confirms near-ties after evaluating (confirmation.json beside the results) and a second
// run that evaluates nothing applies the stored verdict: the header is byte-identical.
TEST_P(HostBackendTest, TuneConfirmsNearTiesAndARerunKeepsTheHeader) {
  write_near_tie_spec();
  auto tune = [&] {
    CLI::App app;
    register_commands(app);
    std::vector<std::string> args = {"tune", "--spec", (dir_ / "spec.json").string(), "--quiet",
                                     "--confirm-rounds", "2", "--confirm-margin", "10"};
    std::reverse(args.begin(), args.end());
    app.parse(args);
    return run_selected_command(app);
  };
  ASSERT_EQ(tune(), kExitOk);
  const fs::path confirmation = dir_ / "scale.work" / "results.jsonl.confirmation.json";
  ASSERT_TRUE(fs::exists(confirmation));
  const auto c = nlohmann::json::parse(read_file(confirmation));
  EXPECT_EQ(c["rounds"], 2);
  std::ifstream results(dir_ / "scale.work" / "results.jsonl");
  std::string first_line;
  std::getline(results, first_line);  // the header line, with the key
  EXPECT_EQ(c.value("key", std::string("none")), nlohmann::json::parse(first_line).value("key", std::string()))
      << c.dump();  // the results key it belongs to
  EXPECT_GE(c["contenders"].size(), 2u) << c.dump();  // same code: within 10x of each other
  const std::string header = read_file(dir_ / "scale.work" / "scale.hpp");
  ASSERT_EQ(tune(), kExitOk);  // nothing new: the stored verdict again
  EXPECT_EQ(read_file(dir_ / "scale.work" / "scale.hpp"), header);
  EXPECT_EQ(read_file(confirmation), c.dump(2) + "\n");
}

// With a tuning database the verdict is kept beside the key's file: `tune --cached` writes the
// header `tune` wrote, winner and figure included.
TEST_P(HostBackendTest, TuneCachedCrownsTheConfirmedWinner) {
  if (runner()) GTEST_SKIP() << "the same in both modes; run once";
  write_near_tie_spec();
  auto tune = [&](std::vector<std::string> extra) {
    CLI::App app;
    register_commands(app);
    std::vector<std::string> args = {"tune", "--spec", (dir_ / "spec.json").string(), "--quiet", "--database",
                                     (dir_ / "db").string(), "--confirm-rounds", "2", "--confirm-margin", "10"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::reverse(args.begin(), args.end());
    app.parse(args);
    return run_selected_command(app);
  };
  ASSERT_EQ(tune({"--header", (dir_ / "tuned.hpp").string()}), kExitOk);
  std::size_t verdicts = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "db"))
    verdicts += e.path().string().size() > 18 &&
                e.path().string().compare(e.path().string().size() - 18, 18, ".confirmation.json") == 0;
  EXPECT_EQ(verdicts, 1u);
  ASSERT_EQ(tune({"--cached", "--header", (dir_ / "cached.hpp").string()}), kExitOk);
  EXPECT_EQ(read_file(dir_ / "cached.hpp"), read_file(dir_ / "tuned.hpp"));
}

// Benchmark::once: the reference is computed once per runner (then copied: every configuration
// still verifies against it), and once per configuration when each runs in its own process.
TEST_P(HostBackendTest, OnceComputesTheReferenceOncePerRunner) {
  nlohmann::json j = spec_json();
  j["parameters"] = {{{"name", "MODE"}, {"values", {0, 3}}}, {{"name", "COPY"}, {"values", {1, 2}}}};
  j["run"]["args"].push_back("--count-file");
  j["run"]["args"].push_back((dir_ / "made.txt").string());
  write(dir_ / "scale.hpp.in", std::string(kTemplate) + "// copy ${COPY}: the same code for every value\n");
  const Spec s = spec(j);
  auto backend = make_host_backend(s);
  std::vector<Status> statuses;
  for (const auto& [mode, copy] : std::vector<std::pair<const char*, const char*>>{{"0", "1"}, {"3", "1"}, {"0", "2"}}) {
    Prepared p = backend->prepare(s.space.config_from_texts({{"MODE", mode}, {"COPY", copy}}));
    ASSERT_FALSE(p.failure) << p.failure->message;
    statuses.push_back(backend->measure(p).status);
  }
  EXPECT_EQ(statuses, (std::vector<Status>{Status::ok, Status::wrong_result, Status::ok}));
  std::ifstream made(dir_ / "made.txt");
  std::size_t lines = 0;
  for (std::string line; std::getline(made, line);) ++lines;
  EXPECT_EQ(lines, runner() ? 1u : 3u);
}

INSTANTIATE_TEST_SUITE_P(ProcessAndRunner, HostBackendTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Runner" : "Process"; });

TEST(RunLimit, CapFloorAndFactor) {
  EXPECT_EQ(cap_run_limit(30).seconds, 30);
  EXPECT_NE(cap_run_limit(30).derivation.find("not known yet"), std::string::npos);
  // 10 x 0.02 s = 0.2 s, raised to the floor.
  const RunLimit floor = derive_run_limit(30, 10, 5, 0.02);
  EXPECT_EQ(floor.seconds, 5);
  EXPECT_EQ(floor.derivation,
            "the floor run.timeout_floor_s 5 s, above run.timeout_factor 10 x the defaults' run time 0.02 s = 0.2 s "
            "(cap run.timeout_s 30 s)");
  // 10 x 1.2 s = 12 s, between floor and cap.
  const RunLimit scaled = derive_run_limit(30, 10, 5, 1.2);
  EXPECT_DOUBLE_EQ(scaled.seconds, 12);
  EXPECT_EQ(scaled.derivation, "run.timeout_factor 10 x the defaults' run time 1.2 s (floor 5 s, cap run.timeout_s 30 s)");
  // 10 x 4 s = 40 s, over the cap.
  const RunLimit capped = derive_run_limit(30, 10, 5, 4);
  EXPECT_EQ(capped.seconds, 30);
  EXPECT_EQ(capped.derivation.rfind("the cap run.timeout_s 30 s, below", 0), 0u) << capped.derivation;
  EXPECT_EQ(derive_run_limit(30, 10, 50, 1).seconds, 30);  // a floor over the cap: the cap
  EXPECT_EQ(derive_run_limit(0, 10, 5, 4).seconds, 40);    // no cap
  EXPECT_EQ(derive_run_limit(30, 0, 5, 0.01).seconds, 30);  // factor 0: the cap alone
  EXPECT_EQ(derive_run_limit(0, 0, 5, 0.01).seconds, 0);    // no limit at all
}

TEST_P(HostBackendTest, ExitWithoutRecordIsCrashWithExitCodeAndStderr) {
  const Outcome o = evaluate(kExitWithoutRecord);
  EXPECT_EQ(o.status, Status::crash);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(
      o.message.find(
          "exit code 3 without writing its result record: scale_bench: cannot open the input file"),
      std::string::npos)
      << o.message;
}

TEST_P(HostBackendTest, MalformedRecordIsCrashBlamingTheProtocol) {
  const Outcome o = evaluate(kMalformedRecord);
  EXPECT_EQ(o.status, Status::crash);
  EXPECT_EQ(o.message.rfind("the benchmark broke the protocol: its result record", 0), 0u)
      << o.message;
  EXPECT_NE(o.message.find("is not valid JSON"), std::string::npos) << o.message;
}

TEST_P(HostBackendTest, MissingCompilerIsAClearError) {
  nlohmann::json j = spec_json();
  j["compiler"]["path"] = (dir_ / "no-such-compiler").string();
  try {
    make_host_backend(spec(j));
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compiler '" + (dir_ / "no-such-compiler").string() +
                                         "' not found"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("compiler.path"), std::string::npos) << e.what();
  }
}

TEST_P(HostBackendTest, DeviceNamesCpuAndCompiler) {
  auto backend = make_host_backend(spec(spec_json()));
  const auto d = backend->device();
  EXPECT_FALSE(d.value("name", std::string()).empty());
  EXPECT_FALSE(d.value("compiler", std::string()).empty());
  EXPECT_EQ(backend->name(), "host");
  EXPECT_GE(backend->parallelism(), 1u);
}

// `adaexplore-tuner tune` in process: baseline (ok), three failures, header with the winner.
TEST_P(HostBackendTest, TuneCommandWritesResultsAndHeader) {
  nlohmann::json j = spec_json();
  j["parameters"][0]["values"] = {0, 1, 2, 3};
  j["defaults"] = {{"MODE", 0}};
  j["budget"] = {{"evaluations", 4}};
  j["strategy"] = "random";
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  CLI::App app;
  register_commands(app);
  std::vector<std::string> args = {"tune", "--spec", (dir_ / "spec.json").string(), "--quiet"};
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
  app.parse(args);
  ASSERT_EQ(run_selected_command(app), kExitOk);
  const std::string header = read_file(dir_ / "scale.work" / "scale.hpp");
  EXPECT_NE(header.find("inline constexpr int MODE = 0;"), std::string::npos) << header;
  std::ifstream results(dir_ / "scale.work" / "results.jsonl");
  std::string line, statuses;
  std::getline(results, line);  // the header line
  while (std::getline(results, line))
    statuses += nlohmann::json::parse(line)["status"].get<std::string>() + " ";
  EXPECT_NE(statuses.find("ok"), std::string::npos) << statuses;
  EXPECT_NE(statuses.find("compile_error"), std::string::npos) << statuses;
  EXPECT_NE(statuses.find("crash"), std::string::npos) << statuses;
  EXPECT_NE(statuses.find("wrong_result"), std::string::npos) << statuses;
}

// `tune` with spec.json in dir_ in process: its exit code and standard error.
std::pair<int, std::string> tune_in_process(const fs::path& dir, std::vector<std::string> extra = {}) {
  CLI::App app;
  register_commands(app);
  std::vector<std::string> args = {"tune", "--spec", (dir / "spec.json").string(), "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
  app.parse(args);
  testing::internal::CaptureStderr();
  const int rc = run_selected_command(app);
  return {rc, testing::internal::GetCapturedStderr()};
}

// Issue 23 item 4: a setup where nothing compiles (here a launcher that fails, which is not part of
// the key) stops the tuning; once it is fixed, the next tuning of the same key measures the defaults (ok, its run limit derived from them) instead of
// resuming the broken setup's compile_error records.
TEST_P(HostBackendTest, SetupFailuresAreNotResumedOnceTheSetupIsFixed) {
  nlohmann::json j = spec_json();
  j["defaults"] = {{"MODE", 0}};
  j["budget"] = {{"evaluations", 7}};
  j["strategy"] = "random";
  j["compiler"]["launcher"] = {"false"};  // every compile fails the same way; not part of the key
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  const auto [rc, err] = tune_in_process(dir_);
  ASSERT_EQ(rc, kExitTuningFailed) << err;
  EXPECT_NE(err.find("the setup is broken"), std::string::npos) << err;
  EXPECT_NE(err.find("not kept in the results file"), std::string::npos) << err;
  const fs::path results = dir_ / "scale.work" / "results.jsonl";
  const Spec sp = spec(j);
  EXPECT_TRUE(!fs::exists(results) || read_results(results, sp.space).outcomes.empty());

  j["compiler"].erase("launcher");  // fixed: the same key (budget and launcher are not in it)
  j["budget"] = {{"evaluations", 2}};
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  const auto [rc2, err2] = tune_in_process(dir_);
  ASSERT_EQ(rc2, kExitOk) << err2;
  EXPECT_EQ(err2.find("moved aside"), std::string::npos) << err2;
  EXPECT_EQ(err2.find("kept in"), std::string::npos) << err2;  // the same file, not another key's
  const ResultsFile f = read_results(results, sp.space);
  ASSERT_FALSE(f.outcomes.empty());
  EXPECT_EQ(f.outcomes.front().label, "MODE=0");
  EXPECT_EQ(f.outcomes.front().status, Status::ok) << f.outcomes.front().message;
  const std::string header = read_file(dir_ / "scale.work" / "scale.hpp");
  const auto defaults = header.find("// Defaults:");
  ASSERT_NE(defaults, std::string::npos) << header;
  const std::string line = header.substr(defaults, header.find('\n', defaults) - defaults);
  EXPECT_NE(line.find(" ms"), std::string::npos) << line;
  EXPECT_EQ(line.find("compile_error"), std::string::npos) << line;
}

// A results file that an earlier tuner left holding only a broken setup's identical failures is
// set aside (kept) and the key tuned afresh: the defaults are measured.
TEST_P(HostBackendTest, AResultsFileOfOnlySetupFailuresIsSetAside) {
  nlohmann::json j = spec_json();
  j["defaults"] = {{"MODE", 0}};
  j["parameters"][0]["values"] = {0, 1, 2, 3, 4, 5, 6};
  j["budget"] = {{"evaluations", 1}};
  j["strategy"] = "random";
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  ASSERT_EQ(tune_in_process(dir_).first, kExitOk);  // the file and its key
  const fs::path results = dir_ / "scale.work" / "results.jsonl";
  const Spec sp = spec(j);
  const RawResults raw = read_raw_results(results);
  fs::remove(results);
  {
    ResultsWriter writer(results, raw.header, sp.space);
    for (int mode = 0; mode < 6; ++mode) {  // what the tuner kept before issue 23 item 4
      Outcome o;
      o.config = sp.space.config_from_texts({{"MODE", std::to_string(mode)}});
      o.label = sp.space.label(o.config);
      o.status = Status::compile_error;
      o.message = "scale_bench.cpp:25:3: error: 'this' is not C++\n";
      writer.append(o);
    }
  }
  const auto [rc, err] = tune_in_process(dir_);
  ASSERT_EQ(rc, kExitOk) << err;
  EXPECT_NE(err.find("holds only the 6 identical failures of a broken setup (compile_error)"), std::string::npos)
      << err;
  bool aside = false;
  for (const auto& e : fs::directory_iterator(dir_ / "scale.work"))
    aside = aside || e.path().filename().string().rfind("results.jsonl.setup-error-", 0) == 0;
  EXPECT_TRUE(aside);
  const ResultsFile f = read_results(results, sp.space);
  ASSERT_EQ(f.outcomes.size(), 1u);
  EXPECT_EQ(f.outcomes.front().status, Status::ok) << f.outcomes.front().message;
}

// The tuned headers are outputs: a template that includes one (its own tuned header, as a library
// header with `__has_include` fallbacks does, or another kernel's in the build tree's tuned-header
// folder, --generated) keeps its key when a tuning rewrites it, and neither is in
// dependencies.txt (CMake would reconfigure after every tuning). Without --generated, another
// kernel's header is an input like any other.
TEST_P(HostBackendTest, TunedHeadersIncludedByTheTemplateAreNotPartOfTheKey) {
  fs::create_directories(dir_ / "generated" / "adaexplore");
  write(dir_ / "generated" / "adaexplore" / "other.hpp", "#pragma once\n// other kernel, tuned\n");
  write(dir_ / "generated" / "adaexplore" / "scale.hpp", "#pragma once\n// this kernel, tuned\n");
  std::string templ = kTemplate;
  templ.replace(templ.find("#include <cstddef>"), 0,
                "#include \"adaexplore/other.hpp\"\n#include \"adaexplore/scale.hpp\"\n");
  write(dir_ / "scale.hpp.in", templ);
  nlohmann::json j = spec_json();
  j["parameters"][0]["values"] = {0, 3};
  j["defaults"] = {{"MODE", 0}};
  j["budget"] = {{"evaluations", 1}};
  j["compiler"]["include_dirs"] = {(dir_ / "generated").string()};
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  const Spec s = spec(j);
  const fs::path own = dir_ / "generated" / "adaexplore" / "scale.hpp", folder = dir_ / "generated" / "adaexplore";
  const auto headers_of = [&](const std::vector<fs::path>& outputs) {
    return make_host_backend(s)->included_headers(outputs);
  };
  EXPECT_EQ(headers_of({}).size(), 2u) << headers_of({}).dump();  // nothing left out: both are inputs
  const nlohmann::json without_own = headers_of({own});
  ASSERT_EQ(without_own.size(), 1u) << without_own.dump();
  EXPECT_EQ(without_own[0]["name"], "other.hpp");
  EXPECT_EQ(headers_of({own, folder}).size(), 0u);
  EXPECT_EQ(read_file(dir_ / "scale.work" / "dependencies.txt"), "");
  // `tune --header <own> --generated <folder>`: rewriting both headers keeps the key, so the
  // second tuning resumes the first's results instead of moving them aside.
  const std::vector<std::string> outputs = {"--header", own.string(), "--generated", folder.string()};
  ASSERT_EQ(tune_in_process(dir_, outputs).first, kExitOk);
  write(dir_ / "generated" / "adaexplore" / "other.hpp", "#pragma once\n// other kernel, tuned again\n");
  const auto [rc, err] = tune_in_process(dir_, outputs);
  ASSERT_EQ(rc, kExitOk) << err;
  EXPECT_EQ(err.find("spec, sources or device changed"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(own));
  // Without --generated the other kernel's header is part of the key: its edit is another key.
  write(dir_ / "generated" / "adaexplore" / "other.hpp", "#pragma once\n// other kernel, tuned a third time\n");
  const auto [rc3, err3] = tune_in_process(dir_, {"--header", own.string()});
  ASSERT_EQ(rc3, kExitOk) << err3;
  EXPECT_NE(err3.find("spec, sources or device changed"), std::string::npos) << err3;
}

// Issue 23 item 2: the key covers the headers the template and the benchmark include (here a
// kernel header beside the template, as the examples' kernels/*.cuh), found by the compiler; an
// edit of one is another key, so its results are not reused. The toolkit's, the system's and the
// harness's headers are not part of it.
TEST_P(HostBackendTest, AnEditedIncludedHeaderChangesTheKey) {
  fs::create_directories(dir_ / "kernels");
  write(dir_ / "kernels" / "factor.hpp", "#pragma once\ninline constexpr float kFactor = 2.0f;\n");
  std::string templ = kTemplate;
  templ.replace(templ.find("#include <cstddef>"), 0, "#include \"kernels/factor.hpp\"\n");
  write(dir_ / "scale.hpp.in", templ);
  nlohmann::json j = spec_json();
  j["parameters"][0]["values"] = {0, 3};
  j["defaults"] = {{"MODE", 0}};
  j["budget"] = {{"evaluations", 1}};
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  const Spec s = spec(j);
  const auto key_of = [&] {
    auto backend = make_host_backend(s);
    return content_hash(key_parts(s, backend->name(), backend->device(), backend->included_headers()).dump());
  };
  auto backend = make_host_backend(s);
  const nlohmann::json headers = backend->included_headers();
  ASSERT_EQ(headers.size(), 1u) << headers.dump();  // not <cstddef>, not adaexplore/harness_host.hpp
  EXPECT_EQ(headers[0]["name"], "factor.hpp");
  EXPECT_EQ(read_file(dir_ / "scale.work" / "dependencies.txt"),
            fs::weakly_canonical(dir_ / "kernels" / "factor.hpp").string() + "\n");
  const std::string before = key_of();
  EXPECT_EQ(key_of(), before);  // unchanged sources, the same key
  write(dir_ / "kernels" / "factor.hpp", "#pragma once\ninline constexpr float kFactor = 2.0f;  // edited\n");
  const std::string edited = key_of();
  EXPECT_NE(edited, before);
  // A header the edit starts to include is found too (the cached scan is not reused).
  write(dir_ / "kernels" / "more.hpp", "#pragma once\n");
  write(dir_ / "kernels" / "factor.hpp", "#pragma once\n#include \"more.hpp\"\ninline constexpr float kFactor = 2.0f;\n");
  EXPECT_EQ(make_host_backend(s)->included_headers().size(), 2u);
  // Another build tree (work_dir) of the same sources has the same key, although its scan comes
  // from the compile cache entry the first tree's scan left (cmake.project.database found that).
  nlohmann::json other = j;
  other["work_dir"] = "other.work";
  const Spec s2 = spec(other);
  auto backend2 = make_host_backend(s2);
  EXPECT_EQ(content_hash(key_parts(s2, backend2->name(), backend2->device(), backend2->included_headers()).dump()),
            key_of());
  EXPECT_EQ(read_file(dir_ / "other.work" / "dependencies.txt"), read_file(dir_ / "scale.work" / "dependencies.txt"));

  // `tune`: the edit is another key; the earlier results are moved aside, the defaults measured again.
  ASSERT_EQ(tune_in_process(dir_).first, kExitOk);
  write(dir_ / "kernels" / "more.hpp", "#pragma once\n// edited\n");
  const auto [rc, err] = tune_in_process(dir_);
  ASSERT_EQ(rc, kExitOk) << err;
  EXPECT_NE(err.find("spec, sources or device changed"), std::string::npos) << err;
  EXPECT_EQ(read_results(dir_ / "scale.work" / "results.jsonl", s.space).outcomes.size(), 1u);
}

// Issue 23 item 5: a launch that does its work only on its first call (the checked run) times
// nothing afterwards; every configuration was about 20 ns and one was crowned. The host harness's
// floor flags each, and the tuning crowns none, naming the benchmark.
TEST_P(HostBackendTest, ABenchmarkThatTimesNothingIsNotCrowned) {
  nlohmann::json j = spec_json();
  j["defaults"] = {{"MODE", 0}};
  j["parameters"][0]["values"] = {0, 3};
  j["budget"] = {{"evaluations", 2}};
  j["strategy"] = "random";
  j["run"]["args"] = {"--n", "1048576", "--adaexplore-measure-ms", "20", "--adaexplore-warmup-ms", "2"};
  std::ofstream(dir_ / "spec.json") << j.dump(2);
  std::string once = kBenchmark;
  const std::string launch = "  return bench.run([&] { scale(y.data(), x.data(), n); }";
  ASSERT_NE(once.find(launch), std::string::npos);
  once.replace(once.find(launch), launch.size(),
               "  bool done = false;\n  return bench.run([&] { if (!done) scale(y.data(), x.data(), n); done = true; }");
  write(dir_ / "scale_bench.cpp", once);
  const auto [rc, err] = tune_in_process(dir_);
  EXPECT_EQ(rc, kExitTuningFailed) << err;
  EXPECT_NE(err.find("not crowning any configuration"), std::string::npos) << err;
  EXPECT_NE(err.find("is under the host floor of"), std::string::npos) << err;
  EXPECT_NE(err.find((dir_ / "scale_bench.cpp").string() + " may not time the kernel"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_ / "scale.work" / "scale.hpp"));
  // The same benchmark doing its work on every call is crowned (the gate can pass).
  write(dir_ / "scale_bench.cpp", kBenchmark);
  const auto [rc2, err2] = tune_in_process(dir_);
  EXPECT_EQ(rc2, kExitOk) << err2;
}

// The tuning says how many configurations it kept in flight and from which times: with 2 compile
// workers, automatically (at most every worker plus the one measuring: 3).
TEST_P(HostBackendTest, TuneCommandSaysHowManyConfigurationsWereInFlight) {
  nlohmann::json j = spec_json();
  j["parameters"][0]["values"] = {0, 1, 2, 3};
  j["defaults"] = {{"MODE", 0}};
  // Budget 24: its cap on the depth (ceil(24 / 8) = 3) is every worker plus the one measuring, no
  // cap here; the space's 4 configurations end the tuning.
  j["budget"] = {{"evaluations", 24}};
  j["strategy"] = "random";
  j["jobs"] = 2;
  // `tune` with this spec (and `extra`): its exit code and standard output.
  const auto tune = [&](const std::vector<std::string>& extra) {
    std::ofstream(dir_ / "spec.json") << j.dump(2);
    CLI::App app;
    register_commands(app);
    std::vector<std::string> args = {"tune", "--spec", (dir_ / "spec.json").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
    app.parse(args);
    testing::internal::CaptureStdout();
    const int rc = run_selected_command(app);
    return std::make_pair(rc, testing::internal::GetCapturedStdout());
  };
  const auto [rc, out] = tune({});
  ASSERT_EQ(rc, kExitOk) << out;
  const auto at = out.find("scale: pipeline: at most ");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string line = out.substr(at, out.find('\n', at) - at);
  const std::size_t depth = std::stoul(line.substr(std::string("scale: pipeline: at most ").size()));
  EXPECT_GE(depth, 2u) << line;
  EXPECT_LE(depth, 3u) << line;
  EXPECT_NE(line.find("2 compile workers"), std::string::npos) << line;
  // A host compile takes about a second, a run of this benchmark a few tens of ms: compile-bound.
  EXPECT_NE(line.find("every compile worker busy, since the compiles are the bottleneck at a compile of "),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("a compile of 0.00 s"), std::string::npos) << "no compile time: " << line;
  // 4 new evaluations, the baseline (the defaults) not among the rates: measured alone and first,
  // it pays the runner's one-time setup; nor is a measurement that started a runner (with the
  // runner, one of the 3 others does: 2 then).
  const bool three = line.find("(means over the last 3 new evaluations measured after the defaults)") != std::string::npos;
  const bool two = line.find("(means over the last 2 new evaluations measured after the defaults)") != std::string::npos;
  EXPECT_TRUE(GetParam() ? (two || three) : three) << line;

  // A budget of 4 caps it at 2 (ceil(4 / 8), at least the GPU measuring plus one), and the line says why.
  j["budget"] = {{"evaluations", 4}};
  const auto [rc1, out1] = tune({"--fresh"});
  ASSERT_EQ(rc1, kExitOk) << out1;
  EXPECT_NE(out1.find("scale: pipeline: at most 2 configurations in flight (queued, compiling, waiting or measuring; "
                      "2 compile workers) at the end of the tuning, a limit that follows the measured times: the "
                      "budget's cap (ceil(budget / 8) on one GPU, one more per further GPU), below what would "
                      "keep the GPU busy, so that each proposal is made knowing all but a few outcomes; a compile of "),
            std::string::npos)
      << out1;
  // The spec's in_flight pins it (as tune --in-flight and CMake's IN_FLIGHT do).
  j["in_flight"] = 1;
  const auto [rc2, out2] = tune({"--fresh"});
  ASSERT_EQ(rc2, kExitOk) << out2;
  EXPECT_NE(out2.find("scale: pipeline: at most 1 configuration in flight (queued, compiling, waiting or measuring; "
                      "2 compile workers), as asked"),
            std::string::npos)
      << out2;
}

}  // namespace
}  // namespace adaexplore
