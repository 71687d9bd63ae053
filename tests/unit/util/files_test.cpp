#include "util/files.hpp"
#include "test_support.hpp"

#include <sys/resource.h>

#include <csignal>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// The temporary files write_file_if_changed left in `dir` (none may be left).
int temporaries(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(".tmp-") != std::string::npos;
  return n;
}

TEST(WriteFileIfChanged, AFailedWriteNamesTheFileAndTheReasonAndLeavesNoTemporary) {
  const fs::path dir = test::fresh_test_directory("files");
  fs::create_directories(dir / "taken.json");  // a folder where the file goes: the rename fails
  try {
    write_file_if_changed(dir / "taken.json", "{}\n");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cannot write " + (dir / "taken.json").string() + ": ", 0), 0u) << what;
    EXPECT_NE(what.find("directory"), std::string::npos) << what;  // "Is a directory"
  }
  EXPECT_EQ(temporaries(dir), 0);
  std::ofstream(dir / "file") << "x";
  try {
    write_file_if_changed(dir / "file" / "below.json", "{}\n");  // its folder is a file
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + (dir / "file" / "below.json").string() + ": its folder cannot be created ("),
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
        } catch (const std::runtime_error& e) {
          const std::string what = e.what();
          const bool named = what == "cannot write " + file.string() + ": File too large";
          std::_Exit(named && temporaries(dir) == 0 && read_file(file) == "old" ? 0 : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace adaexplore
