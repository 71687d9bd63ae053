#include "util/process.hpp"
#include "test_support.hpp"

#include <atomic>
#include <cstdio>
#include <chrono>
#include <future>
#include <csignal>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() { return test::fresh_test_directory("process"); }

// True while a process with this id exists and is not a zombie.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST(Process, TrueSucceeds) {
  const ProcessResult r = run_process({"/bin/true"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.signal);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.failed_to_start);
  EXPECT_EQ(r.describe(), "exit code 0");
}

// inherit_stdout: the program writes to this process's stdout as it goes (a tuning's progress lines
// under `configure`); nothing is captured. Here this process's stdout is a file for the while.
TEST(Process, InheritedStdoutGoesToThisProcesssStdout) {
  const fs::path dir = test::fresh_test_directory("process-inherit");
  const fs::path file = dir / "stdout.txt";
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ::dup2(fd, 1);
  ProcessOptions options;
  options.inherit_stdout = true;
  const ProcessResult r = run_process({"sh", "-c", "echo progress; echo message >&2"}, options);
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  ::close(fd);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "message\n");
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "progress");
}

TEST(Process, FalseExitsWithOne) {
  const ProcessResult r = run_process({"false"});  // looked up in PATH
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.signal);
  EXPECT_EQ(r.describe(), "exit code 1");
}

TEST(Process, ExitCodeIsPassedThrough) {
  EXPECT_EQ(run_process({"sh", "-c", "exit 42"}).exit_code, 42);
}

TEST(Process, KilledBySignal) {
  const ProcessResult r = run_process({"sh", "-c", "kill -SEGV $$"});
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.exit_code);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.describe().find("signal 11"), std::string::npos) << r.describe();
}

TEST(Process, TimeOutKillsTheWholeProcessGroup) {
  const fs::path dir = temp_dir();
  const fs::path pids = dir / "pids";
  const auto start = std::chrono::steady_clock::now();
  ProcessOptions options;
  options.timeout_s = 0.5;
  const ProcessResult r = run_process(
      {"sh", "-c", "sleep 30 & echo $! > '" + pids.string() + "'; sleep 31 & echo $! >> '" + pids.string() + "'; wait"},
      options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.signal);  // our own kill is reported as the time-out, not as a signal
  EXPECT_GE(wall, 0.5);
  EXPECT_LT(wall, 2.0);
  EXPECT_EQ(r.describe().rfind("timed out after 0.", 0), 0u) << r.describe();
  std::ifstream in(pids);
  std::vector<pid_t> children;
  for (pid_t p; in >> p;) children.push_back(p);
  ASSERT_EQ(children.size(), 2u);
  for (int i = 0; i < 100 && (alive(children[0]) || alive(children[1])); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (pid_t p : children) EXPECT_FALSE(alive(p)) << "sleep " << p << " survived the time-out";
  fs::remove_all(dir);
}

TEST(Process, ChildrenLeftBehindByANormalExitAreKilled) {
  const fs::path dir = temp_dir();
  const fs::path pid_file = dir / "pid";
  const ProcessResult r = run_process({"sh", "-c", "sleep 30 & echo $! > '" + pid_file.string() + "'; exit 0"});
  EXPECT_TRUE(r.ok());
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  for (int i = 0; i < 100 && alive(child); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive(child));
  fs::remove_all(dir);
}

// A tuner killed with SIGKILL takes its child processes along (issue 23: nvcc and its
// subprocesses, and runners, outlived it). A helper process (a fork of this test, the tuner's
// stand-in) starts a child tree through run_process: sh, which starts sleep (the grandchild) and
// waits for it; the helper is killed with SIGKILL while the tree runs, and its watchdog kills the
// tree's process group.
TEST(Process, AChildTreeDiesWithTheProcessThatStartedIt) {
  const fs::path dir = temp_dir();
  const fs::path pid_file = dir / "grandchild";
  const pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    run_process({"sh", "-c", "sleep 60 & echo $! > '" + pid_file.string() + ".tmp'; mv '" + pid_file.string() +
                                 ".tmp' '" + pid_file.string() + "'; wait"});
    ::_exit(0);
  }
  pid_t grandchild = 0;
  for (int i = 0; i < 1000 && !fs::exists(pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::ifstream(pid_file) >> grandchild;
  ::kill(helper, SIGKILL);
  int status = 0;
  ::waitpid(helper, &status, 0);
  ASSERT_GT(grandchild, 0) << "the helper's child tree did not start";
  const auto killed = std::chrono::steady_clock::now();
  while (alive(grandchild) && std::chrono::steady_clock::now() - killed < std::chrono::seconds(2))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool survived = alive(grandchild);
  if (survived) ::kill(grandchild, SIGKILL);
  EXPECT_FALSE(survived) << "sleep " << grandchild << " outlived the killed process that started it by 2 s";
  fs::remove_all(dir);
}

TEST(Process, MissingProgramFailsToStartWithAClearMessage) {
  const ProcessResult r = run_process({"adaexplore-no-such-program", "--flag"});
  EXPECT_TRUE(r.failed_to_start);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.exit_code);
  EXPECT_NE(r.error.find("adaexplore-no-such-program"), std::string::npos) << r.error;
  EXPECT_NE(r.describe().find("failed to start: adaexplore-no-such-program"), std::string::npos) << r.describe();
  const ProcessResult abs = run_process({"/nonexistent/bin/tool"});
  EXPECT_TRUE(abs.failed_to_start);
  EXPECT_NE(abs.error.find("/nonexistent/bin/tool"), std::string::npos) << abs.error;
  EXPECT_TRUE(run_process({}).failed_to_start);
}

TEST(Process, NotExecutableFailsToStart) {
  const fs::path dir = temp_dir();
  std::ofstream(dir / "script") << "#!/bin/sh\nexit 0\n";
  fs::permissions(dir / "script", fs::perms::owner_read | fs::perms::owner_write);
  const ProcessResult r = run_process({(dir / "script").string()});
  EXPECT_TRUE(r.failed_to_start) << r.describe();
  EXPECT_NE(r.error.find((dir / "script").string()), std::string::npos) << r.error;
  fs::remove_all(dir);
}

TEST(Process, CapturesStdoutAndStderrSeparately) {
  const ProcessResult r = run_process({"sh", "-c", "echo to-out; echo to-err >&2; printf 'a b'"});
  EXPECT_EQ(r.out, "to-out\na b");
  EXPECT_EQ(r.err, "to-err\n");
}

TEST(Process, ArgumentsAreNotInterpretedByAShell) {
  const ProcessResult r = run_process({"printf", "%s|", "a b", "$HOME", "*", "'q'"});
  EXPECT_EQ(r.out, "a b|$HOME|*|'q'|");
  EXPECT_EQ(r.command_line().rfind("printf %s| 'a b' $HOME * ", 0), 0u) << r.command_line();
}

TEST(Process, CaptureIsTruncatedInTheMiddle) {
  ProcessOptions options;
  options.capture_limit = 100;
  const ProcessResult r = run_process({"sh", "-c", "echo BEGIN; seq 1 10000; echo END"}, options);
  EXPECT_LT(r.out.size(), 200u);
  EXPECT_EQ(r.out.rfind("BEGIN", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("END"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("characters cut"), std::string::npos) << r.out;
}

TEST(Process, OutputFilesWorkingDirectoryAndEnvironment) {
  const fs::path dir = temp_dir();
  ProcessOptions options;
  options.working_directory = dir;
  options.stdout_file = dir / "out.log";
  options.stderr_file = dir / "err.log";
  options.environment = {{"ADAEXPLORE_TEST_VALUE", "forty two"}};
  const ProcessResult r = run_process({"sh", "-c", "pwd; echo \"$ADAEXPLORE_TEST_VALUE\" >&2"}, options);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, fs::canonical(dir).string() + "\n");
  EXPECT_EQ(r.err, "forty two\n");
  EXPECT_TRUE(fs::exists(dir / "out.log"));  // kept: the caller asked for it
  std::string kept;
  std::getline(std::ifstream(dir / "err.log"), kept);
  EXPECT_EQ(kept, "forty two");
  fs::remove_all(dir);
}

TEST(Process, WallTimeIsMeasured) {
  const ProcessResult r = run_process({"sleep", "0.2"});
  EXPECT_TRUE(r.ok());
  EXPECT_GE(r.wall_ms, 190);
  EXPECT_LT(r.wall_ms, 2000);
}

TEST(FindProgram, SearchesThePath) {
  EXPECT_FALSE(find_program("sh").empty());
  EXPECT_TRUE(find_program("adaexplore-no-such-program").empty());
  EXPECT_EQ(find_program("/bin/sh"), fs::path("/bin/sh"));
  EXPECT_TRUE(find_program("/nonexistent/sh").empty());
}

}  // namespace
}  // namespace adaexplore

namespace adaexplore {
namespace {

// spawn_mutex(): run_process creates its child only while it holds the lock, so no other thread's
// fork can take the child's pipes along (process.hpp says how that hung a tuning).
TEST(SpawnMutex, RunProcessCreatesItsChildOnlyUnderTheLock) {
  const auto dir = test::fresh_test_directory("spawn-lock");
  const auto mark = dir / "started";
  std::unique_lock<std::mutex> held(spawn_mutex());
  auto run = std::async(std::launch::async, [&] { return run_process({"touch", mark.string()}); });
  EXPECT_EQ(run.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  EXPECT_FALSE(std::filesystem::exists(mark)) << "the child started while another thread held spawn_mutex()";
  held.unlock();
  ASSERT_EQ(run.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(run.get().ok());
  EXPECT_TRUE(std::filesystem::exists(mark));
  std::filesystem::remove_all(dir);
}

// The failing case itself: short children started from several threads while long-lived ones are
// started too. Before spawn_mutex(), a long-lived child could inherit a short one's exec-error
// pipe, and that run_process then waited for the long one to end (here 3 s) instead of returning
// within milliseconds. A race, so this only can catch it; the test above pins the mechanism.
TEST(SpawnMutex, ShortChildrenBesideLongLivedOnesReturnPromptly) {
  std::atomic<bool> done{false};
  std::atomic<double> slowest_ms{0};
  auto long_lived = std::async(std::launch::async, [&] {
    std::vector<std::future<ProcessResult>> sleepers;
    while (!done && sleepers.size() < 40) {
      sleepers.push_back(std::async(std::launch::async, [] { return run_process({"sleep", "3"}); }));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (auto& s : sleepers) s.get();
    return sleepers.size();
  });
  std::vector<std::future<void>> shorts;
  for (int t = 0; t < 3; ++t)
    shorts.push_back(std::async(std::launch::async, [&] {
      for (int i = 0; i < 60; ++i) {
        const ProcessResult r = run_process({"true"});
        EXPECT_TRUE(r.ok()) << r.describe();
        double seen = slowest_ms.load();
        while (r.wall_ms > seen && !slowest_ms.compare_exchange_weak(seen, r.wall_ms)) {
        }
      }
    }));
  for (auto& s : shorts) s.get();
  done = true;
  EXPECT_GT(long_lived.get(), 0u);
  // `true` takes milliseconds; a run held by a sleeper's copy of its pipe takes up to 3 s.
  EXPECT_LT(slowest_ms.load(), 2500.0) << "a short child's run waited for a long-lived child";
}

}  // namespace
}  // namespace adaexplore
