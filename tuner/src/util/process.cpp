#include "util/process.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <stdexcept>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include "util/text.hpp"

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

// The watchdog (process.hpp). Its socket's tuner end and the pid of the process that started it:
// a process forked from the tuner (no exec) has the same values and starts its own.
std::mutex watchdog_mutex;
std::atomic<int> watchdog_socket{-1};
std::atomic<pid_t> watchdog_owner{0};

// The groups the watchdog kills; static storage, filled by the watchdog alone (no allocation
// after the fork). More groups at once than this are not watched (a tuning has a few).
constexpr int kMaxWatched = 4096;
std::int32_t watched[kMaxWatched];

// The watchdog's life, async-signal-safe calls only (it is forked from a multi-threaded process):
// records of one std::int32_t, +pgid to watch, -pgid to forget; at the end of file (the tuner
// and every process holding its end are gone) or an error, SIGKILL to every group still watched.
[[noreturn]] void watchdog_main(int socket_fd) {
  ::setpgid(0, 0);  // out of the tuner's group: Ctrl-C or a kill of that group leaves it running
  // Above the standard streams first: a tuner started with them closed has its socket at 0-2,
  // which the /dev/null redirection below would replace.
  if (socket_fd < 3) {
    socket_fd = ::fcntl(socket_fd, F_DUPFD, 3);
    if (socket_fd < 0) ::_exit(1);
  }
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd)
    if (null >= 0) ::dup2(null, fd);
  if (::dup2(socket_fd, 3) < 0) ::_exit(1);
  if (::syscall(SYS_close_range, 4u, ~0u, 0u) != 0) {  // every other file of the tuner (locks, pipes)
    const long max_fd = ::sysconf(_SC_OPEN_MAX);
    for (long fd = 4; fd < (max_fd > 0 ? max_fd : 1024); ++fd) ::close(static_cast<int>(fd));
  }
  int count = 0;
  for (;;) {
    std::int32_t record = 0;
    const ssize_t n = ::recv(3, &record, sizeof record, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof record)) break;
    if (record > 0) {
      if (count < kMaxWatched) watched[count++] = record;
    } else {
      for (int i = 0; i < count; ++i)
        if (watched[i] == -record) {
          watched[i] = watched[--count];
          break;
        }
    }
  }
  for (int i = 0; i < count; ++i) ::kill(-watched[i], SIGKILL);
  ::_exit(0);
}

// To the watchdog of process `owner` (this one, or the parent of a child between fork and exec).
void send_record(std::int32_t record, pid_t owner) noexcept {
  const int fd = watchdog_socket.load();
  if (fd >= 0 && watchdog_owner.load() == owner) (void)::send(fd, &record, sizeof record, MSG_NOSIGNAL);
}

}  // namespace

std::mutex& spawn_mutex() {
  static std::mutex m;
  return m;
}

void start_watchdog() {
  std::lock_guard<std::mutex> spawning(spawn_mutex());  // a recursive_mutex is not needed: callers
                                                        // start the watchdog before they lock it
  std::lock_guard<std::mutex> lock(watchdog_mutex);
  if (watchdog_socket.load() >= 0 && watchdog_owner.load() == ::getpid()) return;
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::runtime_error(std::string("cannot create the socket of the child-process watchdog: ") +
                             std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(sockets[0]);
    ::close(sockets[1]);
    throw std::runtime_error(std::string("cannot start the child-process watchdog: fork: ") + std::strerror(error));
  }
  if (pid == 0) {
    ::close(sockets[0]);
    watchdog_main(sockets[1]);
  }
  ::close(sockets[1]);
  // The inherited socket of a watchdog of the process this one was forked from stays open: it is
  // that watchdog's to end, with that process.
  watchdog_socket = sockets[0];
  watchdog_owner = ::getpid();
}

void watch_own_group() noexcept { send_record(static_cast<std::int32_t>(::getpid()), ::getppid()); }

void unwatch_group(int pgid) noexcept {
  if (pgid > 0) send_record(-static_cast<std::int32_t>(pgid), ::getpid());
}

std::string read_captured(const std::filesystem::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return truncate_middle(valid_utf8(ss.str()), limit);
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
    start_watchdog();
    std::error_code ec;
    std::unique_lock<std::mutex> spawning(spawn_mutex());  // spawn_mutex(): one child created at a time
    bp::group group;
    auto spawn = [&](auto&& out) {
      return bp::child(exe.string(), bp::args(args), out, bp::std_err > err_path.string(),
                       bp::std_in < (options.stdin_file.empty() ? std::string("/dev/null") : options.stdin_file.string()),
                       bp::start_dir(options.working_directory.empty() ? std::filesystem::current_path().string()
                                                                       : options.working_directory.string()),
                       env, group, bp::extend::on_exec_setup = [](auto&) { watch_own_group(); }, ec);
    };
    if (options.inherit_stdout) std::fflush(stdout);
    bp::child child = options.inherit_stdout ? spawn(bp::std_out > stdout) : spawn(bp::std_out > out_path.string());
    spawning.unlock();
    if (ec) {
      r.failed_to_start = true;
      r.error = exe.string() + ": " + ec.message();
      unwatch_group(child.id());  // a child that registered and then failed to exec
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
      unwatch_group(child.id());
    }
  } catch (const std::exception& e) {
    r.failed_to_start = true;
    r.error = exe.string() + ": " + e.what();
  }
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!options.inherit_stdout) r.out = read_captured(out_path, options.capture_limit);
  r.err = read_captured(err_path, options.capture_limit);
  std::error_code ignore;
  if (own_out) std::filesystem::remove(out_path, ignore);
  if (own_err) std::filesystem::remove(err_path, ignore);
  return r;
}

}  // namespace adaexplore
