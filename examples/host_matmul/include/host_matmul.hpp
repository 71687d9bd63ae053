// host_matmul: the example library, built with the tuned blocking of <adaexplore/host_matmul.hpp>.
#pragma once

#include <cstddef>

namespace host_matmul {

/// c = a * b for n x n row-major float matrices (c distinct from a and b).
void multiply(const float* a, const float* b, float* c, std::size_t n);

/// The blocking the library was compiled with.
struct Blocking {
  bool tuned;  // false: the header holds the defaults
  int tile_m, tile_n, tile_k, unroll;
};
Blocking blocking();

}  // namespace host_matmul
