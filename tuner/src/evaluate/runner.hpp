// The long-lived benchmark runner: one process that loads each configuration's benchmark, built
// as a shared library (a "module"), with dlopen, calls its main, unloads it, and waits for the
// next, so that a configuration no longer pays a process start and a CUDA context creation
// (about 0.3 s on an H200; docs/throughput.md). Crash isolation is kept: a signal or exit kills
// the runner, not the tuner; a time-out kills the runner's process group; after a sticky CUDA
// error (illegal address, ...) the runner replies and exits. The tuner starts a fresh runner for
// the next configuration in each case.
//
// Protocol (the runner is the hidden subcommand `adaexplore-tuner runner [--cudart LIB]`):
//   request, one JSON line on the runner's stdin:
//     {"module": ".../benchmark.so", "args": ["--adaexplore-result", ...], "directory": "...",
//      "stdout": ".../run.out", "stderr": ".../run.err", "keep": false}
//   "keep" true (the kernel unit: one benchmark module for every configuration, each bringing its
//   cubin as an argument): the module stays loaded after its main returns and the next request
//   for the same path calls it again (no dlopen; its statics, such as the harness's buffer cache,
//   live on), until the runner exits.
//   first, once: {"ready": true} when the runner has started (its CUDA context made);
//   reply, one JSON line on the runner's stdout (a copy of fd 1 taken at start; fd 1 and 2 are
//   redirected to the request's files while the module runs):
//     {"exit_code": 0, "load_ms": 3.1, "main_ms": 812.0, "unload_ms": 0.4,
//      "context_lost": false, "load_error": ""}
//   A module is a shared library with `extern "C" int adaexplore_module_entry(int, char**)`
//   (templates/adaexplore/harness_common.hpp defines it when ADAEXPLORE_MODULE is set).
//   --cudart: the CUDA runtime library (libcudart.so of the nvcc that builds the modules), loaded
//   once so that every module shares one runtime and the primary context lives as long as the
//   runner; it is created at start (cudaFree(0)), while the first configurations compile. After
//   each module the runner synchronizes the device: an error there means the context is lost.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/process.hpp"

namespace adaexplore {

struct RunnerRequest {
  std::filesystem::path module;      // the configuration's shared library
  std::vector<std::string> args;     // argv[1..] of the benchmark's main
  std::filesystem::path directory;   // the working directory while it runs
  std::filesystem::path stdout_file, stderr_file;
  bool keep = false;  // leave the module loaded for the next request (see "keep" above)
};

struct RunnerReply {
  /// How the benchmark ended, in run_process's terms: exit_code from its main's return (or the
  /// runner's exit code or signal when the module took the runner down), timed_out, wall_ms
  /// (request sent to reply read, ms), out/err read from the request's files.
  ProcessResult process;
  double load_ms = 0;    // dlopen (CUDA registers the module's kernels here)
  double main_ms = 0;    // the module's main, from call to return
  double unload_ms = 0;  // dlclose
  double start_ms = 0;   // waiting for a fresh runner's start (process, CUDA context), outside the limit
  bool context_lost = false;  // the runner exits after this reply (sticky CUDA error, death, time-out)
  std::string load_error;     // dlopen/dlsym failure (the module never ran)
};

/// The request as the runner reads it: one line of JSON (the protocol above), without the newline.
std::string runner_request_line(const RunnerRequest& request);
/// Reads one reply line (the protocol above) into `reply`: exit_code (into reply.process), load_ms,
/// main_ms, unload_ms, context_lost, load_error. Throws std::exception when the line breaks the
/// protocol (not JSON, no exit_code: the {"ready": true} line, say).
void read_runner_reply(const std::string& line, RunnerReply& reply);

/// The tuner's end of a runner. Not thread-safe: one request at a time (the measuring thread).
class Runner {
 public:
  /// `command`: the runner's argv (e.g. {"/path/adaexplore-tuner", "runner", "--cudart", lib}).
  /// `log_file`: the runner's own stderr outside requests. The process starts at once (so the
  /// CUDA context is created while the first configurations compile) and again after each death.
  /// `environment`: variables set for the runner (e.g. CUDA_VISIBLE_DEVICES), added to the tuner's.
  Runner(std::vector<std::string> command, std::filesystem::path log_file,
         std::map<std::string, std::string> environment = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /// Runs one module; `timeout_s` (0: none) bounds the whole request. Never throws for what the
  /// module does; throws std::runtime_error when the runner itself cannot be started.
  RunnerReply run(const RunnerRequest& request, double timeout_s);
  /// Processes started so far (1 + restarts).
  std::size_t starts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The runner's side: serves requests from stdin until it closes. `cudart`: see the protocol
/// (empty: host modules, no CUDA). Returns the process exit code.
int runner_main(const std::string& cudart);

/// The runner's device pool (runner_main.cpp; the harness reaches it through the exported C
/// functions adaexplore_runner_take_device, _give_device and _release_device). runner_main sets
/// `free_memory` to the CUDA runtime's cudaFree (without it the pool keeps nothing) and calls
/// device_pool_after_module after each module: it frees the blocks that module did not take
/// back. Both are here for the runner and its tests.
void set_device_pool_free(int (*free_memory)(void*));
void device_pool_after_module();

/// The CUDA runtime library next to `nvcc` (<toolkit>/lib64/libcudart.so, or the targets/
/// folder's); empty when none is found.
std::filesystem::path cudart_library_for(const std::filesystem::path& nvcc);

/// The running program's own path (/proc/self/exe).
std::filesystem::path self_executable();

/// The program that serves as runner (`<it> runner`): $ADAEXPLORE_RUNNER when set (the path of an
/// adaexplore-tuner), else this program when it is adaexplore-tuner; empty otherwise (a test
/// binary, say: the backend then runs one process per evaluation).
std::filesystem::path runner_executable();

}  // namespace adaexplore
