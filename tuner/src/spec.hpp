// The tuning spec: what `adaexplore_tune_kernel()` writes and `adaexplore-tuner tune` reads.
//
// JSON object (paths are absolute or relative to the spec file's folder):
// {
//   "name": "gemm",                          // identifier; header <name>.hpp, namespace default adaexplore::<name>
//   "namespace": "adaexplore::gemm",         // optional
//   "backend": "cuda" | "host",
//   "template": "gemm.cuh.in",               // kernel source with ${NAME} placeholders
//   "benchmark": "gemm_bench.cu",            // harness program (templates/adaexplore/harness*.h*)
//   "parameters": [ {"name": "TILE", "values": [16, 32, 64]},
//                   {"name": "UNROLL", "range": {"from": 1, "to": 8, "step": 1}} ],   // inclusive
//   "constraints": ["TILE * TILE <= 1024"],  // product or Kernel Tuner (Python) syntax, see expr.hpp
//   "defaults": {"TILE": 32, "UNROLL": 4},   // the baseline; default: first valid configuration
//   "budget": {"evaluations": 100, "seconds": 0},   // seconds 0: no time limit
//   "strategy": "adaexplore", "strategy_options": {}, "seed": 1,   // strategy default adaexplore
//   "compiler": {"path": "nvcc", "flags": ["-O3"], "arch": "sm_90", "include_dirs": [], "definitions": [],
//                "timeout_s": 120},
//   "run": {"timeout_s": 30, "args": []},
//   "work_dir": "build/adaexplore/gemm",      // evaluations' files; default <spec folder>/<name>.work
//   "jobs": 0                                 // parallel compiles; 0 = number of cores
// }
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "space.hpp"

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
  double timeout_s = 120;
};

struct Spec {
  std::filesystem::path file;  // where the spec was read from (messages, relative paths)
  std::string name;
  std::string name_space;
  std::string backend;
  std::filesystem::path template_path;
  std::filesystem::path benchmark_path;
  Space space;
  Config defaults;
  bool defaults_given = false;
  std::size_t budget_evaluations = 100;
  double budget_seconds = 0;
  std::string strategy = "adaexplore";
  nlohmann::json strategy_options = nlohmann::json::object();
  std::uint64_t seed = 1;
  CompilerSpec compiler;
  double run_timeout_s = 30;
  std::vector<std::string> run_args;
  std::filesystem::path work_dir;
  std::size_t jobs = 0;
  nlohmann::json raw;  // the spec as read, for hashing and the results file header
};

/// Reads and validates a spec file. Throws SpecError.
Spec load_spec(const std::filesystem::path& file);
/// Validates an already parsed spec; `file` is used in messages and to resolve relative paths.
Spec parse_spec(const nlohmann::json& j, const std::filesystem::path& file);

/// Parameters from the spec's "parameters" array (values or inclusive integer range).
std::vector<Parameter> parse_parameters(const nlohmann::json& j, const std::filesystem::path& file);

}  // namespace adaexplore
