// gemm_lib: the example library built with the tuned SGEMM configuration.
#pragma once

#include <cuda_runtime_api.h>

/// Enqueues C = alpha * A * B + beta * C on `stream`: row-major float matrices on the device,
/// A is m x k (row stride lda >= k), B is k x n (ldb >= n), C is m x n (ldc >= n). beta == 0
/// does not read C. Any sizes and alignment (the fastest path needs n, k, lda, ldb multiples of 4
/// and 16-byte aligned A, B). Like a kernel launch, errors are reported by cudaGetLastError().
void sgemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc, cudaStream_t stream);
