// The library side of the example: the same kernel the tuner measured, instantiated with the
// constants of the generated header.
#include <adaexplore/gemm.hpp>

#include "gemm_lib.hpp"
#include "kernels/sgemm_kernel.cuh"

namespace {
namespace tuned = adaexplore::gemm;
using Policy = tiled_sgemm::Policy<tuned::BLOCK_M, tuned::BLOCK_N, tuned::BLOCK_K, tuned::THREAD_M,
                                   tuned::THREAD_N, tuned::VECTOR_LOADS, tuned::PAD, tuned::STAGES>;
}  // namespace

void sgemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc, cudaStream_t stream) {
  tiled_sgemm::dispatch<Policy>(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}
