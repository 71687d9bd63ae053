#include "emit/header.hpp"

#include <chrono>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "util/process.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

using test::numbers;

Space gemm_space() {
  Parameter layout{"LAYOUT", {Value::from_text("row"), Value::from_text("col")}};
  return Space({numbers("TILE_M", {16, 32, 64, 128}), numbers("TILE_N", {16, 32, 64}), layout,
                numbers("SCALE", {0.5, 1.25})},
               {});
}

const Config kWinner = {3, 1, 1, 1};
const Config kDefaults = {2, 2, 0, 0};

Outcome measured(const Config& c, double ms) {
  Outcome o;
  o.config = c;
  o.status = Status::ok;
  o.objective = ms;
  o.timing = Timing{ms, ms, ms, ms, 0.0, 50};
  return o;
}

HeaderInfo tuned_info() {
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.source = "tuned";
  info.backend = "cuda";
  info.device = {{"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}, {"sm_count", 132},
                 {"memory_bytes", 85021163520LL},   {"driver_version", "12.4"},     {"runtime_version", "12.4"}};
  info.date = "2024-05-01T12:00:00Z";
  info.strategy = "ga";
  info.seed = 42;
  info.budget = 100;
  info.winner = measured(kWinner, 0.8125);
  info.baseline = measured(kDefaults, 1.625);
  info.counts = {{"ok", 80}, {"compile_error", 12}, {"resource_limit", 5}, {"crash", 3}, {"timeout", 0}};
  info.evaluations = 100;
  return info;
}

HeaderInfo defaults_info() {
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.source = "defaults";
  info.reason = "no CUDA GPU (cudaErrorNoDevice: no CUDA-capable device is detected)";
  info.backend = "cuda";
  return info;
}

std::string golden(const std::string& leaf) { return read_file(fs::path(ADAEXPLORE_TEST_DATA) / "header" / leaf); }

TEST(Header, TunedHeaderMatchesTheGoldenFile) {
  EXPECT_EQ(render_header(gemm_space(), kWinner, tuned_info()), golden("gemm_tuned.hpp"));
}

TEST(Header, DefaultsHeaderMatchesTheGoldenFileAndSaysNotTuned) {
  const std::string h = render_header(gemm_space(), kDefaults, defaults_info());
  EXPECT_EQ(h, golden("gemm_defaults.hpp"));
  EXPECT_NE(h.find("// NOT TUNED:"), std::string::npos);
  EXPECT_NE(h.find("inline constexpr bool kTuned = false;"), std::string::npos);
  EXPECT_EQ(h.find("kTuned = true"), std::string::npos);
}

TEST(Header, SameInputsGiveTheSameBytes) {
  const std::string a = render_header(gemm_space(), kWinner, tuned_info());
  const std::string b = render_header(gemm_space(), kWinner, tuned_info());
  EXPECT_EQ(a, b);
  HeaderInfo other = tuned_info();
  other.winner = measured(kWinner, 0.75);
  EXPECT_NE(render_header(gemm_space(), kWinner, other), a);  // the text does depend on its inputs
}

// The winner's ptxas figures, one line per kernel, and the configurations skipped as predicted
// failures, after the Evaluations line; neither line without its data (the golden file above).
TEST(Header, WinnerResourcesAndSkippedConfigurations) {
  HeaderInfo info = tuned_info();
  KernelResources k;
  k.kernel = "_Z11gemm_kernelILi128ELi32EEvPKfS1_Pf";
  k.registers = 128;
  k.shared_bytes = 16384;
  k.spill_store_bytes = 8;
  k.spill_load_bytes = 4;
  k.demangled = "void gemm_kernel<128, 32>(const float*, const float*, float*)";
  k.arch = "sm_90";
  info.winner->resources = {k};
  info.skipped = 37;
  const std::string h = render_header(gemm_space(), kWinner, info);
  EXPECT_NE(h.find("// Winner:      TILE_M=128,TILE_N=32,LAYOUT=col,SCALE=1.25  0.8125 ms (median of 50)\n"
                   "// Resources:   gemm_kernel: 128 registers, 16384 B shared, 0 B stack, spills 8 B stored, 4 B "
                   "loaded (sm_90)\n"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("// Evaluations: 100 (ok 80, compile_error 12, resource_limit 5, crash 3)\n"
                   "// Skipped:     37 valid configurations predicted to fail, never evaluated (the space was "
                   "exhausted before the budget)\n"),
            std::string::npos)
      << h;
  info.skipped = 0;
  EXPECT_EQ(render_header(gemm_space(), kWinner, info).find("// Skipped:"), std::string::npos);
}

TEST(Header, MultiLineReasonStaysInsideTheComment) {
  HeaderInfo info = defaults_info();
  info.reason = "no GPU:\ncudaErrorInsufficientDriver\r\n";
  const std::string h = render_header(gemm_space(), kDefaults, info);
  const std::string banner = h.substr(0, h.find("#pragma once"));
  std::size_t start = 0;
  while (start < banner.size()) {
    EXPECT_EQ(banner.compare(start, 2, "//"), 0) << "line not a comment in:\n" << h;
    start = banner.find('\n', start) + 1;
  }
}

// Issue 37: a text value with a line break broke out of the provenance comment and injected code,
// and a NUL was written raw. Every text that reaches a comment (values in labels, the device, the
// strategy, the date, the reason, the kernels' names) stays on its comment line, control characters
// written \xNN, a backslash that would end a line (and continue the comment) \x5c; every literal
// escapes them. The header compiles and holds the value's bytes.
TEST(Header, ControlCharactersInTextsNeitherLeaveTheCommentNorReachTheLiteralRaw) {
  const std::string injected = "x\n#error injected\n";
  Parameter mode{"MODE", {Value::from_text(injected), Value::from_text(std::string("nul\0byte\x1b[1m", 12))}};
  const Space s({numbers("TILE", {16, 32}), mode}, {});
  for (const Config& winner : {Config{0, 0}, Config{1, 1}}) {
    HeaderInfo info = tuned_info();
    info.winner = measured(winner, 0.5);
    info.winner->resources.push_back({});
    info.winner->resources.back().kernel = "k\n#define X";
    info.baseline = measured({0, 0}, 1.0);
    info.device["name"] = "GPU\r\n#pragma once\\";
    info.device["runtime_version"] = "12.4\\";  // the line's end
    info.strategy = "ga\n}";
    info.date = "2024\\";
    const std::string h = render_header(s, winner, info);
    const std::string banner = h.substr(0, h.find("#pragma once\n\nnamespace"));
    for (std::size_t start = 0; start < banner.size(); start = banner.find('\n', start) + 1) {
      EXPECT_EQ(banner.compare(start, 3, "// "), 0) << "line not a comment in:\n" << h;
      const std::size_t end = banner.find('\n', start);
      EXPECT_NE(banner[end - 1], '\\') << "a comment line ending in a backslash continues onto the next:\n" << h;
    }
    EXPECT_EQ(h.find('\0'), std::string::npos);
    EXPECT_EQ(h.find('\x1b'), std::string::npos);
    EXPECT_EQ(h.find("\n#error"), std::string::npos) << h;
    EXPECT_NE(h.find("// Device:      GPU  #pragma once\\, compute capability"), std::string::npos) << h;
    EXPECT_NE(h.find("CUDA runtime 12.4\\x5c\n"), std::string::npos) << h;
    // The literal holds the value's bytes, and the header compiles.
    const fs::path dir = test::fresh_test_directory("header-control");
    std::ofstream(dir / "h.hpp") << h;
    std::ofstream(dir / "use.cpp") << "#include \"h.hpp\"\n#include <cstring>\nint main() { return std::strcmp("
                                      "adaexplore::gemm::MODE, \""
                                   << (winner[1] == 0 ? "x\\n#error injected\\n" : "nul")
                                   << "\") == 0 ? 0 : 1; }\n";
    const ProcessResult r = run_process({"c++", "-std=c++17", "-o", (dir / "use").string(), (dir / "use.cpp").string()});
    ASSERT_TRUE(r.ok()) << r.err << h;
    EXPECT_TRUE(run_process({(dir / "use").string()}).ok()) << h;
    if (winner[1] == 1) EXPECT_NE(h.find("\"nul\\000byte\\033[1m\""), std::string::npos) << h;
    fs::remove_all(dir);
  }
}

TEST(Header, ValuesAreValidCppLiterals) {
  Parameter text{"NAME", {Value::from_text("say \"hi\"\\n")}};
  Parameter big{"BIG", {Value::from_number(3000000000.0)}};
  Parameter huge{"HUGE", {Value::from_number(1e20)}};
  Parameter neg{"NEG", {Value::from_number(-4)}};
  const Space s({text, big, huge, neg}, {});
  const std::string h = render_header(s, {0, 0, 0, 0}, defaults_info());
  EXPECT_NE(h.find("inline constexpr const char* NAME = \"say \\\"hi\\\"\\\\n\";"), std::string::npos) << h;
  EXPECT_NE(h.find("inline constexpr long long BIG = 3000000000LL;"), std::string::npos) << h;
  EXPECT_NE(h.find("inline constexpr double HUGE = 1e+20;"), std::string::npos) << h;
  EXPECT_NE(h.find("inline constexpr int NEG = -4;"), std::string::npos) << h;
}

TEST(Header, WriteFileIfChangedKeepsAnUnchangedHeader) {
  const fs::path file = fs::temp_directory_path() / ("adaexplore-header-" + std::to_string(::getpid())) / "gemm.hpp";
  const std::string h = render_header(gemm_space(), kWinner, tuned_info());
  ASSERT_TRUE(write_file_if_changed(file, h));
  const auto old_time = fs::last_write_time(file) - std::chrono::hours(2);
  fs::last_write_time(file, old_time);
  EXPECT_FALSE(write_file_if_changed(file, render_header(gemm_space(), kWinner, tuned_info())));
  EXPECT_EQ(fs::last_write_time(file), old_time);
  EXPECT_EQ(read_file(file), h);
  fs::remove_all(file.parent_path());
}

// Two compute capabilities: 8.0 (chosen among two A100s) and 9.0; the defaults as the fallback.
// With the spec's macro prefix (header_info() sets it), a header also says its values to the
// preprocessor (#define lines, for kernels configured by macros) and to tools (the machine line).
TEST(Header, MacroPrefixAddsDefinesAndTheMachineLine) {
  HeaderInfo info = tuned_info();
  info.macro_prefix = "GEMM_";
  const std::string h = render_header(gemm_space(), kWinner, info);
  EXPECT_NE(h.find("// adaexplore: {\"backend\":\"cuda\",\"config\":{\"LAYOUT\":\"col\",\"SCALE\":1.25,\"TILE_M\":128,"
                   "\"TILE_N\":32},\"kernel\":\"gemm\",\"macro_prefix\":\"GEMM_\",\"namespace\":\"adaexplore::gemm\","
                   "\"parameters\":[\"TILE_M\",\"TILE_N\",\"LAYOUT\",\"SCALE\"],\"tuned\":true,\"tuned_on\":["),
            std::string::npos) << h;
  EXPECT_NE(h.find("}  // namespace adaexplore::gemm\n\n// The values for the preprocessor (the winner):\n"
                   "#define GEMM_TILE_M 128\n#define GEMM_TILE_N 32\n#define GEMM_LAYOUT col\n#define GEMM_SCALE 1.25\n"),
            std::string::npos) << h;
  // Unset (a header made by hand): no #define lines; the machine line without "macro_prefix".
  EXPECT_EQ(render_header(gemm_space(), kWinner, tuned_info()).find("#define"), std::string::npos);
  EXPECT_NE(render_header(gemm_space(), kWinner, tuned_info()).find("// adaexplore: {\"backend\""), std::string::npos);
  EXPECT_EQ(render_header(gemm_space(), kWinner, tuned_info()).find("macro_prefix"), std::string::npos);

  // The preprocessor reads them, and with a prefix the constants and the macros agree in one unit.
  const fs::path dir = test::fresh_test_directory("header-macros");
  std::ofstream(dir / "gemm.hpp") << h;
  std::ofstream(dir / "probe.cpp") << "#include \"gemm.hpp\"\n#if GEMM_TILE_M != 128 || GEMM_TILE_N != 32\n#error wrong\n#endif\n"
                                      "static_assert(adaexplore::gemm::TILE_M == GEMM_TILE_M, \"\");\nint main() { return 0; }\n";
  const ProcessResult built = run_process({"c++", "-std=c++17", "-fsyntax-only", (dir / "probe.cpp").string()});
  EXPECT_TRUE(built.ok()) << built.err;

  // An empty prefix defines the parameters' own names, as a macro-configured kernel reads them: the
  // preprocessor sees them (a unit using them does not name the header's constants, which the macros
  // now replace; docs/first-tuning.md says so).
  info.macro_prefix = "";
  std::ofstream(dir / "bare.hpp") << render_header(gemm_space(), kWinner, info);
  std::ofstream(dir / "bare.cpp") << "#include \"bare.hpp\"\n#if TILE_M != 128 || TILE_N != 32\n#error wrong\n#endif\n"
                                     "int main() { return TILE_M - 128; }\n";
  const ProcessResult bare = run_process({"c++", "-std=c++17", "-fsyntax-only", (dir / "bare.cpp").string()});
  EXPECT_TRUE(bare.ok()) << bare.err;
}

std::vector<DeviceHeaderEntry> two_devices() {
  DeviceHeaderEntry a100;
  a100.compute_capability = 80;
  a100.config = kWinner;  // TILE_M=128, TILE_N=32, LAYOUT=col, SCALE=1.25
  a100.info = tuned_info();
  a100.info.device = {{"name", "NVIDIA A100-SXM4-80GB"}, {"compute_capability", "8.0"}, {"sm_count", 108},
                      {"driver_version", "12.4"},       {"runtime_version", "12.4"}};
  a100.why = "the most recent tuning of 2 for compute capability 8.0; not used: NVIDIA A100-PCIE-40GB (tuned "
             "2024-04-01T00:00:00Z)";
  DeviceHeaderEntry h100;
  h100.compute_capability = 90;
  h100.config = {1, 2, 0, 0};  // TILE_M=32, TILE_N=64, LAYOUT=row, SCALE=0.5
  h100.info = tuned_info();
  h100.info.winner = measured(h100.config, 0.5);
  h100.info.date = "2024-05-02T08:00:00Z";
  return {a100, h100};
}

HeaderInfo common_info() {
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.backend = "cuda";
  return info;
}

TEST(MultiDeviceHeader, CarriesItsEntriesForToolsAndThePreprocessor) {
  HeaderInfo common = common_info();
  common.macro_prefix = "G_";
  const std::string multi = render_multi_device_header(gemm_space(), two_devices(), kDefaults, common);
  EXPECT_NE(multi.find("// adaexplore: {\"backend\":\"cuda\",\"config\":{\"LAYOUT\":\"row\",\"SCALE\":0.5,\"TILE_M\":64,"
                       "\"TILE_N\":64},\"devices\":[{\"compute_capability\":80,\"config\":{\"LAYOUT\":\"col\",\"SCALE\":1.25,"
                       "\"TILE_M\":128,\"TILE_N\":32}},{\"compute_capability\":90,"),
            std::string::npos) << multi;
  EXPECT_NE(multi.find("\"tuned\":false,\"tuned_on\":[\"NVIDIA A100-SXM4-80GB, compute capability 8.0\""), std::string::npos)
      << multi;
  EXPECT_NE(multi.find("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ / 10 == 80\n  #define G_TILE_M 128\n"), std::string::npos)
      << multi;
  EXPECT_NE(multi.find("#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ / 10 == 90\n  #define G_TILE_M 32\n"), std::string::npos);
  EXPECT_NE(multi.find("#else\n  #define G_TILE_M 64\n  #define G_TILE_N 64\n  #define G_LAYOUT row\n  #define G_SCALE 0.5\n#endif\n"),
            std::string::npos);
}

TEST(MultiDeviceHeader, MatchesTheGoldenFile) {
  const std::string h = render_multi_device_header(gemm_space(), two_devices(), kDefaults, common_info());
  EXPECT_EQ(h, golden("gemm_multi_device.hpp"));
  EXPECT_EQ(h, render_multi_device_header(gemm_space(), two_devices(), kDefaults, common_info()));
}

// An integral value written as "64.0" in the spec: `Params{true, 64.0}` would not compile (narrowing
// in braces to an int member).
TEST(MultiDeviceHeader, IntegralValuesWrittenWithAFractionBecomeIntegerLiterals) {
  Parameter tile{"TILE", {Value::from_text("64.0"), Value::from_text("128")}};
  Parameter big{"BIG", {Value::from_text("4294967296"), Value::from_text("1.0")}};
  DeviceHeaderEntry e;
  e.compute_capability = 90;
  e.config = {0, 0};
  e.info.device = {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}};
  const std::string h = render_multi_device_header(Space({tile, big}, {}), {e}, {1, 1}, common_info());
  EXPECT_NE(h.find("  int TILE;\n  long long BIG;\n"), std::string::npos) << h;
  EXPECT_NE(h.find("return Params{true, 64, 4294967296LL};"), std::string::npos) << h;
  EXPECT_NE(h.find("return Params{false, 128, 1LL};"), std::string::npos) << h;
  EXPECT_EQ(h.find("64.0"), std::string::npos) << h;
}

TEST(MultiDeviceHeader, RefusesParametersItCannotType) {
  Parameter mixed{"MIXED", {Value::from_number(1), Value::from_text("auto")}};
  EXPECT_THROW(render_multi_device_header(Space({mixed}, {}), {}, {0}, common_info()), std::invalid_argument);
  Parameter clash{"tuned", {Value::from_number(1)}};
  EXPECT_THROW(render_multi_device_header(Space({clash}, {}), {}, {0}, common_info()), std::invalid_argument);
}

// The header compiled for real: nvcc for sm_75 (no entry: the fallback), sm_80 and sm_90 with
// static_asserts on the values each device pass sees, and g++ as host-only C++. No GPU needed.
const char* kDeviceProbe = R"(#include "gemm_multi.hpp"
namespace g = adaexplore::gemm;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800
#define WANT_M 128
#define WANT_N 32
#define WANT_SCALE 1.25
#define WANT_TUNED true
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#define WANT_M 32
#define WANT_N 64
#define WANT_SCALE 0.5
#define WANT_TUNED true
#else  // sm_75 (no entry) and the host pass: the fallback
#define WANT_M 64
#define WANT_N 64
#define WANT_SCALE 0.5
#define WANT_TUNED false
#endif
__global__ void probe(int* out, double* scale) {
  static_assert(g::TILE_M == WANT_M, "TILE_M of the architecture being compiled");
  static_assert(g::TILE_N == WANT_N, "TILE_N of the architecture being compiled");
  static_assert(g::SCALE == WANT_SCALE, "SCALE of the architecture being compiled");
  static_assert(g::kTuned == WANT_TUNED, "kTuned of the architecture being compiled");
  constexpr g::Params p = g::params_for(g::kCompiledComputeCapability);
  static_assert(p.TILE_M == WANT_M && p.tuned == WANT_TUNED, "params_for in device code");
  out[0] = g::TILE_M * g::TILE_N;
  scale[0] = g::SCALE;
}
static_assert(g::params_for(80).TILE_M == 128 && g::params_for(80).LAYOUT[0] == 'c', "sm_80 entry");
static_assert(g::kSm90.TILE_N == 64 && g::kSm90.SCALE == 0.5 && g::kSm90.tuned, "sm_90 entry");
static_assert(!g::params_for(86).tuned && g::params_for(86).TILE_M == 64, "8.6 has no entry: the defaults");
static_assert(sizeof(g::kComputeCapabilities) / sizeof(int) == 2, "two entries");
int pick_at_run_time() { return g::current_params().TILE_M; }
)";

const char* kHostProbe = R"(#include "gemm_multi.hpp"
namespace g = adaexplore::gemm;
static_assert(g::TILE_M == 64 && g::TILE_N == 64 && !g::kTuned, "host-only code: the fallback");
static_assert(g::params_for(80).TILE_M == 128 && g::params_for(80).SCALE == 1.25, "sm_80 entry");
static_assert(g::params_for(90).TILE_M == 32 && g::params_for(90).LAYOUT[0] == 'r', "sm_90 entry");
static_assert(!g::kDefaults.tuned && g::kDefaults.TILE_N == 64, "the defaults");
int pick(int cc) { return g::params_for(cc).TILE_M; }
)";

class MultiDeviceCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("multi");
    std::ofstream(dir_ / "gemm_multi.hpp")
        << render_multi_device_header(gemm_space(), two_devices(), kDefaults, common_info());
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(MultiDeviceCompile, NvccSelectsTheEntryPerArchitectureAtCompileTime) {
#ifndef ADAEXPLORE_NVCC
  GTEST_SKIP() << "the tuner was built without the CUDA toolkit (no nvcc)";
#else
  std::ofstream(dir_ / "probe.cu") << kDeviceProbe;
  ProcessOptions o;
  o.timeout_s = 300;
  const ProcessResult r = run_process({ADAEXPLORE_NVCC, "-std=c++17", "-c", (dir_ / "probe.cu").string(), "-o",
                                       (dir_ / "probe.o").string(), "-I", dir_.string(), "-gencode",
                                       "arch=compute_75,code=sm_75", "-gencode", "arch=compute_80,code=sm_80",
                                       "-gencode", "arch=compute_90,code=sm_90"},
                                      o);
  EXPECT_TRUE(r.ok()) << r.command_line() << "\n" << r.describe() << "\n" << r.err << r.out;
#endif
}

TEST_F(MultiDeviceCompile, HostCompilerGetsTheFallbackAndTheSelectorTakingTheComputeCapability) {
  std::ofstream(dir_ / "probe.cpp") << kHostProbe;
  const ProcessResult r = run_process({"c++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-I", dir_.string(),
                                       (dir_ / "probe.cpp").string()});
  EXPECT_TRUE(r.ok()) << r.command_line() << "\n" << r.describe() << "\n" << r.err << r.out;
  // The probe can fail: a wrong expectation does not compile.
  std::ofstream(dir_ / "wrong.cpp") << "#include \"gemm_multi.hpp\"\nstatic_assert(adaexplore::gemm::TILE_M == 128, \"\");\n";
  EXPECT_FALSE(run_process({"c++", "-std=c++17", "-fsyntax-only", "-I", dir_.string(), (dir_ / "wrong.cpp").string()}).ok());
}

}  // namespace
}  // namespace adaexplore
