// Multiplies two small matrices with the tuned library and checks every entry against a naive
// product.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "host_matmul.hpp"

int main() {
  const std::size_t n = 100;  // not a multiple of any tile: exercises the clipped edges
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
    b[i] = static_cast<float>(i % 11) * 0.125f - 0.5f;
  }
  host_matmul::multiply(a.data(), b.data(), c.data(), n);
  double max_error = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double expected = 0;
      for (std::size_t k = 0; k < n; ++k)
        expected += static_cast<double>(a[i * n + k]) * b[k * n + j];
      max_error = std::max(max_error, std::fabs(c[i * n + j] - expected));
    }
  const auto p = host_matmul::blocking();
  std::printf(
      "host_matmul: %s blocking TILE_M=%d TILE_N=%d TILE_K=%d UNROLL=%d; %zux%zu product, max "
      "error %g\n",
      p.tuned ? "tuned" : "default", p.tile_m, p.tile_n, p.tile_k, p.unroll, n, n, max_error);
  return max_error <= 1e-3 ? 0 : 1;
}
