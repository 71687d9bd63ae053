// The macro-configured kernel compiled as it is, with the values DEFINE_PARAMS gives this target.
#include "saxpy_macro.cu"

#if !EXPECT_TUNED
static_assert(block_size_x == 128 && tile == 1, "no GPU: the DEFAULTS, as compile definitions");
#else
static_assert((block_size_x == 64 || block_size_x == 128 || block_size_x == 256) && (tile == 1 || tile == 2 || tile == 4),
              "a tuned value of PARAMS");
#endif

void saxpy(float* y, const float* x, int n, cudaStream_t stream) {
  const int per_block = block_size_x * tile;
  saxpy_macro<<<(n + per_block - 1) / per_block, block_size_x, 0, stream>>>(y, x, n);
}
