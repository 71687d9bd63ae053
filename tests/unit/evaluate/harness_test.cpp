// The CUDA harness's Benchmark::check_launch (templates/adaexplore/harness.cuh): a benchmark using it
// compiles for sm_90 with the cuda backend (no GPU needed); on a GPU, the driver's verdicts reach
// the outcome: a block over the kernel's maxThreadsPerBlock (here lowered to 256 by
// __launch_bounds__) is resource_limit before any launch, saying the static rules missed it; a block
// over the device's 1024 threads fails at the launch for real (launch_error); a block that fits is
// ok with blocks per SM and occupancy in extra.kernels. GPU parts are skipped without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "evaluate/backends.hpp"
#include "util/process.hpp"
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

// Benchmark::compare with a reference from once() compares on the device; the verdict and the
// figures must be the host comparison's (compare_values). The program below fills an output with
// the exact sum, a sum within the tolerance, one element off, and a NaN, and prints both
// comparisons' figures for each; compiled here (no GPU needed), run only on a GPU.
// The fill kernel, with a host function that launches it (the test's own device code: with the
// harness compiled as plain C++ it is a translation unit of its own).
const char* kFillKernel = R"(#include <cuda_runtime.h>
__global__ void fill(float* out, const float* a, const float* b, unsigned long long n, int mode, long long wrong) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x) {
    float v = a[i] + b[i];
    if (mode >= 1) v = v * (1.0f + 1e-7f * static_cast<float>(i % 7));
    if (static_cast<long long>(i) == wrong) v = mode == 3 ? nanf("") : v + 1.0f;
    out[i] = v;
  }
}
void fill_on_device(float* out, const float* a, const float* b, unsigned long long n, int mode, long long wrong) {
  fill<<<1024, 256>>>(out, a, b, n, mode, wrong);
}
)";
// After the four cases, a line "G <gather matches the host copy> <nonfinite count> <its first
// index> <NaN among them>" for the last output (a NaN at n - 1).
const char* kCompareMain = R"(#include <adaexplore/harness.cuh>
#include <cstdio>
#include <utility>
#include <vector>
void fill_on_device(float* out, const float* a, const float* b, unsigned long long n, int mode, long long wrong);
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const std::size_t n = (std::size_t(1) << 22) + 3;
  auto a = bench.input<float>(n);
  auto b = bench.input<float>(n);
  auto c = bench.output<float>(n);
  const std::vector<float>& ref = bench.once("sum", [&] {
    std::vector<float> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = std::as_const(a).host()[i] + std::as_const(b).host()[i];
    return r;
  });
  const std::vector<float> copy = ref;  // not once()'s vector: compared on the host
  adaexplore::Tolerance tol;
  tol.rel = 1e-5;
  tol.abs = 1e-6;
  const long long cases[4][2] = {{0, -1}, {1, -1}, {2, 12345}, {3, static_cast<long long>(n) - 1}};
  for (const auto& k : cases) {
    fill_on_device(c.get(), a.get(), b.get(), n, static_cast<int>(k[0]), k[1]);
    if (cudaDeviceSynchronize() != cudaSuccess) return 2;
    const adaexplore::Verification d = bench.compare(c, ref, tol), h = bench.compare(c, copy, tol);
    std::printf("%lld %d %d %zu %zu %zu %zu %.17g %.17g %.17g %.17g %.17g %.17g\n", k[0], int(d.on_device),
                int(h.on_device), d.mismatches, h.mismatches, d.first_index, h.first_index, d.max_abs_error,
                h.max_abs_error, d.max_rel_error, h.max_rel_error, d.rel_l2_error, h.rel_l2_error);
  }
  const std::vector<std::size_t> at = {0, 5, 777, n - 1};
  const std::vector<float> got = bench.gather(a, at);
  bool same = got.size() == at.size();
  for (std::size_t i = 0; same && i < at.size(); ++i) same = got[i] == std::as_const(a).host()[at[i]];
  const adaexplore::NonFinite bad = bench.nonfinite(c);
  std::printf("G %d %zu %zu %zu\n", int(same), bad.count, bad.first_index, bad.nan);
  return 0;
}
)";

// Benchmark::compare with a reference from once() compares on the device; the verdict and the
// figures must be the host comparison's (compare_values). The program fills an output with the
// exact sum, a sum within the tolerance, one element off, and a NaN, and prints both comparisons'
// figures for each, then checks gather() and nonfinite(). Built two ways: whole, by nvcc (the
// harness's kernels defined in harness_kernels.cuh), and as the tuner builds a kernel unit's
// benchmark without device code of its own (program_backend.cpp): the benchmark as plain C++
// against the harness object and harness_kernels.cu's object (the kernels instantiated there).
// Compiled here (no GPU needed), run only on a GPU.
class HarnessDeviceCompareTest : public ::testing::TestWithParam<bool> {};

TEST_P(HarnessDeviceCompareTest, AgreesWithTheHostComparison) {
  const bool plain_cxx = GetParam();
  const std::string nvcc = test::nvcc_path();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
  const fs::path dir = test::fresh_test_directory(plain_cxx ? "harness-compare-cxx" : "harness-compare");
  const DeviceInfo device = query_device();
  const std::string templates = (fs::path(ADAEXPLORE_SOURCE_DIR) / "templates").string();
  const std::vector<std::string> flags = {nvcc, "-std=c++17", "-O2", device.present ? "-arch=native" : "-arch=sm_90",
                                          "-I" + templates};
  auto build = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = flags;
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run_process(argv, {});
    EXPECT_TRUE(r.ok()) << r.command_line() << "\n" << r.err << r.out;
    return r.ok();
  };
  const std::string program = (dir / "compare").string();
  if (plain_cxx) {
    std::ofstream(dir / "main.cu") << kCompareMain;
    std::ofstream(dir / "fill.cu") << kFillKernel;
    const std::string adaexplore = templates + "/adaexplore/";
    ASSERT_TRUE(build({"-DADAEXPLORE_HARNESS_SEPARATE=1", "-x", "c++", "-c", (dir / "main.cu").string(), "-o",
                       (dir / "main.o").string()}));
    ASSERT_TRUE(build({"-DADAEXPLORE_HARNESS_SEPARATE=1", "-x", "c++", "-c", adaexplore + "harness_separate.cu", "-o",
                       (dir / "harness.o").string()}));
    ASSERT_TRUE(build({"-c", adaexplore + "harness_kernels.cu", "-o", (dir / "kernels.o").string()}));
    ASSERT_TRUE(build({"-c", (dir / "fill.cu").string(), "-o", (dir / "fill.o").string()}));
    ASSERT_TRUE(build({(dir / "main.o").string(), (dir / "harness.o").string(), (dir / "kernels.o").string(),
                       (dir / "fill.o").string(), "-o", program}));
  } else {
    std::ofstream(dir / "compare.cu") << kFillKernel << kCompareMain;
    ASSERT_TRUE(build({(dir / "compare.cu").string(), "-o", program}));
  }
  if (!device.present) GTEST_SKIP() << "compiled; no GPU to run it: " << device.reason;
  const ProcessResult ran = run_process({program}, {});
  ASSERT_TRUE(ran.ok()) << ran.err << ran.out;
  std::istringstream lines(ran.out);
  int cases = 0;
  bool gathered = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '{') continue;  // the harness's own record, if any
    std::istringstream in(line);
    if (line[0] == 'G') {
      std::string tag;
      int same = 0;
      std::size_t count = 0, first = 0, nan = 0;
      ASSERT_TRUE(in >> tag >> same >> count >> first >> nan) << line;
      EXPECT_EQ(same, 1) << line;
      EXPECT_EQ(count, 1u) << line;
      EXPECT_EQ(first, (std::size_t(1) << 22) + 2) << line;
      EXPECT_EQ(nan, 1u) << line;
      gathered = true;
      continue;
    }
    int mode = 0, d_dev = 0, h_dev = 0;
    std::size_t d_bad = 0, h_bad = 0, d_first = 0, h_first = 0;
    double d_abs = 0, h_abs = 0, d_rel = 0, h_rel = 0, d_l2 = 0, h_l2 = 0;
    ASSERT_TRUE(in >> mode >> d_dev >> h_dev >> d_bad >> h_bad >> d_first >> h_first >> d_abs >> h_abs >> d_rel >> h_rel >>
                d_l2 >> h_l2)
        << line;
    ++cases;
    SCOPED_TRACE("case " + std::to_string(mode) + ": " + line);
    EXPECT_EQ(h_dev, 0);
    EXPECT_EQ(d_bad, h_bad);
    EXPECT_EQ(d_bad, mode >= 2 ? 1u : 0u);
    if (d_bad) {  // a wrong element: compared again on the host, for the report
      EXPECT_EQ(d_dev, 0);
      EXPECT_EQ(d_first, h_first);
      EXPECT_EQ(d_first, mode == 2 ? 12345u : (std::size_t(1) << 22) + 2);
    } else {
      EXPECT_EQ(d_dev, 1);
    }
    EXPECT_EQ(d_abs, h_abs);  // maxima: the same operations, any order
    EXPECT_EQ(d_rel, h_rel);
    EXPECT_NEAR(d_l2, h_l2, 1e-9 * std::max(h_l2, 1e-300));  // sums: another order
    if (mode == 0) EXPECT_EQ(d_abs, 0.0);
    if (mode == 1) EXPECT_GT(d_abs, 0.0);
  }
  EXPECT_EQ(cases, 4) << ran.out;
  EXPECT_TRUE(gathered) << ran.out;
}

INSTANTIATE_TEST_SUITE_P(WholeAndPlainCxx, HarnessDeviceCompareTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? std::string("PlainCxx") : std::string("Whole"); });


}  // namespace
}  // namespace adaexplore
