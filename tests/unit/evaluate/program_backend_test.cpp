// The program backends' compile command (program_backend.cpp), with the host compiler: the spec's
// compiler.launcher runs in front of the compiler, and a launcher that cannot be started is named.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "evaluate/backends.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

class CompilerLauncher : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("launcher");
    std::ofstream(dir_ / "k.hpp.in") << "inline constexpr int K = ${X};\n";
    std::ofstream(dir_ / "k_bench.cpp") << "#include \"k.hpp\"\nint main() { return K == 2 ? 0 : 1; }\n";
    // A launcher as ccache is one: it logs its arguments, then runs them.
    std::ofstream(dir_ / "launcher.sh") << "#!/bin/sh\necho \"$TAG $@\" >> \"" << (dir_ / "launcher.log").string()
                                        << "\"\nexec \"$@\"\n";
    ::chmod((dir_ / "launcher.sh").c_str(), 0755);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  Prepared prepare(const nlohmann::json& launcher, double compile_timeout_s = 0) const {
    nlohmann::json j = {{"name", "k"},
                              {"backend", "host"},
                              {"template", "k.hpp.in"},
                              {"benchmark", "k_bench.cpp"},
                              {"parameters", {{{"name", "X"}, {"values", {2}}}}},
                              {"compiler", {{"flags", {"-O0"}}, {"launcher", launcher}}}};
    if (compile_timeout_s > 0) j["compiler"]["timeout_s"] = compile_timeout_s;
    const Spec s = parse_spec(j, dir_ / "spec.json");
    auto backend = make_host_backend(s);
    return backend->prepare(s.defaults);
  }

  fs::path dir_;
};

TEST_F(CompilerLauncher, RunsInFrontOfTheCompiler) {
  const std::string launcher = (dir_ / "launcher.sh").string();
  const Prepared p = prepare({"env", "TAG=launched", launcher});  // a launcher with arguments
  ASSERT_FALSE(p.failure) << p.failure->message;
  const std::string cmd = read_file(p.directory / "compile.cmd");
  EXPECT_EQ(cmd.rfind("env TAG=launched " + launcher + " c++ -std=c++17", 0), 0u) << cmd;
  const std::string log = read_file(dir_ / "launcher.log");
  EXPECT_EQ(log.rfind("launched c++ -std=c++17", 0), 0u) << log;  // what the launcher was given
  EXPECT_NE(log.find("-DADAEXPLORE_PARAM_X=2"), std::string::npos) << log;
  EXPECT_TRUE(fs::exists(p.executable));  // it ran the compiler
}

TEST_F(CompilerLauncher, ALauncherThatCannotStartIsACompileErrorNamingIt) {
  const Prepared p = prepare({(dir_ / "no-such-launcher").string()});
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::compile_error);
  EXPECT_NE(p.failure->message.find("no-such-launcher"), std::string::npos) << p.failure->message;
}

// A compile over compiler.timeout_s is a timeout of the compile stage (issue 23: it was documented
// as a compile error and recorded like a run's time-out), killed with its process group.
TEST_F(CompilerLauncher, ACompileOverItsTimeLimitIsATimeoutOfTheCompileStage) {
  std::ofstream(dir_ / "slow.sh") << "#!/bin/sh\nsleep 30\nexec \"$@\"\n";
  ::chmod((dir_ / "slow.sh").c_str(), 0755);
  const Prepared p = prepare({(dir_ / "slow.sh").string()}, 0.5);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::timeout) << p.failure->message;
  EXPECT_EQ(p.failure->extra.value("timeout_stage", ""), "compile") << p.failure->extra.dump();
  EXPECT_EQ(p.failure->message.rfind("the compiler exceeded its time limit of 0.5 s", 0), 0u) << p.failure->message;
  EXPECT_LT(p.stage_ms.at("compile"), 10000);
}

}  // namespace
}  // namespace adaexplore
