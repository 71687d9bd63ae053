// The library side of the example: the same kernel the tuner measured, instantiated with the
// constants of the generated header.
#include <adaexplore/vector_add.hpp>

#include "kernels/vector_add_kernel.cuh"
#include "vector_add_lib.hpp"

namespace {
namespace tuned = adaexplore::vector_add;
using Policy = vecadd::Policy<tuned::BLOCK_SIZE, tuned::ITEMS_PER_THREAD, tuned::VECTOR_WIDTH,
                              tuned::GRID_STRIDE>;
}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  vecadd::dispatch<Policy>(a, b, c, n, stream);
}
