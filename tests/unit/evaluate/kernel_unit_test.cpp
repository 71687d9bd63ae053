// The kernel unit (kernel_unit.hpp, compiler.unit): which unit a spec gets, the dependency file
// and the compile cache without nvcc; with nvcc and no GPU, each configuration's device code
// compiled alone to a cubin for sm_80 and sm_90 with its ptxas report, the benchmark compiled once,
// the cache serving a configuration compiled before and missing after a header it includes changed;
// on a GPU, every status through the kernel unit in the runner, and the benchmark's buffers made
// once and restored for later configurations.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>

#include "evaluate/backends.hpp"
#include "evaluate/device.hpp"
#include "evaluate/kernel_unit.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

TEST(KernelUnit, IncludesFileMatchesIncludeLinesByNameOrTrailingPath) {
  EXPECT_TRUE(includes_file("#include \"gemm.cuh\"\n", "gemm.cuh"));
  EXPECT_TRUE(includes_file("  #  include <gemm.cuh>\n", "gemm.cuh"));
  EXPECT_TRUE(includes_file("#include \"tuned/gemm.cuh\"\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("#include \"mygemm.cuh\"\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("// gemm.cuh is rendered per configuration\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("#include \"gemm.cuh.in\"\n", "gemm.cuh"));
  // A benchmark written for both units: the include compiled without the kernel unit only.
  EXPECT_FALSE(includes_file("#ifndef ADAEXPLORE_KERNEL_UNIT\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("#if !defined(ADAEXPLORE_KERNEL_UNIT)\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_TRUE(includes_file("#ifndef ADAEXPLORE_KERNEL_UNIT\n#else\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_TRUE(includes_file("#ifdef ADAEXPLORE_KERNEL_UNIT\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_TRUE(includes_file("#ifndef SOMETHING_ELSE\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  // The #else of #ifdef ADAEXPLORE_KERNEL_UNIT is compiled without it (before 2026-12-05 AUTO read
  // this include as the kernel unit's and compiled the whole program per configuration).
  EXPECT_FALSE(includes_file("#ifdef ADAEXPLORE_KERNEL_UNIT\nauto k = bench.kernel(\"x\");\n#else\n#include \"gemm.cuh\"\n#endif\n",
                             "gemm.cuh"));
  EXPECT_FALSE(includes_file("#if defined(ADAEXPLORE_KERNEL_UNIT)\n#elif FOO\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("#if ADAEXPLORE_KERNEL_UNIT // the unit\n#else\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("#if !ADAEXPLORE_KERNEL_UNIT && FOO\n#include \"gemm.cuh\"\n#endif\n", "gemm.cuh"));
  EXPECT_FALSE(includes_file("#ifdef ADAEXPLORE_KERNEL_UNIT\n#else\n#ifdef FOO\n#include \"gemm.cuh\"\n#endif\n#endif\n",
                             "gemm.cuh"));  // nested
  EXPECT_TRUE(includes_file("#ifdef ADAEXPLORE_KERNEL_UNIT\n#else\n#endif\n#include \"gemm.cuh\"\n", "gemm.cuh"));
  EXPECT_TRUE(includes_file("#if defined(ADAEXPLORE_KERNEL_UNIT) || FOO\n#else\n#endif\n#if FOO\n#else\n#include \"gemm.cuh\"\n#endif\n",
                            "gemm.cuh"));  // neither condition says the unit alone
}

TEST(KernelUnit, DependencyFileParsesContinuationsAndEscapedSpaces) {
  const auto deps = parse_dependency_file("kernel.cubin : kernel.cu \\\n    /a/b.cuh \\\n /c/with\\ space.h\n");
  ASSERT_EQ(deps.size(), 3u);
  EXPECT_EQ(deps[0], "kernel.cu");
  EXPECT_EQ(deps[1], "/a/b.cuh");
  EXPECT_EQ(deps[2], "/c/with space.h");
}

class KernelUnitSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("kernel-unit-spec");
    std::ofstream(dir_ / "k.cuh.in") << "__global__ void k() {}\n";
    std::ofstream(dir_ / "whole.cu") << "#include \"k.cuh\"\nint main() {}\n";
    std::ofstream(dir_ / "split.cu") << "#include <adaexplore/harness.cuh>\nint main() {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  Spec spec(const std::string& benchmark, const std::string& unit, const std::string& backend = "cuda") const {
    nlohmann::json j = {{"name", "k"},          {"backend", backend},
                        {"template", "k.cuh.in"}, {"benchmark", benchmark},
                        {"parameters", {{{"name", "X"}, {"values", {1}}}}}};
    if (!unit.empty()) j["compiler"] = {{"unit", unit}};
    return parse_spec(j, dir_ / "spec.json");
  }
  fs::path dir_;
};

TEST_F(KernelUnitSpecTest, AutoChoosesTheWholeProgramWhenTheBenchmarkIncludesTheRenderedTemplate) {
  const CompileUnit whole = choose_compile_unit(spec("whole.cu", ""), "k.cuh", true);
  EXPECT_FALSE(whole.kernel);
  EXPECT_NE(whole.reason.find("whole.cu includes k.cuh"), std::string::npos) << whole.reason;
  const CompileUnit split = choose_compile_unit(spec("split.cu", "auto"), "k.cuh", true);
  EXPECT_TRUE(split.kernel);
  EXPECT_NE(split.reason.find("does not include k.cuh"), std::string::npos) << split.reason;
  EXPECT_TRUE(choose_compile_unit(spec("whole.cu", "kernel"), "k.cuh", true).kernel);   // as asked
  EXPECT_FALSE(choose_compile_unit(spec("split.cu", "program"), "k.cuh", true).kernel);  // as asked
  EXPECT_FALSE(choose_compile_unit(spec("split.cu", "auto", "host"), "k.cuh", false).kernel);
}

// nvcc before 12.4 lacks the kernel unit's runtime API (harness.cuh): AUTO compiles the whole
// program saying why, and an explicit "kernel" is refused naming the release.
TEST_F(KernelUnitSpecTest, AToolkitBefore12Point4GetsTheWholeProgram) {
  const std::string nvcc123 = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.3, V12.3.107\n";
  const std::string problem = kernel_unit_toolkit_problem(nvcc123);
  EXPECT_EQ(problem.rfind("nvcc release 12.3 (the kernel unit needs CUDA 12.4 or newer", 0), 0u) << problem;
  EXPECT_NE(kernel_unit_toolkit_problem("Cuda compilation tools, release 11.8, V11.8.89"), "");
  EXPECT_EQ(kernel_unit_toolkit_problem("Cuda compilation tools, release 12.4, V12.4.131"), "");
  EXPECT_EQ(kernel_unit_toolkit_problem("Cuda compilation tools, release 13.0, V13.0.88"), "");
  EXPECT_EQ(kernel_unit_toolkit_problem("clang version 17.0.6"), "");
  const CompileUnit old = choose_compile_unit(spec("split.cu", "auto"), "k.cuh", true, problem);
  EXPECT_FALSE(old.kernel);
  EXPECT_NE(old.reason.find("the whole benchmark per configuration: nvcc release 12.3"), std::string::npos) << old.reason;
  try {
    choose_compile_unit(spec("split.cu", "kernel"), "k.cuh", true, problem);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compiler.unit \"kernel\": nvcc release 12.3"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(choose_compile_unit(spec("split.cu", "program"), "k.cuh", true, problem).kernel);
}

// Compiled against CUDA 12.0 to 12.3 the harness uses nothing newer: a benchmark that calls
// Benchmark::kernel() compiles (and fails at run time saying so) with the 12.4 functions poisoned.
// The same source against 12.4 uses them (the check can fail). The CUDA headers are needed.
TEST(HarnessCudaVersion, BeforeTwelvePointFourTheHarnessUsesNoNewerFunction) {
  const std::filesystem::path include = "/usr/local/cuda/include";
  if (!std::filesystem::exists(include / "cuda_runtime.h")) GTEST_SKIP() << "no CUDA headers in " << include;
  const std::filesystem::path dir = test::fresh_test_directory("harness-version");
  std::ofstream(dir / "old.cpp") << R"(#include <cuda_runtime.h>
#pragma GCC poison cudaLibraryGetKernelCount cudaLibraryEnumerateKernels cudaFuncGetName cudaFuncGetParamInfo
#include <adaexplore/harness.cuh>
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  auto out = bench.output<float>(16);
  const adaexplore::Kernel k = bench.kernel("twice");
  return bench.run([&](cudaStream_t s) { k.launch(dim3(1), dim3(16), 0, s, out.get()); },
                   [&] { return adaexplore::Verification{}; });
}
)";
  auto compile = [&](const std::string& version) {
    return run_process({"c++", "-std=c++17", "-x", "c++", "-fsyntax-only", "-DADAEXPLORE_HARNESS_BODIES=1",
                        "-DADAEXPLORE_CUDART_VERSION=" + version, "-I" + std::string(ADAEXPLORE_SOURCE_DIR) + "/templates",
                        "-I" + include.string(), (dir / "old.cpp").string()});
  };
  const ProcessResult old = compile("12030");
  EXPECT_TRUE(old.ok()) << old.err;
  const ProcessResult current = compile("12040");
  EXPECT_FALSE(current.ok());
  EXPECT_NE(current.err.find("poisoned"), std::string::npos) << current.err;
  std::filesystem::remove_all(dir);
}

TEST_F(KernelUnitSpecTest, AKernelUnitOnTheHostBackendOrAnUnknownUnitIsAClearError) {
  try {
    choose_compile_unit(spec("split.cu", "kernel", "host"), "k.cuh", false);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compiler.unit \"kernel\": the host backend has no kernel unit"),
              std::string::npos) << e.what();
  }
  try {
    spec("split.cu", "cubin");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("compiler.unit"), std::string::npos) << what;
    EXPECT_NE(what.find("\"kernel\""), std::string::npos) << what;
  }
}

TEST(CompileCacheTest, AnEntryIsValidWhileItsHeadersKeepTheirContent) {
  const fs::path dir = test::fresh_test_directory("compile-cache");
  const CompileCache cache(dir / "cache", {dir / "system"});
  fs::create_directories(dir / "system");
  fs::create_directories(dir / "eval");
  std::ofstream(dir / "header.cuh") << "v1";
  std::ofstream(dir / "system" / "sys.h") << "s1";
  std::ofstream(dir / "eval" / "k.cuh") << "rendered";
  std::ofstream(dir / "eval" / "kernel.cubin") << "CUBIN";
  std::ofstream(dir / "eval" / "kernel.d") << "kernel.cubin : " << (dir / "eval" / "k.cuh").string() << " \\\n "
                                           << (dir / "header.cuh").string() << " "
                                           << (dir / "system" / "sys.h").string() << "\n";
  EXPECT_FALSE(cache.find("key", dir / "out.cubin"));
  cache.store("key", dir / "eval" / "kernel.cubin", dir / "eval" / "kernel.d", dir / "eval", "out", "ptxas info");
  auto hit = cache.find("key", dir / "out.cubin");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->err, "ptxas info");
  EXPECT_EQ(read_file(dir / "out.cubin"), "CUBIN");
  EXPECT_FALSE(cache.find("other key", dir / "out2.cubin"));
  std::ofstream(dir / "system" / "sys.h") << "s2";  // ignored prefix: not recorded
  std::ofstream(dir / "eval" / "k.cuh") << "other";  // its own folder: the key covers it
  EXPECT_TRUE(cache.find("key", dir / "out.cubin"));
  std::ofstream(dir / "header.cuh") << "v2";  // a header it included changed: a miss
  EXPECT_FALSE(cache.find("key", dir / "out.cubin"));
  fs::remove_all(dir);
}

// A kernel with a template parameter (as gemm's Policy), an exported value, and a launch through
// Benchmark::kernel. MODE 0: out[i] = 2 in[i]; 1: a wild pointer (illegal address, sticky); 2: a
// block of 2048 threads (invalid configuration at the launch); 3: out[7] = NaN; 4: the benchmark
// passes a long long for the int parameter n (an argument mismatch).
const char* kTemplate = R"(#pragma once
#include <adaexplore/kernel_unit.cuh>
#include "twice_kernel.cuh"
namespace twice_tuning {
using Shape = twice::Shape<${MODE} == 2 ? 2048 : 256>;
ADAEXPLORE_EXPORT(threads, Shape::kThreads)
inline void launch(const float* in, float* out, int n, cudaStream_t s) {
  twice::twice_kernel<Shape, ${MODE}><<<(n + 255) / 256, Shape::kThreads, 0, s>>>(in, out, n);
}
}  // namespace twice_tuning
)";

const char* kKernelHeader = R"(#pragma once
namespace twice {
template <int THREADS> struct Shape { static constexpr int kThreads = THREADS; };
template <class S, int MODE>
__global__ void twice_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (MODE == 1 && i == 0) *reinterpret_cast<volatile float*>(0x10) = 1.0f;
  if (i < n) out[i] = MODE == 3 && i == 7 ? __int_as_float(0x7fc00000) : 2.0f * in[i];
}
}  // namespace twice
)";

const char* kBenchmark = R"(#include <adaexplore/harness.cuh>
#include <utility>
#include <vector>
int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 1 << 20;
  auto in = bench.input<float>(n);
  auto out = bench.output<float>(n);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = 2.0f * std::as_const(in).host()[i];
  const adaexplore::Kernel twice = bench.kernel("twice::twice_kernel");
  const dim3 block(static_cast<unsigned>(bench.exported("threads")));
  const long long mode = bench.param("MODE");
  bench.check_launch(twice, block);
  const float* input = in.get();
  return bench.run(
      [&](cudaStream_t s) {
        if (mode == 4)
          twice.launch(dim3((n + 255) / 256), block, 0, s, input, out.get(), static_cast<long long>(n));
        else
          twice.launch(dim3((n + 255) / 256), block, 0, s, input, out.get(), n);
      },
      [&] { return bench.compare(out, ref); });
}
)";

class KernelUnitCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = test::nvcc_path();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin)";
    ::setenv("ADAEXPLORE_RUNNER", ADAEXPLORE_TUNER_EXECUTABLE, 1);
    dir_ = test::fresh_test_directory("kernel-unit");
    cache_ = std::make_unique<test::ScopedEnv>("ADAEXPLORE_CACHE_DIR", (dir_ / "cache").string());
    std::ofstream(dir_ / "twice.cuh.in") << kTemplate;
    std::ofstream(dir_ / "twice_kernel.cuh") << kKernelHeader;
    std::ofstream(dir_ / "twice_bench.cu") << kBenchmark;
  }
  void TearDown() override {
    ::unsetenv("ADAEXPLORE_RUNNER");
    cache_.reset();
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }
  Spec spec(const std::string& arch, const std::string& work = "twice.work") const {
    nlohmann::json j = {{"name", "twice"},
                        {"backend", "cuda"},
                        {"template", "twice.cuh.in"},
                        {"benchmark", "twice_bench.cu"},
                        {"parameters", {{{"name", "MODE"}, {"values", {0, 1, 2, 3, 4}}}}},
                        {"compiler", {{"path", nvcc_}}},
                        {"work_dir", work},
                        {"run", {{"timeout_s", 60}, {"args", {"--adaexplore-measure-ms", "20"}}}}};
    if (!arch.empty()) j["compiler"]["arch"] = arch;
    return parse_spec(j, dir_ / "spec.json");
  }
  static Config mode(const Spec& s, int m) { return s.space.config_from_texts({{"MODE", std::to_string(m)}}); }

  std::string nvcc_;
  fs::path dir_;
  std::unique_ptr<test::ScopedEnv> cache_;
};

TEST_F(KernelUnitCompileTest, EachConfigurationCompilesItsDeviceCodeAloneToACubinForSm80AndSm90) {
  for (const std::string arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    const Spec s = spec(arch, "work-" + arch);
    auto backend = make_cuda_backend(s, DeviceInfo{});
    auto& program = static_cast<ProgramBackend&>(*backend);
    EXPECT_TRUE(program.kernel_unit());
    EXPECT_NE(backend->evaluation_mode().find("the kernel unit"), std::string::npos) << backend->evaluation_mode();
    const Prepared p = backend->prepare(mode(s, 0));
    ASSERT_FALSE(p.failure) << p.failure->message;
    EXPECT_EQ(p.executable.filename(), "kernel.cubin");
    const std::string cubin = read_file(p.executable);
    ASSERT_GT(cubin.size(), 4u);
    EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF");
    // The ptxas report: the tuned kernel only (the export kernel is left out), for this arch.
    ASSERT_EQ(p.resources.size(), 1u);
    EXPECT_NE(p.resources[0].kernel.find("twice_kernel"), std::string::npos) << p.resources[0].kernel;
    EXPECT_EQ(p.resources[0].arch, arch);
    EXPECT_GT(p.resources[0].registers, 0);
    const std::string cmd = read_file(p.directory / "compile.cmd");
    for (const std::string flag : {"-cubin -arch=" + arch + " -Xptxas -v", std::string("-DADAEXPLORE_PARAM_MODE=0"),
                                   std::string("kernel.cu -o ")})
      EXPECT_NE(cmd.find(flag), std::string::npos) << flag << " in " << cmd;
    EXPECT_EQ(cmd.find("twice_bench.cu"), std::string::npos) << cmd;  // the benchmark is not compiled per configuration
    // The benchmark, once: a module without the rendered template.
    const ProgramBackend::BenchmarkBuild& build = program.benchmark_build();
    ASSERT_TRUE(build.error.empty()) << build.error;
    EXPECT_EQ(build.program.filename(), "benchmark.so");
    const std::string bcmd = read_file(build.program.parent_path() / "compile.cmd");
    EXPECT_NE(bcmd.find("-DADAEXPLORE_KERNEL_UNIT=1"), std::string::npos) << bcmd;
    EXPECT_EQ(bcmd.find("ADAEXPLORE_PARAM_"), std::string::npos) << bcmd;
    EXPECT_EQ(bcmd.find("/evals/"), std::string::npos) << bcmd;
    // In two parts: the benchmark's own code against the harness built apart (as C++, while the
    // benchmark compiles), then one link of both objects.
    EXPECT_NE(bcmd.find("-DADAEXPLORE_HARNESS_SEPARATE=1 -MD -MF"), std::string::npos) << bcmd;
    EXPECT_NE(bcmd.find("benchmark.o"), std::string::npos) << bcmd;
    EXPECT_NE(bcmd.find(".o -o " + build.program.string()), std::string::npos) << bcmd;
    EXPECT_EQ(bcmd.find("header-only"), std::string::npos) << bcmd;
    // No device code of its own: compiled as plain C++ (the host compiler alone), linked with the
    // harness object and the harness's kernels built apart; nvcc never compiled it.
    EXPECT_NE(bcmd.find("-x c++"), std::string::npos) << bcmd;
    EXPECT_EQ(bcmd.find("with nvcc"), std::string::npos) << bcmd;
    EXPECT_EQ(std::count(bcmd.begin(), bcmd.end(), '\n'), 2) << bcmd;  // the compile and the link
  }
}

// A benchmark with device code of its own is compiled with nvcc, and compile.cmd says why: a
// kernel in its own text (not tried as plain C++), a kernel in a header it includes (the plain C++
// compile fails), an element type the harness's kernels object does not instantiate (its link
// fails). Each builds.
TEST_F(KernelUnitCompileTest, ABenchmarkWithDeviceCodeOfItsOwnIsCompiledWithNvccSayingWhy) {
  const std::string bench = kBenchmark;
  const std::string own_kernel = "__global__ void own_kernel(float* x) { x[0] = 1; }\n";
  std::ofstream(dir_ / "own.cuh") << own_kernel;
  std::ofstream(dir_ / "symbol.cuh") << "#include <cuda_runtime.h>\n__device__ float table[4];\n"
                                        "inline cudaError_t upload(const float* t) { return cudaMemcpyToSymbol(table, t, 16); }\n";
  struct Case {
    std::string name, text, why;
  } cases[] = {
      {"own", own_kernel + bench, "# with nvcc, not as plain C++: twice_bench.cu has __global__"},
      {"header", "#include \"own.cuh\"\n" + bench, "# as plain C++: it does not compile as C++ ("},
      // A __device__ variable compiles as a host one in plain C++ (and a copy to it would fail at
      // run time): found in the headers the compile listed.
      {"symbol", "#include \"symbol.cuh\"\n" + bench, "# as plain C++: symbol.cuh has __device__"},
      {"type", "#include <adaexplore/harness.cuh>\n#include <vector>\n" +
                   std::string("struct Gathered { static void use(adaexplore::Benchmark& b) { auto p = b.output<long double>(4); "
                               "(void)b.gather(p, std::vector<std::size_t>{0}); } };\n") + bench,
       "# as plain C++: its link failed ("},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::ofstream(dir_ / "twice_bench.cu") << c.text;
    if (c.name == "type") {  // the template member used, so that its launcher is needed
      std::ofstream(dir_ / "twice_bench.cu", std::ios::app)
          << "void adaexplore_test_use(adaexplore::Benchmark& b) { Gathered::use(b); }\n";
    }
    const Spec s = spec("sm_90", "work-" + c.name);
    auto backend = make_cuda_backend(s, DeviceInfo{});
    (void)backend->prepare(mode(s, 0));
    const ProgramBackend::BenchmarkBuild& build = static_cast<ProgramBackend&>(*backend).benchmark_build();
    ASSERT_TRUE(build.error.empty()) << build.error;
    const std::string bcmd = read_file(build.program.parent_path() / "compile.cmd");
    EXPECT_NE(bcmd.find(c.why), std::string::npos) << bcmd;
    // nvcc's compile (no -x c++ in its line) and the link, after the note.
    const std::string after = bcmd.substr(bcmd.find(c.why));
    EXPECT_NE(after.find("-DADAEXPLORE_HARNESS_SEPARATE=1 -MD -MF"), std::string::npos) << bcmd;
    EXPECT_EQ(after.find("-x c++"), std::string::npos) << bcmd;
    EXPECT_TRUE(fs::exists(build.program));
    if (c.name == "type") {  // the missing instantiation named, its log kept apart from nvcc's link
      EXPECT_NE(bcmd.find("launch_gather"), std::string::npos) << bcmd;
      EXPECT_NE(read_file(build.program.parent_path() / "link-cxx.err").find("launch_gather"), std::string::npos);
    }
  }
}

// A harness folder without harness_kernels.cu (an older install): no plain C++ compile is tried
// (it could not be linked), the benchmark is compiled with nvcc at once and compile.cmd says why.
TEST_F(KernelUnitCompileTest, WithoutTheHarnessKernelsSourceTheBenchmarkIsCompiledWithNvccAtOnce) {
  const fs::path harness = dir_ / "harness";
  fs::create_directories(harness / "adaexplore");
  for (const auto& f : fs::directory_iterator(fs::path(ADAEXPLORE_SOURCE_DIR) / "templates" / "adaexplore"))
    if (f.path().filename() != "harness_kernels.cu") fs::copy_file(f.path(), harness / "adaexplore" / f.path().filename());
  const test::ScopedEnv env("ADAEXPLORE_HARNESS_DIR", harness.string());
  const Spec s = spec("sm_90");
  auto backend = make_cuda_backend(s, DeviceInfo{});
  (void)backend->prepare(mode(s, 0));
  const ProgramBackend::BenchmarkBuild& build = static_cast<ProgramBackend&>(*backend).benchmark_build();
  ASSERT_TRUE(build.error.empty()) << build.error;
  const std::string bcmd = read_file(build.program.parent_path() / "compile.cmd");
  EXPECT_EQ(bcmd.find("# with nvcc, not as plain C++: no object of the harness's kernels\n"), 0u) << bcmd;
  EXPECT_EQ(bcmd.find("-x c++"), std::string::npos) << bcmd;
  EXPECT_TRUE(fs::exists(build.program));
}

TEST_F(KernelUnitCompileTest, ARepeatedConfigurationIsServedFromTheCacheUntilAnIncludedHeaderChanges) {
  const Spec s = spec("sm_90");
  const Prepared first = make_cuda_backend(s, DeviceInfo{})->prepare(mode(s, 0));
  ASSERT_FALSE(first.failure) << first.failure->message;
  EXPECT_FALSE(first.compile_cached);
  // Another build tree (work folder), the same configuration: from the cache, same ptxas figures.
  const Spec other = spec("sm_90", "other.work");
  const Prepared again = make_cuda_backend(other, DeviceInfo{})->prepare(mode(other, 0));
  ASSERT_FALSE(again.failure) << again.failure->message;
  EXPECT_TRUE(again.compile_cached);
  ASSERT_EQ(again.resources.size(), 1u);
  EXPECT_EQ(again.resources[0].registers, first.resources[0].registers);
  EXPECT_EQ(read_file(again.executable), read_file(first.executable));
  EXPECT_NE(read_file(again.directory / "compile.cmd").find("served from"), std::string::npos);
  // The benchmark too: built by the first tuning, served to the other build tree's.
  auto third_backend = make_cuda_backend(other, DeviceInfo{});
  (void)third_backend->prepare(mode(other, 0));
  const auto& served = static_cast<ProgramBackend&>(*third_backend).benchmark_build();
  ASSERT_TRUE(served.error.empty()) << served.error;
  EXPECT_TRUE(served.cached);
  EXPECT_TRUE(fs::exists(served.program));
  // Another configuration is compiled.
  EXPECT_FALSE(make_cuda_backend(other, DeviceInfo{})->prepare(mode(other, 3)).compile_cached);
  // The kernel's header changes: compiled again.
  std::ofstream(dir_ / "twice_kernel.cuh", std::ios::app) << "// edited\n";
  const Spec third = spec("sm_90", "third.work");
  EXPECT_FALSE(make_cuda_backend(third, DeviceInfo{})->prepare(mode(third, 0)).compile_cached);
}

TEST_F(KernelUnitCompileTest, ABenchmarkThatDoesNotCompileStopsTheTuningWithItsErrorBeforeAnyRun) {
  std::ofstream(dir_ / "twice_bench.cu", std::ios::app) << "this is not C++;\n";
  const Spec s = spec("sm_90");
  auto backend = make_cuda_backend(s, DeviceInfo{});
  Prepared p = backend->prepare(mode(s, 0));
  ASSERT_FALSE(p.failure) << p.failure->message;  // the configuration itself compiles
  try {
    backend->measure(p);
    FAIL() << "no error";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("twice_bench.cu does not compile"), std::string::npos) << what;
    EXPECT_NE(what.find("log: "), std::string::npos) << what;
    EXPECT_NE(what.find("COMPILE_UNIT PROGRAM"), std::string::npos) << what;
  }
}

TEST_F(KernelUnitCompileTest, EveryStatusThroughTheKernelUnitInOneRunnerOnAGpu) {
  const DeviceInfo device = query_device();
  if (!device.present) GTEST_SKIP() << "no GPU: " << device.reason;
  const Spec s = spec("");
  auto backend = make_cuda_backend(s, device);
  auto& program = static_cast<ProgramBackend&>(*backend);
  auto evaluate = [&](int m) {
    Prepared p = backend->prepare(mode(s, m));
    if (p.failure) return *p.failure;
    return backend->measure(p);
  };
  const Outcome first = evaluate(0);
  ASSERT_EQ(first.status, Status::ok) << first.message;
  ASSERT_TRUE(first.extra.contains("kernels")) << first.extra.dump();
  EXPECT_EQ(first.extra["kernels"][0].value("threads_per_block", 0), 256) << first.extra.dump();  // exported
  const Outcome mismatch = evaluate(4);
  EXPECT_EQ(mismatch.status, Status::launch_error) << mismatch.message;
  EXPECT_NE(mismatch.message.find("argument 3 has 8 bytes, the kernel's parameter 4"), std::string::npos)
      << mismatch.message;
  const Outcome launch = evaluate(2);
  EXPECT_EQ(launch.status, Status::launch_error) << launch.message;
  const Outcome nan = evaluate(3);
  EXPECT_EQ(nan.status, Status::wrong_result) << nan.message;
  // The same runner and benchmark module: the input and output made by the first configuration
  // are served again (4 MiB each, the input also restored from its pristine copy).
  ASSERT_TRUE(nan.extra.contains("device_memory")) << nan.extra.dump();
  EXPECT_GE(nan.extra["device_memory"].value("reused_bytes", 0), 8 << 20) << nan.extra.dump();
  EXPECT_EQ(program.runner_starts(), 1u);
  const Outcome crash = evaluate(1);
  EXPECT_EQ(crash.status, Status::crash) << crash.message;
  fs::remove_all(dir_ / "twice.work" / "evals");
  const Outcome after = evaluate(0);
  ASSERT_EQ(after.status, Status::ok) << after.message;
  EXPECT_EQ(program.runner_starts(), 2u);  // the sticky error cost one restart
}

// The pristine device copies of the inputs live as long as the runner (the kernel unit): a kernel
// that writes outside its buffers without faulting could reach one and hand every later
// configuration damaged inputs (a correct configuration then a wrong_result). MODE 5 launches the
// kernel a second time with the input's pristine copy as its output (a write past its buffers that
// happens to land there): its own result is right; the next configuration finds the copy's
// checksum changed, says so in the record (device_memory.damaged) and makes its buffers afresh, so
// it is ok. GPU only (tools/device-run.sh gputest).
TEST_F(KernelUnitCompileTest, APristineCopyAKernelOverwroteIsNoticedAndItsBuffersMadeAfresh) {
  const DeviceInfo device = query_device();
  if (!device.present) GTEST_SKIP() << "no GPU: " << device.reason;
  std::string bench = kBenchmark;
  const std::string run = "  return bench.run(";
  ASSERT_NE(bench.find(run), std::string::npos);
  bench.replace(bench.find(run), run.size(), R"(  if (mode == 5) {  // a write outside its buffers, into the input's pristine copy
    twice.launch(dim3((n + 255) / 256), block, 0, nullptr, input,
                 static_cast<float*>(adaexplore::detail::buffer_cache().at(0).pristine.get()), n);
    (void)cudaDeviceSynchronize();
  }
  return bench.run()");
  std::ofstream(dir_ / "twice_bench.cu") << bench;
  nlohmann::json j = {{"name", "twice"},
                      {"backend", "cuda"},
                      {"template", "twice.cuh.in"},
                      {"benchmark", "twice_bench.cu"},
                      {"parameters", {{{"name", "MODE"}, {"values", {0, 5}}}}},
                      {"compiler", {{"path", nvcc_}}},
                      {"work_dir", "damage.work"},
                      {"run", {{"timeout_s", 60}, {"args", {"--adaexplore-measure-ms", "20"}}}}};
  const Spec s = parse_spec(j, dir_ / "spec.json");
  auto backend = make_cuda_backend(s, device);
  auto evaluate = [&](int m) {
    Prepared p = backend->prepare(s.space.config_from_texts({{"MODE", std::to_string(m)}}));
    if (p.failure) return *p.failure;
    return backend->measure(p);
  };
  const Outcome first = evaluate(0);
  ASSERT_EQ(first.status, Status::ok) << first.message;
  const Outcome writer = evaluate(5);
  ASSERT_EQ(writer.status, Status::ok) << writer.message;  // its own output is right
  EXPECT_FALSE(writer.extra.value("device_memory", nlohmann::json::object()).contains("damaged")) << writer.extra.dump();
  fs::remove_all(dir_ / "damage.work" / "evals");
  const Outcome after = evaluate(0);
  ASSERT_EQ(after.status, Status::ok) << after.message;  // before 2026-12-05: wrong_result (inputs 2 x in)
  ASSERT_TRUE(after.extra.contains("device_memory")) << after.extra.dump();
  const nlohmann::json damaged = after.extra["device_memory"].value("damaged", nlohmann::json::array());
  ASSERT_EQ(damaged.size(), 1u) << after.extra.dump();
  EXPECT_NE(damaged[0].get<std::string>().find("input #0 (1048576 elements of "), std::string::npos) << damaged;
  EXPECT_NE(damaged[0].get<std::string>().find("its pristine device copy changed"), std::string::npos) << damaged;
  const Outcome again = evaluate(5);  // the fresh copies: checked, served, fine
  EXPECT_EQ(again.status, Status::ok) << again.message;
}

}  // namespace
}  // namespace adaexplore
