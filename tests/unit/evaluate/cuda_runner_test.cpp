// The cuda backend with the long-lived runner (runner.hpp): the benchmark is built as a module
// (nvcc -shared, -cudart shared) that dlopen can load without a GPU; on a GPU, configurations run in
// one process and CUDA context, a launch error (not sticky) keeps the runner, an illegal address
// (sticky: the context is lost) is `crash` and the next configuration runs in a fresh runner.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <fstream>
#include <vector>

#include "evaluate/backends.hpp"
#include "evaluate/device.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

// The runner's device pool (runner_main.cpp), as the harness reaches it.
extern "C" void* adaexplore_runner_take_device(std::size_t bytes);
extern "C" int adaexplore_runner_give_device(void* pointer, std::size_t bytes);
extern "C" void adaexplore_runner_release_device();

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::vector<void*> freed;  // what the pool freed, in order (the fake cudaFree below)
int fake_free(void* p) {
  freed.push_back(p);
  return 0;
}

// No GPU: blocks are taken by exact size, a block the next module does not take back is freed
// after that module, release frees everything; without a way to free (no CUDA runtime) the pool
// keeps nothing.
TEST(RunnerDevicePool, ReusesBlocksBySizeAndKeepsOneModulesWorth) {
  int a = 0, b = 0;  // stand-ins for device addresses
  set_device_pool_free(nullptr);
  EXPECT_EQ(adaexplore_runner_give_device(&a, 64), 0);
  set_device_pool_free(fake_free);
  freed.clear();
  // module 1 gives back a 64-byte and a 128-byte block
  ASSERT_EQ(adaexplore_runner_give_device(&a, 64), 1);
  ASSERT_EQ(adaexplore_runner_give_device(&b, 128), 1);
  device_pool_after_module();
  EXPECT_TRUE(freed.empty());
  // module 2 takes the 64-byte one (nothing else of that size) and gives it back
  EXPECT_EQ(adaexplore_runner_take_device(64), &a);
  EXPECT_EQ(adaexplore_runner_take_device(64), nullptr);
  EXPECT_EQ(adaexplore_runner_take_device(32), nullptr);
  ASSERT_EQ(adaexplore_runner_give_device(&a, 64), 1);
  device_pool_after_module();  // the 128-byte block was not taken: freed
  EXPECT_EQ(freed, std::vector<void*>{&b});
  EXPECT_EQ(adaexplore_runner_take_device(128), nullptr);
  adaexplore_runner_release_device();  // a module short of memory
  EXPECT_EQ(freed, (std::vector<void*>{&b, &a}));
  EXPECT_EQ(adaexplore_runner_take_device(64), nullptr);
  set_device_pool_free(nullptr);
}

const char* kTemplate = R"(#pragma once
// MODE 0: out[i] = 2 i; 1: writes through a wild pointer (illegal address, sticky);
// 2: a block of 2048 threads (invalid configuration at the launch, not sticky); 3: out[7] = NaN,
// out[9] = inf (the benchmark's verification then counts them with Benchmark::nonfinite).
__global__ void twice_kernel(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (${MODE} == 1 && i == 0) *reinterpret_cast<volatile float*>(0x10) = 1.0f;
  if (i < n) out[i] = ${MODE} == 3 && (i == 7 || i == 9) ? (i == 7 ? __int_as_float(0x7fc00000) : __int_as_float(0x7f800000)) : 2.0f * i;
}
inline unsigned block_threads() { return ${MODE} == 2 ? 2048u : 256u; }
inline int mode() { return ${MODE}; }
)";

const char* kBenchmark = R"(#include <adaexplore/harness.cuh>
#include "twice.cuh"
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 1 << 20;
  auto out = bench.output<float>(n);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = 2.0f * i;
  const unsigned threads = block_threads();
  return bench.run([&](cudaStream_t s) { twice_kernel<<<(n + 255) / 256, threads, 0, s>>>(out.get(), n); },
                   [&] {
                     const adaexplore::NonFinite bad = bench.nonfinite(out);
                     if (mode() == 3) {  // the verdict from nonfinite alone
                       adaexplore::Verification v;
                       v.checked = n;
                       v.mismatches = bad.count;
                       v.first_index = bad.first_index;
                       v.first_got = bad.first_value;
                       return v;
                     }
                     adaexplore::Verification v = bench.compare(out, ref);
                     // gather: the sample read on the device must be the values at those indices
                     const std::vector<float> sample = bench.gather(out, {5, 0, (std::size_t)n - 1, 5});
                     if (bad.count || sample != std::vector<float>{10.0f, 0.0f, 2.0f * (n - 1), 10.0f}) ++v.mismatches;
                     return v;
                   });
}
)";

class CudaRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = test::nvcc_path();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
    ::setenv("ADAEXPLORE_RUNNER", ADAEXPLORE_TUNER_EXECUTABLE, 1);
    cache_ = test::test_harness_cache();
    dir_ = test::fresh_test_directory("cuda-runner");
    std::ofstream(dir_ / "twice.cuh.in") << kTemplate;
    std::ofstream(dir_ / "twice_bench.cu") << kBenchmark;
    device_ = query_device();
    nlohmann::json j = {{"name", "twice"},
                        {"backend", "cuda"},
                        {"template", "twice.cuh.in"},
                        {"benchmark", "twice_bench.cu"},
                        {"parameters", {{{"name", "MODE"}, {"values", {0, 1, 2, 3}}}}},
                        {"compiler", {{"path", nvcc_}}},
                        {"run", {{"timeout_s", 60}, {"args", {"--adaexplore-measure-ms", "20"}}}}};
    if (!device_.present) j["compiler"]["arch"] = "sm_90";
    spec_ = parse_spec(j, dir_ / "spec.json");
    backend_ = make_cuda_backend(spec_, device_);
  }
  void TearDown() override {
    ::unsetenv("ADAEXPLORE_RUNNER");
    cache_.reset();
    backend_.reset();
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }
  Prepared prepare(int mode) {
    return backend_->prepare(spec_.space.config_from_texts({{"MODE", std::to_string(mode)}}));
  }
  Outcome evaluate(int mode) {
    Prepared p = prepare(mode);
    if (p.failure) return *p.failure;
    return backend_->measure(p);
  }
  std::size_t starts() const { return static_cast<const ProgramBackend&>(*backend_).runner_starts(); }

  std::string nvcc_;
  fs::path dir_;
  DeviceInfo device_;
  Spec spec_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<test::ScopedEnv> cache_;
};

// No GPU needed: the module links (nvcc -shared, no undefined symbols) and exports its entry.
TEST_F(CudaRunnerTest, BenchmarkBuildsAsALoadableModule) {
  const Prepared p = prepare(0);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(p.executable.filename(), "benchmark.so");
  const std::string cmd = read_file(p.directory / "compile.cmd");
  for (const char* flag : {"-shared", "-cudart shared", "-DADAEXPLORE_MODULE=1", "--no-undefined"})
    EXPECT_NE(cmd.find(flag), std::string::npos) << flag << " in " << cmd;
  void* handle = dlopen(p.executable.c_str(), RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_NE(dlsym(handle, "adaexplore_module_entry"), nullptr);
  dlclose(handle);
  fs::remove(p.executable);
}

TEST_F(CudaRunnerTest, OneContextForGoodRunsAndLaunchErrorsAFreshOneAfterAnIllegalAddress) {
  if (!device_.present) GTEST_SKIP() << "no GPU: " << device_.reason;
  const Outcome first = evaluate(0);
  ASSERT_EQ(first.status, Status::ok) << first.message;  // gather() and nonfinite() in its verification
  EXPECT_TRUE(first.stage_ms.count("load"));
  for (const char* stage : {"setup.context", "setup.buffers", "verify.download"})
    EXPECT_TRUE(first.stage_ms.count(stage)) << stage;
  ASSERT_TRUE(first.extra.contains("device_memory")) << first.extra.dump();
  // A fresh runner: the output buffer is new device memory (only the verification's few bytes of
  // scratch, given back by nonfinite() and taken by gather(), are reused).
  EXPECT_LT(first.extra["device_memory"].value("reused_bytes", -1), 1024) << first.extra.dump();
  EXPECT_GE(first.extra["device_memory"].value("allocated_bytes", 0), 4 << 20) << first.extra.dump();
  const Outcome launch = evaluate(2);
  EXPECT_EQ(launch.status, Status::launch_error) << launch.message;
  fs::remove_all(dir_ / "twice.work" / "evals");  // MODE 0 again: compiled anew
  const Outcome second = evaluate(0);
  ASSERT_EQ(second.status, Status::ok) << second.message;
  EXPECT_EQ(starts(), 1u);  // ok, launch_error, ok: one runner, one context
  ASSERT_TRUE(second.extra.contains("device_memory")) << second.extra.dump();
  // The same runner: the 4 MiB output block the earlier configurations gave back is reused.
  EXPECT_GE(second.extra["device_memory"].value("reused_bytes", 0), 4 << 20) << second.extra.dump();
  const Outcome nan = evaluate(3);
  EXPECT_EQ(nan.status, Status::wrong_result) << nan.message;
  EXPECT_NE(nan.message.find("2 of 1048576 values differ from the reference; first at index 7: got nan"),
            std::string::npos) << nan.message;
  const Outcome crash = evaluate(1);
  EXPECT_EQ(crash.status, Status::crash) << crash.message;
  EXPECT_NE(crash.message.find("cudaErrorIllegalAddress"), std::string::npos) << crash.message;
  fs::remove_all(dir_ / "twice.work" / "evals");
  const Outcome after = evaluate(0);
  ASSERT_EQ(after.status, Status::ok) << after.message;
  EXPECT_EQ(starts(), 2u);  // the sticky error cost one restart
}

}  // namespace
}  // namespace adaexplore
