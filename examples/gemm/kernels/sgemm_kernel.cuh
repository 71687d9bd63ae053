// C = alpha * A * B + beta * C in float, row-major: the kernel AdaExplore tunes and the library
// ships. One header, templated on its tuning parameters (CUB style): the tuning template
// (gemm.cuh.in) instantiates tiled_sgemm::Policy with one configuration per evaluation, the library
// (src/gemm.cu) with the constants of the generated <adaexplore/gemm.hpp>.
//
// The classic shared-memory SGEMM with register tiling:
//   - a block computes a BLOCK_M x BLOCK_N tile of C with (BLOCK_M / THREAD_M) * (BLOCK_N /
//     THREAD_N) threads, each accumulating THREAD_M x THREAD_N outputs in registers;
//   - K is walked in steps of BLOCK_K: the block copies a BLOCK_M x BLOCK_K tile of A (stored
//     transposed, As[k][m], with PAD floats of padding per row against bank conflicts on that
//     transposed store) and a BLOCK_K x BLOCK_N tile of B (Bs[k][n]) to shared memory, then every
//     thread does BLOCK_K rank-1 updates of its outputs from registers;
//   - VECTOR_LOADS 1 copies both tiles with float4 global loads (0: float loads);
//   - STAGES 2 double-buffers the tiles: the global loads of step k+1 are issued before the
//     arithmetic of step k and land in the other buffer, one barrier per step (1: single buffer,
//     two barriers per step).
// A thread's outputs are strided (rows ty + i * BLOCK_M / THREAD_M, columns tx + j * BLOCK_N /
// THREAD_N), so the shared-memory reads of a warp are broadcasts or consecutive words (no bank
// conflicts) and its stores to C are coalesced runs.
//
// Resources, as the compiler and the device see them (nothing here checks them):
//   threads per block = (BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N); above 1024 the launch fails;
//   static shared memory = 4 * STAGES * BLOCK_K * (BLOCK_M + PAD + BLOCK_N) bytes; above 48 KiB
//   ptxas rejects the kernel ("uses too much shared data").
// The static_asserts below reject only what the code cannot express (a tile that is not a whole
// number of thread tiles, float4 copies of a tile that is not a multiple of 4 wide).
//
// Edges: any M, N, K >= 0 (tiles are zero-filled past the edges, stores are guarded). float4
// copies need K, N, lda, ldb multiples of 4 and A, B aligned to 16 bytes: launch() requires it,
// dispatch() checks it and falls back to float copies. beta == 0 does not read C (BLAS rule).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tiled_sgemm {

/// One configuration of the tuning parameters.
template <int BLOCK_M, int BLOCK_N, int BLOCK_K, int THREAD_M, int THREAD_N, int VECTOR_LOADS,
          int PAD, int STAGES>
struct Policy {
  static_assert(BLOCK_M > 0 && BLOCK_N > 0 && BLOCK_K > 0 && THREAD_M > 0 && THREAD_N > 0,
                "tile sizes must be positive");
  static_assert(BLOCK_M % THREAD_M == 0, "BLOCK_M must be a multiple of THREAD_M");
  static_assert(BLOCK_N % THREAD_N == 0, "BLOCK_N must be a multiple of THREAD_N");
  static_assert(VECTOR_LOADS == 0 || VECTOR_LOADS == 1,
                "VECTOR_LOADS must be 0 (float) or 1 (float4)");
  static_assert(
      !VECTOR_LOADS || (BLOCK_K % 4 == 0 && BLOCK_N % 4 == 0),
      "float4 tile copies (VECTOR_LOADS=1) need BLOCK_K and BLOCK_N to be multiples of 4");
  static_assert(PAD >= 0, "PAD must not be negative");
  static_assert(STAGES == 1 || STAGES == 2,
                "STAGES must be 1 (single buffer) or 2 (double buffer)");

  static constexpr int kBlockM = BLOCK_M, kBlockN = BLOCK_N, kBlockK = BLOCK_K;
  static constexpr int kThreadM = THREAD_M, kThreadN = THREAD_N;
  static constexpr bool kVectorLoads = VECTOR_LOADS != 0;
  static constexpr int kPad = PAD, kStages = STAGES;

  static constexpr int kThreadsM = BLOCK_M / THREAD_M;  // threads along M
  static constexpr int kThreadsN = BLOCK_N / THREAD_N;  // threads along N (fastest in threadIdx.x)
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr int kVec = VECTOR_LOADS ? 4 : 1;  // floats per global load
  static constexpr std::size_t kSharedBytes =
      sizeof(float) * STAGES * BLOCK_K * (BLOCK_M + PAD + BLOCK_N);

  /// The same configuration with float copies (dispatch's fallback).
  using Scalar = Policy<BLOCK_M, BLOCK_N, BLOCK_K, THREAD_M, THREAD_N, 0, PAD, STAGES>;
};

namespace detail {

template <class P>
struct SharedTiles {
  float a[P::kStages][P::kBlockK][P::kBlockM + P::kPad];    // A tile, transposed: a[k][m]
  alignas(16) float b[P::kStages][P::kBlockK][P::kBlockN];  // B tile: b[k][n] (float4 stores)
};

__device__ __forceinline__ float component(float v, int) { return v; }
__device__ __forceinline__ float component(const float4& v, int q) {
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

/// One BLOCK_K step's tiles in flight through registers: global -> registers -> shared memory.
/// Chunk c of a tile (kVec consecutive floats along its rows) is handled by thread c % kThreads.
template <class P>
struct TileCopy {
  using Chunk = std::conditional_t<P::kVectorLoads, float4, float>;
  static constexpr int kChunksA =
      P::kBlockM * P::kBlockK / P::kVec;  // A tile rows are BLOCK_K long
  static constexpr int kChunksB =
      P::kBlockK * P::kBlockN / P::kVec;  // B tile rows are BLOCK_N long
  static constexpr int kRowChunksA = P::kBlockK / P::kVec;
  static constexpr int kRowChunksB = P::kBlockN / P::kVec;
  static constexpr int kPerThreadA = (kChunksA + P::kThreads - 1) / P::kThreads;
  static constexpr int kPerThreadB = (kChunksB + P::kThreads - 1) / P::kThreads;

  Chunk a[kPerThreadA];
  Chunk b[kPerThreadB];

  static __device__ __forceinline__ bool owns(int chunk, int chunks) {
    return chunks % P::kThreads == 0 || chunk < chunks;
  }
  static __device__ __forceinline__ Chunk zero() {
    if constexpr (P::kVectorLoads)
      return make_float4(0.f, 0.f, 0.f, 0.f);
    else
      return 0.f;
  }

  /// Reads the tiles at (row0, k0) of A and (k0, col0) of B; zeros past the matrix edges.
  __device__ __forceinline__ void load(const float* __restrict__ A, int lda,
                                       const float* __restrict__ B, int ldb, int M, int N, int K,
                                       int row0, int col0, int k0) {
#pragma unroll
    for (int i = 0; i < kPerThreadA; ++i) {
      const int c = threadIdx.x + i * P::kThreads;
      const int m = c / kRowChunksA, k = (c % kRowChunksA) * P::kVec;
      a[i] = zero();
      if (owns(c, kChunksA) && row0 + m < M && k0 + k < K)
        a[i] = *reinterpret_cast<const Chunk*>(A + static_cast<std::size_t>(row0 + m) * lda +
                                               (k0 + k));
    }
#pragma unroll
    for (int i = 0; i < kPerThreadB; ++i) {
      const int c = threadIdx.x + i * P::kThreads;
      const int k = c / kRowChunksB, n = (c % kRowChunksB) * P::kVec;
      b[i] = zero();
      if (owns(c, kChunksB) && k0 + k < K && col0 + n < N)
        b[i] = *reinterpret_cast<const Chunk*>(B + static_cast<std::size_t>(k0 + k) * ldb +
                                               (col0 + n));
    }
  }

  /// Writes the tiles to shared-memory buffer `stage`.
  __device__ __forceinline__ void store(SharedTiles<P>& s, int stage) const {
#pragma unroll
    for (int i = 0; i < kPerThreadA; ++i) {
      const int c = threadIdx.x + i * P::kThreads;
      if (!owns(c, kChunksA)) continue;
      const int m = c / kRowChunksA, k = (c % kRowChunksA) * P::kVec;
#pragma unroll
      for (int q = 0; q < P::kVec; ++q) s.a[stage][k + q][m] = component(a[i], q);
    }
#pragma unroll
    for (int i = 0; i < kPerThreadB; ++i) {
      const int c = threadIdx.x + i * P::kThreads;
      if (!owns(c, kChunksB)) continue;
      const int k = c / kRowChunksB, n = (c % kRowChunksB) * P::kVec;
      *reinterpret_cast<Chunk*>(&s.b[stage][k][n]) = b[i];
    }
  }
};

/// BLOCK_K rank-1 updates of the thread's THREAD_M x THREAD_N accumulators from buffer `stage`.
template <class P>
__device__ __forceinline__ void multiply_tiles(const SharedTiles<P>& s, int stage, int ty, int tx,
                                               float (&acc)[P::kThreadM][P::kThreadN]) {
#pragma unroll
  for (int k = 0; k < P::kBlockK; ++k) {
    float a[P::kThreadM], b[P::kThreadN];
#pragma unroll
    for (int i = 0; i < P::kThreadM; ++i) a[i] = s.a[stage][k][ty + i * P::kThreadsM];
#pragma unroll
    for (int j = 0; j < P::kThreadN; ++j) b[j] = s.b[stage][k][tx + j * P::kThreadsN];
#pragma unroll
    for (int i = 0; i < P::kThreadM; ++i)
#pragma unroll
      for (int j = 0; j < P::kThreadN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

}  // namespace detail

template <class P>
__global__ void __launch_bounds__(P::kThreads)
    sgemm_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
                 const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
  __shared__ __align__(16) detail::SharedTiles<P> tiles;
  const int tx = threadIdx.x % P::kThreadsN, ty = threadIdx.x / P::kThreadsN;
  const int row0 = blockIdx.y * P::kBlockM, col0 = blockIdx.x * P::kBlockN;

  float acc[P::kThreadM][P::kThreadN];
#pragma unroll
  for (int i = 0; i < P::kThreadM; ++i)
#pragma unroll
    for (int j = 0; j < P::kThreadN; ++j) acc[i][j] = 0.f;

  detail::TileCopy<P> copy;
  const int steps = (K + P::kBlockK - 1) / P::kBlockK;
  if (steps > 0) {
    copy.load(A, lda, B, ldb, M, N, K, row0, col0, 0);
    copy.store(tiles, 0);
    __syncthreads();
  }
  for (int step = 0; step < steps; ++step) {
    const bool more = step + 1 < steps;
    const int k_next = (step + 1) * P::kBlockK;
    if constexpr (P::kStages == 2) {
      // Next tiles in flight while this step computes; the buffer they go to was last read in the
      // previous step, before its barrier.
      const int stage = step & 1;
      if (more) copy.load(A, lda, B, ldb, M, N, K, row0, col0, k_next);
      detail::multiply_tiles<P>(tiles, stage, ty, tx, acc);
      if (more) copy.store(tiles, stage ^ 1);
      __syncthreads();
    } else {
      detail::multiply_tiles<P>(tiles, 0, ty, tx, acc);
      if (more) {
        copy.load(A, lda, B, ldb, M, N, K, row0, col0, k_next);
        __syncthreads();  // everyone is done reading the buffer
        copy.store(tiles, 0);
        __syncthreads();
      }
    }
  }

#pragma unroll
  for (int i = 0; i < P::kThreadM; ++i) {
    const int row = row0 + ty + i * P::kThreadsM;
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < P::kThreadN; ++j) {
      const int col = col0 + tx + j * P::kThreadsN;
      if (col >= N) continue;
      float* c = C + static_cast<std::size_t>(row) * ldc + col;
      const float v = alpha * acc[i][j];
      *c = beta == 0.f ? v : fmaf(beta, *c, v);
    }
  }
}

/// Enqueues C = alpha * A * B + beta * C (row-major; A is M x K, B is K x N, C is M x N, leading
/// dimensions lda, ldb, ldc) with exactly the configuration P. With P::kVectorLoads, K, N, lda
/// and ldb must be multiples of 4 and A, B 16-byte aligned (see dispatch()). Errors are left for
/// cudaGetLastError(), as with <<< >>>.
template <class P>
void launch(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc, cudaStream_t stream) {
  if (M <= 0 || N <= 0) return;
  const dim3 grid((N + P::kBlockN - 1) / P::kBlockN, (M + P::kBlockM - 1) / P::kBlockM);
  sgemm_kernel<P><<<grid, P::kThreads, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/// True when float4 tile copies are valid for these operands.
inline bool vector_loads_ok(int N, int K, const float* A, int lda, const float* B, int ldb) {
  const auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return N % 4 == 0 && K % 4 == 0 && lda % 4 == 0 && ldb % 4 == 0 && aligned(A) && aligned(B);
}

/// As launch(), for any operands: where float4 copies are not valid, P's float-copy variant runs.
template <class P>
void dispatch(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc, cudaStream_t stream) {
  if constexpr (P::kVectorLoads) {
    if (!vector_loads_ok(N, K, A, lda, B, ldb))
      return launch<typename P::Scalar>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
  launch<P>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace tiled_sgemm
