#include "evaluate/render.hpp"
#include "util/files.hpp"

#include <chrono>
#include <fstream>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

Space space() {
  Parameter tile{"TILE", {Value::from_number(16), Value::from_number(32)}};
  Parameter type{"TYPE", {Value::from_text("float"), Value::from_text("double")}};
  return Space({tile, type}, {});
}

std::string template_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Render, SubstitutesEveryPlaceholder) {
  const std::string text = "template <> struct K<${TYPE}> {\n  static constexpr int tile = ${TILE}, twice = 2 * ${TILE};\n};\n";
  EXPECT_EQ(render_template(text, "k.cu.in", space(), {1, 1}),
            "template <> struct K<double> {\n  static constexpr int tile = 32, twice = 2 * 32;\n};\n");
  EXPECT_EQ(render_template(text, "k.cu.in", space(), {0, 0}),
            "template <> struct K<float> {\n  static constexpr int tile = 16, twice = 2 * 16;\n};\n");
  EXPECT_NO_THROW(check_template(text, "k.cu.in", space()));
}

TEST(Render, DoubleDollarIsALiteralDollar) {
  const std::string text = "cost $$5 ${TILE}$$ $${TILE} $x $ end $";
  EXPECT_EQ(render_template(text, "k", space(), {0, 0}), "cost $5 16$ ${TILE} $x $ end $");
  EXPECT_EQ(render_template("$$$$", "k", space(), {0, 0}), "$$");
}

TEST(Render, UnknownPlaceholderNamesFileAndLine) {
  const std::string text = "${TILE} ${TYPE}\n\n// ${TILEM}\n";
  const std::string e = template_error([&] { check_template(text, "kernels/k.cu.in", space()); });
  EXPECT_NE(e.find("kernels/k.cu.in:3: unknown placeholder ${TILEM}"), std::string::npos) << e;
  EXPECT_NE(e.find("TILE, TYPE"), std::string::npos) << e;
  const std::string r = template_error([&] { render_template(text, "kernels/k.cu.in", space(), {0, 0}); });
  EXPECT_NE(r.find("kernels/k.cu.in:3: unknown placeholder ${TILEM}"), std::string::npos) << r;
}

TEST(Render, LineNumbersCountLinesAfterEscapesAndPlaceholders) {
  const std::string text = "$$\n${TILE}\n$$ ${TYPE}\n\n${NOPE}";
  const std::string e = template_error([&] { check_template(text, "k", space()); });
  EXPECT_NE(e.find("k:5: unknown placeholder ${NOPE}"), std::string::npos) << e;
}

TEST(Render, UnusedParameterIsAnError) {
  const std::string e = template_error([&] { check_template("int t = ${TILE};\n", "k.cu.in", space()); });
  EXPECT_NE(e.find("k.cu.in:1: parameter(s) TYPE never used"), std::string::npos) << e;
  EXPECT_NO_THROW(check_template("int t = ${TILE};\n", "k.cu.in", space(), {"TYPE"}));
}

TEST(Render, UnterminatedPlaceholderNamesTheLine) {
  for (const std::string text : {"${TILE} ${TYPE}\nint x = ${TILE;\n}\n", "${TILE} ${TYPE}\nint x = ${TILE"}) {
    const std::string e = template_error([&] { check_template(text, "k", space()); });
    EXPECT_NE(e.find("k:2: unterminated placeholder"), std::string::npos) << e;
    EXPECT_THROW(render_template(text, "k", space(), {0, 0}), TemplateError);
  }
}

TEST(Render, ReadFileNamesAMissingFile) {
  try {
    read_file("/nonexistent/adaexplore/k.cu.in");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/adaexplore/k.cu.in"), std::string::npos);
  }
}

TEST(Render, WriteFileIfChangedWritesOnlyChanges) {
  const fs::path dir = fs::temp_directory_path() / ("adaexplore-render-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path file = dir / "sub" / "k.hpp";
  EXPECT_TRUE(write_file_if_changed(file, "one\n"));  // creates the folders
  EXPECT_EQ(read_file(file), "one\n");
  const auto old_time = fs::last_write_time(file) - std::chrono::hours(1);
  fs::last_write_time(file, old_time);
  EXPECT_FALSE(write_file_if_changed(file, "one\n"));
  EXPECT_EQ(fs::last_write_time(file), old_time);
  EXPECT_TRUE(write_file_if_changed(file, "two\n"));
  EXPECT_EQ(read_file(file), "two\n");
  EXPECT_NE(fs::last_write_time(file), old_time);
  EXPECT_FALSE(fs::exists(file.string() + ".tmp"));
  EXPECT_TRUE(write_file_if_changed(dir / "empty", ""));
  EXPECT_FALSE(write_file_if_changed(dir / "empty", ""));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace adaexplore
