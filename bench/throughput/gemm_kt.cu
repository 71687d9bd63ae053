// Kernel Tuner port of the gemm example (examples/gemm), for the side-by-side throughput benchmark
// (bench/throughput.py, issue 6). The kernel is examples/gemm/kernels/sgemm_kernel.cuh itself,
// included unchanged; this file only turns Kernel Tuner's macros into its template arguments.
//
// Kernel Tuner (1.5.0, backend "cupy", compiled by NVRTC) prepends one `#define NAME value` per
// tunable parameter (BLOCK_M, BLOCK_N, BLOCK_K, THREAD_M, THREAD_N, VECTOR_LOADS, PAD, STAGES and
// block_size_x, the thread count) and grid_size_x/y/z, kernel_tuner. The header's template
// parameters have the same names as the macros, so the values are copied into constants first and
// the macros undefined before the include. The kernel Kernel Tuner looks up (kernel_name, an NVRTC
// name expression) is tiled_sgemm::sgemm_kernel<KtPolicy>; its arguments are those of
// tiled_sgemm::launch(): (M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), grid (ceil(N / BLOCK_N),
// ceil(M / BLOCK_M)), block (block_size_x) with block_size_x = (BLOCK_M / THREAD_M) * (BLOCK_N /
// THREAD_N) (a restriction in throughput.py; checked again below).
//
// NVRTC needs (see throughput.py's KT_COMPILER_OPTIONS): -std=c++17; -default-device (the header's
// host-side launch()/dispatch() are not allowed in NVRTC's JIT mode otherwise; they are never
// instantiated here); -I examples/gemm (the header); -I bench/throughput/nvrtc_include (<cstddef>,
// <cstdint>, <type_traits> stand-ins over libcu++, NVRTC has no standard library); -I the CUDA
// toolkit's include and include/cccl (cuda_runtime.h, <cuda/std/...>).
//
// Checked without a GPU: `python3 bench/throughput.py check-kt-source` compiles this file with nvcc
// (-arch=sm_90 -c, the macros as -D flags) for a sample of configurations (every one with --all).

namespace kt_gemm {
constexpr int kBlockM = BLOCK_M, kBlockN = BLOCK_N, kBlockK = BLOCK_K;
constexpr int kThreadM = THREAD_M, kThreadN = THREAD_N;
constexpr int kVectorLoads = VECTOR_LOADS, kPad = PAD, kStages = STAGES;
constexpr int kBlockSizeX = block_size_x;
}  // namespace kt_gemm

#undef BLOCK_M
#undef BLOCK_N
#undef BLOCK_K
#undef THREAD_M
#undef THREAD_N
#undef VECTOR_LOADS
#undef PAD
#undef STAGES

#include "kernels/sgemm_kernel.cuh"

using KtPolicy = tiled_sgemm::Policy<kt_gemm::kBlockM, kt_gemm::kBlockN, kt_gemm::kBlockK, kt_gemm::kThreadM,
                                     kt_gemm::kThreadN, kt_gemm::kVectorLoads, kt_gemm::kPad, kt_gemm::kStages>;

static_assert(KtPolicy::kThreads == kt_gemm::kBlockSizeX,
              "block_size_x must be (BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N): the kernel's "
              "__launch_bounds__ and thread mapping assume exactly that many threads");

// The instantiation Kernel Tuner launches (also makes an nvcc -c build emit it, for the check).
template __global__ void tiled_sgemm::sgemm_kernel<KtPolicy>(int, int, int, float, const float* __restrict__, int,
                                                              const float* __restrict__, int, float,
                                                              float* __restrict__, int);
