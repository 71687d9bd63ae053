// The statuses an evaluation ends in: the one table of them. The tuner makes its Status enum and
// their names from it (tuner/src/model/outcome.hpp), the harnesses report failures through the
// constants below (harness.cuh, harness_host.hpp: never a string literal), and a unit test
// (tests/unit/model/statuses_test.cpp) checks docs/outcomes.md and the report's page
// (tuner/report/report.js) against it. What produces each status: docs/outcomes.md.
// Header-only, C++17, no dependencies.
#pragma once

// ADAEXPLORE_STATUSES(X) calls X(name, from_benchmark) for each status, in the order the tuner
// lists them; from_benchmark is 1 for the statuses a benchmark's result record may carry
// (harness_common.hpp, "status"), 0 for those only the tuner gives (a compile, a time limit, a
// constraint, a comparison with the baseline).
//   ok              compiled, ran, verified; the objective is valid
//   slow            ok, but significantly slower than the baseline (a soft preference)
//   compile_error   the compiler (nvcc, ptxas, host compiler) rejected the configuration
//   resource_limit  exceeds the device's limits (shared memory, registers, threads, memory)
//   launch_error    the kernel launch returned an error (invalid configuration, resources)
//   crash           illegal address, sticky CUDA error, or the benchmark died of a signal
//   wrong_result    verification against the reference failed (tolerance, NaN/Inf, unwritten)
//   timeout         compile or run exceeded its time limit and was killed (extra.timeout_stage)
//   invalid         violates a constraint or is absent from a recorded space (replay)
#define ADAEXPLORE_STATUSES(X) \
  X(ok, 1)                     \
  X(slow, 0)                   \
  X(compile_error, 0)          \
  X(resource_limit, 1)         \
  X(launch_error, 1)           \
  X(crash, 1)                  \
  X(wrong_result, 1)           \
  X(timeout, 0)                \
  X(invalid, 0)

namespace adaexplore {
/// Each status's name as the results and the benchmark's record spell it: status::launch_error is
/// "launch_error".
namespace status {
#define ADAEXPLORE_STATUS_NAME(name, from_benchmark) inline constexpr const char name[] = #name;
ADAEXPLORE_STATUSES(ADAEXPLORE_STATUS_NAME)
#undef ADAEXPLORE_STATUS_NAME
}  // namespace status
}  // namespace adaexplore
