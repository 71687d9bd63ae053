// A kernel configured by preprocessor macros, in the style of Kernel Tuner's examples: tuned as it
// is (KERNEL_SOURCE), its arguments declared (ARGS: the module writes the benchmark), its reference
// the DEFAULTS' outputs, and compiled into the saxpy library with the winning values as compile
// definitions (DEFINE_PARAMS). factor is __constant__ memory the benchmark sets by name.
#ifndef block_size_x
#define block_size_x 64
#endif
#ifndef tile
#define tile 1
#endif

__constant__ float factor[2];

extern "C" __global__ void saxpy_macro(float* y, const float* x, int n) {
  const int first = (blockIdx.x * block_size_x + threadIdx.x) * tile;
#pragma unroll
  for (int t = 0; t < tile; ++t) {
    const int i = first + t;
    if (i < n) y[i] = factor[0] * x[i] + factor[1] * y[i];
  }
}
