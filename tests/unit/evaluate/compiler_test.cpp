// What a configuration's compile leaves in its work folder, pinned whole: compile.cmd line by line
// and the folder's files, for the whole program (host, with and without the runner and a
// launcher; cuda for sm_90, the harness header-only and built apart) and the kernel unit (cuda,
// sm_90, compiled and served from the compile cache). The cuda tests skip without nvcc.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>

#include "evaluate/backends.hpp"
#include "evaluate/program_backend.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::set<std::string> files_in(const fs::path& directory) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory))
    names.insert(entry.path().filename().string());
  return names;
}

class HostCompileCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("ADAEXPLORE_RUNNER");
    dir_ = test::fresh_test_directory("compile-cmd");
    fs::create_directories(dir_ / "inc");
    std::ofstream(dir_ / "k.hpp.in") << "inline constexpr int K = ${X};\n";
    std::ofstream(dir_ / "k_bench.cpp")
        << "#include \"k.hpp\"\nint main() { return K == 2 ? 0 : 1; }\n";
    std::ofstream(dir_ / "launcher.sh") << "#!/bin/sh\nexec \"$@\"\n";
    ::chmod((dir_ / "launcher.sh").c_str(), 0755);
  }
  void TearDown() override {
    ::unsetenv("ADAEXPLORE_RUNNER");
    if (!HasFailure()) fs::remove_all(dir_);
  }

  Spec spec(const nlohmann::json& launcher = nlohmann::json::array()) const {
    const nlohmann::json j = {{"name", "k"},
                              {"backend", "host"},
                              {"template", "k.hpp.in"},
                              {"benchmark", "k_bench.cpp"},
                              {"parameters", {{{"name", "X"}, {"values", {2, 3}}}}},
                              {"compiler",
                               {{"flags", {"-O0"}},
                                {"definitions", {"FOO=1", "-DBAR"}},
                                {"include_dirs", {"inc"}},
                                {"launcher", launcher}}}};
    return parse_spec(j, dir_ / "spec.json");
  }
  // Everything after the compiler's name up to the source, for configuration X=2.
  std::string shared_part(const Prepared& p, const Spec& s) const {
    return "-std=c++17 -O2 -O0 -I" + p.directory.string() + " -I" + dir_.string() + " -I" +
           harness_dir(s).string() + " -I" + (dir_ / "inc").string() +
           " -DFOO=1 -DBAR -DADAEXPLORE_PARAM_X=2";
  }

  fs::path dir_;
};

TEST_F(HostCompileCommand, OneProcessPerEvaluationCompilesTheBenchmarkToAnExecutable) {
  const Spec s = spec();
  auto backend = make_host_backend(s);
  const Prepared p = backend->prepare(s.defaults);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(p.executable, p.directory / "benchmark");
  EXPECT_EQ(read_file(p.directory / "compile.cmd"), "c++ " + shared_part(p, s) + " " +
                                                        (dir_ / "k_bench.cpp").string() + " -o " +
                                                        p.executable.string() + "\n");
  EXPECT_EQ(files_in(p.directory), (std::set<std::string>{"k.hpp", "compile.cmd", "compile.out",
                                                          "compile.err", "benchmark"}));
  EXPECT_EQ(read_file(p.directory / "k.hpp"), "inline constexpr int K = 2;\n");
}

TEST_F(HostCompileCommand, TheRunnerCompilesTheBenchmarkToAModule) {
  ::setenv("ADAEXPLORE_RUNNER", ADAEXPLORE_TUNER_EXECUTABLE, 1);
  const Spec s = spec();
  auto backend = make_host_backend(s);
  const Prepared p = backend->prepare(s.defaults);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(p.executable, p.directory / "benchmark.so");
  const bool clang = backend->device().value("compiler", "").find("clang") != std::string::npos;
  const std::string module =
      std::string(" -shared -fPIC -Wl,--no-undefined -DADAEXPLORE_MODULE=1") +
      (clang ? "" : " -fno-gnu-unique");
  EXPECT_EQ(read_file(p.directory / "compile.cmd"), "c++ " + shared_part(p, s) + module + " " +
                                                        (dir_ / "k_bench.cpp").string() + " -o " +
                                                        p.executable.string() + "\n");
  EXPECT_EQ(files_in(p.directory), (std::set<std::string>{"k.hpp", "compile.cmd", "compile.out",
                                                          "compile.err", "benchmark.so"}));
}

// With a launcher: compiled to an object with it, linked without it; the object removed.
TEST_F(HostCompileCommand, ALauncherCompilesAnObjectAndTheLinkRunsWithoutIt) {
  const std::string launcher = (dir_ / "launcher.sh").string();
  const Spec s = spec({launcher});
  auto backend = make_host_backend(s);
  const Prepared p = backend->prepare(s.defaults);
  ASSERT_FALSE(p.failure) << p.failure->message;
  const std::string object = (p.directory / "benchmark.o").string();
  EXPECT_EQ(read_file(p.directory / "compile.cmd"),
            launcher + " c++ " + shared_part(p, s) + " -c " + (dir_ / "k_bench.cpp").string() +
                " -o " + object + "\nc++ " + shared_part(p, s) + " " + object + " -o " +
                p.executable.string() + "\n");
  EXPECT_EQ(files_in(p.directory),
            (std::set<std::string>{"k.hpp", "compile.cmd", "compile.out", "compile.err", "link.out",
                                   "link.err", "benchmark"}));
  EXPECT_TRUE(p.stage_ms.count("link"));
}

// A rejected compile: compile_error with the compiler's first error line; no artifact.
TEST_F(HostCompileCommand, ACompileErrorKeepsTheCommandAndTheFirstErrorLine) {
  std::ofstream(dir_ / "k.hpp.in") << "inline constexpr int K = ${X} +;\n";
  const Spec s = spec();
  auto backend = make_host_backend(s);
  const Prepared p = backend->prepare(s.defaults);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::compile_error);
  // The first line: the compiler's first error line (then the command and the output).
  EXPECT_EQ(p.failure->message.rfind((p.directory / "k.hpp").string() + ":1:", 0), 0u)
      << p.failure->message;
  EXPECT_NE(p.failure->message.find("error"), std::string::npos) << p.failure->message;
  EXPECT_EQ(read_file(p.directory / "compile.cmd"), "c++ " + shared_part(p, s) + " " +
                                                        (dir_ / "k_bench.cpp").string() + " -o " +
                                                        p.executable.string() + "\n");
  EXPECT_EQ(files_in(p.directory),
            (std::set<std::string>{"k.hpp", "compile.cmd", "compile.out", "compile.err"}));
}

const char* kFillTemplate = R"(#pragma once
__global__ void fill_kernel(float* out, int n) {
  __shared__ float buffer[${SHARED}];
  for (int i = threadIdx.x; i < ${SHARED}; i += blockDim.x) buffer[i] = 0.5f * i;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buffer[i % ${SHARED}];
}
)";

const char* kFillBenchmark = R"(#include <adaexplore/harness.cuh>
#include <vector>
#include "fill.cuh"
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  auto out = bench.output<float>(256);
  std::vector<float> ref(256);
  for (int i = 0; i < 256; ++i) ref[i] = 0.5f * (i % ADAEXPLORE_PARAM_SHARED);
  return bench.run([&](cudaStream_t s) { fill_kernel<<<1, 256, 0, s>>>(out.get(), 256); },
                   [&] { return bench.compare(out, ref); });
}
)";

class CudaCompileCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = test::nvcc_path();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
    ::unsetenv("ADAEXPLORE_RUNNER");
    dir_ = test::fresh_test_directory("cuda-compile-cmd");
    cache_ = std::make_unique<test::ScopedEnv>("ADAEXPLORE_CACHE_DIR", (dir_ / "cache").string());
    std::ofstream(dir_ / "fill.cuh.in") << kFillTemplate;
    std::ofstream(dir_ / "fill_bench.cu") << kFillBenchmark;
    // The kernel unit's: the template alone, the benchmark never includes it.
    std::ofstream(dir_ / "unit.cuh.in")
        << "#pragma once\nextern \"C\" __global__ void unit_kernel(float* out) "
           "{ out[threadIdx.x] = ${N}; }\n";
    std::ofstream(dir_ / "unit_bench.cu") << "int main() { return 0; }\n";
  }
  void TearDown() override {
    cache_.reset();
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }

  Spec fill_spec() const {
    const nlohmann::json j = {{"name", "fill"},
                              {"backend", "cuda"},
                              {"template", "fill.cuh.in"},
                              {"benchmark", "fill_bench.cu"},
                              {"parameters", {{{"name", "SHARED"}, {"values", {256, 512}}}}},
                              {"compiler", {{"path", nvcc_}, {"arch", "sm_90"}}}};
    return parse_spec(j, dir_ / "spec.json");
  }
  Spec unit_spec(const std::string& work_dir) const {
    const nlohmann::json j = {
        {"name", "unit"},
        {"backend", "cuda"},
        {"template", "unit.cuh.in"},
        {"benchmark", "unit_bench.cu"},
        {"work_dir", work_dir},
        {"parameters", {{{"name", "N"}, {"values", {128, 256}}}}},
        {"compiler", {{"path", nvcc_}, {"arch", "sm_90"}, {"unit", "kernel"}}}};
    return parse_spec(j, dir_ / "spec.json");
  }
  std::string fill_part(const Prepared& p, const Spec& s) const {
    return nvcc_ + " -std=c++17 -O1 -arch=sm_90 -Xptxas -v -lineinfo -I" + p.directory.string() +
           " -I" + dir_.string() + " -I" + harness_dir(s).string() +
           " -DADAEXPLORE_PARAM_SHARED=256";
  }

  std::string nvcc_;
  fs::path dir_;
  std::unique_ptr<test::ScopedEnv> cache_;
};

TEST_F(CudaCompileCommand, TheWholeProgramWithTheHarnessHeaderOnly) {
  const Spec s = fill_spec();
  auto backend = make_cuda_backend(s, DeviceInfo{});
  static_cast<ProgramBackend&>(*backend).use_header_only_harness();
  const Prepared p = backend->prepare(s.defaults);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(read_file(p.directory / "compile.cmd"),
            fill_part(p, s) + " " + (dir_ / "fill_bench.cu").string() + " -o " +
                (p.directory / "benchmark").string() + "\n");
  EXPECT_EQ(files_in(p.directory), (std::set<std::string>{"fill.cuh", "compile.cmd", "compile.out",
                                                          "compile.err", "benchmark"}));
  ASSERT_EQ(p.resources.size(), 1u);
  EXPECT_NE(p.resources[0].kernel.find("fill_kernel"), std::string::npos) << p.resources[0].kernel;
  EXPECT_EQ(p.resources[0].shared_bytes, 256 * 4);
  EXPECT_FALSE(p.compile_cached);
}

TEST_F(CudaCompileCommand, TheWholeProgramAgainstTheHarnessBuiltApart) {
  const Spec s = fill_spec();
  auto backend = make_cuda_backend(s, DeviceInfo{});
  const fs::path object = static_cast<ProgramBackend&>(*backend).harness_object(/*wait=*/true);
  ASSERT_FALSE(object.empty());
  const Prepared p = backend->prepare(s.defaults);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(read_file(p.directory / "compile.cmd"),
            fill_part(p, s) + " -DADAEXPLORE_HARNESS_SEPARATE=1 " +
                (dir_ / "fill_bench.cu").string() + " " + object.string() + " -o " +
                (p.directory / "benchmark").string() + "\n");
  EXPECT_EQ(files_in(p.directory), (std::set<std::string>{"fill.cuh", "compile.cmd", "compile.out",
                                                          "compile.err", "benchmark"}));
  ASSERT_EQ(p.resources.size(), 1u);
}

// The kernel unit: kernel.cu to kernel.cubin, niced; a second tuning (another work folder, the same
// compile cache) is served from the cache, its compile.cmd the command without nice and where from.
TEST_F(CudaCompileCommand, TheKernelUnitCompiledThenServedFromTheCache) {
  for (const std::string work : {"first.work", "second.work"}) {
    SCOPED_TRACE(work);
    const Spec s = unit_spec(work);
    auto backend = make_cuda_backend(s, DeviceInfo{});
    static_cast<ProgramBackend&>(*backend)
        .use_header_only_harness();  // the benchmark's build: one nvcc
    const Prepared p = backend->prepare(s.defaults);
    ASSERT_FALSE(p.failure) << p.failure->message;
    EXPECT_EQ(p.executable, p.directory / "kernel.cubin");
    const std::string command =
        nvcc_ + " -std=c++17 -cubin -arch=sm_90 -Xptxas -v -lineinfo -I" + p.directory.string() +
        " -I" + dir_.string() + " -I" + harness_dir(s).string() +
        " -DADAEXPLORE_PARAM_N=128 -MD -MF " + (p.directory / "kernel.d").string() + " " +
        (p.directory / "kernel.cu").string() + " -o " + p.executable.string();
    EXPECT_EQ(read_file(p.directory / "kernel.cu"),
              "// Generated by adaexplore-tuner: the configuration's device code alone (the kernel "
              "unit).\n"
              "#include \"unit.cuh\"\n");
    ASSERT_EQ(p.resources.size(), 1u);
    EXPECT_EQ(p.resources[0].kernel, "unit_kernel");
    const std::string cmd = read_file(p.directory / "compile.cmd");
    if (work == "first.work") {
      const fs::path nice = find_program("nice");
      EXPECT_EQ(cmd, (nice.empty() ? "" : nice.string() + " -n 5 ") + command + "\n");
      EXPECT_FALSE(p.compile_cached);
      EXPECT_EQ(files_in(p.directory),
                (std::set<std::string>{"unit.cuh", "kernel.cu", "kernel.d", "kernel.cubin",
                                       "compile.cmd", "compile.out", "compile.err"}));
    } else {
      EXPECT_EQ(cmd, command + "\n# served from " + (dir_ / "cache" / "kernels").string() + "\n");
      EXPECT_TRUE(p.compile_cached);
      EXPECT_EQ(files_in(p.directory),
                (std::set<std::string>{"unit.cuh", "kernel.cu", "kernel.cubin", "compile.cmd",
                                       "compile.out", "compile.err"}));
    }
    EXPECT_TRUE(static_cast<ProgramBackend&>(*backend).benchmark_build().error.empty())
        << static_cast<ProgramBackend&>(*backend).benchmark_build().error;
  }
}

}  // namespace
}  // namespace adaexplore
