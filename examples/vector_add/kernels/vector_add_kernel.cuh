// c = a + b over n floats: the kernel that AdaExplore tunes and the library ships.
//
// One header, templated on its tuning parameters (CUB style): the tuning template
// (vector_add.cuh.in) instantiates vecadd::Policy with one configuration per evaluation, the
// library (src/vector_add.cu) with the constants of the generated <adaexplore/vector_add.hpp>.
//
// Work decomposition. The input is viewed as n / VECTOR_WIDTH vectors (float, float2 or float4)
// and cut into tiles of BLOCK_SIZE * ITEMS_PER_THREAD vectors. A block adds one tile at a time:
// thread t handles vectors t, t + BLOCK_SIZE, t + 2 * BLOCK_SIZE, ... of the tile (striped, so
// every load instruction of a warp is one contiguous, coalesced segment); it issues all loads of
// the tile before the first add, so ITEMS_PER_THREAD * 2 loads are in flight per thread. One block
// per tile: grid = ceil(n / (BLOCK_SIZE * ITEMS_PER_THREAD * VECTOR_WIDTH)), the launch shape the
// tuning call declares (BLOCK_DIM, GRID_DIM). The elements after the last full tile (fewer than one
// tile, including n % VECTOR_WIDTH) are added with scalar loads by the last block.
//
// Requirements: a, b and c aligned to VECTOR_WIDTH * 4 bytes for launch() (cudaMalloc gives 256);
// dispatch() checks the pointers and falls back to scalar loads when they are not.
//
// Nothing here stages failures: a BLOCK_SIZE above the device's 1024 threads per block fails at
// launch (an invalid-configuration error), as it would in any program. The static_asserts below
// reject only values the code cannot express (a vector width with no CUDA vector type).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace vecadd {

template <int WIDTH>
struct VectorOf;
template <>
struct VectorOf<1> {
  using type = float;
};
template <>
struct VectorOf<2> {
  using type = float2;
};
template <>
struct VectorOf<4> {
  using type = float4;
};

/// One configuration of the tuning parameters.
template <int BLOCK_SIZE, int ITEMS_PER_THREAD, int VECTOR_WIDTH>
struct Policy {
  static_assert(BLOCK_SIZE > 0, "BLOCK_SIZE must be positive");
  static_assert(ITEMS_PER_THREAD > 0, "ITEMS_PER_THREAD must be positive");
  static_assert(VECTOR_WIDTH == 1 || VECTOR_WIDTH == 2 || VECTOR_WIDTH == 4,
                "VECTOR_WIDTH must be 1, 2 or 4 (float, float2, float4 loads)");

  static constexpr int kBlockSize = BLOCK_SIZE;
  static constexpr int kItems = ITEMS_PER_THREAD;
  static constexpr int kVectorWidth = VECTOR_WIDTH;
  using Vector = typename VectorOf<VECTOR_WIDTH>::type;
  /// Vectors per tile, and floats per tile.
  static constexpr std::size_t kTileVectors = std::size_t(BLOCK_SIZE) * ITEMS_PER_THREAD;
  static constexpr std::size_t kTileElements = kTileVectors * VECTOR_WIDTH;
  /// The same configuration with scalar loads (dispatch's fallback for unaligned pointers).
  using Scalar = Policy<BLOCK_SIZE, ITEMS_PER_THREAD, 1>;
};

namespace detail {

__device__ __forceinline__ float add(float x, float y) { return x + y; }
__device__ __forceinline__ float2 add(float2 x, float2 y) {
  return make_float2(x.x + y.x, x.y + y.y);
}
__device__ __forceinline__ float4 add(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// Adds the full tile `tile`: all loads first, then the adds and stores.
template <class P, class V>
__device__ __forceinline__ void add_tile(const V* __restrict__ a, const V* __restrict__ b,
                                         V* __restrict__ c, std::size_t tile) {
  const std::size_t base = tile * P::kTileVectors + threadIdx.x;
  V x[P::kItems], y[P::kItems];
#pragma unroll
  for (int i = 0; i < P::kItems; ++i) x[i] = a[base + std::size_t(i) * P::kBlockSize];
#pragma unroll
  for (int i = 0; i < P::kItems; ++i) y[i] = b[base + std::size_t(i) * P::kBlockSize];
#pragma unroll
  for (int i = 0; i < P::kItems; ++i) c[base + std::size_t(i) * P::kBlockSize] = add(x[i], y[i]);
}

}  // namespace detail

template <class P>
__global__ void __launch_bounds__(P::kBlockSize)
    vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, std::size_t n) {
  using V = typename P::Vector;
  const V* av = reinterpret_cast<const V*>(a);
  const V* bv = reinterpret_cast<const V*>(b);
  V* cv = reinterpret_cast<V*>(c);
  const std::size_t full_tiles = n / P::kTileElements;
  if (blockIdx.x < full_tiles) detail::add_tile<P>(av, bv, cv, blockIdx.x);
  // The rest (fewer than kTileElements floats), element by element, by the last block.
  if (blockIdx.x == full_tiles) {
    for (std::size_t i = full_tiles * P::kTileElements + threadIdx.x; i < n; i += P::kBlockSize)
      c[i] = a[i] + b[i];
  }
}

/// Enqueues c = a + b with exactly the configuration P. Pointers must be aligned to
/// P::kVectorWidth * 4 bytes. Errors are left for cudaGetLastError(), as with <<< >>>.
template <class P>
void launch(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t tiles =
      (n + P::kTileElements - 1) / P::kTileElements;  // the last may be partial
  vector_add_kernel<P><<<static_cast<unsigned>(tiles), P::kBlockSize, 0, stream>>>(a, b, c, n);
}

/// As launch(), for any pointers: unaligned ones use the scalar-load variant of P.
template <class P>
void dispatch(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  constexpr std::uintptr_t kAlign = sizeof(typename P::Vector);
  const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(a) |
                              reinterpret_cast<std::uintptr_t>(b) |
                              reinterpret_cast<std::uintptr_t>(c);
  if constexpr (P::kVectorWidth > 1) {
    if (bits % kAlign != 0) return launch<typename P::Scalar>(a, b, c, n, stream);
  }
  launch<P>(a, b, c, n, stream);
}

}  // namespace vecadd
