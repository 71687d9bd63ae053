// For tuning templates compiled as a kernel unit (compile.unit "kernel": each configuration's
// device code alone, to a cubin; the benchmark compiled once, harness.cuh Benchmark::kernel).
// Device code only; no host code needed. Include it from the template:
//
//   #include <adaexplore/kernel_unit.cuh>
//   using Policy = tiled_sgemm::Policy<${BLOCK_M}, ${BLOCK_N}, ...>;
//   ADAEXPLORE_EXPORT(threads, Policy::kThreads)      // the block size, for the benchmark's launch
//
// ADAEXPLORE_EXPORT(name, expression): a value the template knows at compile time (an integer:
// a Policy's block size, a tile's shared memory bytes) that the benchmark's host code, compiled
// once for every configuration, reads with bench.exported("name"). It is a one-thread kernel
// adaexplore_export_<name> that writes the value (the harness launches it once per
// configuration); the tuner leaves such kernels out of the ptxas figures and the harness out of
// kernel() lookups. In a benchmark compiled whole with the template (compile.unit "program") it
// is defined too, and unused. The kernel is extern "C" with external linkage (the harness finds
// it by that name): include the template in one translation unit only, and export each name once.
#pragma once

#define ADAEXPLORE_EXPORT(name, ...)                                          \
  extern "C" __global__ void adaexplore_export_##name(long long* adaexplore_out) { \
    *adaexplore_out = static_cast<long long>(__VA_ARGS__);                    \
  }
