// Staged profiling (profile.hpp) without a GPU: the raw-page CSV of ncu (tests/data/ncu/
// raw-two-kernels.csv: the column layout, units row and number format of an H200 profile read with
// --print-units base, cut to the metrics the tuner asks for, with a second launch made up), the
// stall ranking, finding ncu, and profile_targets end to end on the host backend with
// tests/data/ncu/fake-ncu standing in for ncu (it runs the wrapped command and prints the canned
// CSV for --import), in the runner and in process-per-evaluation mode; with nvcc, the kernel unit's
// command line (its cubin, the kernel's name from the ptxas report).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "evaluate/backends.hpp"
#include "evaluate/device.hpp"
#include "evaluate/profile.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(ADAEXPLORE_TEST_DATA) / "ncu";

std::string canned_csv() { return read_file(kData / "raw-two-kernels.csv"); }

double value_of(const nlohmann::json& launch, const std::string& metric) {
  return launch.at("metrics").at(metric).at("value").get<double>();
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(NcuRawCsv, ParsesEveryLaunchWithItsMetricsAndUnits) {
  const nlohmann::json launches = parse_ncu_raw_csv(canned_csv());
  ASSERT_EQ(launches.size(), 2u);
  const auto& saxpy = launches[0];
  EXPECT_EQ(saxpy.at("id"), "0");
  EXPECT_EQ(saxpy.at("kernel"), "saxpy(int, float, const float *, float *)");  // quoted, with commas
  EXPECT_EQ(saxpy.at("block"), "(256, 1, 1)");
  EXPECT_EQ(saxpy.at("grid"), "(262144, 1, 1)");
  EXPECT_EQ(saxpy.at("cc"), "9.0");
  EXPECT_FALSE(saxpy.at("metrics").contains("Kernel Name"));  // the identity columns are not metrics
  EXPECT_DOUBLE_EQ(value_of(saxpy, "gpu__time_duration.sum"), 329728);  // "329,728"
  EXPECT_EQ(saxpy.at("metrics").at("gpu__time_duration.sum").at("unit"), "ns");
  EXPECT_DOUBLE_EQ(value_of(saxpy, "dram__bytes.sum.per_second"), 2387099378881.99);
  EXPECT_EQ(saxpy.at("metrics").at("dram__bytes.sum.per_second").at("unit"), "byte/s");
  EXPECT_DOUBLE_EQ(value_of(saxpy, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), 49.61);
  EXPECT_DOUBLE_EQ(value_of(saxpy, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 2293550);
  EXPECT_EQ(saxpy.at("metrics").at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum").at("unit"), "");
  EXPECT_DOUBLE_EQ(value_of(saxpy, "launch__registers_per_thread"), 16);
  EXPECT_EQ(saxpy.at("metrics").at("device__attribute_display_name").at("value"), "NVIDIA H200");  // text stays text
  const auto& transpose = launches[1];
  EXPECT_EQ(transpose.at("kernel"), "void transpose<32>(const float *, float *, int)");
  EXPECT_TRUE(transpose.at("metrics").at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum").at("value").is_null());  // n/a
  EXPECT_DOUBLE_EQ(value_of(transpose, "gpu__time_duration.sum"), 1204512);
}

TEST(NcuRawCsv, ReadsQuotesLineBreaksCrlfAndSkipsNcuMessages) {
  const std::string csv =
      "==PROF== Connected to process 1\r\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"a.sum\",\"b.ratio\",\"c\"\r\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"inst\",\"\"\r\n"
      "0,1,p,h,\"say \"\"hi\"\",\nthen go\",1,7,\"(1, 1, 1)\",\"(2, 1, 1)\",0,9.0,\"1,234.5\",-2.5e-3,\"12,34\"\r\n";
  const nlohmann::json launches = parse_ncu_raw_csv(csv);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].at("kernel"), "say \"hi\",\nthen go");
  EXPECT_DOUBLE_EQ(value_of(launches[0], "a.sum"), 1234.5);
  EXPECT_EQ(launches[0].at("metrics").at("a.sum").at("unit"), "byte");
  EXPECT_DOUBLE_EQ(value_of(launches[0], "b.ratio"), -0.0025);
  EXPECT_EQ(launches[0].at("metrics").at("c").at("value"), "12,34");  // not thousands: kept as text
  // A header and units but no launch: none.
  const std::string header_only = csv.substr(0, csv.rfind("0,1,p"));
  EXPECT_TRUE(parse_ncu_raw_csv(header_only).empty());
}

TEST(NcuRawCsv, MalformedInputIsAnErrorNamingTheLine) {
  const std::string good = canned_csv();
  EXPECT_NE(error_of([] { parse_ncu_raw_csv(""); }).find("line 1"), std::string::npos);
  EXPECT_NE(error_of([] { parse_ncu_raw_csv("\"a\",\"b\"\n\"\",\"\"\n"); }).find("no \"Kernel Name\" column"),
            std::string::npos);
  const std::string header = good.substr(0, good.find('\n') + 1);
  EXPECT_NE(error_of([&] { parse_ncu_raw_csv(header); }).find("line 2: no units row"), std::string::npos);
  // The second launch (line 4) loses its last field.
  std::string short_row = good;
  short_row.erase(short_row.rfind(','), std::string::npos);
  short_row += "\n";
  const std::string short_error = error_of([&] { parse_ncu_raw_csv(short_row); });
  EXPECT_NE(short_error.find("line 4: 40 fields, the header has 41"), std::string::npos) << short_error;
  // A quote left open on line 3.
  std::string open_quote = good;
  const std::size_t line3 = good.find('\n', good.find('\n') + 1) + 1;
  open_quote.insert(line3, "\"");
  const std::string open_error = error_of([&] { parse_ncu_raw_csv(open_quote); });
  EXPECT_NE(open_error.find("line 3"), std::string::npos) << open_error;
  const std::string stray = error_of([&] { parse_ncu_raw_csv(header + "\"x\"y\n"); });
  EXPECT_NE(stray.find("line 2"), std::string::npos) << stray;
}

TEST(NcuRawCsv, TopStallsAreTheLargestFirstWithoutSelected) {
  const nlohmann::json launches = parse_ncu_raw_csv(canned_csv());
  const nlohmann::json saxpy = top_stalls(launches[0]);
  ASSERT_EQ(saxpy.size(), 4u);
  EXPECT_EQ(saxpy[0].at("reason"), "long_scoreboard");
  EXPECT_DOUBLE_EQ(saxpy[0].at("value").get<double>(), 58.02);
  EXPECT_EQ(saxpy[1].at("reason"), "barrier");
  EXPECT_EQ(saxpy[2].at("reason"), "short_scoreboard");
  EXPECT_EQ(saxpy[3].at("reason"), "wait");
  const nlohmann::json transpose = top_stalls(launches[1], 2);
  ASSERT_EQ(transpose.size(), 2u);
  EXPECT_EQ(transpose[0].at("reason"), "mio_throttle");
  EXPECT_EQ(transpose[1].at("reason"), "barrier");
  for (const auto& s : top_stalls(launches[0], 100)) EXPECT_NE(s.at("reason"), "selected");
  EXPECT_EQ(top_stalls(launches[0], 100).size(), 16u);
  // Ties by name; a stall that is not a number is left out.
  const nlohmann::json tied = {{"metrics",
                                {{"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", {{"value", 2.0}}},
                                 {"smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", {{"value", 2.0}}},
                                 {"smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", {{"value", nullptr}}},
                                 {"gpu__time_duration.sum", {{"value", 99.0}}}}}};
  const nlohmann::json ranked = top_stalls(tied);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].at("reason"), "drain");
  EXPECT_EQ(ranked[1].at("reason"), "wait");
  EXPECT_TRUE(top_stalls(nullptr).empty());
}

TEST(ProfileMetrics, OneListWithLabelsAndTheSeventeenStallReasons) {
  const auto& metrics = profile_metrics();
  std::size_t stalls = 0;
  for (const auto& m : metrics) {
    EXPECT_FALSE(m.label.empty()) << m.name;
    EXPECT_FALSE(m.group.empty()) << m.name;
    if (m.group == "stall") {
      ++stalls;
      EXPECT_FALSE(stall_reason(m.name).empty()) << m.name;
    }
  }
  EXPECT_EQ(stalls, 17u);
  EXPECT_EQ(stall_reason("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"), "long_scoreboard");
  EXPECT_EQ(stall_reason("gpu__time_duration.sum"), "");
  // Every metric asked for is in the canned raw page (an H200's names).
  const nlohmann::json launch = parse_ncu_raw_csv(canned_csv())[0];
  for (const auto& m : metrics) EXPECT_TRUE(launch.at("metrics").contains(m.name)) << m.name;
}

TEST(NcuCommand, ProfilesOneSteadyLaunchOfTheTunedKernels) {
  const auto one = ncu_profile_command("/opt/ncu", {"_Z6kernelPf"}, "/e/profile.ncu-rep", "/e/profile.log");
  std::string line;
  for (const auto& a : one) line += a + " ";
  EXPECT_EQ(one.front(), "/opt/ncu");
  for (const std::string part : {"--target-processes all", "--clock-control none", "--metrics dram__throughput.avg.",
                                 "--kernel-name-base mangled --kernel-name _Z6kernelPf --launch-skip 1 --launch-count 1",
                                 "--log-file /e/profile.log --export /e/profile.ncu-rep --force-overwrite "})
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  const auto two = ncu_profile_command("ncu", {"_Z1aIiEvv", "k.2"}, "r.ncu-rep", "l");
  std::string both;
  for (const auto& a : two) both += a + " ";
  EXPECT_NE(both.find("--kernel-name regex:^(_Z1aIiEvv|k\\.2)$ --launch-skip 2 --launch-count 2"), std::string::npos) << both;
  const auto none = ncu_profile_command("ncu", {}, "r.ncu-rep", "l");
  EXPECT_EQ(std::find(none.begin(), none.end(), "--kernel-name"), none.end());
  EXPECT_EQ(ncu_import_command("ncu", "r.ncu-rep"),
            (std::vector<std::string>{"ncu", "--import", "r.ncu-rep", "--csv", "--page", "raw", "--print-units", "base"}));
}

TEST(FindNcu, TheVariableFirstThenPathThenTheCompilersToolkit) {
  const fs::path dir = test::fresh_test_directory("find-ncu");
  const fs::path fake = dir / "my-ncu";
  fs::copy_file(kData / "fake-ncu", fake);
  fs::permissions(fake, fs::perms::owner_all);
  {
    test::ScopedEnv env("ADAEXPLORE_NCU", fake.string());
    EXPECT_EQ(find_ncu(), fake);
  }
  {
    test::ScopedEnv env("ADAEXPLORE_NCU", (dir / "missing").string());
    const std::string error = error_of([] { find_ncu(); });
    EXPECT_NE(error.find("ADAEXPLORE_NCU=" + (dir / "missing").string() + " names no executable"), std::string::npos)
        << error;
  }
  {
    std::ofstream(dir / "plain") << "not a program";
    test::ScopedEnv env("ADAEXPLORE_NCU", (dir / "plain").string());
    EXPECT_NE(error_of([] { find_ncu(); }).find("names no executable"), std::string::npos);
  }
  // No variable, no ncu on PATH: the compiler's toolkit (its folder, then the folder of the file it
  // links to), else none.
  ::unsetenv("ADAEXPLORE_NCU");
  fs::create_directories(dir / "empty-path");
  test::ScopedEnv path("PATH", (dir / "empty-path").string());
  const fs::path toolkit = dir / "cuda-99.0" / "bin";
  fs::create_directories(toolkit);
  std::ofstream(toolkit / "nvcc") << "#!/bin/sh\n";
  fs::permissions(toolkit / "nvcc", fs::perms::owner_all);
  fs::copy_file(fake, toolkit / "ncu");
  fs::create_directories(dir / "usr-bin");
  fs::create_symlink(toolkit / "nvcc", dir / "usr-bin" / "nvcc");
  EXPECT_EQ(find_ncu(toolkit / "nvcc"), toolkit / "ncu");
  EXPECT_EQ(find_ncu(dir / "usr-bin" / "nvcc"), toolkit / "ncu");
  EXPECT_FALSE(find_ncu(dir / "empty-path" / "nvcc"));
  EXPECT_FALSE(find_ncu());
  fs::remove_all(dir);
}

// y = SCALE x on the host (harness_host.hpp): tests/data/profile_tune's template and benchmark,
// which tests/cli/profile_tune_test.cmake tunes with `tune --profile`.
const fs::path kHostKernel = fs::path(ADAEXPLORE_TEST_DATA) / "profile_tune";

// Each test twice: the benchmark in a one-off runner under the fake ncu (run.runner true; the
// runner is the built adaexplore-tuner) and as its own process (run.runner false).
class ProfileTargetsTest : public ::testing::TestWithParam<bool> {
 protected:
  bool runner() const { return GetParam(); }
  void SetUp() override {
    if (runner()) ::setenv("ADAEXPLORE_RUNNER", ADAEXPLORE_TUNER_EXECUTABLE, 1);
    dir_ = test::fresh_test_directory(runner() ? "profile-runner" : "profile");
    fs::copy_file(kHostKernel / "scale.hpp.in", dir_ / "scale.hpp.in");
    fs::copy_file(kHostKernel / "scale_bench.cpp", dir_ / "scale_bench.cpp");
    ncu_ = dir_ / "fake-ncu";
    fs::copy_file(kData / "fake-ncu", ncu_);
    fs::permissions(ncu_, fs::perms::owner_all);
    seen_ = dir_ / "seen.txt";
    env_.push_back(std::make_unique<test::ScopedEnv>("FAKE_NCU_CSV", (kData / "raw-two-kernels.csv").string()));
    env_.push_back(std::make_unique<test::ScopedEnv>("FAKE_NCU_SEEN", seen_.string()));
    const nlohmann::json j = {{"name", "scale"},
                              {"backend", "host"},
                              {"template", "scale.hpp.in"},
                              {"benchmark", "scale_bench.cpp"},
                              {"parameters", {{{"name", "SCALE"}, {"values", {1, 2, 3}}}}},
                              {"compiler", {{"flags", {"-O0"}}}},
                              {"run",
                               {{"timeout_s", 30},
                                {"args", {"--adaexplore-measure-ms", "5", "--adaexplore-warmup-ms", "1"}},
                                {"runner", runner()}}}};
    spec_ = parse_spec(j, dir_ / "spec.json");
    backend_ = make_host_backend(spec_);
  }
  void TearDown() override {
    backend_.reset();
    env_.clear();
    ::unsetenv("ADAEXPLORE_RUNNER");
    if (!HasFailure()) fs::remove_all(dir_);
  }
  ProgramBackend& program() { return static_cast<ProgramBackend&>(*backend_); }
  Config scale(int s) const { return spec_.space.config_from_texts({{"SCALE", std::to_string(s)}}); }
  ProfileOptions options() const {
    ProfileOptions o;
    o.ncu = ncu_;
    o.per_config_timeout_s = 60;
    return o;
  }
  std::vector<std::string> seen() const {
    std::vector<std::string> lines;
    std::ifstream in(seen_);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  fs::path dir_, ncu_, seen_;
  std::vector<std::unique_ptr<test::ScopedEnv>> env_;
  Spec spec_;
  std::unique_ptr<Backend> backend_;
};

TEST_P(ProfileTargetsTest, RunsTheBenchmarkUnderNcuAndReadsTheRawPage) {
  const std::vector<ProfileTarget> targets = {{"winner", scale(2)}, {"defaults", scale(1)}, {"finalist 2", scale(2)}};
  const std::vector<ProfileResult> results = profile_targets(program(), targets, options());
  ASSERT_EQ(results.size(), 3u);
  const ProfileResult& winner = results[0];
  EXPECT_EQ(winner.error, "");
  EXPECT_EQ(winner.role, "winner");
  EXPECT_EQ(winner.label, "SCALE=2");
  EXPECT_EQ(winner.ncu_version, "Version 2099.1.0.0 (build 0) (public-release) (fake-ncu)");
  EXPECT_GT(winner.wall_s, 0);
  // Two launches in the canned page: the longer one is "the" launch, both are kept, filtered to
  // the metrics asked for and ncu's launch__ ones.
  ASSERT_EQ(winner.launches.size(), 2u);
  EXPECT_EQ(winner.launch.at("kernel"), "void transpose<32>(const float *, float *, int)");
  EXPECT_DOUBLE_EQ(value_of(winner.launch, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), 71.2);
  EXPECT_TRUE(winner.launch.at("metrics").contains("launch__waves_per_multiprocessor"));
  EXPECT_FALSE(winner.launch.at("metrics").contains("device__attribute_display_name"));
  EXPECT_EQ(top_stalls(winner.launch, 1)[0].at("reason"), "mio_throttle");
  // The benchmark really ran under the wrapper: its record, the report the fake wrote, the command.
  const fs::path eval = winner.report.parent_path();
  EXPECT_EQ(winner.report.filename(), "profile.ncu-rep");
  EXPECT_TRUE(fs::exists(eval / "profile.result.json"));
  EXPECT_NE(read_file(eval / "profile.result.json").find("\"status\""), std::string::npos);
  EXPECT_NE(read_file(winner.report).find("fake ncu report of:"), std::string::npos);
  EXPECT_NE(read_file(winner.log).find("==PROF== Report: " + winner.report.string()), std::string::npos);
  EXPECT_NE(read_file(eval / "profile.csv").find("\"Kernel Name\""), std::string::npos);
  EXPECT_EQ(winner.command.rfind(ncu_.string() + " --target-processes all --clock-control none --metrics ", 0), 0u)
      << winner.command;
  EXPECT_TRUE(winner.kernels.empty());  // the host backend has no ptxas report: no --kernel-name
  EXPECT_EQ(winner.command.find("--kernel-name"), std::string::npos);
  const std::vector<std::string> calls = seen();
  ASSERT_EQ(calls.size(), 2u);  // SCALE=2 once (the finalist repeats it), SCALE=1 once
  if (runner()) {
    EXPECT_NE(calls[0].find(std::string(ADAEXPLORE_TUNER_EXECUTABLE) + " runner"), std::string::npos) << calls[0];
    EXPECT_NE(read_file(eval / "profile.request.json").find("benchmark.so"), std::string::npos);
    EXPECT_NE(read_file(eval / "profile.runner.out").find("\"exit_code\":0"), std::string::npos) << read_file(eval / "profile.runner.out");
  } else {
    EXPECT_NE(calls[0].find((eval / "benchmark").string() + " --adaexplore-result " + (eval / "profile.result.json").string()),
              std::string::npos)
        << calls[0];
  }
  EXPECT_FALSE(fs::exists(eval / (runner() ? "benchmark.so" : "benchmark")));  // removed, as measure() does
  EXPECT_EQ(results[1].role, "defaults");
  EXPECT_EQ(results[1].error, "");
  EXPECT_EQ(results[1].label, "SCALE=1");
  EXPECT_NE(results[1].report, winner.report);
  EXPECT_EQ(results[2].role, "finalist 2");  // the winner's configuration again: its result repeated
  EXPECT_EQ(results[2].report, winner.report);
  EXPECT_EQ(results[2].launch, winner.launch);
  const nlohmann::json j = to_json(winner, spec_.space);
  EXPECT_EQ(j.at("role"), "winner");
  EXPECT_EQ(j.at("config"), (nlohmann::json{{"SCALE", 2.0}}));
  EXPECT_EQ(j.at("launch"), winner.launch);
  EXPECT_EQ(j.at("launches").size(), 2u);
  EXPECT_EQ(j.at("error"), "");
  for (const char* key : {"label", "wall_s", "ncu_version", "command", "report", "log", "kernels"}) EXPECT_TRUE(j.contains(key)) << key;
}

TEST_P(ProfileTargetsTest, AFailingNcuIsTheTargetsErrorWithItsLog) {
  test::ScopedEnv fail("FAKE_NCU_FAIL", "1");
  const std::vector<ProfileResult> results = profile_targets(program(), {{"winner", scale(3)}}, options());
  ASSERT_EQ(results.size(), 1u);
  const std::string& error = results[0].error;
  EXPECT_EQ(error.rfind("ncu failed (exit code 1): ==ERROR== ERR_NVGPUCTRPERM", 0), 0u) << error;
  EXPECT_NE(error.find("; log: " + results[0].log.string()), std::string::npos) << error;
  EXPECT_EQ(results[0].log.filename(), "profile.log");
  EXPECT_TRUE(results[0].launch.is_null());
  EXPECT_FALSE(results[0].command.empty());
}

TEST_P(ProfileTargetsTest, NoTargetStartsOnceTheTimeCapIsSpent) {
  test::ScopedEnv slow("FAKE_NCU_SLEEP", "1");
  ProfileOptions o = options();
  o.time_cap_s = 0.5;
  const std::vector<ProfileResult> results =
      profile_targets(program(), {{"winner", scale(2)}, {"defaults", scale(1)}, {"finalist 2", scale(3)}}, o);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].error, "");  // started before the cap: runs to its end
  EXPECT_GE(results[0].wall_s, 1.0);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(results[i].error, "not profiled: the time cap 0.5 s was spent") << results[i].role;
    EXPECT_EQ(results[i].wall_s, 0);
  }
  EXPECT_EQ(seen().size(), 1u);
}

TEST_P(ProfileTargetsTest, NoNcuOrACompileErrorIsTheTargetsErrorNotAThrow) {
  ProfileOptions o = options();
  o.ncu.clear();
  const auto missing = profile_targets(program(), {{"winner", scale(2)}}, o);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].error.rfind("not profiled: ncu not found", 0), 0u) << missing[0].error;
  std::ofstream(dir_ / "scale.hpp.in") << "this is not C++ ${SCALE}\n";
  auto backend = make_host_backend(parse_spec(
      {{"name", "scale"}, {"backend", "host"}, {"template", "scale.hpp.in"}, {"benchmark", "scale_bench.cpp"},
       {"parameters", {{{"name", "SCALE"}, {"values", {1, 2}}}}}, {"run", {{"runner", runner()}}}},
      dir_ / "broken.json"));
  const auto failed = profile_targets(static_cast<ProgramBackend&>(*backend), {{"defaults", scale(1)}}, options());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error.rfind("not profiled: the configuration did not compile again (compile_error): ", 0), 0u)
      << failed[0].error;
  EXPECT_TRUE(seen().empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, ProfileTargetsTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Runner" : "ProcessPerEvaluation"; });

// The kernel unit (nvcc, no GPU needed to compile): the benchmark built once runs under ncu with
// this configuration's cubin, and ncu is told the kernel's name as ptxas reported it (mangled).
const char* kUnitTemplate = R"(#pragma once
#include <adaexplore/kernel_unit.cuh>
template <int SCALE>
__global__ void scale_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SCALE * in[i];
}
inline void launch(const float* in, float* out, int n, cudaStream_t s) {
  scale_kernel<${SCALE}><<<(n + 255) / 256, 256, 0, s>>>(in, out, n);
}
)";
const char* kUnitBenchmark = R"(#include <adaexplore/harness.cuh>
#include <utility>
#include <vector>
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 1 << 16;
  auto in = bench.input<float>(n);
  auto out = bench.output<float>(n);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = bench.param("SCALE") * std::as_const(in).host()[i];
  const adaexplore::Kernel k = bench.kernel("scale_kernel");
  bench.check_launch(k, dim3(256));
  return bench.run([&](cudaStream_t s) { k.launch(dim3((n + 255) / 256), dim3(256), 0, s, in.get(), out.get(), n); },
                   [&] { return bench.compare(out, ref); });
}
)";

TEST(ProfileKernelUnit, TheBenchmarkBuiltOnceRunsUnderNcuWithTheCubinAndTheKernelsName) {
  const std::string nvcc = test::nvcc_path();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
  const fs::path dir = test::fresh_test_directory("profile-kernel-unit");
  test::ScopedEnv cache("ADAEXPLORE_CACHE_DIR", (dir / "cache").string());
  std::ofstream(dir / "scale.cuh.in") << kUnitTemplate;
  std::ofstream(dir / "scale_bench.cu") << kUnitBenchmark;
  fs::copy_file(kData / "fake-ncu", dir / "fake-ncu");
  fs::permissions(dir / "fake-ncu", fs::perms::owner_all);
  test::ScopedEnv csv("FAKE_NCU_CSV", (kData / "raw-two-kernels.csv").string());
  test::ScopedEnv seen("FAKE_NCU_SEEN", (dir / "seen.txt").string());
  const Spec s = parse_spec({{"name", "scale"},
                             {"backend", "cuda"},
                             {"template", "scale.cuh.in"},
                             {"benchmark", "scale_bench.cu"},
                             {"parameters", {{{"name", "SCALE"}, {"values", {1, 2}}}}},
                             {"compiler", {{"path", nvcc}, {"arch", "sm_90"}, {"unit", "kernel"}}},
                             {"run", {{"runner", false}, {"timeout_s", 60}}}},
                            dir / "spec.json");
  auto backend = make_cuda_backend(s, DeviceInfo{});
  auto& program = static_cast<ProgramBackend&>(*backend);
  ASSERT_TRUE(program.kernel_unit());
  ProfileOptions o;
  o.ncu = dir / "fake-ncu";
  const auto results = profile_targets(program, {{"winner", s.space.config_from_texts({{"SCALE", "2"}})}}, o);
  ASSERT_EQ(results.size(), 1u);
  const ProfileResult& r = results[0];
  ASSERT_EQ(r.kernels.size(), 1u) << r.error;
  EXPECT_NE(r.kernels[0].find("scale_kernel"), std::string::npos) << r.kernels[0];
  EXPECT_EQ(r.kernels[0].rfind("_Z", 0), 0u) << r.kernels[0];  // mangled, as ptxas names it
  const std::string call = read_file(dir / "seen.txt");
  const fs::path eval = r.report.parent_path();
  for (const std::string part : {"--kernel-name-base mangled --kernel-name " + r.kernels[0] + " --launch-skip 1",
                                 std::string("/benchmark/benchmark --adaexplore-result"),  // the benchmark built once
                                 "--adaexplore-kernel " + (eval / "kernel.cubin").string(),
                                 std::string("--adaexplore-param SCALE=2")})
    EXPECT_NE(call.find(part), std::string::npos) << part << " in " << call;
  // Without a GPU the benchmark fails under the fake, which passes its exit code on: ncu "failed",
  // and the error says how the benchmark ended. (With a GPU and a real ncu it is profiled.)
  if (!r.error.empty()) EXPECT_NE(r.error.find("the benchmark under ncu: "), std::string::npos) << r.error;
  std::cout << "[          ] without a GPU: " << (r.error.empty() ? std::string("profiled") : r.error) << "\n";
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace adaexplore
