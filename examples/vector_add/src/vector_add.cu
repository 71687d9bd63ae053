// The library side of the example: the same kernel the tuner measured, instantiated with the
// constants of the generated header, one instantiation per tuned problem size (SIZES in
// CMakeLists.txt), the one for a call chosen by the header's select_index(n): the tuned size
// nearest in log space.
#include <adaexplore/vector_add.hpp>

#include <utility>

#include "kernels/vector_add_kernel.cuh"
#include "vector_add_lib.hpp"

namespace {
namespace tuned = adaexplore::vector_add;

template <std::size_t I>
using PolicyAt = vecadd::Policy<tuned::kSizes[I].params.BLOCK_SIZE, tuned::kSizes[I].params.ITEMS_PER_THREAD,
                                tuned::kSizes[I].params.VECTOR_WIDTH>;

template <std::size_t... I>
void dispatch_entry(std::size_t entry, const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream,
                    std::index_sequence<I...>) {
  (void)((entry == I && (vecadd::dispatch<PolicyAt<I>>(a, b, c, n, stream), true)) || ...);
}
}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  dispatch_entry(tuned::select_index(static_cast<long long>(n)), a, b, c, n, stream,
                 std::make_index_sequence<tuned::kSizeCount>{});
}
