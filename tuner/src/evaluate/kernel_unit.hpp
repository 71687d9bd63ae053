// The kernel unit (spec compiler.unit, spec.hpp): what is compiled per configuration when only
// the device code of the rendered template is, and the cache that serves a configuration
// compiled before.
//
// Per configuration, in its work folder (program_backend.hpp):
//   kernel.cu      #include "<rendered template>" (kernel_unit_source), compiled alone
//   kernel.cubin   the device code for compiler.arch (nvcc -cubin; the ptxas report on stderr)
//   kernel.d       the headers it included (nvcc -MD), for the cache
// The benchmark is compiled once per tuning, without the rendered template, and loads the cubin
// (templates/adaexplore/harness.cuh Benchmark::kernel).
//
// Why a cubin and not a small shared library with a host-side launch stub: measured on this
// project's gemm example (one configuration, CUDA 13.0, sm_90, one at a time on a 2-core build
// machine, 2026-12-01): nvcc -cubin 0.41 s; the same template with a host launch function built
// as a shared library (-shared -O0) 0.89 s; the whole benchmark with the harness 4.4 s.
// docs/throughput.md has the GPU machine's figures.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/spec.hpp"

namespace adaexplore {

/// What a tuning compiles per configuration, and why, in words for the log.
struct CompileUnit {
  bool kernel = false;  // true: the kernel unit; false: the whole benchmark (compiler.unit "program")
  /// A cubin per configuration: the kernel unit's artifact, or beside the whole program when its
  /// benchmark launches through Benchmark::kernel() (does not include the rendered template).
  bool cubin = false;
  std::string reason;
};

/// compiler.unit resolved: "kernel" and "program" as given ("kernel" on a backend without one is
/// std::runtime_error naming the spec and the key), "auto" by whether the benchmark #includes the
/// rendered template (`rendered_name`, e.g. "gemm.cuh"). Throws when the benchmark cannot be read.
/// `toolkit_problem` (kernel_unit_toolkit_problem): why the toolkit has no kernel unit; "auto" is
/// then the whole program, saying why, and "kernel" a std::runtime_error saying it.
CompileUnit choose_compile_unit(const Spec& spec, const std::string& rendered_name, bool backend_has_kernel_unit,
                                const std::string& toolkit_problem = "");

/// Why nvcc's `--version` output names a toolkit without the kernel unit's runtime API (CUDA 12.4:
/// cudaLibraryEnumerateKernels, cudaFuncGetName, cudaFuncGetParamInfo; harness.cuh), e.g. "nvcc
/// release 12.3 (the kernel unit needs CUDA 12.4 or newer)"; "" for 12.4 and newer, or when the
/// output names no release (another compiler: it is left to compile).
std::string kernel_unit_toolkit_problem(const std::string& version_output);

/// Whether `source` has an #include line naming `file` ("file", <file>, or a path ending in /file),
/// leaving out those compiled only without the kernel unit: in the first branch of `#ifndef
/// ADAEXPLORE_KERNEL_UNIT`, `#if !defined(ADAEXPLORE_KERNEL_UNIT)` or `#if !ADAEXPLORE_KERNEL_UNIT`
/// (up to its #else, #elif or #endif), and in the #else or #elif branches of `#ifdef
/// ADAEXPLORE_KERNEL_UNIT`, `#if defined(ADAEXPLORE_KERNEL_UNIT)` or `#if ADAEXPLORE_KERNEL_UNIT`
/// (a condition `&& more` counts the same), at any depth. The benchmark of the kernel unit is
/// compiled with -DADAEXPLORE_KERNEL_UNIT=1, so a benchmark written for both units includes the
/// rendered template under such a guard.
bool includes_file(const std::string& source, const std::string& file);

/// kernel.cu's text: the rendered template, included by name.
std::string kernel_unit_source(const std::string& rendered_name);

/// The dependencies of a make-style dependency file (nvcc/gcc -MD): every path after the first
/// ':' (escaped spaces unescaped, line continuations joined), in order.
std::vector<std::filesystem::path> parse_dependency_file(const std::string& text);

/// Compiled artifacts by content, shared by every tuning of the user (like ccache's direct
/// mode): an entry is found by a key (everything but the headers: the compiler's identity, the
/// command with the work folder's path replaced, the rendered template's text) and is valid only
/// while every header it recorded still has the content it had (SHA-1 over the bytes). Headers
/// under an ignored prefix (the toolkit's and the system's, covered by the compiler's identity) are
/// not recorded. Each entry is a folder <directory>/<40 hex digits>/ with the artifact, the
/// compiler's stdout and stderr (the ptxas report) and deps.json; folders may be deleted at any
/// time (a missing or damaged entry is a miss). Thread- and process-safe: an entry is written
/// under a temporary name and renamed.
class CompileCache {
 public:
  CompileCache(std::filesystem::path directory, std::vector<std::filesystem::path> ignored_prefixes);

  struct Hit {
    std::string out, err;  // what the compiler printed when the artifact was made
  };
  /// The entry of `key`, with its artifact copied to `artifact`; nothing when there is none or a
  /// recorded header changed.
  std::optional<Hit> find(const std::string& key, const std::filesystem::path& artifact) const;
  /// Keeps `artifact` under `key` with the headers of `dependency_file` (skipping `own_folder`'s
  /// files, which the key covers) and what the compiler printed. Failures are ignored (a cache).
  void store(const std::string& key, const std::filesystem::path& artifact, const std::filesystem::path& dependency_file,
             const std::filesystem::path& own_folder, const std::string& out, const std::string& err) const;
  const std::filesystem::path& directory() const { return directory_; }

  struct Header {
    std::filesystem::path path;  // canonical
    std::string hash;            // content_hash of its bytes
  };
  /// The headers of `dependency_file` that an entry records (store): canonical, in the file's
  /// order, those under an ignored prefix or in `own_folder` left out. Throws (util/files.hpp
  /// read_file) when the file or a header cannot be read.
  std::vector<Header> headers(const std::filesystem::path& dependency_file, const std::filesystem::path& own_folder) const;
  /// Their paths alone (the same filter, nothing read but `dependency_file`).
  std::vector<std::filesystem::path> listed(const std::filesystem::path& dependency_file,
                                            const std::filesystem::path& own_folder) const;

 private:
  std::filesystem::path entry(const std::string& key) const;
  bool ignored(const std::filesystem::path& p) const;

  std::filesystem::path directory_;
  std::vector<std::filesystem::path> ignored_;
};

}  // namespace adaexplore
