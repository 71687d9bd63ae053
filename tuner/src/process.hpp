// Running a program: argv (never a shell), time limit, stdout/stderr captured to files, the
// whole process group killed on time-out. Built on Boost.Process.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace adaexplore {

struct ProcessOptions {
  double timeout_s = 0;                      // 0 = no limit
  std::filesystem::path working_directory;   // empty = current
  std::filesystem::path stdout_file;         // empty = a temporary file, removed afterwards
  std::filesystem::path stderr_file;         // empty = a temporary file, removed afterwards
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
  std::string out;               // captured stdout (truncated in the middle to capture_limit)
  std::string err;               // captured stderr (likewise)
  double wall_ms = 0;

  bool ok() const { return exit_code && *exit_code == 0; }
  /// "exit code 2", "signal 11 (SIGSEGV)", "timed out after 10 s", "failed to start: ...".
  std::string describe() const;
  /// The command line, quoted for reading (not for a shell to execute).
  std::string command_line() const;
};

/// A program's captured output file, truncated in the middle to `limit` characters; empty when the
/// file is missing (run_process, and the runner for a module's run.out/run.err).
std::string read_captured(const std::filesystem::path& path, std::size_t limit = 64 * 1024);

/// Runs argv[0] (looked up in PATH when it has no '/') with arguments argv[1...].
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// Resolves a program name through PATH; empty when not found.
std::filesystem::path find_program(const std::string& name);

}  // namespace adaexplore
