// Running a program: argv (never a shell), time limit, stdout/stderr captured to files, the
// whole process group killed on time-out. Built on Boost.Process.
//
// Every program started here (and the runner, runner.cpp) leads a process group of its own that
// is tied to the tuner's lifetime: a watchdog process, forked once per tuner process, kills
// (SIGKILL) the groups still registered with it when the tuner dies, however it dies (SIGKILL,
// Ctrl-C, a crash), so no compiler (nvcc and its cicc, ptxas, gcc) or runner outlives it. The
// child registers its group itself between fork and exec (watch_own_group, a Boost.Process
// on_exec_setup hook), over a SOCK_SEQPACKET socket the watchdog reads: the group is known to it
// before the program runs. The watchdog sees the tuner's end as the socket's end of file (the
// socket is close-on-exec, so only the tuner holds it), leaves the tuner's process group (Ctrl-C
// and a group kill do not take it along) and holds no other file of the tuner.
#pragma once

#include <filesystem>
#include <mutex>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace adaexplore {

struct ProcessOptions {
  double timeout_s = 0;                      // 0 = no limit
  std::filesystem::path working_directory;   // empty = current
  std::filesystem::path stdout_file;         // empty = a temporary file, removed afterwards
  bool inherit_stdout = false;               // true: the program writes to this process's stdout (as it
                                             // goes; stdout_file unused, ProcessResult::out empty)
  std::filesystem::path stderr_file;         // empty = a temporary file, removed afterwards
  std::filesystem::path stdin_file;          // empty = /dev/null
  std::map<std::string, std::string> environment;  // added to (or replacing in) the inherited environment
  std::size_t capture_limit = 64 * 1024;     // characters of each stream kept in the result
};

struct ProcessResult {
  std::vector<std::string> argv;
  std::optional<int> exit_code;  // set when the program exited
  std::optional<int> signal;     // set when it was killed by a signal (not by our time-out)
  bool timed_out = false;        // killed (with its process group) after timeout_s
  bool failed_to_start = false;  // e.g. the executable does not exist; message in error
  std::string error;
  std::string out;               // captured stdout, valid UTF-8 (read_captured), truncated in the middle to capture_limit
  std::string err;               // captured stderr (likewise)
  double wall_ms = 0;

  bool ok() const { return exit_code && *exit_code == 0; }
  /// "exit code 2", "signal 11 (SIGSEGV)", "timed out after 10 s", "failed to start: ...".
  std::string describe() const;
  /// The command line, quoted for reading (not for a shell to execute).
  std::string command_line() const;
};

/// A program's captured output file as valid UTF-8 (text.hpp valid_utf8: a compiler echoing a
/// Latin-1 comment, a benchmark printing Latin-1), truncated in the middle to `limit` characters;
/// empty when the file is missing (run_process, and the runner for a module's run.out/run.err).
std::string read_captured(const std::filesystem::path& path, std::size_t limit = 64 * 1024);

/// Runs argv[0] (looked up in PATH when it has no '/') with arguments argv[1...].
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// Held while a child process is created, by whatever creates one (run_process, the runner, the
/// watchdog's fork): children are started one at a time. Boost.Process makes each child's pipes
/// (the exec-error pipe that its constructor reads until exec closes it, the runner's stdin and
/// stdout) with pipe() and marks them close-on-exec afterwards; a child forked by another thread
/// in between inherits them and keeps them open for its whole life. A long-lived one (the runner,
/// the watchdog) holding another child's exec-error pipe left that constructor reading forever:
/// a compile never returned and the tuning hung (seen 2026-12-04 in
/// KernelUnitCompileTest.WithoutTheHarnessKernelsSourceTheBenchmarkIsCompiledWithNvccAtOnce: the
/// runner held the harness compile's exec-error pipe).
std::mutex& spawn_mutex();

/// Starts this process's watchdog (above) unless it runs already; call before starting a child
/// that calls watch_own_group(). After a fork, the new process starts its own. Throws
/// std::runtime_error when the socket or the fork fails.
void start_watchdog();
/// In a child between fork and exec (async-signal-safe): registers the process group the child
/// leads (its pid: the child must lead a new group, as a fresh boost::process::group makes it)
/// with the watchdog started by its parent. Nothing when there is none.
void watch_own_group() noexcept;
/// In the parent, once the group `pgid` has ended (or was terminated): the watchdog forgets it.
void unwatch_group(int pgid) noexcept;

/// Resolves a program name through PATH; empty when not found.
std::filesystem::path find_program(const std::string& name);

}  // namespace adaexplore
