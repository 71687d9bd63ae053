// benchmark_outcome (program_outcome.cpp) reading the harness's result record as the harness
// writes it (harness_common.hpp's to_json, the same header the benchmarks include): the driver's
// view of the kernels ("kernels", from Benchmark::check_launch) goes into Outcome.extra, and a
// resource_limit the driver found says that the static rules missed it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "../../../templates/adaexplore/harness_common.hpp"
#include "evaluate/program_outcome.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

class ProgramOutcomeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("program-outcome");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The outcome of a benchmark that wrote `text` as its record and exited like the harness does.
  Outcome outcome_of(const std::string& text, bool ok) {
    std::ofstream(dir_ / "result.json") << text;
    ProcessResult run;
    run.argv = {"./benchmark", "--adaexplore-result", (dir_ / "result.json").string()};
    run.exit_code = ok ? 0 : 1;
    return benchmark_outcome(run, dir_ / "result.json", 30);
  }

  // `text` as run_process captures a program's output (read_captured: valid UTF-8).
  std::string read_captured_text(const std::string& text) {
    std::ofstream(dir_ / "captured.txt", std::ios::binary) << text;
    return read_captured(dir_ / "captured.txt");
  }

  // The kernel of harness.cuh's own example: 72 registers per thread cap the block at 896 threads.
  static KernelRecord refused_kernel() {
    KernelRecord k;
    k.name = "tile_kernel";
    k.block[0] = 1024;
    k.threads_per_block = 1024;
    k.registers = 72;
    k.max_threads_per_block = 896;
    k.static_shared_bytes = 4224;
    k.max_dynamic_shared_bytes = 44928;
    k.launchable = false;
    k.reason = "block of 1024 threads > 896, the kernel's maxThreadsPerBlock at 72 registers per thread";
    return k;
  }

  fs::path dir_;
};

TEST_F(ProgramOutcomeTest, DriverResourceLimitSaysTheStaticRulesMissedIt) {
  ResultRecord r;
  r.status = "resource_limit";
  r.message = "tile_kernel: " + refused_kernel().reason + " (the driver's cudaFuncGetAttributes)";
  r.kernels.push_back(refused_kernel());
  const Outcome o = outcome_of(to_json(r), false);
  EXPECT_EQ(o.status, Status::resource_limit) << o.message;
  const std::string first_line = o.message.substr(0, o.message.find('\n'));
  EXPECT_EQ(first_line.rfind("tile_kernel: block of 1024 threads > 896, the kernel's maxThreadsPerBlock at 72 "
                             "registers per thread",
                             0),
            0u)
      << first_line;
  EXPECT_NE(first_line.find("the static rules missed it"), std::string::npos) << first_line;
  EXPECT_EQ(o.extra.value("static_check_missed", false), true) << o.extra.dump();
  ASSERT_TRUE(o.extra.contains("kernels")) << o.extra.dump();
  const auto& k = o.extra["kernels"].at(0);
  EXPECT_EQ(k["registers"], 72);
  EXPECT_EQ(k["max_threads_per_block"], 896);
  EXPECT_EQ(k["block"], nlohmann::json::array({1024, 1, 1}));
  EXPECT_EQ(k["static_shared_bytes"], 4224);
  EXPECT_EQ(k["launchable"], false);
}

// A benchmark's message in Latin-1 (the harness copies it byte for byte) is read, made valid
// UTF-8, not refused as a broken record; the same for its stderr in the message.
TEST_F(ProgramOutcomeTest, ARecordInLatin1IsReadAsValidText) {
  ResultRecord r;
  r.status = "wrong_result";
  r.message = "donn\xe9" "es fausses";
  std::ofstream(dir_ / "result.json") << to_json(r);
  ProcessResult run;
  run.argv = {"./benchmark"};
  run.exit_code = 1;
  run.err = read_captured_text("caf\xe9\n");
  const Outcome o = benchmark_outcome(run, dir_ / "result.json", 30);
  EXPECT_EQ(o.status, Status::wrong_result) << o.message;
  EXPECT_EQ(o.message.rfind("donn\\xe9es fausses", 0), 0u) << o.message;
  EXPECT_NE(o.message.find("caf\\xe9"), std::string::npos) << o.message;
  EXPECT_NO_THROW(nlohmann::json(o.message).dump());
}

// The harness's note that a cached input's pristine copy was overwritten reaches the outcome.
TEST_F(ProgramOutcomeTest, DamagedPristineCopiesReachExtra) {
  ResultRecord r;
  r.time = TimeStats::of({1.0, 2.0, 3.0});
  r.reused_bytes = 1024;
  r.damaged = {"input #0 (16 elements of f): its pristine device copy changed since it was made"};
  const Outcome o = outcome_of(to_json(r), true);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  EXPECT_EQ(o.extra["device_memory"]["damaged"], nlohmann::json::array({r.damaged[0]})) << o.extra.dump();
  ResultRecord clean;
  clean.time = TimeStats::of({1.0});
  clean.reused_bytes = 8;
  EXPECT_EQ(to_json(clean).find("damaged"), std::string::npos);
}

TEST_F(ProgramOutcomeTest, OkRecordKeepsTheKernelsOccupancyInExtra) {
  ResultRecord r;
  r.time = TimeStats::of({1.0, 2.0, 3.0});
  KernelRecord k;
  k.name = "transpose_kernel";
  k.block[0] = 32, k.block[1] = 8;
  k.threads_per_block = 256;
  k.registers = 32;
  k.max_threads_per_block = 1024;
  k.blocks_per_sm = 8;
  k.warps_per_sm = 64;
  k.occupancy = 1.0;
  r.kernels.push_back(k);
  const Outcome o = outcome_of(to_json(r), true);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  EXPECT_EQ(o.objective.value_or(0), 2.0);
  ASSERT_TRUE(o.extra.contains("kernels")) << o.extra.dump();
  EXPECT_EQ(o.extra["kernels"][0]["blocks_per_sm"], 8);
  EXPECT_EQ(o.extra["kernels"][0]["occupancy"], 1.0);
  EXPECT_EQ(o.extra["kernels"][0]["block"], nlohmann::json::array({32, 8, 1}));
  EXPECT_FALSE(o.extra.contains("static_check_missed"));
}

// A failed allocation is resource_limit too, but no static rule is about device memory.
TEST_F(ProgramOutcomeTest, ResourceLimitWithoutARefusedKernelSaysNothingOfTheStaticRules) {
  ResultRecord r;
  r.status = "resource_limit";
  r.error_name = "cudaErrorMemoryAllocation";
  r.message = "cudaMalloc(buffer, 1099511627776 bytes): out of memory";
  const Outcome o = outcome_of(to_json(r), false);
  EXPECT_EQ(o.status, Status::resource_limit);
  EXPECT_EQ(o.message.find("static rules"), std::string::npos) << o.message;
  EXPECT_EQ(o.extra["error_name"], "cudaErrorMemoryAllocation");
}

// More than the device's 1024 threads: the harness leaves it to the launch, which fails for real.
TEST_F(ProgramOutcomeTest, LaunchErrorKeepsTheKernelsEvidenceWithoutTheStaticRulesNote) {
  ResultRecord r;
  r.status = "launch_error";
  r.error_name = "cudaErrorInvalidConfiguration";
  r.message = "kernel launch: cudaErrorInvalidConfiguration: invalid configuration argument";
  KernelRecord k = refused_kernel();
  k.threads_per_block = 2048;
  k.reason = "block of 2048 threads > 1024, the device's maxThreadsPerBlock; left to the launch";
  r.kernels.push_back(k);
  const Outcome o = outcome_of(to_json(r), false);
  EXPECT_EQ(o.status, Status::launch_error);
  EXPECT_EQ(o.message.find("static rules"), std::string::npos) << o.message;
  EXPECT_EQ(o.extra["kernels"][0]["threads_per_block"], 2048);
}

TEST_F(ProgramOutcomeTest, KernelsThatAreNotAnArrayBreakTheProtocol) {
  const Outcome o = outcome_of(
      R"({"adaexplore_harness": 1, "status": "ok", "message": "", "error_name": "", "kernels": {"name": "k"},)"
      R"( "time_ms": {"median": 1, "mean": 1, "min": 1, "max": 1, "stdev": 0, "samples": 1}})",
      true);
  EXPECT_EQ(o.status, Status::crash);
  EXPECT_NE(o.message.find("broke the protocol: its result record's \"kernels\" is not an array"),
            std::string::npos)
      << o.message;
}

}  // namespace
}  // namespace adaexplore
