// Where a kernel's header values come from (configure/origin.hpp): the decision alone, then the
// flow over stand-in steps (no tuner run).
#include "configure/origin.hpp"

#include <chrono>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

OriginRequest request(const std::string& mode = "AUTO", const std::string& backend = "cuda") {
  OriginRequest r;
  r.kernel = "gemm";
  r.backend = backend;
  r.mode = mode;
  r.mode_setting = mode;
  r.pinned = "/nowhere/pinned/gemm.hpp";
  r.archs = {"sm_90"};
  r.system_name = "Linux";
  r.system_processor = "aarch64";
  r.host_processor = "x86_64";
  return r;
}

DeviceFacts gpu(const std::string& cc = "9.0") { return {true, "GPU 0: H100, compute capability " + cc, "H100", cc}; }
DeviceFacts no_gpu() { return {false, "cudaErrorNoDevice", "", ""}; }

const ConfigureMessage* find(const std::vector<ConfigureMessage>& messages, const std::string& level) {
  for (const auto& m : messages)
    if (m.level == level) return &m;
  return nullptr;
}

TEST(ChooseOrigin, FollowsTheModeTheGpuAndThePinnedHeader) {
  EXPECT_EQ(choose_origin(request("DEFAULTS"), {}, true).origin, Origin::defaults);
  EXPECT_EQ(choose_origin(request("DEFAULTS"), {}, true).reason, "ADAEXPLORE_MODE is DEFAULTS.");
  EXPECT_EQ(choose_origin(request("PINNED"), {}, true).origin, Origin::pinned);
  EXPECT_EQ(choose_origin(request("CACHED"), {}, false).origin, Origin::cached);
  EXPECT_EQ(choose_origin(request("AUTO", "host"), {}, false).origin, Origin::tuned);
  EXPECT_EQ(choose_origin(request(), gpu(), true).origin, Origin::tuned);
  const OriginDecision none = choose_origin(request(), no_gpu(), true);
  EXPECT_EQ(none.origin, Origin::pinned);
  EXPECT_EQ(none.reason, "No CUDA GPU at configure time: cudaErrorNoDevice");
  ASSERT_NE(find(none.messages, "WARNING"), nullptr);
  EXPECT_EQ(find(none.messages, "WARNING")->once, "no_gpu");
  EXPECT_EQ(choose_origin(request(), no_gpu(), false).origin, Origin::defaults);
  OriginRequest warned = request();
  warned.said = {"no_gpu"};
  EXPECT_TRUE(choose_origin(warned, no_gpu(), false).messages.empty());  // once per configure
}

TEST(ChooseOrigin, RefusesWhatTheModeForbids) {
  const OriginDecision pinned = choose_origin(request("PINNED"), {}, false);
  ASSERT_TRUE(pinned.fatal());
  EXPECT_EQ(pinned.messages.back().text.rfind("ADAEXPLORE_MODE is PINNED but there is no pinned header "
                                              "/nowhere/pinned/gemm.hpp (the pin location: PINNED_HEADER, else "
                                              "ADAEXPLORE_PINNED_DIR ''/gemm.hpp",
                                              0),
            0u);
  const OriginDecision tune = choose_origin(request("TUNE"), no_gpu(), false);
  ASSERT_TRUE(tune.fatal());
  EXPECT_EQ(tune.messages.back().text.rfind("ADAEXPLORE_MODE is TUNE but there is no CUDA GPU to tune on: cudaErrorNoDevice.", 0),
            0u);
  OriginRequest cross = request("TUNE");
  cross.cross_compiling = true;
  EXPECT_TRUE(choose_origin(cross, {}, false).fatal());
}

TEST(ChooseOrigin, CrossCompilingReadsTheDatabaseOnlyForTheTargetsArchitecture) {
  OriginRequest cross = request();
  cross.cross_compiling = true;
  EXPECT_TRUE(origin_needs_device(cross));
  const OriginDecision same = choose_origin(cross, gpu("9.0"), false);
  EXPECT_EQ(same.origin, Origin::cached);
  ASSERT_EQ(same.messages.size(), 2u);  // the note (once), then why the database may serve
  EXPECT_EQ(same.messages[0].once, "cross_compiling");
  EXPECT_EQ(same.messages[1].text, "AdaExplore: gemm: cross-compiling: this machine's GPU 0: H100, compute capability 9.0 "
                                   "has the target architecture sm_90, so the tuning database's stored winner for this "
                                   "machine's GPU may serve");
  const OriginDecision other = choose_origin(cross, gpu("8.0"), true);
  EXPECT_EQ(other.origin, Origin::pinned);
  EXPECT_EQ(other.reason, "Cross-compiling (CMAKE_CROSSCOMPILING): not tuned on this machine, and its tuning database "
                          "is not read: its stored tunings are of this machine's GPU 0: H100, compute capability 8.0, and "
                          "the target architecture is sm_90.");
  OriginRequest host = cross;
  host.backend = "host";
  EXPECT_FALSE(origin_needs_device(host));
  EXPECT_EQ(choose_origin(host, {}, false).reason,
            "Cross-compiling (CMAKE_CROSSCOMPILING): not tuned on this machine, and its tuning database is not read: its "
            "stored tunings are of this machine's CPU (x86_64), not the target's (aarch64).");
}

// The flow over stand-in steps: each step's exit code and output as given, the calls recorded.
struct Steps {
  // by subcommand ("tune", "tune --cached", "check", "check --config", ...)
  std::map<std::string, StepResult> results;
  std::vector<std::string> calls;
  RunStep run() {
    return [this](const std::vector<std::string>& args, bool) {
      std::string key = args.front();
      for (const char* option : {"--cached", "--config"})
        if (std::find(args.begin(), args.end(), option) != args.end()) key += std::string(" ") + option;
      std::string call;
      for (const auto& a : args) call += (call.empty() ? "" : " ") + a;
      calls.push_back(call);
      StepResult r = results.count(key) ? results[key] : StepResult{};
      r.command = "tuner " + call;
      return r;
    };
  }
};

struct FlowTest : ::testing::Test {
  fs::path dir;
  OriginRequest r;
  void SetUp() override {
    dir = test::fresh_test_directory("origin-flow");
    r = request();
    r.kernel_dir = dir;
    r.spec = dir / "spec.json";
    r.header = dir / "include" / "gemm.hpp";
    r.pinned = dir / "pinned" / "gemm.hpp";
    r.database = dir / "db";
    std::ofstream(r.spec) << R"({"name": "gemm", "parameters": [{"name": "TILE", "values": [16, 32]}]})";
  }
};

TEST_F(FlowTest, TunesWhereAGpuIsAndSaysWhatHappened) {
  Steps steps;
  steps.results["tune"].err = "a note of the tuning\n";
  std::vector<std::string> printed;
  const OriginAnswer a =
      configure_origin(r, gpu(), steps.run(), [&](const std::string& text) { printed.push_back(text); });
  EXPECT_EQ(a.origin, "TUNED");
  ASSERT_EQ(steps.calls.size(), 1u);
  EXPECT_NE(steps.calls[0].find("tune --spec " + r.spec.string()), std::string::npos);
  EXPECT_NE(steps.calls[0].find("--device 0"), std::string::npos);
  ASSERT_GE(printed.size(), 2u);
  EXPECT_EQ(printed[0], "AdaExplore: gemm: tuning on GPU 0: H100, compute capability 9.0 (database " +
                            r.database.string() + ")");
  ASSERT_NE(find(a.messages, "NOTICE"), nullptr);
  EXPECT_EQ(find(a.messages, "NOTICE")->text, "a note of the tuning");
  EXPECT_FALSE(find(a.messages, "NOTICE")->shown);
}

TEST_F(FlowTest, AFailedTuningSaysHowToBuildMeanwhile) {
  Steps steps;
  steps.results["tune"] = {2, "", "no configuration compiled, ran and verified", ""};
  const OriginAnswer a = configure_origin(r, gpu(), steps.run(), nullptr);
  EXPECT_EQ(a.origin, "");
  ASSERT_NE(find(a.messages, "FATAL"), nullptr);
  const std::string& text = find(a.messages, "FATAL")->text;
  EXPECT_EQ(text.rfind("tuning failed with exit code 2: no configuration compiled, ran and verified, or the setup is broken", 0),
            0u);
  EXPECT_NE(text.find("To build without tuning meanwhile, configure with -DADAEXPLORE_MODE=DEFAULTS"), std::string::npos);
  EXPECT_EQ(steps.calls.back().rfind("check --spec", 0), 0u);  // whether the defaults pass, for that advice
}

TEST_F(FlowTest, WithoutAStoredWinnerCachedFallsBackToTheDefaults) {
  r.mode = r.mode_setting = "CACHED";
  Steps steps;
  steps.results["tune --cached"].exit_code = 3;
  steps.results["check"].out = "[adaexplore] gemm: check: sm_90: 32 registers\n[adaexplore] gemm: check passed: the defaults\n";
  const OriginAnswer a = configure_origin(r, std::nullopt, steps.run(), nullptr);
  EXPECT_EQ(a.origin, "DEFAULTS");
  ASSERT_EQ(steps.calls.size(), 3u);  // tune --cached, check, defaults
  EXPECT_EQ(steps.calls[2].rfind("defaults --spec", 0), 0u);
  ASSERT_NE(find(a.messages, "WARNING"), nullptr);
  EXPECT_NE(find(a.messages, "WARNING")->text.find("NOT TUNED, using the DEFAULTS (kTuned = false): ADAEXPLORE_MODE is CACHED"),
            std::string::npos);
  EXPECT_EQ(a.messages.back().text, "AdaExplore: gemm: checked without tuning: the defaults\n   sm_90: 32 registers");
  // Nothing changed: the next configure does not run the check again.
  Steps again;
  again.results["tune --cached"].exit_code = 3;
  configure_origin(r, std::nullopt, again.run(), nullptr);
  EXPECT_EQ(again.calls.size(), 2u);
}

TEST_F(FlowTest, APinnedHeaderThatDoesNotFitIsSetAsideOrRefused) {
  fs::create_directories(r.pinned.parent_path());
  std::ofstream(r.pinned) << "// adaexplore: {\"namespace\":\"adaexplore::gemm\",\"config\":{\"TILE\":48}}\n#pragma once\n";
  Steps steps;
  const OriginAnswer a = configure_origin(r, no_gpu(), steps.run(), nullptr);
  EXPECT_EQ(a.origin, "DEFAULTS");
  bool set_aside = false;
  for (const auto& m : a.messages)
    set_aside |= m.text.find("NOT USING its pinned header: the pinned header " + r.pinned.string() + " sets TILE = 48") !=
                 std::string::npos;
  EXPECT_TRUE(set_aside);
  r.mode = r.mode_setting = "PINNED";
  const OriginAnswer refused = configure_origin(r, std::nullopt, steps.run(), nullptr);
  ASSERT_NE(find(refused.messages, "FATAL"), nullptr);
  EXPECT_EQ(find(refused.messages, "FATAL")->text.rfind("ADAEXPLORE_MODE is PINNED but the pinned header", 0), 0u);
}

// A machine line that is malformed (not JSON; JSON of the wrong shape) is a problem of the pinned
// header, said naming it: in AUTO mode a warning and the DEFAULTS (checked), in PINNED mode a FATAL
// message. Neither ends the configure with an exception.
TEST_F(FlowTest, AMalformedMachineLineIsSetAsideOrRefusedNamingTheHeader) {
  fs::create_directories(r.pinned.parent_path());
  const std::string start = "the pinned header " + r.pinned.string() + "'s machine line ('// adaexplore: {...}') is ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"namespace\": \"adaexplore::gemm\", \"config\": {\"TILE\": 1", "not JSON (line 1): "},
      {"[16]", "malformed: a list, not an object {...}"},
      {"{\"namespace\":\"adaexplore::gemm\"}", "malformed: the line has no \"config\""},
      {"{\"namespace\":\"adaexplore::gemm\",\"config\":[16]}", "malformed: the line's \"config\" is a list"},
      {"{\"namespace\":[1],\"config\":{\"TILE\":16}}", "malformed: \"namespace\" is a list, not text"}};
  for (const auto& [text, problem] : cases) {
    std::ofstream(r.pinned) << "// adaexplore: " << text << "\n#pragma once\n";
    r.mode = r.mode_setting = "AUTO";
    Steps steps;
    steps.results["check"].out = "[adaexplore] gemm: check passed: the defaults\n";
    OriginAnswer a;
    ASSERT_NO_THROW(a = configure_origin(r, no_gpu(), steps.run(), nullptr)) << text;
    EXPECT_EQ(a.origin, "DEFAULTS") << text;
    bool warned = false;
    for (const auto& m : a.messages)
      warned |= m.level == "WARNING" && m.text.find("NOT USING its pinned header: " + start + problem) != std::string::npos;
    EXPECT_TRUE(warned) << text << "\n" << a.messages.back().text;
    ASSERT_EQ(steps.calls.size(), 2u) << text;  // the defaults checked, then written
    EXPECT_EQ(steps.calls[0].find("--config"), std::string::npos);
    EXPECT_EQ(steps.calls[1].rfind("defaults --spec", 0), 0u);
    r.mode = r.mode_setting = "PINNED";
    ASSERT_NO_THROW(a = configure_origin(r, std::nullopt, steps.run(), nullptr)) << text;
    EXPECT_EQ(a.origin, "");
    ASSERT_NE(find(a.messages, "FATAL"), nullptr) << text;
    EXPECT_EQ(find(a.messages, "FATAL")->text.rfind("ADAEXPLORE_MODE is PINNED but " + start + problem, 0), 0u)
        << find(a.messages, "FATAL")->text;
  }
}

// Pinned values that `check` rejects (exit code 4, a constraint or a launch limit) are set aside in
// AUTO mode, and the DEFAULTS written instead pass the same check first: a failing one is FATAL.
TEST_F(FlowTest, RejectedPinnedValuesFallBackToCheckedDefaults) {
  fs::create_directories(r.pinned.parent_path());
  std::ofstream(r.pinned) << "// adaexplore: {\"namespace\":\"adaexplore::gemm\",\"config\":{\"TILE\":32}}\n";
  Steps steps;
  steps.results["check --config"] = {4, "", "adaexplore-tuner check: gemm: TILE=32 violates the constraint \"TILE < 32\"", ""};
  steps.results["check"].out = "[adaexplore] gemm: check passed: the defaults\n";
  const OriginAnswer a = configure_origin(r, no_gpu(), steps.run(), nullptr);
  EXPECT_EQ(a.origin, "DEFAULTS");
  ASSERT_EQ(steps.calls.size(), 3u);
  EXPECT_NE(steps.calls[0].find("--config TILE=32"), std::string::npos) << steps.calls[0];
  EXPECT_EQ(steps.calls[1], "check --spec " + r.spec.string() + " --arch sm_90");
  EXPECT_EQ(steps.calls[2].rfind("defaults --spec", 0), 0u);
  EXPECT_EQ(a.messages.back().text, "AdaExplore: gemm: checked without tuning: the defaults");

  fs::remove(r.kernel_dir / "check.stamp");
  Steps broken = steps;
  broken.calls.clear();
  broken.results["check"] = {2, "", "adaexplore-tuner check: gemm: the defaults do not compile", ""};
  const OriginAnswer b = configure_origin(r, no_gpu(), broken.run(), nullptr);
  EXPECT_EQ(b.origin, "");
  ASSERT_NE(find(b.messages, "FATAL"), nullptr);
  EXPECT_EQ(find(b.messages, "FATAL")->text.rfind("checking it without tuning failed with exit code 2: the DEFAULTS do "
                                                  "not compile", 0), 0u) << find(b.messages, "FATAL")->text;
  EXPECT_EQ(broken.calls.size(), 2u);  // no defaults header written
}

// A file that cannot be written or a path whose kind cannot be told ends the configure with one
// FATAL message naming it and what to do, after the messages said so far; no exception escapes.
TEST_F(FlowTest, AFileThatCannotBeWrittenOrToldEndsInAFatalMessage) {
  fs::create_directories(r.pinned.parent_path());
  std::ofstream(r.pinned) << "// adaexplore: {\"namespace\":\"adaexplore::gemm\",\"config\":{\"TILE\":16}}\n";
  std::ofstream(dir / "a-file") << "not a folder\n";
  r.header = dir / "a-file" / "gemm.hpp";
  r.mode = r.mode_setting = "PINNED";
  Steps steps;
  OriginAnswer a;
  ASSERT_NO_THROW(a = configure_origin(r, std::nullopt, steps.run(), nullptr));
  EXPECT_EQ(a.origin, "");
  ASSERT_FALSE(a.messages.empty());
  EXPECT_EQ(a.messages.back().level, "FATAL");
  const std::string& text = a.messages.back().text;
  EXPECT_EQ(text.rfind("configuring gemm stopped: copying the pinned header " + r.pinned.string() + " to " +
                           r.header.string() + " failed: cannot write " + r.header.string(), 0),
            0u) << text;
  EXPECT_NE(text.find("then configure again."), std::string::npos) << text;

  r.header = dir / "include" / "gemm.hpp";
  r.mode = r.mode_setting = "AUTO";
  r.pinned = dir / "loop.hpp";
  fs::create_symlink(r.pinned, r.pinned);  // a loop: whether it is a file cannot be told
  ASSERT_NO_THROW(a = configure_origin(r, no_gpu(), steps.run(), nullptr));
  ASSERT_FALSE(a.messages.empty());
  EXPECT_EQ(a.messages.back().level, "FATAL");
  EXPECT_EQ(a.messages.back().text.rfind("configuring gemm stopped: cannot tell whether the pinned header " +
                                             r.pinned.string() + " exists: ", 0),
            0u) << a.messages.back().text;
}

// The defaults step failing for the environment (exit code 5: its header cannot be written) says
// so, not that the call's arguments are wrong.
TEST_F(FlowTest, ADefaultsHeaderThatCannotBeWrittenBlamesTheEnvironment) {
  r.mode = r.mode_setting = "DEFAULTS";
  Steps steps;
  steps.results["defaults"] = {5, "", "adaexplore-tuner defaults: error (the environment, not the input): cannot write " +
                                          r.header.string() + ": No space left on device", ""};
  const OriginAnswer a = configure_origin(r, std::nullopt, steps.run(), nullptr);
  ASSERT_NE(find(a.messages, "FATAL"), nullptr);
  const std::string& text = find(a.messages, "FATAL")->text;
  EXPECT_NE(text.find("cannot write " + r.header.string() + ": No space left on device"), std::string::npos) << text;
  EXPECT_NE(text.find("It is the environment, not the input"), std::string::npos) << text;
  EXPECT_EQ(text.find("this call's arguments"), std::string::npos) << text;
}

// A device query that does not answer in time says so, with the limit and what to do, not an
// exit code; run_tool_step stops such a step at its limit.
TEST_F(FlowTest, ADeviceQueryThatTimesOutSaysSo) {
  Steps steps;
  steps.results["device"].exit_code = 128;
  steps.results["device"].timed_out_after_s = 120;
  const OriginAnswer a = configure_origin(r, std::nullopt, steps.run(), nullptr);
  ASSERT_TRUE(a.device);
  EXPECT_FALSE(a.device->present);
  EXPECT_EQ(a.device->about, "`tuner device --index 0` did not answer within 120 s and was stopped (a GPU driver that "
                             "hangs?): check the GPU with nvidia-smi, or configure with -DADAEXPLORE_MODE=PINNED or "
                             "DEFAULTS, which do not ask the GPU");
  EXPECT_EQ(a.device->about.find("exit code"), std::string::npos);

  const auto start = std::chrono::steady_clock::now();
  const StepResult s = run_tool_step("/bin/sh", {"-c", "sleep 20"}, false, 0.5);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(s.timed_out_after_s, 0.5);
  EXPECT_NE(s.command.find("sleep 20"), std::string::npos) << s.command;
  const StepResult ok = run_tool_step("/bin/sh", {"-c", "echo out; exit 3"}, false);
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_EQ(ok.out, "out\n");
  EXPECT_EQ(ok.timed_out_after_s, 0);
}

// check.stamp's key: a passed check is not repeated while nothing changed, but it is after a
// change of the spec's template (a relative path, from the spec's folder, not the working folder)
// or of the tuner that runs the check.
TEST_F(FlowTest, TheCheckRunsAgainWhenItsTemplateOrTunerChanges) {
  r.mode = r.mode_setting = "DEFAULTS";
  std::ofstream(r.spec) << R"({"name": "gemm", "template": "kernel.cu.in", "benchmark": "bench.cu",
                               "parameters": [{"name": "TILE", "values": [16, 32]}]})";
  std::ofstream(dir / "kernel.cu.in") << "// TILE ${TILE}\n";
  std::ofstream(dir / "bench.cu") << "// bench\n";
  r.tuner = "/opt/a/adaexplore-tuner";
  const auto checks = [&] {
    Steps steps;
    configure_origin(r, std::nullopt, steps.run(), nullptr);
    return std::count_if(steps.calls.begin(), steps.calls.end(),
                         [](const std::string& c) { return c.rfind("check ", 0) == 0; });
  };
  EXPECT_EQ(checks(), 1);
  EXPECT_EQ(checks(), 0);  // unchanged
  std::ofstream(dir / "kernel.cu.in") << "// TILE ${TILE}, changed\n";
  EXPECT_EQ(checks(), 1);
  EXPECT_EQ(checks(), 0);
  r.tuner = "/opt/b/adaexplore-tuner";
  EXPECT_EQ(checks(), 1);
  EXPECT_EQ(checks(), 0);
}

TEST(OriginRequestJson, NamesAMissingKey) {
  try {
    origin_request_from_json({{"kernel", "gemm"}});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "the request has no \"spec\"");
  }
}

}  // namespace
}  // namespace adaexplore
