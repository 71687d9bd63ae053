// y = a * x over n floats, templated on its tuning parameters: the tuning template
// (scale.cuh.in) instantiates it once per configuration, the library (src/scale.cu) with the
// generated header's constants.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace scale_kernel {

// Each block handles BLOCK * ITEMS consecutive elements; thread t takes t, t + BLOCK, ...
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) scale(const float* x, float* y, float a, std::size_t n) {
  const std::size_t base = std::size_t(blockIdx.x) * BLOCK * ITEMS + threadIdx.x;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::size_t j = base + std::size_t(i) * BLOCK;
    if (j < n) y[j] = a * x[j];
  }
}

template <int BLOCK, int ITEMS>
void launch(const float* x, float* y, float a, std::size_t n, cudaStream_t stream) {
  const std::size_t per_block = std::size_t(BLOCK) * ITEMS;
  const unsigned blocks = static_cast<unsigned>((n + per_block - 1) / per_block);
  if (blocks > 0) scale<BLOCK, ITEMS><<<blocks, BLOCK, 0, stream>>>(x, y, a, n);
}

}  // namespace scale_kernel
