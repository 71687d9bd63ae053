// The tuning spec: what `adaexplore_tune_kernel()` writes and `adaexplore-tuner tune` reads.
//
// JSON object (paths are absolute or relative to the spec file's folder):
// {
//   "name": "gemm",                          // identifier; header <name>.hpp, namespace default adaexplore::<name>
//   "namespace": "adaexplore::gemm",         // optional
//   (The names that reach the header, "name" without "namespace", the namespace's parts, the
//   parameters' and the sizes' names, may not be C++ keywords, macros, reserved identifiers or
//   the header's own names: model/identifier.hpp.)
//   "backend": "cuda" | "host",
//   "template": "gemm.cuh.in",               // kernel source with ${NAME} placeholders; or
//                                            // "kernel_source" (macros, kernel_spec.hpp)
//   "benchmark": "gemm_bench.cu",            // harness program (templates/adaexplore/harness*.h*); or
//                                            // "arguments" (the tuner writes it, kernel_spec.hpp)
//   "kernel", "reference", "tolerance", "macro_prefix": kernel_spec.hpp
//   "parameters": [ {"name": "TILE", "values": [16, 32, 64]},
//                   {"name": "UNROLL", "range": {"from": 1, "to": 8, "step": 1}} ],   // inclusive
//   "constraints": ["TILE * TILE <= 1024"],  // product or Kernel Tuner (Python) syntax, see expr.hpp
//   "defaults": {"TILE": 32, "UNROLL": 4},   // the baseline; default: first valid configuration
//   "budget": {"evaluations": 100, "seconds": 0},   // seconds 0: no time limit
//   "strategy": "adaexplore", "strategy_options": {}, "seed": 1,   // strategy default adaexplore
//   "compiler": {"path": "nvcc", "flags": ["-O3"], "arch": "sm_90", "include_dirs": [], "definitions": [],
//                "timeout_s": 120, "launcher": ["ccache"], "unit": "auto"},
//   "run": {"timeout_s": 30, "timeout_factor": 10, "timeout_floor_s": 5, "args": [], "runner": true},
//   "launch": {"threads_per_block": "(BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N)",   // optional, cuda
//              "dynamic_shared_bytes": "4 * TILE * TILE", "dynamic_shared_opt_in": true,
//              "block": ["BX", "BY"], "grid": ["ceil(N / BX)"]},   // kernel_spec.hpp
//   "work_dir": "build/adaexplore/gemm",      // evaluations' files; default <spec folder>/<name>.work
//   "jobs": 0,                                // parallel compiles; 0 = the CPUs the process may run on
//   "in_flight": 0,                           // configurations in flight at most (queued, compiling,
//                                             // waiting, measuring); 0 = as many as keep the GPU busy,
//                                             // from the measured compile and measurement times
//   "sizes": {"names": ["M", "N", "K"], "values": [[512, 512, 512], [4096, 4096, 4096]],
//             "budget": 50, "warm_start": 8}  // optional: one tuning per problem size (sizes.hpp)
// }
//
// The run time limit of a benchmark run (seconds): run.timeout_s is the cap (0: none) and the
// limit of the defaults' run; once the defaults ran successfully, every later run gets
//   min(timeout_s, max(timeout_floor_s, timeout_factor x the defaults' run wall time))
// (the wall time of the whole benchmark process: start, warm-up, measurement, verification).
// timeout_factor 0 keeps the cap alone; otherwise it must be >= 1. A run over its limit is killed
// and recorded as `timeout` with extra.timeout_stage "run", its message saying the limit and how
// it was derived. A compile (or link) over compiler.timeout_s is killed and recorded as `timeout`
// with extra.timeout_stage "compile".
//
// compiler.launcher (optional, default none): a program and its arguments put in front of every
// compile command (launcher... path flags... benchmark -o executable), as CMake's
// <LANG>_COMPILER_LAUNCHER: "ccache", "sccache", a wrapper script. Each entry a non-empty string.
// Not part of the tuning database's key (store/key.cpp content_key_parts): a launcher changes how
// the program is built, not what it measures. ccache replays the compiler's stderr on a cache hit,
// so the ptxas report (-Xptxas -v) still reaches the tuner; but ccache caches compile-only calls
// (-c) and passes a compile-and-link call such as the tuner's one-step command through uncached
// ("called for linking" in ccache -s).
//
// compiler.unit (optional, default "auto"; cuda only, the host backend always compiles the
// program): what is compiled per configuration.
//   "kernel": the kernel unit. The template rendered for the configuration is compiled alone, its
//     device code only (nvcc -cubin for compiler.arch, with the ptxas report), into
//     <eval dir>/kernel.cubin; the benchmark is compiled once per tuning, without the rendered
//     template, and launches the configuration's kernels from the cubin (harness.cuh
//     Benchmark::kernel, param, exported). Compiled cubins are kept in a cache by content (the
//     command, the compiler's identity, the rendered template, the headers it includes) and a
//     configuration compiled before is served from it (kernel_unit.hpp).
//   "program": the whole benchmark with the rendered template, per configuration (for benchmarks
//     that include the rendered template and launch it with <<<>>>).
//   "auto": "program" when the benchmark #includes the rendered template's name (gemm.cuh for
//     gemm.cuh.in), else "kernel"; the choice and why are in the tuning's log.
// Not part of the tuning database's key: both compile the same kernel for the same architecture.
//
// run.runner (default true): the benchmark is built as a shared library (a module) and measured
// in one long-lived runner process (tuner/src/evaluate/runner.hpp) that keeps the CUDA context between
// configurations; a crash, time-out or sticky CUDA error costs a runner restart, never the
// tuning. false: the benchmark is an executable run in its own process per evaluation (the only
// mode when the runner cannot be found). Either way the benchmark's source is the same.
//
// "launch" (cuda only) tells the static resource check (resource_check.hpp) how the benchmark
// launches the kernel, as expressions over the parameters and the size names (expr.hpp syntax,
// numeric; a size name is unknown, and its figure unchecked, where no size is being tuned):
// threads_per_block (blockDim.x * y * z; checked against the device's 1024 threads per block and,
// with the ptxas register count, its registers per block) and dynamic_shared_bytes (bytes of
// dynamic shared memory per block, default 0); dynamic_shared_opt_in (default true) says whether
// the benchmark raises cudaFuncAttributeMaxDynamicSharedMemorySize, without which a block gets at
// most 48 KiB in all. The shape applies to every kernel of the benchmark's ptxas report. Both
// expressions must give a whole number (threads >= 1, bytes >= 0) for the defaults; for another
// configuration, a value that is not (a division by zero, a fraction) leaves that figure unchecked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/kernel_spec.hpp"
#include "model/sizes.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// Bad spec. what(): "<file>: <where>: <problem>; <what to do>".
class SpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompilerSpec {
  std::string path;
  std::vector<std::string> flags;
  std::string arch;  // cuda: "sm_90" or "90"; empty: from the detected GPU
  std::vector<std::string> include_dirs;
  std::vector<std::string> definitions;
  double timeout_s = 120;             // per compile (and link); over it: timeout, timeout_stage "compile"
  std::vector<std::string> launcher;  // compiler.launcher: prepended to the compile command; empty: none
  std::string unit = "auto";          // compiler.unit: "auto", "kernel" or "program" (see above)
};

/// The spec's "launch" section: expressions over the space's parameters and the size names (see
/// above and kernel_spec.hpp).
struct LaunchSpec {
  std::optional<Expr> threads_per_block;     // threads per block (with "block" and without it: their product)
  std::optional<Expr> dynamic_shared_bytes;  // bytes per block
  bool dynamic_shared_opt_in = true;
  std::vector<Expr> block, grid;             // blockDim and gridDim x[, y[, z]]; empty: not declared
};

struct Spec {
  std::filesystem::path file;  // where the spec was read from (messages, relative paths)
  std::string name;
  std::string name_space;
  std::string backend;
  /// The template, or with "kernel_source" the macro-configured kernel source (macro_kernel true:
  /// render.hpp template_text() makes the template: a #define per parameter, then the source).
  std::filesystem::path template_path;
  bool macro_kernel = false;
  /// The benchmark; with "arguments", where the tuner writes the one it generates
  /// (<work_dir>/generated/<name>_bench.cu, generated_benchmark.hpp).
  std::filesystem::path benchmark_path;
  std::string kernel;                   // "kernel": the kernel's name; empty: not given
  std::vector<ArgumentSpec> arguments;  // "arguments": non-empty when the benchmark is generated
  ReferenceSpec reference;              // "reference"
  ToleranceSpec tolerance;              // "tolerance"
  std::string macro_prefix;             // "macro_prefix"; default ADAEXPLORE_<NAME>_ (NAME upper-cased)
  Space space;
  Config defaults;
  bool defaults_given = false;
  std::size_t budget_evaluations = 100;
  double budget_seconds = 0;
  std::string strategy = "adaexplore";
  nlohmann::json strategy_options = nlohmann::json::object();
  std::uint64_t seed = 1;
  CompilerSpec compiler;
  double run_timeout_s = 30;         // the cap of every run's time limit; 0: no cap
  double run_timeout_factor = 10;    // limit = factor x the defaults' run wall time; 0: cap alone
  double run_timeout_floor_s = 5;    // the derived limit is at least this
  std::vector<std::string> run_args;
  bool run_runner = true;            // run.runner: one long-lived runner process (runner.hpp)
  std::filesystem::path work_dir;
  std::size_t jobs = 0;
  std::size_t in_flight = 0;  // configurations in flight at most; 0 = automatic (TuneOptions::in_flight)
  LaunchSpec launch;
  SizesSpec sizes;                   // "sizes" (sizes.hpp); empty: one size, from run.args
  /// The size being tuned (one of sizes.sizes), set by `tune` per size: passed to the benchmark
  /// (SizesSpec::arguments) and part of the results key (store/key.hpp key_parts). Unset: none.
  std::optional<ProblemSize> size;
  nlohmann::json raw;  // the spec as read, for hashing and the results file header
};

/// The parts of kernel_spec.hpp ("kernel_source", "kernel", "launch", "arguments", "reference",
/// "tolerance", "macro_prefix") of `j` into `s`, whose space, defaults, sizes and backend are set.
/// Throws SpecError.
void parse_kernel_parts(const nlohmann::json& j, Spec& s);

/// Whether the tuner writes the benchmark (the spec's "arguments").
inline bool generated_benchmark(const Spec& s) { return !s.arguments.empty(); }

/// The start of every compile command: compiler.launcher's entries, then compiler.path.
std::vector<std::string> compiler_prefix(const CompilerSpec& compiler);

/// Reads and validates a spec file. Throws SpecError.
Spec load_spec(const std::filesystem::path& file);
/// Validates an already parsed spec; `file` is used in messages and to resolve relative paths.
Spec parse_spec(const nlohmann::json& j, const std::filesystem::path& file);

/// Parameters from the spec's "parameters" array (values or inclusive integer range).
std::vector<Parameter> parse_parameters(const nlohmann::json& j, const std::filesystem::path& file);

}  // namespace adaexplore
