// A kernel brought as it is (issue 36): a macro-configured source (kernel_source) with a
// __constant__ and a __device__ variable, a declared launch shape, and either declared arguments
// (the tuner writes the benchmark) or a hand-written benchmark that sets and reads the globals by
// name. Without a GPU: in both compile units each configuration's cubin holds the kernel and both
// globals in its symbol table, the generated benchmark compiles, and the reference configuration
// compiles into its own folder. On a GPU: the globals' copies (set, read back, absent), the launch
// with the declared shape, and the reference from the GPU, in both units.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "evaluate/backends.hpp"
#include "evaluate/device.hpp"
#include "evaluate/program_backend.hpp"
#include "test_support.hpp"
#include "util/files.hpp"
#include "util/process.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// MODE 0: out[i] = coeff[i % 4] * in[i]; 1: out[7] one more (a wrong result); 2: the hand-written
// benchmark sets a global that does not exist.
const char* kKernel = R"(// configured by macros: BLOCK, MODE
__constant__ float coeff[4];
__device__ unsigned launches;
__global__ void scaled(const float* in, float* out, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = coeff[i % 4] * in[i] + (MODE == 1 && i == 7 ? 1.0f : 0.0f);
  if (i == 0) atomicAdd(&launches, 1u);
}
)";

const char* kBenchmark = R"(#include <adaexplore/harness.cuh>
#include <utility>
#include <vector>
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 4096;
  auto in = bench.input<float>(n);
  auto out = bench.output<float>(n);
  const std::vector<float> c = {0.5f, -2.0f, 3.0f, 0.25f};
  bench.set_global("coeff", c);
  bench.set_global("launches", std::vector<unsigned>{0});
  if (bench.param("MODE") == 2) bench.set_global("no_such_symbol", c);
  if (bench.get_global<float>("coeff", 4) != c) bench.fail("wrong_result", "", "coeff read back differs");
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = c[i % 4] * std::as_const(in).host()[i];
  const adaexplore::Kernel k = bench.kernel();
  const int code = bench.run([&] { bench.launch(k, in, out, n); }, [&] { return bench.compare(out, ref); });
  if (bench.get_global<unsigned>("launches", 1)[0] == 0) bench.fail("wrong_result", "", "no launch counted");
  return code;
}
)";

class DeclaredKernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    nvcc_ = test::nvcc_path();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
    ::setenv("ADAEXPLORE_RUNNER", ADAEXPLORE_TUNER_EXECUTABLE, 1);
    dir_ = test::fresh_test_directory("declared-" + GetParam());
    cache_ = std::make_unique<test::ScopedEnv>("ADAEXPLORE_CACHE_DIR", (dir_ / "cache").string());
    std::ofstream(dir_ / "scaled.cu") << kKernel;
    std::ofstream(dir_ / "scaled_bench.cu") << kBenchmark;
  }
  void TearDown() override {
    ::unsetenv("ADAEXPLORE_RUNNER");
    cache_.reset();
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }
  // generated: declared arguments (the tuner writes the benchmark); else scaled_bench.cu.
  Spec spec(bool generated, const std::string& arch) const {
    nlohmann::json j = {{"name", "scaled"},
                        {"backend", "cuda"},
                        {"kernel_source", "scaled.cu"},
                        {"kernel", "scaled"},
                        {"parameters", {{{"name", "BLOCK"}, {"values", {128, 256}}}, {{"name", "MODE"}, {"values", {0, 1, 2}}}}},
                        {"defaults", {{"BLOCK", 128}, {"MODE", 0}}},
                        {"launch", {{"block", {"BLOCK"}}, {"grid", {"ceil(4096 / BLOCK)"}}}},
                        {"compiler", {{"path", nvcc_}, {"unit", GetParam()}}},
                        {"work_dir", generated ? "generated.work" : "written.work"},
                        {"run", {{"timeout_s", 60}, {"args", {"--adaexplore-measure-ms", "20"}}}}};
    if (!arch.empty()) j["compiler"]["arch"] = arch;
    if (generated) {
      j["arguments"] = {"input float in[4096]", "output float out[4096]", "scalar int n = 4096", "global float coeff[4]"};
      j["reference"] = "defaults";
    } else {
      j["benchmark"] = "scaled_bench.cu";
    }
    return parse_spec(j, dir_ / "spec.json");
  }
  static Config config(const Spec& s, int block, int mode) {
    return s.space.config_from_texts({{"BLOCK", std::to_string(block)}, {"MODE", std::to_string(mode)}});
  }

  std::string nvcc_;
  fs::path dir_;
  std::unique_ptr<test::ScopedEnv> cache_;
};

TEST_P(DeclaredKernelTest, EachCubinHoldsTheKernelAndItsGlobalsAndTheGeneratedBenchmarkCompiles) {
  const Spec s = spec(true, "sm_90");
  auto backend = make_cuda_backend(s, DeviceInfo{});
  auto& program = static_cast<ProgramBackend&>(*backend);
  const Prepared p = backend->prepare(config(s, 256, 0));
  ASSERT_FALSE(p.failure) << p.failure->message;
  const fs::path cubin = p.directory / "kernel.cubin";
  ASSERT_TRUE(fs::exists(cubin)) << "no cubin in " << p.directory;
  // The symbol table (a cubin is an ELF file: binutils' readelf reads it): the kernel and both
  // globals, by the names set_global() asks the driver for, as objects of the cubin.
  const ProcessResult symbols = run_process({"readelf", "-Ws", cubin.string()});
  if (symbols.failed_to_start) GTEST_SKIP() << "readelf not found: " << symbols.error;
  ASSERT_TRUE(symbols.ok()) << symbols.err;
  // (A whole-program compile's variables are local symbols of the ELF file; the driver finds them
  // by name all the same.)
  auto has_symbol = [&](const std::string& type, const std::string& name) {
    std::istringstream lines(symbols.out);
    for (std::string line; std::getline(lines, line);)
      if (line.find(" " + type + " ") != std::string::npos && line.size() > name.size() &&
          line.compare(line.size() - name.size() - 1, std::string::npos, " " + name) == 0)
        return true;
    return false;
  };
  EXPECT_TRUE(has_symbol("OBJECT", "coeff")) << symbols.out;
  EXPECT_TRUE(has_symbol("OBJECT", "launches")) << symbols.out;
  EXPECT_TRUE(has_symbol("FUNC", "_Z6scaledPKfPfi")) << symbols.out;
  // The configuration's macros come first, then the source as it is.
  const std::string unit = read_file(p.directory / "scaled_configured.cuh");
  EXPECT_NE(unit.find("#define BLOCK 256\n#define MODE 0\n"), std::string::npos) << unit;
  // The benchmark the tuner wrote sets the global by name and launches with the declared shape.
  const std::string generated = read_file(dir_ / "generated.work" / "generated" / "scaled_bench.cu");
  EXPECT_NE(generated.find("bench.global<float>(\"coeff\", "), std::string::npos) << generated;
  EXPECT_NE(generated.find("bench.launch(kernel, arg_in, arg_out, static_cast<int>(bench.value(\"n\")))"),
            std::string::npos) << generated;
  const ProgramBackend::BenchmarkBuild& build = program.benchmark_build();
  EXPECT_TRUE(build.error.empty()) << build.error;
  // The reference configuration (the defaults), compiled once into its own folder.
  const fs::path reference = program.reference_cubin();
  EXPECT_TRUE(fs::exists(reference)) << reference;
  EXPECT_NE(reference.string().find("reference"), std::string::npos) << reference;
}

TEST_P(DeclaredKernelTest, OnAGpuTheGlobalsAreCopiedByNameAndTheReferenceComesFromTheGpu) {
  const DeviceInfo device = query_device();
  if (!device.present) GTEST_SKIP() << "no GPU: " << device.reason;
  for (const bool generated : {false, true}) {
    SCOPED_TRACE(generated ? "declared arguments" : "hand-written benchmark");
    const Spec s = spec(generated, "");
    auto backend = make_cuda_backend(s, device);
    auto evaluate = [&](int block, int mode) {
      Prepared p = backend->prepare(config(s, block, mode));
      if (p.failure) return *p.failure;
      return backend->measure(p);
    };
    // Set, read back and used by the kernel (a coeff left at zero would make every output 0).
    const Outcome ok = evaluate(256, 0);
    EXPECT_EQ(ok.status, Status::ok) << ok.message;
    const Outcome wrong = evaluate(128, 1);
    EXPECT_EQ(wrong.status, Status::wrong_result) << wrong.message;
    EXPECT_NE(wrong.message.find("index 7"), std::string::npos) << wrong.message;
    if (!generated) {
      const Outcome absent = evaluate(128, 2);
      EXPECT_EQ(absent.status, Status::launch_error) << absent.message;
      EXPECT_NE(absent.message.find("no_such_symbol"), std::string::npos) << absent.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothUnits, DeclaredKernelTest, ::testing::Values("kernel", "program"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace adaexplore
