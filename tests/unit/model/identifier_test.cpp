// Names that reach the generated header (identifier.hpp): C++ keywords, macros, reserved
// identifiers and the header's own names are refused for parameters, sizes, the kernel's name and
// the namespace, by the spec before any tuning; names next to them are accepted and compile.
#include "model/identifier.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "emit/header.hpp"
#include "model/spec.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

json spec_with(const std::string& parameter) {
  return {{"name", "gemm"},
          {"backend", "host"},
          {"template", "t.in"},
          {"benchmark", "b.cpp"},
          {"parameters", {{{"name", "TILE"}, {"values", {16, 32}}}, {{"name", parameter}, {"values", {1, 2}}}}}};
}

std::string error_of(const json& j) {
  try {
    parse_spec(j, "/specs/gemm.json");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

// The names of issue 37 (and their kinds), each refused as a parameter with its reason.
TEST(ReservedNames, KeywordsMacrosReservedAndTheHeadersOwnNamesAreRefusedAsParameters) {
  const std::pair<const char*, const char*> cases[] = {
      {"int", "a C++ keyword"},
      {"class", "a C++ keyword"},
      {"and", "a C++ keyword"},
      {"true", "a C++ keyword"},
      {"nullptr", "a C++ keyword"},
      {"char8_t", "a C++ keyword"},
      {"NULL", "a macro of the C and C++ standard libraries"},
      {"linux", "a macro"},
      {"INT_MAX", "a macro"},
      {"__cplusplus", "reserved to the compiler"},
      {"a__b", "reserved to the compiler"},
      {"_Tile", "reserved to the compiler"},
      {"kTuned", "a name the generated header declares or uses itself"},
      {"select", "a name the generated header declares or uses itself"},
      {"Params", "a name the generated header declares or uses itself"},
      {"ADAEXPLORE_HOST_DEVICE", "a name the generated header declares or uses itself"},
      {"std", "the standard library's namespace"},
      {"kSm90", "kSm<compute capability>"},
  };
  for (const auto& [name, why] : cases) {
    EXPECT_CONTAINS(reserved_name_reason(name, NameUse::parameter), why);
    const std::string e = error_of(spec_with(name));
    EXPECT_CONTAINS(e, std::string("/specs/gemm.json: parameters[1]: name '") + name + "' is a C++ keyword or a name");
    EXPECT_CONTAINS(e, "rename the parameter, e.g. ");
    EXPECT_CONTAINS(e, std::string("${") + name + "}");
  }
  EXPECT_CONTAINS(error_of(spec_with("int")), "e.g. int_value");
  EXPECT_CONTAINS(error_of(spec_with("__cplusplus")), "e.g. cplusplus ");
  for (const char* fine : {"Int", "INT", "kSmall", "kSm", "std_", "select_", "_tile", "NULL_value", "TILE_M", "x"})
    EXPECT_EQ(reserved_name_reason(fine, NameUse::parameter), "") << fine;
}

TEST(ReservedNames, TheKernelsNameAndTheNamespaceRefuseWhatANamespaceCannotBe) {
  json j = spec_with("UNROLL");
  j["name"] = "int";
  EXPECT_CONTAINS(error_of(j), "/specs/gemm.json: name: 'int' is a C++ keyword or a name reserved in the generated "
                               "header (a C++ keyword); rename the kernel, e.g. int_value (it makes the namespace "
                               "adaexplore::int), or give a \"namespace\"");
  j["name"] = "std";
  EXPECT_CONTAINS(error_of(j), "name: 'std' is");
  j["namespace"] = "blas::tuning";  // the kernel's name then names the header file only
  EXPECT_EQ(error_of(j), "(no error)");
  for (const char* ns : {"blas::class", "__blas", "blas::_Detail::x", "NULL", "std::gemm", "blas::std"}) {
    j["namespace"] = ns;
    EXPECT_CONTAINS(error_of(j), std::string("/specs/gemm.json: namespace: '") + ns + "': '");
    EXPECT_CONTAINS(error_of(j), "choose another namespace part");
  }
  // What the header declares inside its namespace may name the namespace itself.
  j.erase("namespace");
  for (const char* name : {"select", "kTuned", "Params", "Size"}) {
    j["name"] = name;
    EXPECT_EQ(error_of(j), "(no error)") << name;
  }
  j["namespace"] = "blas::kTuned::select";
  EXPECT_EQ(error_of(j), "(no error)");
}

TEST(ReservedNames, SizesAreRefusedTheSameWay) {
  json j = spec_with("UNROLL");
  j["sizes"] = {{"names", {"M", "__N"}}, {"values", {{1, 2}}}};
  EXPECT_CONTAINS(error_of(j), "sizes.names: '__N' is a C++ keyword or a name reserved in the generated header "
                               "(reserved to the compiler");
  j["sizes"]["names"] = {"M", "kSizes"};
  EXPECT_CONTAINS(error_of(j), "rename the size, e.g. kSizes_value");
}

// The list is one file that cmake/AdaExplore.cmake reads line by line with a regular expression:
// every entry must be in the form it reads, or CMake would accept a name the tuner refuses.
TEST(ReservedNames, EveryEntryOfTheListIsInTheFormTheCMakeModuleReads) {
  const std::string text = read_file(fs::path(ADAEXPLORE_SOURCE_DIR) / "tuner/src/model/reserved_names.inc");
  std::istringstream in(text);
  std::string line;
  const std::regex entry(R"re(\{"([A-Za-z0-9_]+)", k(Keyword|Macro|Std|Header)\})re");
  std::size_t braces = 0, entries = 0;
  while (std::getline(in, line)) {
    if (line.rfind("//", 0) == 0) continue;
    EXPECT_EQ(line.rfind("{\"", 0), 0u) << "an entry line must start with {\" (the module's filter): " << line;
    braces += static_cast<std::size_t>(std::count(line.begin(), line.end(), '{'));
    for (std::sregex_iterator it(line.begin(), line.end(), entry), end; it != end; ++it) {
      ++entries;
      EXPECT_NE(reserved_name_reason((*it)[1], NameUse::parameter), "") << (*it)[1];
    }
  }
  EXPECT_GT(entries, 100u);
  EXPECT_EQ(entries, braces);
  // And the module reads that file, with that filter.
  const std::string module = read_file(fs::path(ADAEXPLORE_SOURCE_DIR) / "cmake/AdaExplore.cmake");
  EXPECT_CONTAINS(module, "/tuner/src/model/reserved_names.inc");
  EXPECT_CONTAINS(module, R"re(file(STRINGS "${file}" lines REGEX "^\\{\"")re");
}

// The list is needed: a header with a parameter of each of these names does not compile (GNU mode,
// the compilers' default, where linux is a macro); one with the names next to them does.
TEST(ReservedNames, TheRefusedNamesBreakTheHeaderAndTheNamesNextToThemCompile) {
  if (find_program("c++").empty()) GTEST_SKIP() << "no c++ on PATH";
  const fs::path dir = test::fresh_test_directory("reserved-names");
  auto compiles = [&](const std::string& name) {
    const Space space({Parameter{"TILE", {Value::from_number(16)}}, Parameter{name, {Value::from_number(1)}}}, {});
    HeaderInfo info;
    info.kernel = "gemm";
    info.name_space = "adaexplore::gemm";
    info.source = "defaults";
    info.backend = "host";
    std::ofstream(dir / "h.hpp") << render_header(space, space.config_from_texts({{"TILE", "16"}, {name, "1"}}), info);
    std::ofstream(dir / "use.cpp") << "#include <cassert>\n#include <climits>\n#include <cstdio>\n#include \"h.hpp\"\nint main() {}\n";
    return run_process({"c++", "-std=gnu++17", "-fsyntax-only", (dir / "use.cpp").string()}).ok();
  };
  for (const char* name : {"int", "class", "and", "true", "nullptr", "NULL", "__cplusplus", "kTuned", "linux", "EOF", "INT_MAX"}) {
    EXPECT_FALSE(compiles(name)) << name;
    EXPECT_NE(reserved_name_reason(name, NameUse::parameter), "") << name;
  }
  for (const char* name : {"Int", "kSmall", "std_", "select_", "NULL_value", "linux_", "assert", "offsetof"}) {
    EXPECT_TRUE(compiles(name)) << name;  // a function-like macro expands only before a parenthesis
    EXPECT_EQ(reserved_name_reason(name, NameUse::parameter), "") << name;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace adaexplore
