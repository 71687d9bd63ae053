// gemm_demo: uses gemm_lib like any application would, and prints the configuration the library
// was built with, from the same generated header the library compiled against
// (<adaexplore/gemm.hpp> reaches this program through gemm_lib's include folders).
#include <cuda_runtime.h>

#include <adaexplore/gemm.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "gemm_lib.hpp"

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "gemm_demo: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  namespace tuned = adaexplore::gemm;
  std::printf(
      "gemm_lib: kTuned = %s: BLOCK_M=%d BLOCK_N=%d BLOCK_K=%d THREAD_M=%d THREAD_N=%d "
      "VECTOR_LOADS=%d PAD=%d STAGES=%d (%d threads per block)\n",
      tuned::kTuned ? "true (tuned or pinned)" : "false (the defaults)", tuned::BLOCK_M,
      tuned::BLOCK_N, tuned::BLOCK_K, tuned::THREAD_M, tuned::THREAD_N, tuned::VECTOR_LOADS,
      tuned::PAD, tuned::STAGES,
      (tuned::BLOCK_M / tuned::THREAD_M) * (tuned::BLOCK_N / tuned::THREAD_N));

  // Sizes that are not multiples of any tile: exercises the edges.
  const int m = argc > 1 ? std::atoi(argv[1]) : 1000, n = argc > 2 ? std::atoi(argv[2]) : 1004,
            k = argc > 3 ? std::atoi(argv[3]) : 996;
  const float alpha = 2.0f, beta = 0.5f;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n), c0;
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  for (float& x : c) x = dist(rng);
  c0 = c;

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  if (!ok(cudaMalloc(&da, a.size() * sizeof(float)), "cudaMalloc") ||
      !ok(cudaMalloc(&db, b.size() * sizeof(float)), "cudaMalloc") ||
      !ok(cudaMalloc(&dc, c.size() * sizeof(float)), "cudaMalloc"))
    return 1;
  if (!ok(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy") ||
      !ok(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy") ||
      !ok(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy"))
    return 1;

  sgemm(m, n, k, alpha, da, k, db, n, beta, dc, n, nullptr);
  if (!ok(cudaGetLastError(), "sgemm launch") || !ok(cudaDeviceSynchronize(), "sgemm")) return 1;
  if (!ok(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy"))
    return 1;

  // A few elements against a double-precision reference (the tolerance is explained in
  // gemm_bench.cu).
  int wrong = 0;
  std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1);
  for (int s = 0; s < 64; ++s) {
    const int i = s == 0   ? 0
                  : s == 1 ? m - 1
                           : row(rng),
              j = s == 0   ? 0
                  : s == 1 ? n - 1
                           : col(rng);
    double dot = 0, abs_sum = 0;
    for (int q = 0; q < k; ++q) {
      const double p = double(a[std::size_t(i) * k + q]) * b[std::size_t(q) * n + j];
      dot += p;
      abs_sum += std::fabs(p);
    }
    const double ref = alpha * dot + double(beta) * c0[std::size_t(i) * n + j];
    const double got = c[std::size_t(i) * n + j];
    const double tol = 4 * std::sqrt(k + 2.0) * std::ldexp(1.0, -24) *
                       (std::fabs(alpha) * abs_sum + std::fabs(beta * c0[std::size_t(i) * n + j]));
    if (!(std::fabs(got - ref) <= tol) && wrong++ < 5)
      std::fprintf(stderr, "C[%d][%d] = %.7g, expected %.7g\n", i, j, got, ref);
    if (s < 3) std::printf("C[%d][%d] = %.7g (reference %.7g)\n", i, j, got, ref);
  }
  std::printf("%d of 64 checked elements wrong\n", wrong);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return wrong == 0 ? 0 : 1;
}
