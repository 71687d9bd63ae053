// The tuner's end of the runner (runner.hpp): Boost.Process for the process, its group and the
// pipes; poll(2) on the reply pipe for the time limit.
#include "evaluate/runner.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace bp = boost::process;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kStartLimitS = 120;  // a runner's start: process and CUDA context

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

struct Runner::Impl {
  std::vector<std::string> command;
  fs::path log_file;
  std::map<std::string, std::string> environment;
  std::unique_ptr<bp::opstream> to_runner;
  std::unique_ptr<bp::ipstream> from_runner;
  std::unique_ptr<bp::group> group;
  std::unique_ptr<bp::child> child;
  std::size_t starts = 0;

  bool running() {
    std::error_code ec;
    return child && child->running(ec);
  }

  enum class Read { line, ended, timed_out };
  // One line from the runner within `timeout_s` (0: none). Polls in slices of at most 200 ms and
  // checks between them that the runner lives: a process the runner or a module started may hold a
  // copy of the pipe's write end, so its end of file can come late or never.
  Read read_line(std::string& line, double timeout_s) {
    const int fd = from_runner->pipe().native_source();
    const auto start = Clock::now();
    while (true) {
      const double left_ms = timeout_s > 0 ? timeout_s * 1000.0 - ms_since(start) : 200;
      if (left_ms <= 0) return Read::timed_out;
      pollfd pfd{fd, POLLIN, 0};
      const int ready = ::poll(&pfd, 1, static_cast<int>(std::min(200.0, left_ms)) + 1);
      if (ready > 0) return std::getline(*from_runner, line) ? Read::line : Read::ended;  // end of file: it died
      if (!running()) {  // died; read what it may have written last
        pollfd last{fd, POLLIN, 0};
        if (::poll(&last, 1, 0) > 0 && std::getline(*from_runner, line)) return Read::line;
        return Read::ended;
      }
    }
  }
  bool ready = false;  // the runner said it is ready

  void start() {
    stop(/*kill=*/true);
    std::error_code ec;
    std::vector<std::string> args(command.begin() + 1, command.end());
    bp::environment env = boost::this_process::environment();
    for (const auto& [k, v] : environment) env[k] = v;
    start_watchdog();  // the runner's group dies with the tuner (process.hpp)
    // Its pipes too are made under spawn_mutex(): no other child may inherit them (process.hpp).
    std::lock_guard<std::mutex> spawning(spawn_mutex());
    to_runner = std::make_unique<bp::opstream>();
    from_runner = std::make_unique<bp::ipstream>();
    group = std::make_unique<bp::group>();
    child = std::make_unique<bp::child>(command.front(), bp::args(args), bp::std_in<*to_runner,
                                        bp::std_out> * from_runner,
                                        bp::std_err > log_file.string(), env, *group,
                                        bp::extend::on_exec_setup = [](auto&) { watch_own_group(); }, ec);
    // The tuner's ends of the runner's pipes are not for the compilers started later: a compiler
    // holding the runner's stdin would keep the runner from seeing its end (stop()).
    ::fcntl(to_runner->pipe().native_sink(), F_SETFD, FD_CLOEXEC);
    ::fcntl(from_runner->pipe().native_source(), F_SETFD, FD_CLOEXEC);
    if (ec) {
      unwatch_group(child->id());
      child.reset();
      throw std::runtime_error("cannot start the benchmark runner " + command.front() + ": " + ec.message());
    }
    ++starts;
    ready = false;
  }

  // Ends the runner: closing its stdin lets it leave its loop; `kill` (or a runner that does not
  // go within 2 s) terminates its process group.
  void stop(bool kill) {
    if (!child) return;
    std::error_code ec;
    if (to_runner) to_runner->pipe().close();
    if (!kill) {
      const auto start = Clock::now();
      while (child->running(ec) && ms_since(start) < 2000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // The whole group, also when its leader has ended on its own: what a module forked stays in
    // it, and is unwatched below.
    group->terminate(ec);
    child->wait(ec);
    forget();
  }

  void forget() {
    if (child) unwatch_group(child->id());
    child.reset();
    group.reset();
    to_runner.reset();
    from_runner.reset();
  }

  // The exit status of a runner that ended (or was killed) during a request.
  void collect_end(ProcessResult& p) {
    std::error_code ec;
    child->wait(ec);
    const int status = child->native_exit_code();
    if (WIFSIGNALED(status)) p.signal = WTERMSIG(status);
    else if (WIFEXITED(status)) p.exit_code = WEXITSTATUS(status);
    forget();
  }
};

std::string runner_request_line(const RunnerRequest& request) {
  const nlohmann::json message = {{"module", request.module.string()},
                                  {"args", request.args},
                                  {"directory", request.directory.string()},
                                  {"stdout", request.stdout_file.string()},
                                  {"stderr", request.stderr_file.string()},
                                  {"keep", request.keep}};
  return message.dump();
}

void read_runner_reply(const std::string& line, RunnerReply& reply) {
  const auto j = nlohmann::json::parse(valid_utf8_json_text(line));  // a module's path or loader message may be any bytes
  reply.process.exit_code = j.at("exit_code").get<int>();
  reply.load_ms = j.value("load_ms", 0.0);
  reply.main_ms = j.value("main_ms", 0.0);
  reply.unload_ms = j.value("unload_ms", 0.0);
  reply.context_lost = j.value("context_lost", false);
  reply.load_error = j.value("load_error", std::string());
}

Runner::Runner(std::vector<std::string> command, fs::path log_file, std::map<std::string, std::string> environment)
    : impl_(std::make_unique<Impl>()) {
  if (command.empty()) throw std::invalid_argument("Runner: empty command");
  std::signal(SIGPIPE, SIG_IGN);  // a runner that died must not take the tuner with it on write
  impl_->command = std::move(command);
  impl_->log_file = std::move(log_file);
  impl_->environment = std::move(environment);
  impl_->start();
}

Runner::~Runner() { impl_->stop(/*kill=*/false); }

std::size_t Runner::starts() const { return impl_->starts; }

RunnerReply Runner::run(const RunnerRequest& request, double timeout_s) {
  if (!impl_->running()) impl_->start();
  RunnerReply reply;
  ProcessResult& p = reply.process;
  p.argv = {request.module.string()};
  p.argv.insert(p.argv.end(), request.args.begin(), request.args.end());
  // A fresh runner first says it is ready (its CUDA context made): that start is not the
  // configuration's time (start_ms), and at most kStartLimitS.
  std::string line;
  if (!impl_->ready) {
    const auto started = Clock::now();
    if (impl_->read_line(line, kStartLimitS) == Impl::Read::line) impl_->ready = true;
    reply.start_ms = ms_since(started);
  }
  const auto start = Clock::now();
  *impl_->to_runner << runner_request_line(request) << '\n' << std::flush;

  enum class End { answered, died, timed_out } end = End::timed_out;
  switch (impl_->read_line(line, timeout_s)) {
    case Impl::Read::line: end = End::answered; break;
    case Impl::Read::ended: end = End::died; break;
    case Impl::Read::timed_out: end = End::timed_out; break;
  }
  p.wall_ms = ms_since(start);

  if (end == End::answered) {
    try {
      read_runner_reply(line, reply);
      if (reply.context_lost) impl_->stop(/*kill=*/false);  // it exits by itself after a sticky CUDA error
    } catch (const std::exception& e) {
      p.exit_code.reset();
      p.error = "the runner's reply breaks its protocol (" + std::string(e.what()) + "): " + line;
      reply.context_lost = true;
      impl_->stop(/*kill=*/true);  // it cannot be trusted any more
    }
  } else if (end == End::died) {
    reply.context_lost = true;
    impl_->collect_end(p);  // the module took the runner down (signal, exit)
  } else {
    reply.context_lost = true;
    p.timed_out = true;  // the module hangs: the runner's whole process group goes
    impl_->stop(/*kill=*/true);
  }
  p.out = read_captured(request.stdout_file);
  p.err = read_captured(request.stderr_file);
  if (!p.error.empty()) p.err = p.error + "\n" + p.err;
  return reply;
}

fs::path cudart_library_for(const fs::path& nvcc) {
  std::error_code ec;
  const fs::path real = fs::canonical(nvcc, ec);
  if (ec) return {};
  const fs::path toolkit = real.parent_path().parent_path();
  for (const fs::path& candidate :
       {toolkit / "lib64" / "libcudart.so", toolkit / "targets" / "x86_64-linux" / "lib" / "libcudart.so",
        toolkit / "targets" / "sbsa-linux" / "lib" / "libcudart.so", toolkit / "lib" / "libcudart.so"})
    if (fs::exists(candidate, ec)) return candidate;
  return {};
}

fs::path self_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

fs::path runner_executable() {
  if (const char* env = std::getenv("ADAEXPLORE_RUNNER"); env && *env) return env;
  const fs::path self = self_executable();
  return self.filename().string().rfind("adaexplore-tuner", 0) == 0 ? self : fs::path();
}

}  // namespace adaexplore
