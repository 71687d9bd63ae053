// The library side of the example: the same kernel the tuner measured, instantiated with the
// constants of the generated header, one instantiation per tuned problem size (SIZES in
// CMakeLists.txt), the one for a call chosen by the header's select_index(m, n, k): the tuned size
// nearest in log space.
#include <adaexplore/gemm.hpp>

#include <cstddef>
#include <utility>

#include "gemm_lib.hpp"
#include "kernels/sgemm_kernel.cuh"

namespace {
namespace tuned = adaexplore::gemm;

// The policy of the header's entry I (kSizes[I]: compile-time constants).
template <std::size_t I>
using PolicyAt = tiled_sgemm::Policy<tuned::kSizes[I].params.BLOCK_M, tuned::kSizes[I].params.BLOCK_N,
                                     tuned::kSizes[I].params.BLOCK_K, tuned::kSizes[I].params.THREAD_M,
                                     tuned::kSizes[I].params.THREAD_N, tuned::kSizes[I].params.VECTOR_LOADS,
                                     tuned::kSizes[I].params.PAD, tuned::kSizes[I].params.STAGES>;

template <std::size_t... I>
void dispatch_entry(std::size_t entry, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                    int ldb, float beta, float* c, int ldc, cudaStream_t stream, std::index_sequence<I...>) {
  (void)((entry == I && (tiled_sgemm::dispatch<PolicyAt<I>>(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream),
                         true)) ||
         ...);
}
}  // namespace

void sgemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc, cudaStream_t stream) {
  dispatch_entry(tuned::select_index(m, n, k), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream,
                 std::make_index_sequence<tuned::kSizeCount>{});
}
