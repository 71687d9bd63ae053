// What a spec says of the kernel beyond its template and benchmark: how it is launched, the
// arguments of a benchmark the tuner writes itself, where the reference comes from, the
// verification's tolerance, and the form of the winner for the preprocessor. Parsed by
// parse_spec (spec.cpp) into Spec; the spec's format is documented here, the rest in spec.hpp.
//
//   "kernel_source": "matmul.cu",   // instead of "template": a kernel configured by preprocessor
//                                   // macros, compiled per configuration with `#define NAME VALUE`
//                                   // for every parameter before it (render.hpp template_text)
//   "kernel": "matmul_kernel",      // the kernel's name: Benchmark::kernel() without an argument,
//                                   // and the kernel a generated benchmark launches
//   "launch": {"block": ["BX", "BY"],                  // blockDim x[, y[, z]]: expressions over
//              "grid": ["ceil(W / BX)", "ceil(H / BY)"], // the parameters and the size names
//              ...},                                     // (spec.hpp: threads_per_block, ...)
//   "arguments": [                  // instead of "benchmark": the tuner writes it (generated_benchmark.hpp)
//       {"name": "c", "kind": "output", "type": "float", "length": "N"},
//       {"name": "a", "kind": "input",  "type": "float", "length": "N"},
//       {"name": "n", "kind": "scalar", "type": "int",   "value": "N"},
//       {"name": "d_filter", "kind": "global", "type": "float", "length": "17 * 17"}],
//   "reference": "defaults" | {"config": {"BX": 16, ...}},  // outputs compared with this configuration's
//   "tolerance": {"rel": "1e-5", "abs": "4 * sqrt(K) * 2**-24"},  // expressions over the size names
//   "macro_prefix": "MATMUL_"       // the header's #define lines: <prefix><PARAM> <value>
//
// Argument kinds: input (random, read by the kernel), output (poisoned before the checked run,
// compared), inout (random, restored before every run, compared), scalar (a value passed by
// value), global (a __constant__ or __device__ variable of the kernel, set by name before the
// launches). "init" (input, inout, global): "random" (default: floating point uniform in [-1, 1),
// integers in [-100, 100]), "zero", "one", "sequence" (0, 1, 2, ...). "type": an arithmetic C++
// type (float, double, int, unsigned, long long, size_t, ...); a pointer argument's element type.
// "length" (buffers and globals) and "value" (scalars): expressions over the size names and the
// parameters (a number alone is one), evaluated by the tuner for each configuration and passed to
// the benchmark (Benchmark::value); a length must be a whole number >= 1 (0 for none).
//
// Launch expressions (block, grid, and threads_per_block / dynamic_shared_bytes of spec.hpp) read
// the parameters and the size names (expr.hpp; ceil, min, ...): "ceil(N / (BLOCK * ITEMS))". The
// tuner evaluates them per configuration at the size being tuned and passes the results
// (Benchmark::launch uses them); each must give a whole number >= 1. With "block" and without
// "threads_per_block", the threads per block are the product of the block's expressions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/expr.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// One argument of a generated benchmark (the spec's "arguments").
struct ArgumentSpec {
  std::string name;           // a C++ identifier; a global's symbol name (may be qualified: ns::d_filter)
  std::string kind;           // "input", "output", "inout", "scalar", "global"
  std::string type;           // the element (or scalar) type, one of argument_types()
  std::optional<Expr> length; // buffers and globals: elements
  std::optional<Expr> value;  // scalars
  std::string init = "random";  // "random", "zero", "one", "sequence"
  bool buffer() const { return kind == "input" || kind == "output" || kind == "inout"; }
};

/// The arithmetic types an argument may have, as a generated benchmark spells them.
const std::vector<std::string>& argument_types();

/// The spec's "reference": the configuration whose outputs every other one's are compared with.
struct ReferenceSpec {
  bool given = false;
  Config config;       // the defaults, or "config"
  std::string source;  // "the defaults" or "the configuration given in reference.config"
};

/// The spec's "tolerance": |got - expected| <= abs + rel * |expected| (harness Tolerance).
struct ToleranceSpec {
  std::optional<Expr> rel, abs;  // over the size names; unset: the harness's default
};

/// Expressions of the launch, the arguments and the tolerance read the parameters and then the
/// size names: variable i < space.dimension() is parameter i, else size name i - dimension.
std::vector<std::string> launch_variable_names(const Space& space, const std::vector<std::string>& size_names);

/// The value of such a variable for `config` at the size `size_values` (one per size name);
/// NaN for a size name without a size.
ExprValue launch_variable(const Space& space, const Config& config, const std::vector<long long>* size_values,
                          std::size_t i);

/// Evaluates `e` for `config` at `size_values` (null: no size); nothing unless it is a whole number
/// >= `minimum` and at most 2^53.
std::optional<long long> whole_value(const Expr& e, const Space& space, const Config& config,
                                     const std::vector<long long>* size_values, double minimum);

}  // namespace adaexplore
