// The CUDA harness's Benchmark::check_launch (templates/adaexplore/harness.cuh): a benchmark using it
// compiles for sm_90 with the cuda backend (no GPU needed); on a GPU, the driver's verdicts reach
// the outcome: a block over the kernel's maxThreadsPerBlock (here lowered to 256 by
// __launch_bounds__) is resource_limit before any launch, saying the static rules missed it; a block
// over the device's 1024 threads fails at the launch for real (launch_error); a block that fits is
// ok with blocks per SM and occupancy in extra.kernels. GPU parts are skipped without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "backends.hpp"
#include "process.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

const char* kTemplate = R"(#pragma once
__global__ void __launch_bounds__(256) bounded_kernel(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * i;
}
inline dim3 block_shape() { return dim3(${THREADS}); }
)";

const char* kBenchmark = R"(#include <adaexplore/harness.cuh>
#include "bounded.cuh"
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 1 << 20;
  auto out = bench.output<float>(n);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = 2.0f * i;
  bench.check_launch(bounded_kernel, block_shape(), 0, "bounded_kernel");
  const unsigned threads = block_shape().x;
  return bench.run([&](cudaStream_t s) { bounded_kernel<<<(n + threads - 1) / threads, threads, 0, s>>>(out.get(), n); },
                   [&] { return bench.compare(out, ref); });
}
)";

class HarnessCheckLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = test::nvcc_path();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
    dir_ = test::fresh_test_directory("harness");
    std::ofstream(dir_ / "bounded.cuh.in") << kTemplate;
    std::ofstream(dir_ / "bounded_bench.cu") << kBenchmark;
    device_ = query_device();
    nlohmann::json j = {{"name", "bounded"},
                        {"backend", "cuda"},
                        {"template", "bounded.cuh.in"},
                        {"benchmark", "bounded_bench.cu"},
                        {"parameters", {{{"name", "THREADS"}, {"values", {256, 512, 2048}}}}},
                        {"compiler", {{"path", nvcc_}}},
                        {"run", {{"timeout_s", 60}}}};
    if (!device_.present) j["compiler"]["arch"] = "sm_90";
    spec_ = parse_spec(j, dir_ / "spec.json");
    backend_ = make_cuda_backend(spec_, device_);
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }

  Prepared prepare(int threads) {
    return backend_->prepare(spec_.space.config_from_texts({{"THREADS", std::to_string(threads)}}));
  }
  // Compiles and, on a GPU, runs; the outcome of the run.
  Outcome evaluate(int threads) {
    Prepared p = prepare(threads);
    if (p.failure) return *p.failure;
    return backend_->measure(p);
  }

  std::string nvcc_;
  fs::path dir_;
  DeviceInfo device_;
  Spec spec_;
  std::unique_ptr<Backend> backend_;
};

TEST_F(HarnessCheckLaunchTest, BenchmarkUsingCheckLaunchCompiles) {
  const Prepared p = prepare(512);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_TRUE(fs::exists(p.executable));
  ASSERT_EQ(p.resources.size(), 1u);
  EXPECT_NE(p.resources.front().kernel.find("bounded_kernel"), std::string::npos);
}

TEST_F(HarnessCheckLaunchTest, BlockOverTheKernelsMaxThreadsIsResourceLimitBeforeTheLaunch) {
  if (!device_.present) GTEST_SKIP() << "no GPU: " << device_.reason;
  const Outcome o = evaluate(512);
  ASSERT_EQ(o.status, Status::resource_limit) << o.message;
  const std::string first_line = o.message.substr(0, o.message.find('\n'));
  EXPECT_NE(first_line.find("bounded_kernel: block of 512 threads > 256, the kernel's maxThreadsPerBlock at "),
            std::string::npos)
      << first_line;
  EXPECT_NE(first_line.find("the static rules missed it"), std::string::npos) << first_line;
  ASSERT_TRUE(o.extra.contains("kernels")) << o.extra.dump();
  const auto& k = o.extra["kernels"][0];
  EXPECT_EQ(k["max_threads_per_block"], 256);
  EXPECT_EQ(k["threads_per_block"], 512);
  EXPECT_EQ(k["launchable"], false);
  EXPECT_GT(k["registers"].get<int>(), 0);
}

TEST_F(HarnessCheckLaunchTest, BlockOverTheDevicesLimitFailsAtTheLaunchForReal) {
  if (!device_.present) GTEST_SKIP() << "no GPU: " << device_.reason;
  const Outcome o = evaluate(2048);
  ASSERT_EQ(o.status, Status::launch_error) << o.message;
  EXPECT_EQ(o.message.find("static rules"), std::string::npos) << o.message;
  const auto& k = o.extra["kernels"][0];
  EXPECT_EQ(k["launchable"], false);
  // A block of (2048, 1, 1) breaks the device's maxBlockDim.x (1024) before its maxThreadsPerBlock:
  // either is a device limit (H200 run, docs/results/2026-11-30-h200-failures/gputests.log).
  EXPECT_NE(k["reason"].get<std::string>().find("the device's max"), std::string::npos) << k.dump();
}

TEST_F(HarnessCheckLaunchTest, BlockThatFitsRecordsOccupancy) {
  if (!device_.present) GTEST_SKIP() << "no GPU: " << device_.reason;
  const Outcome o = evaluate(256);
  ASSERT_EQ(o.status, Status::ok) << o.message;
  const auto& k = o.extra["kernels"][0];
  EXPECT_EQ(k["name"], "bounded_kernel");
  EXPECT_EQ(k["launchable"], true);
  EXPECT_GT(k["blocks_per_sm"].get<int>(), 0);
  EXPECT_EQ(k["warps_per_sm"].get<int>(), k["blocks_per_sm"].get<int>() * 8);
  EXPECT_GT(k["occupancy"].get<double>(), 0.0);
  EXPECT_LE(k["occupancy"].get<double>(), 1.0);
}

}  // namespace
}  // namespace adaexplore
