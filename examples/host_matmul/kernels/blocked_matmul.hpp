// The host example's kernel: C = A * B for n x n row-major float matrices, blocked for the
// cache. One TILE_M x TILE_N block of C is accumulated in a local array while the k dimension is
// walked TILE_K at a time, UNROLL rows of B per step (a compile-time unrolled fold). Shared by the
// tuning template and the library, so what is tuned is what ships. Any n >= 0 works: edge blocks
// are clipped and the k remainder is done one row at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

namespace host_matmul {

template <int TileM, int TileN, int TileK, int Unroll>
struct Policy {
  static_assert(TileM > 0 && TileN > 0 && TileK > 0 && Unroll > 0,
                "tile sizes and UNROLL must be positive");
  // The unrolled k loop steps by Unroll within a TILE_K slab and has no remainder handling.
  static_assert(TileK % Unroll == 0, "UNROLL must divide TILE_K");
  static constexpr int tile_m = TileM, tile_n = TileN, tile_k = TileK, unroll = Unroll;
};

namespace detail {

// acc[0..cols) += a_ik * B[k][j0 .. j0+cols)
inline void axpy_row(float* acc, float a_ik, const float* b_row, int cols) {
  for (int j = 0; j < cols; ++j) acc[j] += a_ik * b_row[j];
}

// Unroll consecutive k steps: a points at A[i][k], b at B[k][j0].
template <std::size_t... U>
inline void unrolled_steps(float* acc, const float* a, const float* b, std::size_t n, int cols,
                           std::index_sequence<U...>) {
  (axpy_row(acc, a[U], b + U * n, cols), ...);
}

template <class P>
void block(const float* a, const float* b, float* c, std::size_t n, std::size_t i0,
           std::size_t j0) {
  float acc[P::tile_m][P::tile_n] = {};
  const int rows = static_cast<int>(std::min<std::size_t>(P::tile_m, n - i0));
  const int cols = static_cast<int>(std::min<std::size_t>(P::tile_n, n - j0));
  std::size_t k0 = 0;
  for (; k0 + P::tile_k <= n; k0 += P::tile_k)
    for (int i = 0; i < rows; ++i)
      for (std::size_t k = k0; k < k0 + P::tile_k; k += P::unroll)
        unrolled_steps(acc[i], a + (i0 + i) * n + k, b + k * n + j0, n, cols,
                       std::make_index_sequence<P::unroll>{});
  for (int i = 0; i < rows; ++i)
    for (std::size_t k = k0; k < n; ++k)
      axpy_row(acc[i], a[(i0 + i) * n + k], b + k * n + j0, cols);
  for (int i = 0; i < rows; ++i) std::copy(acc[i], acc[i] + cols, c + (i0 + i) * n + j0);
}

}  // namespace detail

/// c = a * b; a, b, c: n x n, row-major, c distinct from a and b.
template <class P>
void matmul(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i0 = 0; i0 < n; i0 += P::tile_m)
    for (std::size_t j0 = 0; j0 < n; j0 += P::tile_n) detail::block<P>(a, b, c, n, i0, j0);
}

}  // namespace host_matmul
