// The pipeline the cuda and host backends share: render the template, compile the benchmark with
// it, run the benchmark, read its result record. The benchmark runs either as a module (a shared
// library) in the long-lived runner (runner.hpp; spec run.runner, the default) or as an
// executable in its own process per evaluation.
//
// What is compiled per configuration (spec compiler.unit, kernel_unit.hpp), each by a Compiler of
// its own (compiler.hpp; prepare() renders, then asks the one chosen):
//  - the whole benchmark with the rendered template ("program"), or
//  - the kernel unit ("kernel", cuda): the rendered template's device code alone, to a cubin
//    (served from the compile cache, kernel_unit.hpp CompileCache, when compiled before), while
//    the benchmark is compiled once per tuning, in the background from the first prepare(), into
//    <work_dir>/benchmark/benchmark.so (or benchmark, an executable, without the runner); each
//    measurement runs it with --adaexplore-kernel <cubin> and --adaexplore-param NAME=VALUE for
//    every parameter, and the runner keeps the module loaded between configurations;
//  - both, for "program" with a cuda benchmark that does not include the rendered template (it
//    launches through Benchmark::kernel()): the whole program per configuration, given the cubin.
// Every run is told the configuration (run_arguments: parameters, declared launch shape, the
// values of the spec's arguments, the tolerance, the reference configuration's cubin and values).
//
// Each configuration has a work folder <work_dir>/evals/<16 hex digits of the label's hash>/
// (<work_dir> is the spec's work_dir, or <work_dir>/concurrent-<n> while another tuning of the
// same spec uses it: util/work_folder.hpp):
//   <template name without .in>   the rendered template; the benchmark #includes it by that name
//   kernel.cu, kernel.d           the kernel unit: its source (includes the rendered template)
//                                 and the headers it included
//   compile.cmd, compile.out/.err the compiler's command line and output
//   benchmark / benchmark.so      the executable or module; removed once measured
//   kernel.cubin                  the kernel unit's artifact instead; removed once measured
//   run.out/.err, result.json     the benchmark's output and result record
//   profile.*                     a run after the tuning under a profiler (run_wrapped, profile.hpp)
// The benchmark is compiled with -I<eval dir> -I<template dir> -I<benchmark dir> -I<harness dir>,
// the spec's include dirs, definitions and flags, and each parameter as
// -DADAEXPLORE_PARAM_<NAME>=<value> (for CUB-style code that prefers macros to placeholders).
// The harness dir holds adaexplore/harness*.h*: $ADAEXPLORE_HARNESS_DIR, else the compile-time
// ADAEXPLORE_HARNESS_DIR_DEFAULT (tuner/CMakeLists.txt), else a spec include dir that has it.
#pragma once

#include <atomic>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/backend.hpp"
#include "evaluate/compiler.hpp"
#include "evaluate/kernel_unit.hpp"
#include "util/process.hpp"
#include "util/work_folder.hpp"
#include "evaluate/runner.hpp"
#include "model/spec.hpp"

namespace adaexplore {

/// A benchmark run's time limit and how it was derived (spec.hpp: run.timeout_s is the cap,
/// run.timeout_factor and run.timeout_floor_s derive it from the defaults' run).
struct RunLimit {
  double seconds = 0;      // 0: no limit
  std::string derivation;  // "the floor run.timeout_floor_s 5 s, above run.timeout_factor 10 x ..."
};

/// The limit before the defaults ran: the cap run.timeout_s alone.
RunLimit cap_run_limit(double cap_s);
/// min(cap_s, max(floor_s, factor x baseline_run_s)), a cap of 0 meaning none; the cap alone when
/// factor is 0. Seconds throughout.
RunLimit derive_run_limit(double cap_s, double factor, double floor_s, double baseline_run_s);

/// The folder holding adaexplore/harness_common.hpp: $ADAEXPLORE_HARNESS_DIR, else the built-in
/// one, else the first of the spec's include dirs that has it. Throws std::runtime_error naming
/// where it looked and how to set it.
std::filesystem::path harness_dir(const Spec& spec);

// The backend's options and its review of a compile reach the compilers as a Toolchain
// (compiler.hpp): toolchain_flags(), kernel_unit_flags(), module_flags() and review_compile(),
// which the cuda and host backends implement.
class ProgramBackend : public Backend, protected Toolchain {
 public:
  /// Renders and compiles (the Compiler of compiler.unit, compiler.hpp); a compiler time-out is
  /// timeout (extra.timeout_stage "compile"), a rejection compile_error (or what
  /// review_compile() decides). A configuration check_statically() rejects is not compiled. Thread-safe: every configuration has its own folder.
  Prepared prepare(const Config& config) final;
  /// Runs the benchmark (spec run args, time limit), classifies the run (program_outcome.hpp),
  /// removes the executable. A timeout's message says the limit and its derivation (second line).
  Outcome measure(Prepared& prepared) final;
  /// measure() on worker `slot`: its own runner (or process) with slot_environment(slot).
  Outcome measure_on(Prepared& prepared, std::size_t slot) final;
  /// Derives the run time limit of later runs from the defaults' run wall time
  /// (baseline.stage_ms["run"]); see derive_run_limit. Called between measure() calls.
  void calibrate(const Outcome& baseline) final;
  /// The time limit measure() applies now.
  const RunLimit& run_limit() const { return run_limit_; }
  /// What run_wrapped() ran and how it ended.
  struct WrappedRun {
    /// The whole command, `prefix` first: how it ended (the wrapper's exit code, time-out) and
    /// what it printed. Runner mode: <eval dir>/profile.runner.out/.err (the runner's stdout: its
    /// replies); one process: profile.run.out/.err (the wrapper's and the benchmark's output
    /// together). The measurement's own run.out/.err and result.json are left as they were.
    ProcessResult process;
    /// The benchmark's outcome as measure() classifies it (its record, <eval dir>/profile.result.json); in
    /// the runner mode from the runner's reply, and without one (the wrapper failed, or ended the
    /// runner) from the way the whole command ended. stage_ms "run": the whole command's wall time.
    Outcome outcome;
  };
  /// One run of a configuration prepare() compiled (its artifact still in place) with `prefix`, a
  /// wrapper's argv (a profiler: profile.hpp), in front of the program that launches the kernels;
  /// for after a tuning, not between a search's measure() calls. Runner mode: a one-off runner,
  /// `prefix... <runner> runner [runner_arguments()]`, whose stdin is the one request
  /// (<eval dir>/profile.request.json), so that it serves that request and exits (the long-lived
  /// runners are not used); one process per evaluation: `prefix... <benchmark> <run arguments>`.
  /// The kernel unit: the benchmark built once, given this configuration's cubin, as measure().
  /// Worker 0's environment (slot_environment(0)). `timeout_s` (0: none) bounds the whole command,
  /// the wrapper's own work included (measure()'s run limit does not apply); a time-out kills its
  /// process group. Removes the artifact unless prepared.keep_artifact, as measure(). Throws
  /// SetupError when the kernel unit's benchmark did not build; never for what the wrapper or the
  /// benchmark do.
  WrappedRun run_wrapped(Prepared& prepared, const std::vector<std::string>& prefix, double timeout_s);
  /// The reference configuration's cubin (the spec's "reference"), compiled once, in
  /// <work_dir>/reference/; empty without a reference. Throws SetupError when it cannot be made
  /// (no cubin for this benchmark, or a compile that fails): no configuration can be verified.
  /// Thread-safe; measure() calls it, `check` too.
  const std::filesystem::path& reference_cubin();
  /// The search space of the spec the backend was made with.
  const Space& space() const { return spec_.space; }
  /// spec.jobs, else the CPUs this process may run on (util/cpus.hpp usable_cpus: its affinity
  /// mask, which mpirun --bind-to core narrows to one).
  std::size_t parallelism() const override;
  /// "runner: ..." or "process per evaluation: ..." with the reason when the runner is not used,
  /// then what is compiled per configuration and why (CompileUnit::reason).
  std::string evaluation_mode() const override { return mode_ + "; " + unit_.reason; }
  /// Whether configurations are compiled as the kernel unit (compiler.unit, kernel_unit.hpp).
  bool kernel_unit() const { return unit_.kernel; }
  /// The benchmark compiled once for the kernel unit, once its build (started by the first
  /// prepare(), or by this call) is done: the program, or empty with `error` set to the
  /// compiler's first error line and its log's path. Empty without the kernel unit. With the
  /// harness built apart (separate_harness()), the benchmark's own code is compiled to an object
  /// while the harness object builds (or was built by an earlier tuning), then both are linked;
  /// header-only when either fails. A benchmark without device code of its own (host_only_reason())
  /// is compiled as plain C++ first (harness_object_flags(): the host compiler alone, no cudafe++
  /// or cicc; measured on the gemm example, 2026-12-02: 1.6 s instead of 3.7 s) and linked with
  /// the harness's kernels built apart (harness_kernels.cu, by nvcc, cached like the harness
  /// object); when that compile or link fails, with nvcc, and compile.cmd says why. Kept in the compile cache (kernel_unit.hpp), so a later tuning
  /// of the same benchmark does not build it again.
  struct BenchmarkBuild {
    std::filesystem::path program;
    std::string error;
    double ms = 0;        // the build's wall time
    bool cached = false;  // served from the compile cache (an earlier tuning built the same)
  };
  const BenchmarkBuild& benchmark_build();
  /// The headers the rendered template (the defaults') and the benchmark include, from the
  /// compiler's dependency output (`-M -MF`, run without the launcher, with a configuration's
  /// flags, include folders and definitions, in <work_dir>/dependencies/), for the results' key;
  /// headers under the toolkit's folder, /usr/include, /usr/lib, /usr/local/include and the
  /// harness's folder are left out (the compiler's identity and the tuner cover them), and so are
  /// `outputs` (the tuned headers: files or folders). The scan is
  /// kept in the compile cache (kernel_unit.hpp CompileCache, by the command and the sources'
  /// text, valid while its headers are unchanged): a reconfigure with nothing changed runs no
  /// compiler. Writes the headers' paths, one per line, to <work_dir>/dependencies.txt (the CMake
  /// module adds them to CMAKE_CONFIGURE_DEPENDS). A scan the compiler rejects is
  /// [{"scan": "failed"}], with a warning naming its log.
  nlohmann::json included_headers(const std::vector<std::filesystem::path>& outputs = {}) override;
  ~ProgramBackend() override;
  /// The object of the harness built apart (separate_harness()) once its build, started in the
  /// background by the first prepare() (or by this call), is done; empty before that (`wait`
  /// false: the configurations prepared meanwhile build header-only), when the backend builds
  /// header-only, when the build failed (a warning on stderr names its log, <cache>/<hash>.err),
  /// when the object was deleted meanwhile, and when the benchmark compiles only header-only
  /// (the whole-program compile found out: program_compiler.cpp).
  std::filesystem::path harness_object(bool wait = false);
  /// Every compile with the harness header-only, the harness never built apart (`check`: one
  /// compile per architecture, nothing in the background to wait for). Before the first prepare().
  void use_header_only_harness() { header_only_harness_ = true; }
  /// Runner processes started so far (1 + restarts after crashes, time-outs, sticky errors); 0 in
  /// process-per-evaluation mode or before the first prepare().
  std::size_t runner_starts() const {
    std::size_t n = 0;
    for (const auto& r : runners_) n += r ? r->starts() : 0;
    return n;
  }

 protected:
  /// Throws std::runtime_error when the compiler or the harness cannot be found, or when
  /// compiler.unit asks for a kernel unit the backend does not have (`kernel_unit_capable`).
  ProgramBackend(const Spec& spec, bool kernel_unit_capable);

  const Spec& spec() const { return spec_; }
  /// The compiler's `--version` line containing `needle` (the first line when empty or absent).
  std::string compiler_version(const std::string& needle = "") const;

  /// Compiles with `compiler` instead of the one compiler.unit chose (a compiler of the
  /// subclass's own); in the subclass's constructor, before any prepare().
  void use_compiler(std::unique_ptr<Compiler> compiler) { compiler_ = std::move(compiler); }

  /// Adds what the backend knows of a configuration without running it to a measured outcome
  /// (cuda: the launch's threads per block as extra.figures.threads). Nothing by default.
  virtual void annotate(Outcome& outcome, const Prepared& prepared) const {
    (void)outcome;
    (void)prepared;
  }
  /// Toolchain::kernel_unit_flags(): only called when kernel_unit_capable; none by default.
  std::vector<std::string> kernel_unit_flags() const override { return {}; }
  /// The runner's extra arguments (cuda: --cudart <libcudart.so of the compiler's toolkit>).
  virtual std::vector<std::string> runner_arguments() const { return {}; }
  /// Variables set for the benchmark measured on worker `slot` (cuda: CUDA_VISIBLE_DEVICES = the
  /// slot's GPU, by UUID); also where its outcome says it was measured (extra.device).
  virtual std::map<std::string, std::string> slot_environment(std::size_t slot) const {
    (void)slot;
    return {};
  }
  virtual nlohmann::json slot_device(std::size_t slot) const {
    (void)slot;
    return nullptr;
  }
  /// The harness's non-template functions are compiled once, apart, and linked into every
  /// configuration's build (templates/adaexplore/harness_separate.cu; harness_common.hpp says
  /// why). cuda: yes; host: no (its harness compiles fast header-only).
  virtual bool separate_harness() const { return false; }
  /// Options for the harness built apart, before its source (cuda: -x c++: its non-template
  /// functions hold no device code, so nvcc hands them to the host compiler, no device passes);
  /// also those of the kernel unit's benchmark compiled as plain C++ (build_benchmark).
  virtual std::vector<std::string> harness_object_flags() const { return {}; }

 private:
  std::filesystem::path eval_directory(const Config& config) const;
  std::filesystem::path render(const Config& config, const std::filesystem::path& directory) const;
  // compiler.unit's compile of a rendered configuration: the cubin (the kernel unit), the whole
  // program, or both (the whole program for a benchmark that launches through Benchmark::kernel():
  // the cubin first, whose verdict and resources are the configuration's).
  void compile(Prepared& prepared);
  // launch_error when a declared launch dimension, dynamic shared size or argument length is not
  // a whole number (>= 1; >= 0 for bytes and lengths) for `config` at the size being tuned.
  std::optional<Outcome> declared_shape_failure(const Config& config) const;
  // What the benchmark is told of `config` (harness_common.hpp ConfigurationOptions), each option
  // --adaexplore-<prefix><name>: its cubin (when not empty), its parameters, the values of the
  // spec's arguments, the declared block, grid and dynamic shared bytes. A value that is not
  // whole (see declared_shape_failure) is said in `problem` (when given), the first one only.
  std::vector<std::string> configuration_arguments(const Config& config, const std::filesystem::path& cubin,
                                                   const std::string& prefix, std::string* problem) const;
  // A run's arguments: the result file and seed, the configuration's (`cubin` empty: none), the
  // kernel's name, the tolerance, the reference configuration's (`reference` empty: none), the
  // size, then run.args.
  std::vector<std::string> run_arguments(const std::filesystem::path& record, const Prepared& prepared,
                                         const std::filesystem::path& cubin, const std::filesystem::path& reference) const;
  // The spec's tolerance at the size `size` (null: none), as the harness reads it (%.17g); the
  // harness's Tolerance{} for a part not given.
  struct Tolerances {
    std::string rel, abs;
  };
  Tolerances tolerances(const std::vector<long long>* size) const;

  // What measure() and run_wrapped() run for `prepared`, its record at `record`: its benchmark, or
  // with the kernel unit the benchmark built once (waited for: waited_ms), and run_arguments().
  // Throws SetupError when that build failed, or the reference configuration's cubin.
  struct Invocation {
    std::filesystem::path program;
    std::vector<std::string> arguments;
    double waited_ms = 0;
  };
  Invocation invocation(const Prepared& prepared, const std::filesystem::path& record);
  // A run's outcome, as measure() and run_wrapped() classify it: the loader's error (load_error,
  // the runner's) as compile_error, else the benchmark's record at `record` within `limit_s`;
  // stage_ms "run" = run.wall_ms, annotate(); the artifact removed unless prepared.keep_artifact.
  Outcome run_outcome(Prepared& prepared, const ProcessResult& run, const std::filesystem::path& record,
                      double limit_s, const std::string& load_error);
  ProcessResult run_module(Prepared& prepared, const std::filesystem::path& record, Outcome& stages);
  // The harness built apart: the compile command of harness_separate.cu for this backend's flags
  // (without the output file) and its object, named by the content hash of the command and the
  // harness's sources in the user's cache folder (harness_cache_directory in the .cpp); both
  // empty when the harness folder has no harness_separate.cu.
  struct HarnessBuild {
    std::vector<std::string> command;
    std::filesystem::path object;
  };
  HarnessBuild plan_harness_object() const;
  HarnessBuild plan_harness_file(const std::string& file, const std::vector<std::string>& extra) const;
  // The harness's kernels for a benchmark compiled as plain C++ (harness_kernels.cu, compiled by
  // nvcc with the same flags, without harness_object_flags()): planned and cached the same way.
  HarnessBuild plan_harness_kernels_object() const;
  // Compiles it; the object, or empty when the compile failed (its log stays in the cache folder,
  // and a warning names it and `without_it`, what the tuning does instead).
  std::filesystem::path build_harness_object(HarnessBuild build, const std::string& without_it) const;

  void start_benchmark_build();
  // `cxx`: harness_object_flags(); `host_only_why`: empty to try the plain C++ compile first, else
  // why not (for compile.cmd). Both made in the caller's thread (no virtual call in the build's).
  BenchmarkBuild build_benchmark(std::vector<std::string> base_command, const std::vector<std::string>& module_flags,
                                 bool separate_harness, const std::vector<std::string>& cxx,
                                 const std::string& host_only_why);
  // Why the kernel unit's benchmark is not compiled as plain C++ (build_benchmark): its text names
  // device code (__global__, __device__, <<<, __CUDACC__, a symbol copy, ...); empty when it is
  // tried.
  std::string host_only_reason() const;
  // The first header in `dependency_file` (outside the toolkit's, the system's and the harness's
  // folders) whose text names device code, as "<file> has <mark>"; empty when none does.
  std::string header_with_device_code(const std::filesystem::path& dependency_file) const;
  // The folders whose headers are not the project's: the toolkit's and the system's
  // (system_header_folders) and the harness's. Neither the key nor the device-code scan reads them.
  std::vector<std::filesystem::path> foreign_header_folders() const;
  // The scan of included_headers(): `source`'s dependency file, the command made like a compile's.
  std::vector<std::string> scan_command(const std::filesystem::path& source, const std::filesystem::path& directory,
                                        bool benchmark) const;

  Spec spec_;
  // The folder this backend compiles and runs in: spec.work_dir, or <work_dir>/concurrent-<n>
  // while another tuning uses it (work_folder.hpp); held until the backend is destroyed.
  WorkFolder work_;
  CompileUnit unit_;
  std::unique_ptr<CompileCache> cache_;  // the kernel unit's compile cache; null without it
  std::unique_ptr<Compiler> compiler_;   // the whole program's; null for the kernel unit
  std::unique_ptr<Compiler> cubin_compiler_;  // the kernel unit's (unit_.cubin); after spec_ and cache_
  std::once_flag reference_built_;
  std::filesystem::path reference_;  // reference_cubin()
  std::string reference_error_;
  std::once_flag benchmark_started_;
  std::shared_future<BenchmarkBuild> benchmark_;  // build_benchmark(), in the background
  std::filesystem::path harness_;
  std::string template_text_;
  std::string version_output_;
  // What the compiler's output depends on beside the command and the sources, in every compile
  // cache key (the harness object, the kernel unit's cubins, its benchmark): the compiler's path
  // and --version, the cache's format, NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS / NVCC_CCBIN, and
  // (cuda) the host compiler's --version.
  std::string toolchain_identity_;
  RunLimit run_limit_;  // read and written only by the measuring thread (measure, calibrate)
  std::vector<std::string> runner_command_;  // empty: one process per evaluation
  std::string mode_;
  std::once_flag runner_started_;
  std::vector<std::unique_ptr<Runner>> runners_;  // one per measure slot, started by the first prepare()
  std::once_flag harness_started_;
  std::shared_future<std::filesystem::path> harness_object_;  // build_harness_object(), in the background
  std::shared_future<std::filesystem::path> harness_kernels_;  // the kernel unit's: harness_kernels.cu's object
  std::string own_device_code_;  // host_only_reason(), judged once with the harness objects' start
  bool header_only_harness_ = false;           // use_header_only_harness()
  std::atomic<bool> separate_refused_{false};  // the benchmark compiles header-only only (program_compiler.cpp)
};

}  // namespace adaexplore
