// Problem sizes (sizes.hpp): the spec's "sizes", their keys, the order and transfer between them,
// the header of several sizes (golden, compiled with static_asserts and executed), and `tune` of
// a host kernel over sizes through the built adaexplore-tuner: a size added or removed, a
// reconfigure with nothing changed, and a configuration correct only at multiples of its tile.
#include "model/sizes.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include "store/database.hpp"
#include "emit/header.hpp"
#include "util/process.hpp"
#include "evaluate/render.hpp"
#include "model/spec.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"
#include "store/key.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

json sized_spec() {
  return json::parse(R"({
    "name": "gemm", "backend": "host", "template": "gemm.hpp.in", "benchmark": "gemm_bench.cpp",
    "parameters": [{"name": "TILE", "values": [16, 32, 64]}, {"name": "UNROLL", "values": [1, 2]}],
    "budget": {"evaluations": 30},
    "sizes": {"names": ["M", "N", "K"], "values": [[4096, 4096, 4096], [512, 512, 512], [1024, 256, 2048]]}
  })");
}

const fs::path kFile = "/specs/gemm.json";

std::string error_of(const json& j) {
  try {
    parse_spec(j, kFile);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SizesSpec, SizesAreReadInTheDeclaredOrder) {
  const Spec s = parse_spec(sized_spec(), kFile);
  ASSERT_EQ(s.sizes.names, (std::vector<std::string>{"M", "N", "K"}));
  ASSERT_EQ(s.sizes.sizes.size(), 3u);
  EXPECT_EQ(s.sizes.label(s.sizes.sizes[2]), "M=1024 N=256 K=2048");
  EXPECT_EQ(s.sizes.slug(s.sizes.sizes[2]), "M1024_N256_K2048");
  EXPECT_EQ(s.sizes.arguments(s.sizes.sizes[1]),
            (std::vector<std::string>{"--adaexplore-size", "M=512", "--adaexplore-size", "N=512", "--adaexplore-size",
                                      "K=512"}));
  EXPECT_EQ(s.sizes.later_budget(30), 10u);  // ceil(30 / 3)
  EXPECT_EQ(s.sizes.later_budget(31), 11u);
  EXPECT_EQ(s.sizes.warm_start, 8u);
  json j = sized_spec();
  j["sizes"]["budget"] = 4;
  j["sizes"]["warm_start"] = 2;
  const Spec t = parse_spec(j, kFile);
  EXPECT_EQ(t.sizes.later_budget(30), 4u);
  EXPECT_EQ(t.sizes.warm_start, 2u);
  EXPECT_TRUE(parse_spec(json::parse(R"({"name": "a", "backend": "host", "template": "t", "benchmark": "b",
      "parameters": [{"name": "X", "values": [1]}]})"), kFile).sizes.empty());
}

TEST(SizesSpec, BadSizesNameTheFileTheEntryAndTheFix) {
  const std::pair<std::function<void(json&)>, std::vector<std::string>> cases[] = {
      {[](json& j) { j["sizes"] = json::array(); }, {"/specs/gemm.json: sizes: must be an object"}},
      {[](json& j) { j["sizes"].erase("names"); }, {"sizes.names: required"}},
      {[](json& j) { j["sizes"]["names"] = {"M", "2N", "K"}; }, {"sizes.names", "\"2N\" is not an identifier"}},
      {[](json& j) { j["sizes"]["names"] = {"M", "M", "K"}; }, {"sizes.names", "'M' is given twice"}},
      {[](json& j) { j["sizes"]["names"] = {"M", "TILE", "K"}; }, {"sizes.names", "also a parameter's name"}},
      {[](json& j) { j["sizes"]["values"][1] = {512, 512}; }, {"sizes.values[1]", "must be an array of 3 integers"}},
      {[](json& j) { j["sizes"]["values"][2][1] = 0; }, {"sizes.values[2]", "N = 0 must be a positive integer"}},
      {[](json& j) { j["sizes"]["values"][2][1] = 1.5; }, {"sizes.values[2]", "N = 1.5 must be a positive integer"}},
      {[](json& j) { j["sizes"]["values"][2] = {512, 512, 512}; },
       {"sizes.values[2]", "M=512 N=512 K=512 is listed twice"}},
      {[](json& j) { j["sizes"]["values"] = json::array(); }, {"sizes.values: required"}},
      {[](json& j) { j["sizes"]["budget"] = 0; }, {"sizes.budget", "positive integer"}},
      {[](json& j) { j["sizes"]["warm_start"] = -1; }, {"sizes.warm_start", "non-negative integer"}},
      {[](json& j) { j["sizes"]["budgets"] = 3; }, {"sizes.budgets: unknown key"}},
      {[](json& j) { j["sizes"]["names"] = {"M", "select", "K"}; }, {"sizes.names", "'select' is a C++ keyword or a name"}},
      {[](json& j) { j["sizes"]["names"] = {"M", "int", "K"}; }, {"sizes.names", "'int' is a C++ keyword"}},
  };
  for (const auto& [edit, needles] : cases) {
    json j = sized_spec();
    edit(j);
    const std::string e = error_of(j);
    for (const auto& n : needles) EXPECT_CONTAINS(e, n);
  }
}

TEST(SizesKey, EachSizeIsAKeyOfItsOwnAndTheListIsNot) {
  const fs::path dir = test::fresh_test_directory("sizes-key");
  std::ofstream(dir / "gemm.hpp.in") << "// ${TILE} ${UNROLL}\n";
  std::ofstream(dir / "gemm_bench.cpp") << "int main() {}\n";
  const json device = {{"name", "cpu"}};
  auto key_of = [&](const json& j, std::optional<std::size_t> size) {
    Spec s = parse_spec(j, dir / "spec.json");
    if (size) s.size = s.sizes.sizes[*size];
    return content_hash(key_parts(s, "host", device).dump());
  };
  json without = sized_spec();
  without.erase("sizes");
  const json with = sized_spec();
  json more = sized_spec();
  more["sizes"]["values"].push_back({64, 64, 64});
  more["sizes"]["budget"] = 3;
  // A spec with sizes but no size set has the key of the spec without them (nothing changes for
  // kernels tuned at one size); each size has its own; adding a size to the list changes no key.
  EXPECT_EQ(key_of(with, std::nullopt), key_of(without, std::nullopt));
  EXPECT_NE(key_of(with, 0), key_of(with, 1));
  EXPECT_NE(key_of(with, 0), key_of(without, std::nullopt));
  EXPECT_EQ(key_of(with, 1), key_of(more, 1));
  Spec s = parse_spec(with, dir / "spec.json");
  s.size = s.sizes.sizes[2];
  EXPECT_EQ(key_parts(s, "host", device)["size"], json({{"M", 1024}, {"N", 256}, {"K", 2048}}));
  fs::remove_all(dir);
}

TEST(SizesOrder, SmallestVolumeFirstAndNearestInLogSpace) {
  const std::vector<ProblemSize> sizes = {{{4096}}, {{512}}, {{1024}}, {{2048}}, {{256}}};
  EXPECT_EQ(tuning_order(sizes), (std::vector<std::size_t>{4, 1, 2, 3, 0}));
  // From 1024: 512 and 2048 are both a factor 2 away: the larger first; then 256 and 4096.
  EXPECT_EQ(nearest_first(sizes, 2, {0, 1, 3, 4}), (std::vector<std::size_t>{3, 1, 0, 4}));
  EXPECT_NEAR(log_distance({{1024, 64}}, {{256, 128}}), std::log(4.0) + std::log(2.0), 1e-12);
  const std::vector<ProblemSize> ties = {{{8, 2}}, {{2, 8}}, {{4, 4}}};  // same volume: declared order
  EXPECT_EQ(tuning_order(ties), (std::vector<std::size_t>{0, 1, 2}));
}

Outcome outcome(const Config& c, Status s, std::optional<double> ms = std::nullopt) {
  Outcome o;
  o.config = c;
  o.status = s;
  o.objective = ms;
  return o;
}

TEST(SizesTransfer, BestFirstRoundRobinAndOnlyFailuresThatDoNotDependOnTheSize) {
  Outcome oom = outcome({9}, Status::resource_limit);
  oom.message = "cudaMalloc(c, 68719476736 bytes): out of memory";
  oom.extra["error_name"] = "cudaErrorMemoryAllocation";
  Outcome ptxas = outcome({8}, Status::resource_limit);
  ptxas.message = "ptxas rejected the kernel: uses too much shared data (0x10000 bytes, 0xc000 max)";
  Outcome threads = outcome({10}, Status::resource_limit);
  threads.message = "2048 threads per block, above the device's 1024 (sm_90, static check: launch.threads_per_block)";
  Outcome block = outcome({11}, Status::resource_limit);  // the harness's: the benchmark's block may follow the size
  block.message = "sgemm_kernel: 2048 threads per block, above the kernel's 1024 (the driver's cudaFuncGetAttributes)";
  const std::vector<Outcome> near = {outcome({1}, Status::ok, 3.0), outcome({2}, Status::ok, 1.0),
                                     outcome({3}, Status::wrong_result), outcome({4}, Status::compile_error),
                                     outcome({5}, Status::slow, 9.0), oom, ptxas, block};
  const std::vector<Outcome> far = {outcome({2}, Status::ok, 2.0), outcome({6}, Status::ok, 1.5),
                                    outcome({7}, Status::timeout), outcome({4}, Status::compile_error), threads};
  const std::vector<Outcome> measured = {outcome({1}, Status::ok, 5.0)};  // this size has {1} already
  const SizeTransfer t = transfer_from({&near, &far}, 8, measured);
  // Round-robin, lowest objective first, {1} (measured) and the repeat of {2} skipped.
  EXPECT_EQ(t.warm_start, (std::vector<Config>{{2}, {6}, {5}}));
  EXPECT_EQ(transfer_from({&near, &far}, 2, measured).warm_start, (std::vector<Config>{{2}, {6}}));
  EXPECT_EQ(t.sources, 2u);
  // Failures: the compile error (once), ptxas's limit and the static check's; not wrong_result, a
  // time-out, a failed allocation or the harness's block check (they may depend on the size).
  std::vector<Config> prior;
  for (const auto& o : t.prior) prior.push_back(o.config);
  EXPECT_EQ(prior, (std::vector<Config>{{4}, {8}, {10}}));
  EXPECT_EQ(t.describe(), "3 configurations to evaluate first and 3 size-independent failures known, from 2 other sizes");
  EXPECT_FALSE(size_independent(oom));
  EXPECT_FALSE(size_independent(block));
  EXPECT_TRUE(size_independent(ptxas));
  EXPECT_TRUE(size_independent(threads));
}

// --- The header of several sizes ---------------------------------------------------------------

Space header_space() {
  return Space({test::numbers("TILE", {16, 32, 64, 128}), Parameter{"LAYOUT", {Value::from_text("row"), Value::from_text("col")}}},
               {});
}

HeaderInfo size_info(const Config& winner, double ms, double defaults_ms) {
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.source = "tuned";
  info.backend = "cuda";
  info.device = {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"sm_count", 132}};
  info.date = "2026-12-02T12:00:00Z";
  info.strategy = "adaexplore";
  info.seed = 1;
  info.budget = 30;
  Outcome w;
  w.config = winner;
  w.label = header_space().label(winner);
  w.objective = ms;
  info.winner = w;
  Outcome d = w;
  d.config = {1, 0};
  d.objective = defaults_ms;
  info.baseline = d;
  info.counts = {{"ok", 28}, {"compile_error", 2}};
  info.evaluations = 30;
  return info;
}

std::vector<SizeHeaderEntry> three_sizes() {
  std::vector<SizeHeaderEntry> e(3);
  e[0].size = "M=4096 N=4096";
  e[0].values = {4096, 4096};
  e[0].config = {3, 1};  // TILE 128, col
  e[0].info = size_info(e[0].config, 4.5, 9.0);
  e[0].verified = {"M=4096 N=4096", "M=512 N=512"};
  e[0].not_verified = {"M=1000 N=1000 (wrong_result)"};
  e[1].size = "M=512 N=512";
  e[1].values = {512, 512};
  e[1].config = {1, 0};  // TILE 32, row
  e[1].info = size_info(e[1].config, 0.25, 0.25);
  e[1].verified = {"M=4096 N=4096", "M=512 N=512", "M=1000 N=1000"};
  e[2].size = "M=1000 N=1000";
  e[2].values = {1000, 1000};
  e[2].config = {0, 0};  // TILE 16, row
  e[2].info = size_info(e[2].config, 1.25, 2.5);
  e[2].verified = {"M=1000 N=1000"};
  e[2].not_verified = {"M=4096 N=4096 (not evaluated)", "M=512 N=512 (not evaluated)"};
  return e;
}

HeaderInfo sized_common(const std::string& source) {
  HeaderInfo c;
  c.kernel = "gemm";
  c.name_space = "adaexplore::gemm";
  c.source = source;
  c.backend = "cuda";
  c.reason = "no CUDA GPU";
  return c;
}

std::string golden(const std::string& leaf) { return read_file(fs::path(ADAEXPLORE_TEST_DATA) / "header" / leaf); }

TEST(SizedHeader, MatchesTheGoldenFile) {
  const std::string h = render_sized_header(header_space(), {"M", "N"}, three_sizes(), sized_common("tuned"));
  if (std::getenv("ADAEXPLORE_WRITE_GOLDEN")) std::ofstream(fs::path(ADAEXPLORE_TEST_DATA) / "header" / "gemm_sizes.hpp") << h;
  EXPECT_EQ(h, golden("gemm_sizes.hpp"));
  // The pieces a reader and the CMake module rely on.
  EXPECT_CONTAINS(h, "// Sizes:       M=4096 N=4096; M=512 N=512; M=1000 N=1000\n");
  EXPECT_CONTAINS(h, "// Not verified: M=1000 N=1000 (wrong_result)\n");
  EXPECT_CONTAINS(h, "inline constexpr int TILE = 128;\n");  // the first size's entry
  EXPECT_EQ(h.find("struct Params {"), std::string::npos);  // the multi-device layout's marker
}

TEST(SizedHeader, RefusesNamesItUsesItself) {
  EXPECT_THROW(render_sized_header(Space({test::numbers("kSizes", {1})}, {}), {"N"}, {three_sizes()[0]}, sized_common("tuned")),
               std::invalid_argument);
  EXPECT_THROW(render_sized_header(header_space(), {"select"}, three_sizes(), sized_common("tuned")),
               std::invalid_argument);
}

// The header compiled with static_asserts on the selector (constexpr) and executed.
const char* kSizedProbe = R"probe(#include "gemm_sizes.hpp"
#include <cstdio>
#include <cstring>
namespace g = adaexplore::gemm;
static_assert(g::kTuned && g::TILE == 128 && std::strlen(g::LAYOUT) == 3, "the first size's entry");
static_assert(g::kSizeCount == 3 && g::kSizes[1].size.M == 512, "the table in the declared order");
static_assert(g::select(4096, 4096).TILE == 128, "a tuned size selects its own entry");
static_assert(g::select(512, 512).TILE == 32 && g::select(1000, 1000).TILE == 16, "each tuned size");
static_assert(g::select(8192, 8192).TILE == 128 && g::select(1, 1).TILE == 32, "outside: the nearest end");
static_assert(g::select(0, -5).TILE == 32, "below 1 counts as 1");
static_assert(g::select_index(2100, 2000) == 0, "2100 x 2000: 4096 x 4096 (a factor 3.99) before 1000 x 1000 (4.2)");
static_assert(g::select_index(716, 716) == 2, "716 x 716: 1000 x 1000 (a factor 1.951) before 512 x 512 (1.956)");
static_assert(g::select_index(4096, 512) == 0, "4096 x 512: a factor 8 from every entry, a tie: the largest");
constexpr int tile_for(long long m, long long n) { return g::select(m, n).TILE; }
template <int T> struct Kernel { static constexpr int tile = T; };
static_assert(Kernel<g::kSizes[2].params.TILE>::tile == 16, "an entry as a template argument");
int main(int argc, char**) {
  const long long m = 600 * argc, n = 500 * argc;  // run time: 600 x 500, nearest 512 x 512
  std::printf("%d %s %zu\n", g::select(m, n).TILE, g::select(m, n).LAYOUT, g::select_index(3000 * argc, 3000));
  return tile_for(m, n) == 32 ? 0 : 1;
}
)probe";

TEST(SizedHeader, CompilesAndSelectsTheNearestSizeInConstexprAndAtRunTime) {
  const fs::path dir = test::fresh_test_directory("sized-header");
  std::ofstream(dir / "gemm_sizes.hpp") << render_sized_header(header_space(), {"M", "N"}, three_sizes(), sized_common("tuned"));
  std::ofstream(dir / "probe.cpp") << kSizedProbe;
  ProcessOptions o;
  o.timeout_s = 120;
  const ProcessResult built = run_process({"c++", "-std=c++17", "-Wall", "-Werror", "-I", dir.string(),
                                           (dir / "probe.cpp").string(), "-o", (dir / "probe").string()}, o);
  ASSERT_TRUE(built.ok()) << built.command_line() << "\n" << built.err << built.out;
  const ProcessResult ran = run_process({(dir / "probe").string()}, o);
  EXPECT_TRUE(ran.ok()) << ran.err;
  EXPECT_EQ(ran.out, "32 row 0\n");  // 600 x 500: 512 x 512 (a factor 1.2); 3000 x 3000: 4096 x 4096
  // The probe can fail: a wrong expectation does not compile.
  std::ofstream(dir / "wrong.cpp") << "#include \"gemm_sizes.hpp\"\nstatic_assert(adaexplore::gemm::select(512, 512).TILE == 16, \"\");\n";
  EXPECT_FALSE(run_process({"c++", "-std=c++17", "-fsyntax-only", "-I", dir.string(), (dir / "wrong.cpp").string()}, o).ok());
#ifdef ADAEXPLORE_NVCC
  // nvcc's host pass too (a library's .cu file includes it).
  fs::copy_file(dir / "probe.cpp", dir / "probe.cu");
  const ProcessResult cuda = run_process({ADAEXPLORE_NVCC, "-std=c++17", "-c", (dir / "probe.cu").string(), "-o",
                                          (dir / "probe.o").string(), "-I", dir.string()}, o);
  EXPECT_TRUE(cuda.ok()) << cuda.command_line() << "\n" << cuda.err << cuda.out;
#endif
  if (!HasFailure()) fs::remove_all(dir);
}

TEST(SizedHeader, TheDefaultsHeaderHasTheSameDeclarations) {
  std::vector<SizeHeaderEntry> entries = three_sizes();
  for (auto& e : entries) e.config = {1, 0};
  const std::string h = render_sized_header(header_space(), {"M", "N"}, entries, sized_common("defaults"));
  EXPECT_CONTAINS(h, "// NOT TUNED:   every size has the defaults. no CUDA GPU\n");
  EXPECT_CONTAINS(h, "inline constexpr bool kTuned = false;\n");
  EXPECT_CONTAINS(h, "    {{512, 512}, {32, \"row\"}},  // M=512 N=512: the defaults\n");
  EXPECT_CONTAINS(h, "constexpr const SizeParams& select(long long M, long long N)");
  EXPECT_EQ(h.find("// Winner:"), std::string::npos);
}


// The harness's --adaexplore-size: a positive integer per name, digits only, each name once; a
// malformed one stops the benchmark with exit code 64 and says why.
TEST(SizesHarness, ReadsTheSizeAndRefusesMalformedOnes) {
  const fs::path dir = test::fresh_test_directory("sizes-harness");
  std::ofstream(dir / "probe.cpp") << R"(#include <adaexplore/harness_host.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  std::printf("%lld %lld %zu\n", bench.size("N", 7), bench.size("M", 5), bench.args().size());
  return 0;
}
)";
  ProcessOptions o;
  o.timeout_s = 120;
  const ProcessResult built = run_process({"c++", "-std=c++17", "-I", (fs::path(ADAEXPLORE_SOURCE_DIR) / "templates").string(),
                                           (dir / "probe.cpp").string(), "-o", (dir / "probe").string(), "-pthread"}, o);
  ASSERT_TRUE(built.ok()) << built.err;
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), (dir / "probe").string());
    return run_process(args, o);
  };
  ProcessResult r = run({"--adaexplore-size", "N=4096", "--other", "x"});
  EXPECT_EQ(r.out, "4096 5 2\n");  // M falls back; --other x stays the benchmark's
  r = run({});
  EXPECT_EQ(r.out, "7 5 0\n");
  for (const std::string bad : {"N=0", "N=-3", "N=+3", "N= 3", "N=3x", "N=", "=3", "N", "N=99999999999999999999"}) {
    r = run({"--adaexplore-size", bad});
    EXPECT_EQ(r.exit_code, 64) << bad << ": " << r.out;
    EXPECT_CONTAINS(r.err, "--adaexplore-size " + bad + ": expected NAME=VALUE");
  }
  r = run({"--adaexplore-size", "N=3", "--adaexplore-size", "N=4"});
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_CONTAINS(r.err, "each NAME once");
  if (!HasFailure()) fs::remove_all(dir);
}

// --- `tune` over sizes, through the built tuner, on a host kernel -------------------------------

// TAIL 0 skips the last partial tile (a tail bug: correct only when TILE divides N); TAIL 1 is
// correct and does the work four times (so slower).
const char* kTailTemplate = R"(#pragma once
#include <cstddef>
inline void scale(float* y, const float* x, std::size_t n) {
  constexpr std::size_t kTile = ${TILE};
  for (int pass = 0; pass < (${TAIL} ? 4 : 1); ++pass) {
    std::size_t i = 0;
    for (; i + kTile <= n; i += kTile)
      for (std::size_t u = 0; u < kTile; ++u) y[i + u] = 2.0f * x[i + u];
    if (${TAIL})
      for (; i < n; ++i) y[i] = 2.0f * x[i];
  }
}
)";

const char* kTailBenchmark = R"(#include <adaexplore/harness_host.hpp>
#include "scale.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = static_cast<std::size_t>(bench.size("N"));
  if (n == 77) bench.size("X");  // no such size: every configuration fails at N = 77 (launch_error)
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = 2.0f * x[i];
  return bench.run([&] { for (int r = 0; r < 64; ++r) scale(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
)";

class SizesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("sizes-cli");
    std::ofstream(dir_ / "scale.hpp.in") << kTailTemplate;
    std::ofstream(dir_ / "scale_bench.cpp") << kTailBenchmark;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void write_spec(const std::vector<long long>& sizes, int size_budget = 6, int budget = 6) const {
    json values = json::array();
    for (long long n : sizes) values.push_back({n});
    const json spec = {
        {"name", "scale"},
        {"backend", "host"},
        {"template", "scale.hpp.in"},
        {"benchmark", "scale_bench.cpp"},
        {"parameters", {{{"name", "TILE"}, {"values", {4, 16, 64}}}, {{"name", "TAIL"}, {"values", {0, 1}}}}},
        {"defaults", {{"TILE", 4}, {"TAIL", 1}}},
        {"strategy", "random"},
        {"budget", {{"evaluations", budget}}},
        {"sizes", {{"names", {"N"}}, {"values", values}, {"budget", size_budget}}},
        {"compiler", {{"flags", {"-O1"}}}},
        {"run", {{"timeout_s", 20}, {"args", {"--adaexplore-measure-ms", "5", "--adaexplore-warmup-ms", "1"}}}}};
    std::ofstream(dir_ / "spec.json") << spec.dump(2);
  }
  struct Run {
    int code = -1;
    std::string out, err;
  };
  Run tune() const {
    ProcessOptions o;
    o.timeout_s = 500;
    const ProcessResult r = run_process({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(),
                                         "--database", (dir_ / "db").string(), "--header",
                                         (dir_ / "tuned.hpp").string(), "--quiet"},
                                        o);
    return {r.exit_code ? *r.exit_code : -1, r.out, r.err};
  }
  // Records per size, by the "size" of the file's key.
  std::map<long long, std::vector<json>> records() const {
    std::map<long long, std::vector<json>> out;
    for (const auto& e : fs::directory_iterator(dir_ / "db" / "scale")) {
      if (e.path().extension() != ".jsonl") continue;
      std::ifstream in(e.path());
      std::string line;
      std::getline(in, line);
      const long long n = json::parse(line)["key_parts"]["size"]["N"].get<long long>();
      while (std::getline(in, line))
        if (json::accept(line)) out[n].push_back(json::parse(line));
    }
    return out;
  }
  // The header's kSizes entry of size n: {TILE, TAIL}.
  std::pair<int, int> entry(const std::string& header, long long n) const {
    std::smatch m;
    const std::regex re("\\{\\{" + std::to_string(n) + "\\}, \\{([0-9]+), ([0-9]+)\\}\\}");
    if (!std::regex_search(header, m, re)) return {-1, -1};
    return {std::stoi(m[1]), std::stoi(m[2])};
  }
  fs::path dir_;
};

TEST_F(SizesCli, ATailBugIsCrownedAtNoSizeAndTheHeaderSaysWhereEachWinnerVerified) {
  // 4099 is no multiple of any TILE. At 4096 the TAIL 0 configurations verify and are faster; at
  // 4099 they are wrong, so none may win anywhere (select() would hand 4097 to 4096's entry).
  write_spec({4096, 4099}, 4, 4);
  const Run r = tune();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "2 problem sizes, in this order: N=4096; N=4099 (budget 4 for a size tuned while no other size has a successful result, 4 for each other");
  EXPECT_CONTAINS(r.out, "scale [N=4099]: transfer: ");
  const auto recs = records();
  ASSERT_EQ(recs.size(), 2u);
  std::set<std::string> wrong;
  for (const auto& rec : recs.at(4099)) {  // TAIL 0 fails at 4099, TAIL 1 verifies
    const bool tail = rec["config"]["TAIL"].get<int>() == 1;
    EXPECT_EQ(rec["status"].get<std::string>() == "wrong_result", !tail) << rec.dump();
    if (!tail) wrong.insert(rec["config"].dump());
  }
  bool fast_tail_bug_at_4096 = false;
  for (const auto& rec : recs.at(4096)) {
    EXPECT_NE(rec["status"], "wrong_result") << rec.dump();
    fast_tail_bug_at_4096 = fast_tail_bug_at_4096 || rec["config"]["TAIL"].get<int>() == 0;
  }
  // The seed's random proposals evaluate a TAIL 0 configuration at 4096, where it is the fastest,
  // and it is evaluated at 4099 (the transfer's warm start), where it is wrong.
  ASSERT_TRUE(fast_tail_bug_at_4096);
  EXPECT_FALSE(wrong.empty());
  const std::string h = read_file(dir_ / "tuned.hpp");
  EXPECT_CONTAINS(h, "// Sizes:       N=4096; N=4099\n");
  EXPECT_EQ(entry(h, 4099).second, 1) << h;  // both winners have the tail loop
  EXPECT_EQ(entry(h, 4096).second, 1) << h;
  EXPECT_EQ(h.find("wrong_result)"), std::string::npos) << h;
}

TEST_F(SizesCli, AnAddedSizeIsTunedAloneARemovedOneDropsOutAndNothingChangedIsACacheHit) {
  write_spec({1024, 4096});
  Run r = tune();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto before = records();
  ASSERT_EQ(before.size(), 2u);
  const std::string first = read_file(dir_ / "tuned.hpp");
  // Nothing changed: nothing evaluated, the header unchanged.
  r = tune();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(records(), before);
  EXPECT_CONTAINS(r.out, "header " + (dir_ / "tuned.hpp").string() + " unchanged");
  EXPECT_EQ(std::regex_search(r.out, std::regex("[1-9][0-9]* new\\)")), false) << r.out;
  // A size added, smaller than the others: tuned with SIZE_BUDGET (3) from the others' evidence,
  // not as a cold start; the others only get its winner verified, and keep their budget (6).
  write_spec({1024, 4096, 512}, 3);
  r = tune();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "scale [N=512]: transfer: ");
  auto after = records();
  ASSERT_EQ(after.size(), 3u);
  EXPECT_GE(after.at(512).size(), 3u);
  EXPECT_LE(after.at(512).size(), 5u);  // 3, and at most the two other winners verified there
  for (long long n : {1024LL, 4096LL}) {
    ASSERT_GE(after.at(n).size(), before.at(n).size());
    EXPECT_LE(after.at(n).size(), before.at(n).size() + 1);  // at most the new size's winner
    EXPECT_TRUE(std::equal(before.at(n).begin(), before.at(n).end(), after.at(n).begin()));
  }
  std::string h = read_file(dir_ / "tuned.hpp");
  EXPECT_CONTAINS(h, "// Sizes:       N=1024; N=4096; N=512\n");
  EXPECT_NE(entry(h, 512).first, -1) << h;
  EXPECT_CONTAINS(h, "// Size N=512:\n// Device:      ");
  EXPECT_NE(h.find("budget 3 evaluations\n// Winner"), std::string::npos) << h;
  EXPECT_NE(h.find("budget 6 evaluations\n// Winner"), std::string::npos) << h;
  // A size removed: its entry is gone, nothing evaluated, its results kept in the database.
  write_spec({4096, 512}, 3);
  before = records();
  r = tune();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(records(), before);
  h = read_file(dir_ / "tuned.hpp");
  EXPECT_CONTAINS(h, "// Sizes:       N=4096; N=512\n");
  EXPECT_EQ(entry(h, 1024).first, -1) << h;
  EXPECT_EQ(h.find("N=1024"), std::string::npos) << h;
  // --cached writes the same bytes from the stored results.
  fs::remove(dir_ / "tuned.hpp");
  ProcessOptions o;
  o.timeout_s = 120;
  const ProcessResult cached = run_process({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(),
                                            "--database", (dir_ / "db").string(), "--header",
                                            (dir_ / "tuned.hpp").string(), "--cached"},
                                           o);
  ASSERT_TRUE(cached.ok()) << cached.out << cached.err;
  EXPECT_EQ(read_file(dir_ / "tuned.hpp"), h);
}

TEST_F(SizesCli, ASizeWhereNothingVerifiesFailsTheTuningNamingItAndKeepsTheOthersResults) {
  write_spec({64, 77}, 3, 3);
  const fs::path results = dir_ / "out" / "results.jsonl";  // --results R: one file per size, R.<size>.jsonl
  auto tune_results = [&] {
    ProcessOptions o;
    o.timeout_s = 300;
    return run_process({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(), "--results",
                        results.string(), "--header", (dir_ / "tuned.hpp").string(), "--quiet"},
                       o);
  };
  ProcessResult r = tune_results();
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_CONTAINS(r.err, "scale [N=77]: no configuration compiled, ran and verified");
  EXPECT_CONTAINS(r.err, "scale: no header written: the tuning of scale [N=77] failed (above); the other sizes' results "
                         "are kept");
  EXPECT_FALSE(fs::exists(dir_ / "tuned.hpp"));
  ASSERT_TRUE(fs::exists(dir_ / "out" / "results.N64.jsonl"));
  ASSERT_TRUE(fs::exists(dir_ / "out" / "results.N77.jsonl"));
  const std::string n64 = read_file(dir_ / "out" / "results.N64.jsonl");
  EXPECT_NE(n64.find("\"status\":\"ok\""), std::string::npos);
  // Again: N=64 answers from its results (nothing evaluated there), N=77 fails again.
  r = tune_results();
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_CONTAINS(r.err, "scale [N=77]: no configuration compiled, ran and verified among the 3 evaluations of its spent budget");
  EXPECT_CONTAINS(r.out, "scale [N=64]: done (budget), ");
  EXPECT_CONTAINS(r.out, " evaluations (0 new); results in " + (dir_ / "out" / "results.N64.jsonl").string());
  EXPECT_EQ(read_file(dir_ / "out" / "results.N64.jsonl"), n64);
}

TEST_F(SizesCli, TheDefaultsHeaderOfSizesDeclaresTheTable) {
  write_spec({64, 128});
  ProcessOptions o;
  o.timeout_s = 60;
  const ProcessResult r = run_process({ADAEXPLORE_TUNER_EXECUTABLE, "defaults", "--spec", (dir_ / "spec.json").string(),
                                       "--header", (dir_ / "defaults.hpp").string(), "--reason", "no GPU here"},
                                      o);
  ASSERT_TRUE(r.ok()) << r.out << r.err;
  const std::string h = read_file(dir_ / "defaults.hpp");
  EXPECT_CONTAINS(h, "// NOT TUNED:   every size has the defaults. no GPU here\n");
  EXPECT_EQ(entry(h, 64), std::make_pair(4, 1));
  EXPECT_EQ(entry(h, 128), std::make_pair(4, 1));
  EXPECT_CONTAINS(h, "constexpr const SizeParams& select(long long N)");
}

}  // namespace
}  // namespace adaexplore
