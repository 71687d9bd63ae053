// adaexplore-tuner's commands run as a user runs them (the built program, separate processes), on
// small specs: what a command drops or skips it says (issue 37).
#include <gtest/gtest.h>

#include <fstream>

#include "store/results.hpp"
#include "test_support.hpp"
#include "util/files.hpp"
#include "util/process.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

struct TunerRun {
  int code = -1;
  std::string out, err;
};

TunerRun tuner(std::vector<std::string> args) {
  args.insert(args.begin(), ADAEXPLORE_TUNER_EXECUTABLE);
  ProcessOptions o;
  o.timeout_s = 120;
  const ProcessResult r = run_process(args, o);
  return {r.exit_code ? *r.exit_code : -1, r.out, r.err};
}

class Commands : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_test_directory("commands"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

// `check --no-compile --config` passed a configuration over 1024 threads per block without a word:
// the launch limits are checked from the spec's launch expressions, and what is not checked is said.
TEST_F(Commands, CheckWithoutCompilingChecksTheLaunchLimitsAndSaysWhatItLeftOut) {
  std::ofstream(dir_ / "k.cu.in") << "// ${BLOCK}\n";
  std::ofstream(dir_ / "b.cu") << "// benchmark\n";
  nlohmann::json spec = {{"name", "k"},
                         {"backend", "cuda"},
                         {"template", "k.cu.in"},
                         {"benchmark", "b.cu"},
                         {"parameters", {{{"name", "BLOCK"}, {"values", {256, 2048}}}}},
                         {"defaults", {{"BLOCK", 256}}},
                         {"launch", {{"threads_per_block", "BLOCK"}}}};
  std::ofstream(dir_ / "spec.json") << spec.dump();
  const std::string s = (dir_ / "spec.json").string();
  for (const std::vector<std::string>& arch : {std::vector<std::string>{}, {"--arch", "sm_90"}}) {
    std::vector<std::string> args = {"check", "--spec", s, "--no-compile", "--config", "BLOCK=2048"};
    args.insert(args.end(), arch.begin(), arch.end());
    const TunerRun r = tuner(args);
    EXPECT_EQ(r.code, 4) << r.out << r.err;
    EXPECT_NE(r.err.find("--config BLOCK=2048 for " + std::string(arch.empty() ? "every CUDA GPU" : "sm_90") +
                         ": resource_limit: 2048 threads per block, over the device's limit of 1024 threads"),
              std::string::npos)
        << r.err;
  }
  const TunerRun ok = tuner({"check", "--spec", s, "--no-compile", "--config", "BLOCK=256"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("the defaults and --config within the launch limits (every CUDA GPU's limits"),
            std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("nothing compiled (--no-compile: the kernels' registers and shared memory are not checked)"),
            std::string::npos)
      << ok.out;
  // Compiling for no architecture (none given, none in the spec) checks the expressions the same way.
  const TunerRun no_arch = tuner({"check", "--spec", s, "--config", "BLOCK=2048"});
  EXPECT_EQ(no_arch.code, 4) << no_arch.out << no_arch.err;
  // Defaults over the limit: exit 2, as a compile would say.
  spec["defaults"]["BLOCK"] = 2048;
  std::ofstream(dir_ / "spec.json") << spec.dump();
  EXPECT_EQ(tuner({"check", "--spec", s, "--no-compile"}).code, 2);
  // Without launch expressions it says they were not checked.
  spec.erase("launch");
  std::ofstream(dir_ / "spec.json") << spec.dump();
  const TunerRun none = tuner({"check", "--spec", s, "--no-compile"});
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.out.find("launch limits not checked: the spec has no launch expressions"), std::string::npos)
      << none.out;
}

// `report` dropped a torn last record without the warning `tune` gives, and `report --out <folder>`
// left a 241 KB temporary file beside the folder.
TEST_F(Commands, ReportWarnsOfATornRecordAndRefusesAFolderLeavingNothing) {
  std::ofstream(dir_ / "k.cpp.in") << "// ${X}\n";
  std::ofstream(dir_ / "b.cpp") << "// benchmark\n";
  const nlohmann::json spec = {{"name", "k"},
                               {"backend", "host"},
                               {"template", "k.cpp.in"},
                               {"benchmark", "b.cpp"},
                               {"parameters", {{{"name", "X"}, {"values", {1, 2, 4}}}}}};
  std::ofstream(dir_ / "spec.json") << spec.dump();
  ResultsHeader h;
  h.kernel = "k";
  h.key = "0123456789abcdef0123";
  h.started = "2026-12-05T00:00:00Z";
  std::ofstream(dir_ / "results.jsonl")
      << header_to_json(h).dump() << "\n"
      << R"({"index": 0, "label": "X=1", "config": {"X": 1}, "status": "ok", "objective_ms": 1.5})" << "\n"
      << R"({"index": 1, "label": "X=2", "config": {"X": 2}, "st)";  // killed mid-line
  const std::string s = (dir_ / "spec.json").string(), results = (dir_ / "results.jsonl").string();
  const TunerRun r = tuner({"report", "--spec", s, "--results", results, "--out", (dir_ / "r.html").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("[adaexplore] warning: " + results + ":3: dropped a half-written last record"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("(1 evaluations"), std::string::npos) << r.out;
  // --out a folder: refused as such, exit 5, and nothing written beside it.
  fs::create_directories(dir_ / "out");
  const TunerRun folder = tuner({"report", "--spec", s, "--results", results, "--out", (dir_ / "out").string()});
  EXPECT_EQ(folder.code, 5) << folder.err;
  EXPECT_NE(folder.err.find((dir_ / "out").string() + ": is a folder; give a file name"), std::string::npos)
      << folder.err;
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "left behind: " << e.path();
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

}  // namespace
}  // namespace adaexplore
