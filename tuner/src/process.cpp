#include "process.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <sys/wait.h>

#include <boost/process.hpp>

#include "outcome.hpp"

namespace adaexplore {
namespace bp = boost::process;

namespace {

std::filesystem::path temp_path(const char* stem) {
  static std::mt19937_64 rng(std::random_device{}());
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  return std::filesystem::temp_directory_path() /
         ("adaexplore-" + std::string(stem) + "-" + std::to_string(rng()) + ".log");
}

}  // namespace

std::string read_captured(const std::filesystem::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return truncate_middle(ss.str(), limit);
}

std::string ProcessResult::describe() const {
  if (failed_to_start) return "failed to start: " + error;
  if (timed_out) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "timed out after %.3g s (killed with its process group)", wall_ms / 1000.0);
    return buf;
  }
  if (signal) return "killed by signal " + std::to_string(*signal) + " (" + strsignal(*signal) + ")";
  if (exit_code) return "exit code " + std::to_string(*exit_code);
  return "unknown end";
}

std::string ProcessResult::command_line() const {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    if (a.find_first_of(" \t\"'") != std::string::npos) s += '\'' + a + '\'';
    else s += a;
  }
  return s;
}

std::filesystem::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return std::filesystem::exists(name) ? std::filesystem::path(name) : "";
  auto p = bp::search_path(name);
  return p.empty() ? std::filesystem::path() : std::filesystem::path(p.string());
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  r.argv = argv;
  if (argv.empty()) {
    r.failed_to_start = true;
    r.error = "empty command";
    return r;
  }
  const auto exe = find_program(argv[0]);
  if (exe.empty()) {
    r.failed_to_start = true;
    r.error = argv[0] + ": no such program (not found, or not in PATH)";
    return r;
  }
  const bool own_out = options.stdout_file.empty(), own_err = options.stderr_file.empty();
  const auto out_path = own_out ? temp_path("out") : options.stdout_file;
  const auto err_path = own_err ? temp_path("err") : options.stderr_file;
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  bp::environment env = boost::this_process::environment();
  for (const auto& [k, v] : options.environment) env[k] = v;
  const auto start = std::chrono::steady_clock::now();
  try {
    bp::group group;
    std::error_code ec;
    bp::child child(exe.string(), bp::args(args), bp::std_out > out_path.string(), bp::std_err > err_path.string(),
                    bp::std_in < bp::null, bp::start_dir(options.working_directory.empty()
                                                             ? std::filesystem::current_path().string()
                                                             : options.working_directory.string()),
                    env, group, ec);
    if (ec) {
      r.failed_to_start = true;
      r.error = exe.string() + ": " + ec.message();
    } else {
      // Poll rather than wait_for: portable across Boost versions and exact enough (1 ms).
      while (child.running(ec)) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (options.timeout_s > 0 && elapsed > options.timeout_s) {
          r.timed_out = true;
          group.terminate(ec);
          child.wait(ec);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (!r.timed_out) {
        child.wait(ec);
        const int status = child.native_exit_code();
        if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
        else if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      }
      // Children the program left behind (a compiler's subprocesses) go with it.
      group.terminate(ec);
    }
  } catch (const std::exception& e) {
    r.failed_to_start = true;
    r.error = exe.string() + ": " + e.what();
  }
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.out = read_captured(out_path, options.capture_limit);
  r.err = read_captured(err_path, options.capture_limit);
  std::error_code ignore;
  if (own_out) std::filesystem::remove(out_path, ignore);
  if (own_err) std::filesystem::remove(err_path, ignore);
  return r;
}

}  // namespace adaexplore
