// Device-to-device copy bandwidth: the practical ceiling a bandwidth-bound kernel (vector_add)
// is compared against. Counts bytes read plus bytes written, as METHOD.md asks.
// Usage: copy_bandwidth [bytes per buffer, default 2 GiB]. Prints one JSON line:
//   {"bytes": ..., "median_ms": ..., "GB/s": ..., "runs": 30}
// Method: cudaMemcpyAsync of a buffer filled with random bytes, 5 warm-up copies, 30 timed copies
// each between CUDA events on one stream, median. Every CUDA call is checked.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cudaError_t e_ = (call);                                                                          \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(2) << 30);
  std::vector<unsigned char> host(bytes);
  std::mt19937_64 rng(7);
  for (size_t i = 0; i < bytes; i += 8) {
    const unsigned long long v = rng();
    std::copy_n(reinterpret_cast<const unsigned char*>(&v), std::min<size_t>(8, bytes - i), host.data() + i);
  }
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<float> ms(30);
  for (float& t : ms) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&t, a, b));
  }
  std::sort(ms.begin(), ms.end());
  const double median = 0.5 * (ms[14] + ms[15]);
  std::vector<unsigned char> check(4096);
  CHECK(cudaMemcpy(check.data(), dst, check.size(), cudaMemcpyDeviceToHost));
  if (!std::equal(check.begin(), check.end(), host.begin())) {
    std::fprintf(stderr, "copy verification failed\n");
    return 1;
  }
  std::printf("{\"bytes\": %zu, \"median_ms\": %.6f, \"GB/s\": %.1f, \"runs\": %zu}\n", bytes, median,
              2.0 * bytes / (median * 1e6), ms.size());
  return 0;
}
