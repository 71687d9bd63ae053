// Element-wise loops templated on their tuning parameters: the tuning templates (*.hpp.in)
// instantiate them once per configuration, the library (src/kernels.cpp) with the generated
// headers' constants.
#pragma once

#include <cstddef>

namespace elementwise {

// out[i] = f(i) for i < n, in blocks of BLOCK elements with the inner loop unrolled by UNROLL;
// the tail element by element.
template <int UNROLL, int BLOCK, typename F>
void apply(std::size_t n, F&& f) {
  static_assert(BLOCK % UNROLL == 0, "BLOCK must be a multiple of UNROLL");
  std::size_t i = 0;
  for (; i + BLOCK <= n; i += BLOCK)
    for (int j = 0; j < BLOCK; j += UNROLL)
      for (int u = 0; u < UNROLL; ++u) f(i + j + u);
  for (; i < n; ++i) f(i);
}

}  // namespace elementwise
