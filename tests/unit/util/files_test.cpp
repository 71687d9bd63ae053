// Whole files (files.hpp): written only when changed, through a temporary file that never stays
// behind; a write that fails names the file and the reason; folders made with the reason when
// they cannot be.
#include "util/files.hpp"

#include <sys/resource.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
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

// The temporary files write_file_if_changed left in `dir` (none may be left).
int temporaries(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(".tmp-") != std::string::npos;
  return n;
}

TEST(WriteFileIfChanged, AFailedWriteNamesTheFileAndTheReasonAndLeavesNoTemporary) {
  const fs::path dir = test::fresh_test_directory("files");
  fs::create_directories(dir / "taken.json");  // a folder where the file goes
  try {
    write_file_if_changed(dir / "taken.json", "{}\n");
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cannot write " + (dir / "taken.json").string() + ": ", 0), 0u) << what;
    EXPECT_NE(what.find("is a folder"), std::string::npos) << what;
  }
  EXPECT_EQ(temporaries(dir), 0);
  std::ofstream(dir / "file") << "x";
  try {
    write_file_if_changed(dir / "file" / "below.json", "{}\n");  // its folder is a file
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + (dir / "file" / "below.json").string() + ": " +
                                         (dir / "file").string() + ": is a file, not a folder"),
              std::string::npos)
        << e.what();
  }
}

// A disk that fills while the file is written (here a file size limit, RLIMIT_FSIZE, with SIGXFSZ
// ignored: write() then fails with EFBIG as it fails with ENOSPC on a full disk). Before
// 2026-12-05: "cannot write <file>.tmp-..." without a reason, and a 0-byte temporary left.
TEST(WriteFileIfChanged, ADiskFullMidWriteKeepsTheOldContentAndLeavesNoTemporary) {
  const fs::path dir = test::fresh_test_directory("files");
  const fs::path file = dir / "verdict.json";
  std::ofstream(file) << "old";
  EXPECT_EXIT(
      {
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit;
        limit.rlim_cur = limit.rlim_max = 4096;
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
          write_file_if_changed(file, std::string(10000, 'x'));
        } catch (const EnvironmentError& e) {
          const std::string what = e.what();
          const bool named = what == "cannot write " + file.string() + ": File too large";
          std::_Exit(named && temporaries(dir) == 0 && read_file(file) == "old" ? 0 : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(WriteFileIfChanged, AFolderIsRefusedAndNoTemporaryFileStays) {
  const fs::path dir = test::fresh_test_directory("files");
  fs::create_directories(dir / "out");
  try {
    write_file_if_changed(dir / "out", std::string(241 * 1024, 'x'));
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "out").string() + ": is a folder; give a file name"), std::string::npos)
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
