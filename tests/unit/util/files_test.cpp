// Whole files (files.hpp): written only when changed, through a temporary file that never stays
// behind; folders made with the reason when they cannot be.
#include "util/files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "test_support.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(WriteFileIfChanged, AFolderIsRefusedAndNoTemporaryFileStays) {
  const fs::path dir = test::fresh_test_directory("files");
  fs::create_directories(dir / "out");
  try {
    write_file_if_changed(dir / "out", std::string(241 * 1024, 'x'));
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "out").string() + ": is a folder; give a file name (e.g. " +
                                         (dir / "out" / "report.html").string() + ")"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"out"});
  EXPECT_TRUE(fs::is_empty(dir / "out"));
  // A file: written once, then left as it is; nothing else beside it.
  EXPECT_TRUE(write_file_if_changed(dir / "a.txt", "one"));
  EXPECT_FALSE(write_file_if_changed(dir / "a.txt", "one"));
  EXPECT_EQ(read_file(dir / "a.txt"), "one");
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"a.txt", "out"}));
  fs::remove_all(dir);
}

TEST(EnsureFolder, NamesTheFileThatStandsWhereAFolderMustBe) {
  const fs::path dir = test::fresh_test_directory("files");
  std::ofstream(dir / "db") << "";
  try {
    ensure_folder(dir / "db" / "gemm");
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "db").string() + ": is a file, not a folder, so the folder " +
                                         (dir / "db" / "gemm").string() + " cannot be made"),
              std::string::npos)
        << e.what();
  }
  ensure_folder(dir / "x" / "y");
  EXPECT_TRUE(fs::is_directory(dir / "x" / "y"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace adaexplore
