// y = a * x + y, templated on its tuning parameters: the tuning template (saxpy.hpp.in)
// instantiates it once per configuration, the library (src/saxpy.cpp) with the generated
// header's constants.
#pragma once

#include <cstddef>

namespace saxpy_kernel {

// Blocks of BLOCK elements, the inner loop unrolled by UNROLL; the tail element by element.
template <int UNROLL, int BLOCK>
void run(float a, const float* x, float* y, std::size_t n) {
  static_assert(BLOCK % UNROLL == 0, "BLOCK must be a multiple of UNROLL");
  std::size_t i = 0;
  for (; i + BLOCK <= n; i += BLOCK)
    for (int j = 0; j < BLOCK; j += UNROLL)
      for (int u = 0; u < UNROLL; ++u) y[i + j + u] = a * x[i + j + u] + y[i + j + u];
  for (; i < n; ++i) y[i] = a * x[i] + y[i];
}

}  // namespace saxpy_kernel
