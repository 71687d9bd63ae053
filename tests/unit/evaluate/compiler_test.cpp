// The compile seam (compiler.hpp). What a configuration's compile leaves in its work folder,
// pinned whole (the same before and after the compile moved behind the seam): compile.cmd line by
// line and the folder's files, for the whole program (host, with and without the runner and a
// launcher; cuda for sm_90, the harness header-only and built apart) and the kernel unit (cuda,
// sm_90, compiled and served from the compile cache). Then the seam itself: prepare() renders and
// hands the configuration to its backend's Compiler (a stand-in here), and the two compilers made
// without a backend, with a Toolchain of the test's, write the same commands and take the
// review's verdict. The cuda tests skip without nvcc.
#include "evaluate/compiler.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>

#include "evaluate/backends.hpp"
#include "evaluate/program_backend.hpp"
#include "evaluate/render.hpp"
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

// The defaults of `s` as prepare() hands them to a compiler made without a backend: the template
// rendered into <directory>/<rendered>, the artifact `artifact` to go beside it.
Prepared rendered_defaults(const Spec& s, const fs::path& directory, const std::string& rendered,
                           const std::string& artifact) {
  Prepared p;
  p.config = s.defaults;
  p.directory = directory;
  p.executable = p.directory / artifact;
  fs::create_directories(p.directory);
  write_file_if_changed(p.directory / rendered,
                        render_template(read_file(s.template_path), s.template_path, s.space, s.defaults));
  return p;
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

// The stand-in's toolchain and the direct compiles' below: host-like options, a review that
// counts its calls and, when told, decides resource_limit.
class TestToolchain final : public Toolchain {
 public:
  std::vector<std::string> toolchain_flags() const override { return {"-std=c++17", "-O2"}; }
  std::vector<std::string> kernel_unit_flags() const override {
    return {"-std=c++17", "-cubin", "-arch=sm_90", "-Xptxas", "-v", "-lineinfo"};
  }
  std::vector<std::string> module_flags() const override { return {"-shared", "-fPIC"}; }
  std::optional<Outcome> review_compile(const ProcessResult& compile, Prepared&) const override {
    ++reviews;
    if (!reject) return std::nullopt;
    Outcome o;
    o.status = Status::resource_limit;
    o.message =
        std::string("rejected by the review (") + (compile.ok() ? "compiled" : "failed") + ")";
    return o;
  }
  mutable int reviews = 0;
  bool reject = false;
};

// Records what prepare() hands it; writes its artifact; rejects X=3.
class StandInCompiler final : public Compiler {
 public:
  std::string artifact() const override { return "stand-in.bin"; }
  void compile(Prepared& prepared) override {
    std::lock_guard<std::mutex> lock(mutex);
    rendered.push_back(read_file(prepared.directory / "k.hpp"));
    std::ofstream(prepared.executable) << "artifact";
    prepared.stage_ms["compile"] = 1;
    if (rendered.back().find("= 3;") != std::string::npos) {
      Outcome o;
      o.status = Status::compile_error;
      o.message = "the stand-in rejects X=3";
      prepared.failure = o;
    }
  }
  std::mutex mutex;
  std::vector<std::string> rendered;  // the rendered template, as each compile found it
};

// The host backend's pipeline with a compiler of its own, and X=4 rejected statically.
class StandInBackend final : public ProgramBackend {
 public:
  StandInBackend(const Spec& spec, std::unique_ptr<Compiler> compiler)
      : ProgramBackend(spec, /*kernel_unit_capable=*/false) {
    use_compiler(std::move(compiler));
  }
  std::string name() const override { return "stand-in"; }
  nlohmann::json device() const override { return {{"name", "none"}}; }
  std::optional<Outcome> check_statically(const Config& config) const override {
    if (spec().space.value(config, 0).text != "4") return std::nullopt;
    Outcome o;
    o.status = Status::resource_limit;
    o.message = "X=4 is over the limit";
    return o;
  }

 protected:
  std::vector<std::string> toolchain_flags() const override { return {"-std=c++17"}; }
  std::vector<std::string> module_flags() const override { return {}; }
  std::optional<Outcome> review_compile(const ProcessResult&, Prepared&) const override {
    return std::nullopt;
  }
};

TEST_F(HostCompileCommand, PrepareRendersThenHandsTheConfigurationToItsCompiler) {
  nlohmann::json j = {{"name", "k"},
                      {"backend", "host"},
                      {"template", "k.hpp.in"},
                      {"benchmark", "k_bench.cpp"},
                      {"parameters", {{{"name", "X"}, {"values", {2, 3, 4}}}}}};
  const Spec s = parse_spec(j, dir_ / "spec.json");
  auto owned = std::make_unique<StandInCompiler>();
  StandInCompiler& compiler = *owned;
  StandInBackend backend(s, std::move(owned));
  const auto x = [&](int v) { return s.space.config_from_texts({{"X", std::to_string(v)}}); };

  const Prepared two = backend.prepare(x(2));
  ASSERT_FALSE(two.failure) << two.failure->message;
  EXPECT_EQ(two.executable, two.directory / "stand-in.bin");
  EXPECT_EQ(read_file(two.executable), "artifact");
  EXPECT_EQ(two.stage_ms.count("render"), 1u);
  EXPECT_EQ(two.stage_ms.at("compile"), 1);
  // Nothing of the real compilers: no compile.cmd, no compiler's log.
  EXPECT_EQ(files_in(two.directory), (std::set<std::string>{"k.hpp", "stand-in.bin"}));

  const Prepared three = backend.prepare(x(3));
  ASSERT_TRUE(three.failure);
  EXPECT_EQ(three.failure->status, Status::compile_error);
  EXPECT_EQ(three.failure->message, "the stand-in rejects X=3");

  const Prepared four = backend.prepare(x(4));  // decided before any compile
  ASSERT_TRUE(four.failure);
  EXPECT_EQ(four.failure->status, Status::resource_limit);
  EXPECT_EQ(four.executable, four.directory / "stand-in.bin");

  // Discarding removes the artifact alone (Backend::discard).
  backend.discard(two);
  EXPECT_EQ(files_in(two.directory), (std::set<std::string>{"k.hpp"}));

  // The compiler found each configuration rendered; the static check's was not compiled.
  EXPECT_EQ(compiler.rendered, (std::vector<std::string>{"inline constexpr int K = 2;\n",
                                                         "inline constexpr int K = 3;\n"}));
}

// The whole-program compiler made without a backend: the command the host backend writes
// (OneProcessPerEvaluation... above) for the same options, and the review's verdict decides.
TEST_F(HostCompileCommand, TheProgramCompilerWithoutABackendWritesTheSameCommand) {
  const Spec s = spec();
  TestToolchain toolchain;
  const CompileSetup setup{s, toolchain, harness_dir(s), "k.hpp"};
  int asked = 0;
  auto compiler = make_program_compiler(setup, {[&] {
                                                  ++asked;
                                                  return fs::path();
                                                },
                                                [] { return false; }});
  EXPECT_EQ(compiler->artifact(), "benchmark");
  Prepared p = rendered_defaults(s, dir_ / "direct", "k.hpp", compiler->artifact());
  compiler->compile(p);
  ASSERT_FALSE(p.failure) << p.failure->message;
  EXPECT_EQ(asked, 1);  // the harness object, once per compile
  EXPECT_EQ(toolchain.reviews, 1);
  EXPECT_EQ(read_file(p.directory / "compile.cmd"), "c++ " + shared_part(p, s) + " " +
                                                        (dir_ / "k_bench.cpp").string() + " -o " +
                                                        p.executable.string() + "\n");
  EXPECT_EQ(files_in(p.directory), (std::set<std::string>{"k.hpp", "compile.cmd", "compile.out",
                                                          "compile.err", "benchmark"}));

  // A module: the toolchain's module options after the definitions.
  const CompileSetup module{s, toolchain, harness_dir(s), "k.hpp", /*module=*/true};
  auto module_compiler =
      make_program_compiler(module, {[] { return fs::path(); }, [] { return false; }});
  EXPECT_EQ(module_compiler->artifact(), "benchmark.so");

  // The review decides over a compile that succeeded.
  toolchain.reject = true;
  compiler->compile(p);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->status, Status::resource_limit);
  EXPECT_EQ(p.failure->message, "rejected by the review (compiled)");
  EXPECT_EQ(toolchain.reviews, 2);
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

// The kernel-unit compiler made without a backend and without a compile cache: the command the
// cuda backend writes for the same options, compiled each time (nothing served).
TEST_F(CudaCompileCommand, TheKernelUnitCompilerWithoutABackendOrCacheWritesTheSameCommand) {
  const Spec s = unit_spec("direct.work");
  TestToolchain toolchain;
  const CompileSetup setup{s, toolchain, harness_dir(s), "unit.cuh"};
  auto compiler = make_kernel_unit_compiler(setup);
  EXPECT_EQ(compiler->artifact(), "kernel.cubin");
  Prepared p = rendered_defaults(s, dir_ / "direct", "unit.cuh", compiler->artifact());
  const fs::path nice = find_program("nice");
  const std::string command =
      (nice.empty() ? "" : nice.string() + " -n 5 ") + nvcc_ +
      " -std=c++17 -cubin -arch=sm_90 -Xptxas -v -lineinfo -I" + p.directory.string() + " -I" +
      dir_.string() + " -I" + harness_dir(s).string() + " -DADAEXPLORE_PARAM_N=128 -MD -MF " +
      (p.directory / "kernel.d").string() + " " + (p.directory / "kernel.cu").string() + " -o " +
      p.executable.string() + "\n";
  for (int round = 0; round < 2; ++round) {
    compiler->compile(p);
    ASSERT_FALSE(p.failure) << p.failure->message;
    EXPECT_FALSE(p.compile_cached);
    EXPECT_EQ(read_file(p.directory / "compile.cmd"), command);
  }
  EXPECT_EQ(toolchain.reviews, 2);
  EXPECT_EQ(files_in(p.directory),
            (std::set<std::string>{"unit.cuh", "kernel.cu", "kernel.d", "kernel.cubin",
                                   "compile.cmd", "compile.out", "compile.err"}));
}

}  // namespace
}  // namespace adaexplore
