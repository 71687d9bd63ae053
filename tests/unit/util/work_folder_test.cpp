#include "util/work_folder.hpp"
#include "test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

TEST(WorkFolder, TheFirstTuningGetsTheWorkFolderItself) {
  const fs::path dir = test::fresh_test_directory("work-folder") / "k.work";
  {
    WorkFolder lease(dir);
    EXPECT_EQ(lease.path(), dir);
    EXPECT_EQ(lease.note(), "");
    EXPECT_TRUE(fs::is_regular_file(dir / "work.lock"));
  }
  WorkFolder again(dir);  // released with the first lease
  EXPECT_EQ(again.path(), dir);
}

// Two tunings of one process (threads) at once: the second gets a folder of its own, the first
// free one, and the first's folder is free again once released.
TEST(WorkFolder, ASecondTuningAtOnceGetsAFolderOfItsOwn) {
  const fs::path dir = test::fresh_test_directory("work-folder") / "k.work";
  auto first = std::make_unique<WorkFolder>(dir);
  WorkFolder second(dir);
  EXPECT_EQ(second.path(), dir / "concurrent-1");
  EXPECT_NE(second.note().find("is in use by another tuning of this process"), std::string::npos) << second.note();
  EXPECT_NE(second.note().find((dir / "concurrent-1").string()), std::string::npos) << second.note();
  WorkFolder third(dir);
  EXPECT_EQ(third.path(), dir / "concurrent-2");
  first.reset();
  WorkFolder fourth(dir);
  EXPECT_EQ(fourth.path(), dir);
}

// Another process holds the work folder (a second `tune` of the same spec): this one works in
// concurrent-1, and the note names the other process; once that process ends (its lock released by
// the kernel), the work folder is free.
TEST(WorkFolder, AFolderAnotherProcessUsesIsLeftToIt) {
  const fs::path dir = test::fresh_test_directory("work-folder") / "k.work";
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // holds the lease until the parent writes a byte
    WorkFolder lease(dir);
    const char ok = lease.path() == dir ? 'y' : 'n';
    (void)!::write(from_child[1], &ok, 1);
    char c;
    (void)!::read(to_child[0], &c, 1);
    ::_exit(0);
  }
  char held = 0;
  ASSERT_EQ(::read(from_child[0], &held, 1), 1);
  EXPECT_EQ(held, 'y');
  {
    WorkFolder mine(dir);
    EXPECT_EQ(mine.path(), dir / "concurrent-1");
    EXPECT_NE(mine.note().find("in use by another tuning (process " + std::to_string(child) + ")"), std::string::npos)
        << mine.note();
  }
  (void)!::write(to_child[1], "x", 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  WorkFolder after(dir);
  EXPECT_EQ(after.path(), dir);
  for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
}

}  // namespace
}  // namespace adaexplore
