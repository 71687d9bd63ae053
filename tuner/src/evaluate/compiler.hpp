// The compile seam under the program backends (program_backend.hpp): a Compiler turns a
// configuration rendered in its work folder into the artifact measure() runs or loads, with the
// compiler's verdict (none, compile_error, timeout, or what the backend's review decides) and the
// kernels' resources. ProgramBackend::prepare() renders, checks statically, then asks the one
// Compiler that compiler.unit chose (kernel_unit.hpp choose_compile_unit):
//   program_compiler.cpp      the whole benchmark with the rendered template ("program")
//   kernel_unit_compiler.cpp  the rendered template's device code alone, to a cubin, through the
//                             compile cache ("kernel")
// What differs between backends (cuda, host) reaches a compiler through Toolchain, which
// ProgramBackend implements: its options and its reading of the compiler's output (cuda: the
// ptxas report, resource limits). A compiler does not know which backend it compiles for.
//
// Adding a compiler (e.g. NVRTC, in-process, for the kernel unit): a file nvrtc_compiler.cpp
// with a class deriving from Compiler and its factory declared below, say
// make_nvrtc_compiler(const CompileSetup&). Its compile() writes the artifact to
// prepared.directory / artifact(), compile.cmd (what it did) and compile.out/.err (the
// compiler's log), and decides with compile_verdict() on a ProcessResult holding that log (the
// review reads the ptxas report from it); CompileSetup's cache and identity key a compile cache
// as kernel_unit_compiler.cpp does. ProgramBackend's constructor picks it where it picks these
// two (for a new value of compiler.unit: spec.cpp and choose_compile_unit); the rest of the
// backend (render, static check, runner, measure) is unchanged. The benchmark that loads the
// kernel unit's artifact is built by ProgramBackend (build_benchmark), whichever compiler makes
// the artifact.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/backend.hpp"
#include "evaluate/kernel_unit.hpp"
#include "model/spec.hpp"
#include "util/process.hpp"

namespace adaexplore {

/// What a compiler asks of the backend it compiles for. ProgramBackend implements it with its
/// subclasses' options (cuda_backend.cpp, host_backend.cpp). Called from the compiling threads
/// (prepare()), while the backend lives; must be thread-safe.
class Toolchain {
 public:
  /// Options before the shared ones: language standard, optimisation, architecture, reports.
  virtual std::vector<std::string> toolchain_flags() const = 0;
  /// The kernel unit's compile options before the shared ones (cuda: -cubin for the target
  /// architecture, the ptxas report).
  virtual std::vector<std::string> kernel_unit_flags() const = 0;
  /// Options that build the benchmark as a runner module (a shared library exporting
  /// adaexplore_module_entry, -DADAEXPLORE_MODULE=1) instead of an executable.
  virtual std::vector<std::string> module_flags() const = 0;
  /// Looks at a compile that ran to its end (success or failure) before the generic verdict;
  /// may fill prepared.resources and return the outcome that decides (e.g. resource_limit).
  virtual std::optional<Outcome> review_compile(const ProcessResult& compile,
                                                Prepared& prepared) const = 0;

 protected:
  ~Toolchain() = default;
};

/// What every compiler of a backend is made with; fixed for the backend's life.
struct CompileSetup {
  const Spec& spec;               // compiler section, template, benchmark, space
  const Toolchain& toolchain;     // the backend's options and review
  std::filesystem::path harness;  // the folder holding adaexplore/harness*.h* (harness_dir)
  std::string rendered_name;      // the rendered template's file name, "gemm.cuh"
  bool module = false;  // the benchmark runs in the runner: built as a module (module_flags)
  /// What the compiler's output depends on beside the command and the sources (its path and
  /// --version, ...): first in every compile cache key.
  std::string identity;
  const CompileCache* cache = nullptr;  // the kernel unit's compile cache; null without one
};

/// One way to compile a configuration. Thread-safe: prepare() calls compile() from several
/// threads at once, each with a configuration of its own work folder.
class Compiler {
 public:
  virtual ~Compiler() = default;
  /// The artifact's file name in a configuration's work folder: what measure() runs or loads.
  virtual std::string artifact() const = 0;
  /// Compiles the configuration rendered in prepared.directory into prepared.executable
  /// (directory / artifact()). Sets prepared.failure (none: compiled), and resources,
  /// ptxas_warnings (by the review), stage_ms "compile" (and "link"), compile_cached; writes
  /// compile.cmd (the commands run, one a line) and compile.out/.err (their output). Throws
  /// only for what breaks every configuration (a work folder that cannot be written).
  virtual void compile(Prepared& prepared) = 0;
};

/// The harness built apart, as ProgramBackend offers it to the whole-program compile
/// (program_backend.hpp harness_object()).
struct SeparateHarness {
  /// The object to link into a compile now; empty: the harness header-only.
  std::function<std::filesystem::path()> object;
  /// The benchmark compiles with the harness header-only but not against the object: object()
  /// is empty from now on. True the first time it is said.
  std::function<bool()> refuse;
};

/// The whole benchmark with the rendered template (compiler.unit "program"), linked with
/// `harness`'s object when there is one (program_compiler.cpp).
std::unique_ptr<Compiler> make_program_compiler(const CompileSetup& setup, SeparateHarness harness);
/// The rendered template's device code alone to a cubin, or a copy of an identical compile's
/// from setup.cache (compiler.unit "kernel", kernel_unit.hpp; kernel_unit_compiler.cpp).
std::unique_ptr<Compiler> make_kernel_unit_compiler(const CompileSetup& setup);

// For the implementations (and ProgramBackend's other compiles).

/// -I<eval dir> -I<template dir> -I<benchmark dir> -I<harness dir> -I<spec include dirs>, each
/// once.
std::vector<std::string> include_flags(const Spec& spec, const std::filesystem::path& eval_dir,
                                       const std::filesystem::path& harness);
/// The spec's definitions (-D added where missing), then each parameter of `config` as
/// -DADAEXPLORE_PARAM_<NAME>=<value> (for CUB-style code that prefers macros to placeholders).
std::vector<std::string> definition_flags(const Spec& spec, const Config& config);
/// A process whose output goes to <directory>/<stem>.out and .err, run in `directory`, killed
/// after `timeout_s` (0: never).
ProcessOptions logged_options(const std::filesystem::path& directory, const std::string& stem,
                              double timeout_s);
/// The verdict on a compile: a time-out (over compiler.timeout_s) is timeout
/// (extra.timeout_stage "compile"), a compiler that did not start compile_error; else the
/// toolchain's review decides when it has an outcome, else a rejection is compile_error with the
/// compiler's first error line; none for a compile that succeeded and passed the review.
std::optional<Outcome> compile_verdict(const ProcessResult& compile, Prepared& prepared,
                                       const CompileSetup& setup);

}  // namespace adaexplore
