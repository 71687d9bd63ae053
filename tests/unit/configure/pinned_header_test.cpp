// The pinned header read back through its machine line alone, and checked against a spec.
#include "configure/pinned_header.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "emit/header.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

nlohmann::json spec() {
  return nlohmann::json::parse(R"({"name": "gemm", "parameters": [{"name": "TILE", "values": [16, 32]},
                                   {"name": "UNROLL", "range": {"from": 1, "to": 8, "step": 1}}]})");
}

nlohmann::json line(const std::string& text) { return nlohmann::json::parse(text); }

TEST(PinnedHeader, ReadsOnlyTheMachineLine) {
  const fs::path dir = test::fresh_test_directory("pinned-line");
  std::ofstream(dir / "gemm.hpp") << "// Kernel: other\n// adaexplore: {\"kernel\":\"gemm\",\"namespace\":\"adaexplore::gemm\"}\n"
                                     "#pragma once\nnamespace adaexplore::elsewhere {}\n";
  const auto j = read_machine_line(dir / "gemm.hpp");
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["kernel"], "gemm");
  std::ofstream(dir / "old.hpp") << "#pragma once\nnamespace adaexplore::gemm {\ninline constexpr int TILE = 16;\n}\n";
  EXPECT_FALSE(read_machine_line(dir / "old.hpp"));
  EXPECT_THROW(read_machine_line(dir / "missing.hpp"), std::runtime_error);
}

// A header the tuner renders carries everything the check needs: it passes its own spec.
TEST(PinnedHeader, ARenderedHeaderPassesItsSpec) {
  Space space({Parameter{"TILE", {Value::from_text("16"), Value::from_text("32")}},
               Parameter{"UNROLL", {Value::from_text("1"), Value::from_text("2")}}},
              {});
  HeaderInfo info;
  info.kernel = "gemm";
  info.name_space = "adaexplore::gemm";
  info.backend = "cuda";
  info.source = "tuned";
  info.device = {{"name", "NVIDIA H100"}, {"compute_capability", "9.0"}, {"sm_count", 132}};
  const fs::path dir = test::fresh_test_directory("pinned-rendered");
  std::ofstream(dir / "gemm.hpp") << render_header(space, Config{1, 1}, info);
  const auto j = read_machine_line(dir / "gemm.hpp");
  ASSERT_TRUE(j);
  const PinnedCheck c = check_pinned(j, dir / "gemm.hpp", "gemm", spec(), {"sm_90"});
  EXPECT_EQ(c.problem, "");
  EXPECT_EQ(c.config, "TILE=32,UNROLL=2");
  EXPECT_EQ(pinned_tuned_on(*j), std::vector<std::string>{"NVIDIA H100, compute capability 9.0"});
}

TEST(PinnedHeader, SaysWhatDoesNotFit) {
  const fs::path f = "/p/gemm.hpp";
  EXPECT_NE(check_pinned(std::nullopt, f, "gemm", spec(), {}).problem.find(
                "has no machine line ('// adaexplore: {...}'"),
            std::string::npos);
  EXPECT_NE(check_pinned(std::nullopt, f, "gemm", spec(), {}).problem.find("adaexplore-tuner header --database"),
            std::string::npos);
  EXPECT_EQ(check_pinned(line(R"({"namespace":"adaexplore::x","kernel":"x","config":{}})"), f, "gemm", spec(), {}).problem,
            "the pinned header /p/gemm.hpp is of namespace adaexplore::x (its // Kernel: line: x), not adaexplore::gemm: "
            "it is another kernel's header");
  EXPECT_EQ(check_pinned(line(R"({"namespace":"adaexplore::gemm","config":{"TILE":16},"parameters":["TILE"]})"), f, "gemm",
                         spec(), {})
                .problem,
            "the pinned header /p/gemm.hpp has no value for the parameter UNROLL (PARAMS: TILE, UNROLL): it was pinned "
            "from another parameter set");
  EXPECT_EQ(check_pinned(line(R"({"namespace":"adaexplore::gemm","config":{"TILE":48,"UNROLL":1}})"), f, "gemm", spec(), {})
                .problem,
            "the pinned header /p/gemm.hpp sets TILE = 48, which is not among the values PARAMS gives TILE (16 32)");
  EXPECT_EQ(check_pinned(line(R"({"namespace":"adaexplore::gemm","config":{"TILE":16,"UNROLL":9}})"), f, "gemm", spec(), {})
                .problem,
            "the pinned header /p/gemm.hpp sets UNROLL = 9, which is not among the values PARAMS gives UNROLL (RANGE 1 8 1)");
  nlohmann::json sized = spec();
  sized["sizes"] = {{"names", {"M", "N"}}, {"values", {{512, 256}, {4096, 4096}}}};
  EXPECT_EQ(check_pinned(line(R"({"namespace":"adaexplore::gemm","config":{"TILE":16,"UNROLL":1}})"), f, "gemm", sized, {})
                .problem,
            "the pinned header /p/gemm.hpp has no // Sizes: line: it was pinned without SIZES, and this call tunes the "
            "sizes M=512 N=256; M=4096 N=4096: re-pin it after tuning these sizes");
  const auto sizes = line(R"({"namespace":"adaexplore::gemm","config":{"TILE":16,"UNROLL":1},"sizes":[
      {"label":"M=512 N=256","config":{"TILE":16,"UNROLL":1}},{"label":"M=4096 N=4096","config":{"TILE":48,"UNROLL":1}}]})");
  EXPECT_EQ(check_pinned(sizes, f, "gemm", sized, {}).problem,
            "the pinned header /p/gemm.hpp sets TILE = 48 for the size M=4096 N=4096, which is not among the values "
            "PARAMS gives TILE (16 32)");
  EXPECT_EQ(check_pinned(sizes, f, "gemm", spec(), {}).problem,
            "the pinned header /p/gemm.hpp was tuned for the sizes M=512 N=256; M=4096 N=4096 (its // Sizes: line), "
            "but this call has no SIZES: add SIZES \"M=512 N=256\" \"M=4096 N=4096\" to the call, or re-pin it after "
            "tuning without SIZES");
}

// A machine line that is JSON of the wrong shape (what a hand edit or another tool leaves) is a
// problem naming the header and the member, never an exception of the JSON library.
TEST(PinnedHeader, AMalformedMachineLineIsAProblemNotAnException) {
  const fs::path f = "/p/gemm.hpp";
  const std::string start = "the pinned header /p/gemm.hpp's machine line ('// adaexplore: {...}') is malformed: ";
  const std::string ok = R"("namespace":"adaexplore::gemm","config":{"TILE":16,"UNROLL":1})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([16, 1])", "a list, not an object {...}"},
      {R"("adaexplore::gemm")", "text, not an object {...}"},
      {R"({"namespace":"adaexplore::gemm"})", "the line has no \"config\" (its values, {name: value})"},
      {R"({"namespace":"adaexplore::gemm","config":[16,1]})", "the line's \"config\" is a list, not an object {name: value}"},
      {R"({"namespace":7,"config":{"TILE":16,"UNROLL":1}})", "\"namespace\" is a number, not text"},
      {R"({"kernel":null,)" + ok + "}", "\"kernel\" is null, not text"},
      {R"({"parameters":"TILE",)" + ok + "}", "\"parameters\" is not a list of text"},
      {R"({"parameters":["TILE",2],)" + ok + "}", "\"parameters\" is not a list of text"},
      {R"({"tuned_on":"H100",)" + ok + "}", "\"tuned_on\" is not a list of text"},
      {R"({"sizes":{"label":"M=1"},)" + ok + "}", "\"sizes\" is an object, not a list"},
      {R"({"sizes":[3],)" + ok + "}", "an entry of \"sizes\" is a number, not an object"},
      {R"({"sizes":[{"label":5,"config":{"TILE":16,"UNROLL":1}}],)" + ok + "}", "an entry of \"sizes\" has no \"label\" text"},
      {R"({"sizes":[{"label":"M=1","config":16}],)" + ok + "}", "an entry of \"sizes\"'s \"config\" is a number, not an object {name: value}"},
      {R"({"devices":[{"config":{"TILE":16,"UNROLL":1}}],)" + ok + "}",
       "an entry of \"devices\" has no integer \"compute_capability\" (90 for 9.0)"},
      {R"({"devices":[{"compute_capability":"90","config":{"TILE":16,"UNROLL":1}}],)" + ok + "}",
       "an entry of \"devices\" has no integer \"compute_capability\" (90 for 9.0)"},
      {R"({"devices":[{"compute_capability":90}],)" + ok + "}",
       "an entry of \"devices\" has no \"config\" (its values, {name: value})"}};
  for (const auto& [text, what] : cases) {
    PinnedCheck c;
    ASSERT_NO_THROW(c = check_pinned(line(text), f, "gemm", spec(), {"sm_90"})) << text;
    EXPECT_EQ(c.problem.rfind(start + what + ": it is not a line AdaExplore wrote; regenerate it with `adaexplore-tuner "
                              "header --database <its database> --spec <build>/_adaexplore/kernels/gemm/spec.json --out "
                              "/p/gemm.hpp`", 0),
              0u)
        << text << "\n" << c.problem;
    EXPECT_EQ(c.config, "") << text;
  }
  EXPECT_TRUE(pinned_tuned_on(line(R"({"tuned_on":"H100"})")).empty());
  EXPECT_TRUE(pinned_tuned_on(line("[1]")).empty());
}

// A machine line that is not JSON: MachineLineError naming the file, the line and the parser's
// reason (the flow makes it a problem of the pinned header); the text after it is not read.
TEST(PinnedHeader, AMachineLineThatIsNotJsonThrowsNamingTheFileAndTheLine) {
  const fs::path dir = test::fresh_test_directory("pinned-not-json");
  std::ofstream(dir / "gemm.hpp") << "// Generated\n// adaexplore: {\"namespace\": \"adaexplore::gemm\", \"config\": {\n"
                                     "// adaexplore: {\"namespace\": \"adaexplore::gemm\", \"config\": {}}\n";
  try {
    read_machine_line(dir / "gemm.hpp");
    FAIL() << "no error";
  } catch (const MachineLineError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the pinned header " + (dir / "gemm.hpp").string() +
                                              "'s machine line is not JSON (line 2): [json.exception.parse_error",
                                          0),
              0u)
        << e.what();
    EXPECT_EQ(e.reason.rfind("not JSON (line 2): ", 0), 0u) << e.reason;
  }
  std::ofstream(dir / "list.hpp") << "// adaexplore: [1, 2]\n";
  const auto list = read_machine_line(dir / "list.hpp");  // JSON, not an object: check_pinned says so
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->is_array());
}

TEST(PinnedHeader, AMultiDeviceHeaderGivesTheFirstArchitecturesEntry) {
  const auto multi = line(R"({"namespace":"adaexplore::gemm","config":{"TILE":16,"UNROLL":1},"devices":[
      {"compute_capability":90,"config":{"TILE":32,"UNROLL":2}},{"compute_capability":80,"config":{"TILE":16,"UNROLL":4}}]})");
  EXPECT_EQ(check_pinned(multi, "/p/g.hpp", "gemm", spec(), {"sm_80", "sm_90"}).config, "TILE=16,UNROLL=4");
  EXPECT_EQ(check_pinned(multi, "/p/g.hpp", "gemm", spec(), {"sm_70"}).config, "");
  auto bad = multi;
  bad["devices"][1]["config"]["UNROLL"] = 11;
  EXPECT_EQ(check_pinned(bad, "/p/g.hpp", "gemm", spec(), {"sm_90"}).problem,
            "the pinned header /p/g.hpp sets UNROLL = 11 for compute capability 80, which is not among the values "
            "PARAMS gives UNROLL (RANGE 1 8 1)");
}

}  // namespace
}  // namespace adaexplore
