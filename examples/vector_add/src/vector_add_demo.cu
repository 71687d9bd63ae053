// vector_add_demo: uses vector_add_lib like any application would, and prints the configuration
// the library was built with, from the same generated header the library compiled against
// (<adaexplore/vector_add.hpp> reaches this program through vector_add_lib's include folders).
#include <cuda_runtime.h>

#include <adaexplore/vector_add.hpp>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "vector_add_lib.hpp"

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "vector_add_demo: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  namespace tuned = adaexplore::vector_add;
  std::printf(
      "vector_add_lib: kTuned = %s: BLOCK_SIZE=%d ITEMS_PER_THREAD=%d VECTOR_WIDTH=%d\n",
      tuned::kTuned ? "true (tuned or pinned)" : "false (the defaults)", tuned::BLOCK_SIZE,
      tuned::ITEMS_PER_THREAD, tuned::VECTOR_WIDTH);

  // Odd size on purpose: exercises the partial tile after the full ones.
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::size_t(1) << 24) + 3;
  std::vector<float> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = 0.25f * static_cast<float>(i % 1000) - 100.0f;
    b[i] = 1.0f / static_cast<float>(1 + i % 7);
  }
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  const std::size_t bytes = n * sizeof(float);
  if (!ok(cudaMalloc(&da, bytes), "cudaMalloc") || !ok(cudaMalloc(&db, bytes), "cudaMalloc") ||
      !ok(cudaMalloc(&dc, bytes), "cudaMalloc"))
    return 1;
  if (!ok(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !ok(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !ok(cudaMemset(dc, 0xFF, bytes), "cudaMemset"))  // NaN: unwritten elements show
    return 1;

  vector_add(da, db, dc, n, nullptr);
  if (!ok(cudaGetLastError(), "vector_add launch") || !ok(cudaDeviceSynchronize(), "vector_add"))
    return 1;
  if (!ok(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy")) return 1;

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i] && wrong++ < 5)
      std::fprintf(stderr, "c[%zu] = %g, expected %g\n", i, c[i], a[i] + b[i]);
  std::printf("c[0] = %g, c[%zu] = %g, c[%zu] = %g\n", c[0], n / 2, c[n / 2], n - 1, c[n - 1]);
  std::printf("%zu of %zu elements wrong\n", wrong, n);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return wrong == 0 ? 0 : 1;
}
