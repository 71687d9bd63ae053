// The library: the kernel instantiated with the generated header's values.
#include <adaexplore/scale.hpp>
#include <adaexplore/scale_pinned.hpp>
#include <adaexplore/saxpy.hpp>

#include "scale_kernel.cuh"

static_assert(adaexplore::scale::kTuned == bool(EXPECT_TUNED), "tuned exactly where a GPU is");
#if !EXPECT_TUNED
static_assert(adaexplore::scale::BLOCK == 128 && adaexplore::scale::ITEMS == 2, "no GPU: the DEFAULTS");
static_assert(adaexplore::scale_pinned::BLOCK == 256 && adaexplore::scale_pinned::ITEMS == 4,
              "no GPU: the pinned header");
#endif
// The header's #define lines (MACRO_PREFIX SAXPY_) agree with its constants.
static_assert(SAXPY_block_size_x == adaexplore::saxpy::block_size_x && SAXPY_tile == adaexplore::saxpy::tile,
              "the header's macros are its values");
static_assert(adaexplore::saxpy::kTuned == bool(EXPECT_TUNED), "saxpy: tuned exactly where a GPU is");

void scale(const float* x, float* y, float a, std::size_t n, cudaStream_t stream) {
  scale_kernel::launch<adaexplore::scale::BLOCK, adaexplore::scale::ITEMS>(x, y, a, n, stream);
}

void scale_pinned(const float* x, float* y, float a, std::size_t n, cudaStream_t stream) {
  scale_kernel::launch<adaexplore::scale_pinned::BLOCK, adaexplore::scale_pinned::ITEMS>(x, y, a, n, stream);
}
