#include "model/spec.hpp"

#include <chrono>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json good_spec() {
  return json::parse(R"({
    "name": "gemm",
    "backend": "cuda",
    "template": "kernels/gemm.cu.in",
    "benchmark": "/abs/gemm_bench.cu",
    "parameters": [
      {"name": "TILE", "values": [16, 32, 64]},
      {"name": "UNROLL", "range": {"from": 1, "to": 7, "step": 2}},
      {"name": "LAYOUT", "values": ["row", "col"]}
    ],
    "constraints": ["TILE * UNROLL <= 128", "LAYOUT == 'row' or UNROLL == 1"],
    "defaults": {"TILE": 32, "UNROLL": 3, "LAYOUT": "row"},
    "budget": {"evaluations": 40, "seconds": 12.5},
    "strategy": "random",
    "seed": 7,
    "compiler": {"flags": ["-O3"], "include_dirs": ["inc"], "timeout_s": 60},
    "run": {"timeout_s": 5, "args": ["--n", "1024"]}
  })");
}

const fs::path kFile = "/specs/gemm.json";

// The SpecError message for `j`, or "(no error)".
std::string error_of(const json& j, const fs::path& file = kFile) {
  try {
    parse_spec(j, file);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

// Issue 37: a text value with a line break or a NUL reaches the header's comment and literal and
// the progress lines; the spec refuses it, naming the parameter and the character.
TEST(Spec, TextValuesWithControlCharactersAreRefused) {
  for (const std::string& bad : {std::string("row\n#error injected"), std::string("a\0b", 3), std::string("tab\there"),
                                 std::string("esc\x1b[1m"), std::string("del\x7f")}) {
    json j = good_spec();
    j["parameters"][2]["values"] = {"col", bad};
    const std::string e = error_of(j);
    EXPECT_CONTAINS(e, "/specs/gemm.json: parameters[2] (LAYOUT): the value ");
    EXPECT_CONTAINS(e, "holds a control character (U+00");
    EXPECT_CONTAINS(e, "write it without line breaks, tabs or other control characters");
  }
  json j = good_spec();
  j["defaults"]["LAYOUT"] = "row\n";
  EXPECT_CONTAINS(error_of(j), "defaults.LAYOUT: the value \"row\\n\" holds a control character (U+000A)");
  j = good_spec();
  j["parameters"][2]["values"] = {"col", "row", "é ünïcode"};  // printable text stays allowed
  EXPECT_EQ(error_of(j), "(no error)");
}

TEST(Spec, GoodSpecIsReadCompletely) {
  const Spec s = parse_spec(good_spec(), kFile);
  EXPECT_EQ(s.name, "gemm");
  EXPECT_EQ(s.name_space, "adaexplore::gemm");
  EXPECT_EQ(s.backend, "cuda");
  EXPECT_EQ(s.template_path, fs::path("/specs/kernels/gemm.cu.in"));
  EXPECT_EQ(s.benchmark_path, fs::path("/abs/gemm_bench.cu"));
  ASSERT_EQ(s.space.dimension(), 3u);
  const auto& unroll = s.space.parameters()[1].values;
  ASSERT_EQ(unroll.size(), 4u);  // 1 3 5 7: inclusive range with step
  EXPECT_EQ(unroll.front().text, "1");
  EXPECT_EQ(unroll.back().text, "7");
  EXPECT_FALSE(s.space.parameters()[2].values[0].numeric);
  EXPECT_EQ(s.space.constraints().size(), 2u);
  EXPECT_TRUE(s.defaults_given);
  EXPECT_EQ(s.space.label(s.defaults), "TILE=32,UNROLL=3,LAYOUT=row");
  EXPECT_EQ(s.budget_evaluations, 40u);
  EXPECT_DOUBLE_EQ(s.budget_seconds, 12.5);
  EXPECT_EQ(s.strategy, "random");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.compiler.path, "nvcc");
  EXPECT_EQ(s.compiler.flags, std::vector<std::string>{"-O3"});
  EXPECT_EQ(s.compiler.include_dirs, std::vector<std::string>{"/specs/inc"});
  EXPECT_DOUBLE_EQ(s.compiler.timeout_s, 60);
  EXPECT_DOUBLE_EQ(s.run_timeout_s, 5);
  EXPECT_EQ(s.run_args, (std::vector<std::string>{"--n", "1024"}));
  EXPECT_EQ(s.work_dir, fs::path("/specs/gemm.work"));
}

TEST(Spec, WithoutDefaultsTheFirstValidConfigurationIsTheBaseline) {
  json j = good_spec();
  j.erase("defaults");
  j["constraints"] = {"TILE >= 32"};
  const Spec s = parse_spec(j, kFile);
  EXPECT_FALSE(s.defaults_given);
  EXPECT_EQ(s.space.label(s.defaults), "TILE=32,UNROLL=1,LAYOUT=row");
  EXPECT_EQ(s.budget_evaluations, 40u);
}

TEST(Spec, WithoutDefaultsALargeSpaceIsNotStored) {
  // 60^4 = 13 million configurations, nearly all valid: the baseline is found by walking the
  // space, not by enumerating it into memory (load_spec runs at every CMake configure).
  json j = good_spec();
  j.erase("defaults");
  j["constraints"] = {"A + B >= 2"};
  j["parameters"] = json::array();
  for (const char* name : {"A", "B", "C", "D"})
    j["parameters"].push_back({{"name", name}, {"range", {{"from", 0}, {"to", 59}}}});
  const auto start = std::chrono::steady_clock::now();
  const Spec s = parse_spec(j, kFile);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_EQ(s.space.label(s.defaults), "A=0,B=2,C=0,D=0");
}

TEST(Spec, OptionalKeysHaveDefaults) {
  json j = good_spec();
  for (const char* k : {"defaults", "budget", "strategy", "seed", "compiler", "run", "constraints"}) j.erase(k);
  j["backend"] = "host";
  const Spec s = parse_spec(j, kFile);
  EXPECT_EQ(s.budget_evaluations, 100u);
  EXPECT_EQ(s.budget_seconds, 0);
  EXPECT_EQ(s.strategy, "adaexplore");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.compiler.path, "c++");
  EXPECT_EQ(s.space.label(s.defaults), "TILE=16,UNROLL=1,LAYOUT=row");
}

TEST(Spec, LoadSpecReadsAFileAndResolvesPathsNextToIt) {
  const fs::path dir = fs::temp_directory_path() / ("adaexplore-spec-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "gemm.json") << good_spec().dump(2);
  const Spec s = load_spec(dir / "gemm.json");
  EXPECT_EQ(s.template_path, dir / "kernels/gemm.cu.in");
  EXPECT_EQ(s.file, dir / "gemm.json");
  fs::remove_all(dir);
}

TEST(Spec, NotJsonNamesTheFile) {
  const fs::path file = fs::temp_directory_path() / ("adaexplore-notjson-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << "{\"name\": \"gemm\",";
  try {
    load_spec(file);
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    EXPECT_CONTAINS(e.what(), file.string() + ": not valid JSON");
  }
  fs::remove(file);
  EXPECT_THROW(load_spec(file), SpecError);  // missing file
}

TEST(Spec, UnknownKeyIsNamed) {
  json j = good_spec();
  j["budjet"] = 3;
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: budjet: unknown key");
}

TEST(Spec, UnknownKeyInsideASectionIsNamed) {
  json j = good_spec();
  j["compiler"]["flgs"] = json::array({"-O2"});
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: compiler.flgs: unknown key");
  j = good_spec();
  j["budget"]["evaluation"] = 3;
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: budget.evaluation: unknown key");
}

TEST(Spec, MissingTemplateIsNamed) {
  json j = good_spec();
  j.erase("template");
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: template: required");
}

TEST(Spec, EmptyValuesNameTheParameter) {
  json j = good_spec();
  j["parameters"][0]["values"] = json::array();
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: parameters[0] (TILE): \"values\" must be a non-empty array");
}

TEST(Spec, BadRangesNameTheParameter) {
  for (const char* range : {R"({"from": 8, "to": 1})", R"({"from": 1, "to": 8, "step": 0})",
                            R"({"from": 1, "to": 8, "step": -1})", R"({"from": 1.5, "to": 8})", R"({"to": 8})",
                            R"({"from": 1, "to": 8, "step": "2"})", R"({"from": 1, "to": 8, "step": 1.5})"}) {
    json j = good_spec();
    j["parameters"][1]["range"] = json::parse(range);
    EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: parameters[1] (UNROLL): \"range\"");
  }
}

TEST(Spec, DuplicateParameterIsAnError) {
  json j = good_spec();
  j["parameters"][2]["name"] = "TILE";
  EXPECT_CONTAINS(error_of(j), "parameter TILE is declared twice");
}

TEST(Spec, UnknownNameInAConstraintIsNamed) {
  json j = good_spec();
  j["constraints"] = {"TILE * BLOCK <= 1024"};
  const std::string e = error_of(j);
  EXPECT_CONTAINS(e, "/specs/gemm.json: ");
  EXPECT_CONTAINS(e, "unknown parameter 'BLOCK'");
  EXPECT_CONTAINS(e, "TILE * BLOCK <= 1024");
}

TEST(Spec, DefaultsViolatingAConstraintAreNamed) {
  json j = good_spec();
  j["defaults"] = {{"TILE", 64}, {"UNROLL", 3}, {"LAYOUT", "row"}};
  const std::string e = error_of(j);
  EXPECT_CONTAINS(e, "/specs/gemm.json: defaults: the defaults TILE=64,UNROLL=3,LAYOUT=row violate the constraint");
  EXPECT_CONTAINS(e, "TILE * UNROLL <= 128");
}

TEST(Spec, DefaultsNamingAnUnknownParameterAreNamed) {
  json j = good_spec();
  j["defaults"]["BLOCK"] = 4;
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: defaults: unknown parameter BLOCK");
}

TEST(Spec, DefaultsWithAValueNotListedAreNamed) {
  json j = good_spec();
  j["defaults"]["TILE"] = 48;
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: defaults: value 48 is not among the values of TILE");
}

TEST(Spec, NoValidConfigurationIsAnError) {
  json j = good_spec();
  j.erase("defaults");
  j["constraints"] = {"TILE > 1000"};
  EXPECT_CONTAINS(error_of(j), "no configuration satisfies every constraint");
}

TEST(Spec, WrongTypesAreSpecErrorsNamingTheKey) {
  const std::pair<const char*, json> cases[] = {
      {"namespace", 3},          {"strategy", 1},          {"seed", -1},          {"jobs", "four"},          {"in_flight", -2},
      {"compiler", "nvcc"},      {"run", json::array()},   {"budget", 10},        {"work_dir", false},
      {"strategy_options", 2},   {"backend", "opencl"},    {"name", "1gemm"},     {"parameters", json::array()},
  };
  for (const auto& [key, value] : cases) {
    json j = good_spec();
    j[key] = value;
    EXPECT_CONTAINS(error_of(j), std::string("/specs/gemm.json: ") + key);
  }
  json j = good_spec();
  j["compiler"]["timeout_s"] = "long";
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: compiler.timeout_s");
  j = good_spec();
  j["run"]["args"] = {1, 2};
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: run.args");
}

TEST(Spec, RunTimeLimitFactorAndFloor) {
  const Spec defaults = parse_spec(good_spec(), kFile);
  EXPECT_DOUBLE_EQ(defaults.run_timeout_factor, 10);
  EXPECT_DOUBLE_EQ(defaults.run_timeout_floor_s, 5);
  json j = good_spec();
  j["run"]["timeout_factor"] = 4;
  j["run"]["timeout_floor_s"] = 0.5;
  const Spec s = parse_spec(j, kFile);
  EXPECT_DOUBLE_EQ(s.run_timeout_factor, 4);
  EXPECT_DOUBLE_EQ(s.run_timeout_floor_s, 0.5);
  j["run"]["timeout_factor"] = 0;  // the cap alone
  EXPECT_DOUBLE_EQ(parse_spec(j, kFile).run_timeout_factor, 0);
  for (const json& bad : {json(0.5), json("ten"), json(-1)}) {
    j = good_spec();
    j["run"]["timeout_factor"] = bad;
    EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: run.timeout_factor: must be a number >= 1");
  }
  for (const json& bad : {json(-0.1), json("5 s")}) {
    j = good_spec();
    j["run"]["timeout_floor_s"] = bad;
    EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: run.timeout_floor_s: must be a number of seconds >= 0");
  }
  j = good_spec();
  j["run"]["timeout_flor_s"] = 1;
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: run.timeout_flor_s: unknown key");
}

TEST(Spec, LaunchExpressionsAreParsedOverTheParameters) {
  EXPECT_FALSE(parse_spec(good_spec(), kFile).launch.threads_per_block);
  json j = good_spec();
  j["launch"] = {{"threads_per_block", "TILE * UNROLL"}, {"dynamic_shared_bytes", 4096}, {"dynamic_shared_opt_in", false}};
  const Spec s = parse_spec(j, kFile);
  ASSERT_TRUE(s.launch.threads_per_block);
  EXPECT_EQ(s.launch.threads_per_block->text(), "TILE * UNROLL");
  EXPECT_EQ(s.launch.threads_per_block->parameters(), (std::vector<std::size_t>{0, 1}));
  ASSERT_TRUE(s.launch.dynamic_shared_bytes);
  EXPECT_EQ(s.launch.dynamic_shared_bytes->text(), "4096");
  EXPECT_FALSE(s.launch.dynamic_shared_opt_in);
  j["launch"] = {{"threads_per_block", "TILE"}};
  const Spec threads_only = parse_spec(j, kFile);
  EXPECT_FALSE(threads_only.launch.dynamic_shared_bytes);
  EXPECT_TRUE(threads_only.launch.dynamic_shared_opt_in);  // the default
}

TEST(Spec, BadLaunchSectionsNameTheFileAndField) {
  const std::pair<json, const char*> cases[] = {
      {{{"threads_per_block", "TILE * UNROL"}}, "/specs/gemm.json: launch.threads_per_block: "},
      {{{"threads_per_block", "TILE *"}}, "/specs/gemm.json: launch.threads_per_block: "},
      {{{"threads_per_block", true}}, "/specs/gemm.json: launch.threads_per_block: must be an expression"},
      {{{"threads_per_block", "TILE / 64"}},  // 0.5 for the defaults
       "/specs/gemm.json: launch.threads_per_block: \"TILE / 64\" gives 0.5 for the defaults TILE=32,UNROLL=3,LAYOUT=row; "
       "it must give a whole number >= 1 (threads)"},
      {{{"threads_per_block", "LAYOUT"}}, "/specs/gemm.json: launch.threads_per_block: \"LAYOUT\" gives 'row'"},
      {{{"dynamic_shared_bytes", "TILE - 64"}}, "/specs/gemm.json: launch.dynamic_shared_bytes: \"TILE - 64\" gives -32"},
      {{{"dynamic_shared_opt_in", "yes"}}, "/specs/gemm.json: launch.dynamic_shared_opt_in: must be true or false"},
      {{{"threads", "TILE"}}, "/specs/gemm.json: launch.threads: unknown key"},
      {json::array(), "/specs/gemm.json: launch: must be an object"},
  };
  for (const auto& [launch, expected] : cases) {
    json j = good_spec();
    j["launch"] = launch;
    EXPECT_CONTAINS(error_of(j), expected);
  }
  // The unknown parameter is named, with the known ones.
  json j = good_spec();
  j["launch"] = {{"threads_per_block", "TILE * UNROL"}};
  EXPECT_CONTAINS(error_of(j), "UNROL");
  // Only the cuda backend launches kernels.
  j = good_spec();
  j["backend"] = "host";
  j["launch"] = {{"threads_per_block", "TILE"}};
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: launch: only the cuda backend launches kernels");
}


TEST(Spec, CompilerLauncherPrecedesTheCompiler) {
  json j = good_spec();
  EXPECT_TRUE(parse_spec(j, kFile).compiler.launcher.empty());  // default: none
  EXPECT_EQ(compiler_prefix(parse_spec(j, kFile).compiler), std::vector<std::string>{"nvcc"});
  j["compiler"]["launcher"] = {"env", "CCACHE_SLOPPINESS=time_macros", "ccache"};
  const Spec s = parse_spec(j, kFile);
  EXPECT_EQ(s.compiler.launcher, (std::vector<std::string>{"env", "CCACHE_SLOPPINESS=time_macros", "ccache"}));
  EXPECT_EQ(compiler_prefix(s.compiler),
            (std::vector<std::string>{"env", "CCACHE_SLOPPINESS=time_macros", "ccache", "nvcc"}));
}

TEST(Spec, BadCompilerLauncherNamesTheFileAndField) {
  const std::pair<json, const char*> cases[] = {
      {"ccache", "/specs/gemm.json: compiler.launcher: must be an array of strings"},
      {json::array({"ccache", 3}), "/specs/gemm.json: compiler.launcher: must be an array of strings, found 3"},
      {json::array({"ccache", ""}), "/specs/gemm.json: compiler.launcher[1]: is an empty string"},
  };
  for (const auto& [launcher, expected] : cases) {
    json j = good_spec();
    j["compiler"]["launcher"] = launcher;
    EXPECT_CONTAINS(error_of(j), expected);
  }
}

}  // namespace
}  // namespace adaexplore
