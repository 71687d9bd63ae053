// The cuda backend's compile side with the real nvcc, no GPU needed: render + nvcc for sm_90 of a
// real kernel and benchmark (harness.cuh), the ptxas report read into resources, ptxas's
// resource rejections as resource_limit, syntax errors as compile_error. Skipped without nvcc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <cstdlib>
#include <tuple>
#include <optional>
#include <sstream>

#include "evaluate/backends.hpp"
#include "learn/observation.hpp"
#include "evaluate/program_backend.hpp"
#include "util/process.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// SHARED floats of static shared memory; MODE 1 is a syntax error; LOCAL > 0 adds a kernel with
// a LOCAL-float array on its stack.
const char* kTemplate = R"(#pragma once
#if ${MODE} == 1
this is not CUDA;
#endif
__global__ void fill_kernel(float* out, int n) {
  __shared__ float buffer[${SHARED}];
  for (int i = threadIdx.x; i < ${SHARED}; i += blockDim.x) buffer[i] = 0.5f * i;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buffer[i % ${SHARED}];
}
inline void launch_fill(float* out, int n, cudaStream_t s) { fill_kernel<<<(n + 255) / 256, 256, 0, s>>>(out, n); }
#if ${LOCAL} > 0
__global__ void scatter_kernel(float* out, int n, int k) {
  float local[${LOCAL}];
  for (int i = 0; i < n; ++i) local[(i * 7919) % ${LOCAL}] = i;
  out[threadIdx.x] = local[k];
}
#endif
)";

const char* kBenchmark = R"(#include <adaexplore/harness.cuh>
#include "fill.cuh"
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 1 << 20;
  auto out = bench.output<float>(n);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = 0.5f * (i % ADAEXPLORE_PARAM_SHARED);
  return bench.run([&](cudaStream_t s) { launch_fill(out.get(), n, s); }, [&] { return bench.compare(out, ref); });
}
)";

class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = test::nvcc_path();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
    // The harness objects these tests build go to a cache of the test run, not the user's.
    cache_ = test::test_harness_cache();
    dir_ = test::fresh_test_directory("cuda-backend");
    std::ofstream(dir_ / "fill.cuh.in") << kTemplate;
    std::ofstream(dir_ / "fill_bench.cu") << kBenchmark;
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
    cache_.reset();
  }

  nlohmann::json spec_json() const {
    return {{"name", "fill"},
            {"backend", "cuda"},
            {"template", "fill.cuh.in"},
            {"benchmark", "fill_bench.cu"},
            {"parameters",
             {{{"name", "SHARED"}, {"values", {256, 13000}}},
              {{"name", "MODE"}, {"values", {0, 1}}},
              {{"name", "LOCAL"}, {"values", {0, 163840}}}}},
            {"compiler", {{"path", nvcc_}, {"arch", "sm_90"}}}};
  }
  Spec spec(const nlohmann::json& j) const { return parse_spec(j, dir_ / "spec.json"); }

  // No GPU here: the backend targets the spec's arch with the limits of the guide's table.
  Prepared prepare(int shared, int mode, int local = 0) {
    const Spec s = spec(spec_json());
    auto backend = make_cuda_backend(s, DeviceInfo{});
    return backend->prepare(s.space.config_from_texts({{"SHARED", std::to_string(shared)},
                                                       {"MODE", std::to_string(mode)},
                                                       {"LOCAL", std::to_string(local)}}));
  }

  std::string nvcc_;
  fs::path dir_;
  std::unique_ptr<test::ScopedEnv> cache_;
};

TEST_F(CudaBackendTest, CompilesForSm90AndReadsResourcesFromPtxas) {
  const Prepared p = prepare(256, 0);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_TRUE(fs::exists(p.executable));
  ASSERT_EQ(p.resources.size(), 1u);
  const KernelResources& k = p.resources.front();
  EXPECT_NE(k.kernel.find("fill_kernel"), std::string::npos) << k.kernel;
  EXPECT_EQ(k.shared_bytes, 256 * 4);
  EXPECT_GT(k.registers, 0);
  EXPECT_EQ(k.arch, "sm_90");
  const std::string cmd = read_file(p.directory / "compile.cmd");
  for (const char* flag :
       {"-std=c++17 -O1 -arch=sm_90 -Xptxas -v -lineinfo", "-DADAEXPLORE_PARAM_SHARED=256",
        "-DADAEXPLORE_PARAM_MODE=0", "fill_bench.cu "})
    EXPECT_NE(cmd.find(flag), std::string::npos) << flag << " in " << cmd;
  EXPECT_NE(read_file(p.directory / "fill.cuh").find("__shared__ float buffer[256];"),
            std::string::npos);
}

// The harness built apart (harness_separate.cu, ADAEXPLORE_HARNESS_SEPARATE): one object per
// flags and harness, in the cache folder, reused by a later backend; a configuration prepared
// once it is there compiles declarations only and links it, and the program still builds; a -O
// in the spec's flags replaces the tuner's -O1 for both.
TEST_F(CudaBackendTest, HarnessIsBuiltOnceApartAndLinkedIntoLaterConfigurations) {
  const fs::path cache = dir_ / "cache";
  auto scoped = std::make_unique<test::ScopedEnv>("ADAEXPLORE_CACHE_DIR", cache.string());
  nlohmann::json j = spec_json();
  j["compiler"]["flags"] = {"-O2"};
  const Spec s = spec(j);
  auto backend = make_cuda_backend(s, DeviceInfo{});
  auto& program = static_cast<ProgramBackend&>(*backend);
  const fs::path object = program.harness_object(/*wait=*/true);
  ASSERT_FALSE(object.empty()) << "see the logs in " << (cache / "harness");
  EXPECT_EQ(object.parent_path(), cache / "harness");
  const auto built = fs::last_write_time(object);
  const Prepared p = backend->prepare(s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}}));
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_TRUE(fs::exists(p.executable));
  const std::string cmd = read_file(p.directory / "compile.cmd");
  for (const std::string flag : {std::string("-DADAEXPLORE_HARNESS_SEPARATE=1"), "fill_bench.cu " + object.string() + " -o ",
                                 std::string("-std=c++17 -arch=sm_90 -Xptxas -v -lineinfo -O2")})
    EXPECT_NE(cmd.find(flag), std::string::npos) << flag << " in " << cmd;
  EXPECT_EQ(cmd.find("-O1"), std::string::npos) << cmd;
  auto again = make_cuda_backend(s, DeviceInfo{});
  EXPECT_EQ(static_cast<ProgramBackend&>(*again).harness_object(true), object);
  scoped.reset();
  EXPECT_EQ(fs::last_write_time(object), built);  // reused, not built again
}

// A benchmark that uses a standard header without including it (std::ostringstream; the
// header-only harness happens to include <sstream>, its declarations do not) fails to compile
// against the harness built apart: the configuration is compiled again header-only, succeeds,
// and the rest of the tuning builds header-only.
TEST_F(CudaBackendTest, ABenchmarkThatNeedsTheHarnessHeadersFallsBackToHeaderOnly) {
  std::string bench = kBenchmark;
  bench.replace(bench.find("  return bench.run("), 0,
                "  std::ostringstream label;\n  label << \"fill \" << n;\n  if (label.str().empty()) return 1;\n");
  std::ofstream(dir_ / "fill_bench.cu") << bench;
  const Spec s = spec(spec_json());
  auto backend = make_cuda_backend(s, DeviceInfo{});
  ASSERT_FALSE(static_cast<ProgramBackend&>(*backend).harness_object(/*wait=*/true).empty());
  const Prepared p = backend->prepare(s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}}));
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(read_file(p.directory / "compile.cmd").find("ADAEXPLORE_HARNESS_SEPARATE"), std::string::npos);
  EXPECT_TRUE(static_cast<ProgramBackend&>(*backend).harness_object().empty());  // header-only from now on
}

// The tuner's -O1 for the host code unless the spec's flags set nvcc's -O; an -O given to
// another tool (-Xptxas -O3) is not nvcc's. (A syntax error fails fast; compile.cmd is written.)
TEST_F(CudaBackendTest, HostOptimizationIsO1UnlessTheFlagsSetNvccsOwn) {
  for (const auto& [flags, expected, absent] :
       std::vector<std::tuple<std::vector<std::string>, std::string, std::string>>{
           {{}, " -O1 ", " -O3"}, {{"-Xptxas", "-O3"}, " -O1 ", ""}, {{"-O3"}, " -O3", " -O1 "}}) {
    nlohmann::json j = spec_json();
    j["compiler"]["flags"] = flags;
    const Spec s = spec(j);
    const Prepared p = make_cuda_backend(s, DeviceInfo{})->prepare(
        s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "1"}, {"LOCAL", "0"}}));
    const std::string cmd = read_file(p.directory / "compile.cmd");
    EXPECT_NE(cmd.find(expected), std::string::npos) << cmd;
    if (!absent.empty()) EXPECT_EQ(cmd.find(absent), std::string::npos) << cmd;
    fs::remove_all(p.directory);
  }
}

// compiler.launcher ccache: the compile (-c, to an object) is cached and the link runs apart; a
// configuration compiled again is a ccache hit whose replayed ptxas report gives the same
// resources, and a ptxas rejection the same resource_limit.
TEST_F(CudaBackendTest, CcacheLauncherHitReplaysThePtxasReport) {
  const fs::path ccache = find_program("ccache");
  if (ccache.empty()) GTEST_SKIP() << "ccache not installed";
  ::setenv("CCACHE_DIR", (dir_ / "ccache").string().c_str(), 1);
  nlohmann::json j = spec_json();
  j["compiler"]["launcher"] = {ccache.string()};
  const Spec s = spec(j);
  auto backend = make_cuda_backend(s, DeviceInfo{});
  // The harness object first, so that both rounds compile the same way (built apart).
  EXPECT_FALSE(static_cast<ProgramBackend&>(*backend).harness_object(/*wait=*/true).empty());
  const Config good = s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}});
  const Config too_big = s.space.config_from_texts({{"SHARED", "13000"}, {"MODE", "0"}, {"LOCAL", "0"}});
  const Prepared first = backend->prepare(good), rejected = backend->prepare(too_big);
  fs::remove_all(first.directory);
  fs::remove_all(rejected.directory);
  const Prepared again = backend->prepare(good), rejected_again = backend->prepare(too_big);
  ProcessOptions quiet;
  const ProcessResult stats = run_process({ccache.string(), "--print-stats"}, quiet);
  ::unsetenv("CCACHE_DIR");
  ASSERT_FALSE(first.failure) << first.failure->message;
  ASSERT_FALSE(again.failure) << again.failure->message;
  EXPECT_TRUE(fs::exists(again.executable));
  ASSERT_EQ(again.resources.size(), 1u);
  EXPECT_EQ(again.resources.front().registers, first.resources.front().registers);
  EXPECT_EQ(again.resources.front().shared_bytes, 256 * 4);
  EXPECT_TRUE(again.stage_ms.count("link"));
  const std::string cmd = read_file(again.directory / "compile.cmd");
  EXPECT_EQ(cmd.rfind(ccache.string() + " ", 0), 0u) << cmd;  // line 1: ccache nvcc ... -c
  EXPECT_NE(cmd.find(" -c "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("\n" + nvcc_ + " "), std::string::npos) << cmd;  // line 2: the link, no ccache
  ASSERT_TRUE(rejected.failure && rejected_again.failure);
  EXPECT_EQ(rejected_again.failure->status, Status::resource_limit) << rejected_again.failure->message;
  EXPECT_EQ(rejected_again.failure->extra["used"], 52000);
  // Two direct-mode hits (the rejection is cached as a failed compile only when ccache caches
  // failures; the good one must hit).
  EXPECT_NE(stats.out.find("direct_cache_hit"), std::string::npos) << stats.out;
  std::istringstream lines(stats.out);
  std::string key;
  long hits = -1, value = 0;
  while (lines >> key >> value)
    if (key == "direct_cache_hit") hits = value;
  EXPECT_GE(hits, 1) << stats.out;
}

TEST_F(CudaBackendTest, TooMuchStaticSharedMemoryIsResourceLimit) {
  const Prepared p = prepare(13000, 0);  // 52000 bytes, over the 48 KiB of static shared memory
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::resource_limit) << p.failure->message;
  EXPECT_NE(p.failure->message.find("too much shared data"), std::string::npos)
      << p.failure->message;
  EXPECT_NE(p.failure->message.find("-arch=sm_90"), std::string::npos) << p.failure->message;
  EXPECT_EQ(p.failure->extra["resource"], "shared_memory") << p.failure->extra.dump();
  EXPECT_EQ(p.failure->extra["used"], 52000);
  EXPECT_EQ(p.failure->extra["limit"], 48 * 1024);
  EXPECT_FALSE(fs::exists(p.executable));
}

// ptxas's register allocator giving up (C7600, issue 23) is a register resource_limit with the
// count it failed at, not a compile_error; the advisory before it is kept with the outcome. The
// compiler's answer comes from a launcher that prints ptxas's lines (as ptxas 12 printed them for
// a Triton kernel, triton-lang/triton#8488) and fails, instead of running nvcc.
TEST_F(CudaBackendTest, RegisterAllocationFailureIsARegisterResourceLimit) {
  const fs::path launcher = dir_ / "ptxas-gives-up.sh";
  std::ofstream(launcher)
      << "#!/bin/sh\n"
         "echo \"ptxas info    : (C7516) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
         "to ill formed pipeline stage in the function '_Z11fill_kernelPfi'\" >&2\n"
         "echo \"ptxas fatal   : (C7600) Register allocation failed with register count of '255'. Compile the "
         "program with a higher register target\" >&2\n"
         "echo \"ptxas fatal   : Ptx assembly aborted due to errors\" >&2\n"
         "exit 255\n";
  fs::permissions(launcher, fs::perms::owner_all);
  nlohmann::json j = spec_json();
  j["compiler"]["launcher"] = {launcher.string()};
  const Spec s = spec(j);
  auto backend = make_cuda_backend(s, DeviceInfo{});
  const Prepared p =
      backend->prepare(s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}}));
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::resource_limit) << p.failure->message;
  EXPECT_EQ(p.failure->message.rfind("ptxas rejected the kernel: ptxas fatal   : (C7600) Register allocation failed", 0),
            0u)
      << p.failure->message;
  EXPECT_EQ(p.failure->extra["resource"], "registers") << p.failure->extra.dump();
  EXPECT_EQ(p.failure->extra["limit"], 255);
  ASSERT_EQ(p.ptxas_warnings.size(), 1u);
  EXPECT_NE(p.ptxas_warnings[0].find("(C7516) Potential Performance Loss"), std::string::npos) << p.ptxas_warnings[0];
}

// A compile that succeeds with ptxas's performance advisories (real nvcc, sm_90a, the kernel of
// tests/data/ptxas/advisories.cu as the template): the advisories are kept, verbatim.
TEST_F(CudaBackendTest, PtxasPerformanceAdvisoriesAreKeptWithTheCompile) {
  std::ifstream kernel(std::string(ADAEXPLORE_TEST_DATA) + "/ptxas/advisories.cu");
  ASSERT_TRUE(kernel);
  std::ofstream(dir_ / "wgmma.cuh.in") << "#pragma once\n// ${N}\n" << kernel.rdbuf();
  std::ofstream(dir_ / "wgmma_bench.cu") << R"(#include <adaexplore/harness.cuh>
#include "wgmma.cuh"
int main(int argc, char** argv) { return 0; }
)";
  const nlohmann::json j = {{"name", "wgmma"},
                            {"backend", "cuda"},
                            {"template", "wgmma.cuh.in"},
                            {"benchmark", "wgmma_bench.cu"},
                            {"parameters", {{{"name", "N"}, {"values", {1}}}}},
                            {"compiler", {{"path", nvcc_}, {"arch", "sm_90a"}, {"unit", "program"}}}};
  const Spec s = spec(j);
  auto backend = make_cuda_backend(s, DeviceInfo{});
  const Prepared p = backend->prepare(s.space.config_from_texts({{"N", "1"}}));
  ASSERT_FALSE(p.failure) << p.failure->message;
  ASSERT_EQ(p.ptxas_warnings.size(), 3u) << p.ptxas_warnings.size();
  EXPECT_EQ(p.ptxas_warnings[2].rfind("ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async", 0), 0u)
      << p.ptxas_warnings[2];
}

// ptxas accepts a 640 KiB stack frame; the static check refuses it (512 KiB per thread).
TEST_F(CudaBackendTest, StackOverTheLimitIsResourceLimitFromTheStaticCheck) {
  const Prepared p = prepare(256, 0, 163840);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::resource_limit) << p.failure->message;
  EXPECT_EQ(p.failure->message.find("ptxas rejected"), std::string::npos) << p.failure->message;
  EXPECT_NE(p.failure->message.find("(sm_90, static check)"), std::string::npos)
      << p.failure->message;
  EXPECT_EQ(p.failure->extra["resource"], "local_memory") << p.failure->extra.dump();
  EXPECT_EQ(p.failure->extra["used"], 655360);
  EXPECT_EQ(p.resources.size(), 2u);
}

// The spec's launch shape (here claiming SHARED * 8 threads per block): 2048 threads is
// resource_limit before anything is compiled, saying where the figure came from, with the figure
// and its limit for the knowledge base (extra.figures / extra.limits).
TEST_F(CudaBackendTest, TooManyThreadsFromTheLaunchShapeIsResourceLimitBeforeCompiling) {
  nlohmann::json j = spec_json();
  j["launch"] = {{"threads_per_block", "SHARED * 8"}};
  const Spec s = spec(j);
  auto backend = make_cuda_backend(s, DeviceInfo{});
  const Prepared p = backend->prepare(s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}}));
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::resource_limit) << p.failure->message;
  EXPECT_EQ(p.failure->message,
            "2048 threads per block, over the device's limit of 1024 threads (sm_90, static check before compiling; "
            "launch.threads_per_block \"SHARED * 8\" = 2048)");
  EXPECT_EQ(p.failure->extra["resource"], "threads") << p.failure->extra.dump();
  EXPECT_EQ(p.failure->extra["used"], 2048);
  EXPECT_EQ(p.failure->extra["limit"], 1024);
  EXPECT_EQ(p.failure->extra["figures"]["threads"], 2048);
  EXPECT_EQ(p.failure->extra["limits"]["threads"], 1024);
  EXPECT_EQ(p.stage_ms.count("compile"), 0u) << "no compile is paid";
  EXPECT_TRUE(p.resources.empty());
  EXPECT_FALSE(fs::exists(p.directory / "compile.cmd"));
  const Observation o = observation_of(*p.failure);
  EXPECT_EQ(o.figures.at("threads"), 2048);
  EXPECT_EQ(o.limits.at("threads"), 1024);

  j["launch"] = {{"threads_per_block", "SHARED"}};  // 256 threads: fits
  const Spec fits = spec(j);
  const Prepared q = make_cuda_backend(fits, DeviceInfo{})->prepare(
      fits.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}}));
  EXPECT_FALSE(q.failure) << q.failure->message;
  EXPECT_EQ(q.stage_ms.count("compile"), 1u);
}

// Dynamic shared memory over what a block can get at all (227 KiB with the opt-in on sm_90) is
// known from the launch expression alone.
TEST_F(CudaBackendTest, DynamicSharedMemoryOverTheOptInLimitIsResourceLimitBeforeCompiling) {
  nlohmann::json j = spec_json();
  j["launch"] = {{"threads_per_block", "SHARED"}, {"dynamic_shared_bytes", "SHARED * 1024"}};
  const Spec s = spec(j);
  auto backend = make_cuda_backend(s, DeviceInfo{});
  const Prepared p = backend->prepare(s.space.config_from_texts({{"SHARED", "256"}, {"MODE", "0"}, {"LOCAL", "0"}}));
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::resource_limit) << p.failure->message;
  EXPECT_EQ(p.failure->message.rfind("262144 bytes of dynamic shared memory per block, over the 232448-byte limit "
                                     "per block with the opt-in (sm_90, static check before compiling",
                                     0),
            0u)
      << p.failure->message;
  EXPECT_EQ(p.failure->extra["resource"], "shared_memory");
  EXPECT_EQ(p.stage_ms.count("compile"), 0u);
}

TEST_F(CudaBackendTest, SyntaxErrorIsCompileErrorWithTheMessage) {
  const Prepared p = prepare(256, 1);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::compile_error);
  EXPECT_NE(p.failure->exit_code.value_or(0), 0);
  const std::string first_line = p.failure->message.substr(0, p.failure->message.find('\n'));
  EXPECT_NE(first_line.find("fill.cuh(3): error"), std::string::npos) << p.failure->message;
  EXPECT_NE(p.failure->message.find("command: " + nvcc_), std::string::npos) << p.failure->message;
}

TEST_F(CudaBackendTest, DeviceNamesNvccAndArch) {
  auto backend = make_cuda_backend(spec(spec_json()), DeviceInfo{});
  const auto d = backend->device();
  EXPECT_EQ(backend->name(), "cuda");
  EXPECT_EQ(d["arch"], "sm_90");
  EXPECT_NE(d["nvcc"].get<std::string>().find("release"), std::string::npos) << d.dump();
}

TEST_F(CudaBackendTest, ArchFromDigitsIsNormalised) {
  nlohmann::json j = spec_json();
  j["compiler"]["arch"] = "80";
  EXPECT_EQ(make_cuda_backend(spec(j), DeviceInfo{})->device()["arch"], "sm_80");
}

TEST_F(CudaBackendTest, NoArchAndNoGpuIsAClearError) {
  nlohmann::json j = spec_json();
  j["compiler"].erase("arch");
  DeviceInfo none;
  none.reason = "cudaGetDeviceCount: cudaErrorInsufficientDriver";
  try {
    make_cuda_backend(spec(j), none);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no target architecture"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaErrorInsufficientDriver"), std::string::npos)
        << e.what();
  }
}

TEST_F(CudaBackendTest, MissingCompilerIsAClearError) {
  nlohmann::json j = spec_json();
  j["compiler"]["path"] = "/opt/no-such-cuda/bin/nvcc";
  try {
    make_cuda_backend(spec(j), DeviceInfo{});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compiler '/opt/no-such-cuda/bin/nvcc' not found"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace adaexplore
