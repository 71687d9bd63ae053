// What the harness's per-configuration setup and verification steps cost on this GPU and host,
// one primitive at a time, to decide what a long-lived runner should keep between configurations
// (docs/throughput.md). Each figure: wall-clock ms (std::chrono::steady_clock, the call made
// synchronous where it is not), median of 7 runs after 1 warm-up run, for a buffer of
// --mib MiB (default 64, one gemm 4096^2 float matrix). Every CUDA call is checked.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -I templates bench/setup_costs.cu -o setup_costs && ./setup_costs
#include <adaexplore/harness_common.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "setup_costs: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

double median_ms(const std::function<void()>& step) {
  std::vector<double> ms;
  for (int i = 0; i < 8; ++i) {
    const auto start = std::chrono::steady_clock::now();
    step();
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (i > 0) ms.push_back(t);  // the first run is the warm-up
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void row(const char* what, double ms, double bytes) {
  if (bytes > 0)
    std::printf("| %-58s | %9.3f | %8.1f |\n", what, ms, bytes / (ms * 1e-3) / 1e9);
  else
    std::printf("| %-58s | %9.3f |          |\n", what, ms);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mib = 64;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--mib") mib = std::strtoull(argv[i + 1], nullptr, 10);
  const std::size_t bytes = mib << 20, n = bytes / sizeof(float);
  const auto t0 = std::chrono::steady_clock::now();
  check(cudaFree(nullptr), "cudaFree(nullptr) (context)");
  const double context_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("GPU %s, buffer %zu MiB (%zu floats); ms: median of 7 after 1 warm-up\n\n", prop.name, mib, n);
  std::printf("| %-58s | %9s | %8s |\n", "step", "ms", "GB/s");
  std::printf("| %s | %s | %s |\n", std::string(58, '-').c_str(), std::string(9, '-').c_str(), std::string(8, '-').c_str());
  row("CUDA context (first runtime call, this process)", context_ms, 0);

  row("stream + 2 events: create and destroy", median_ms([] {
        cudaStream_t s;
        cudaEvent_t a, b;
        check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaEventCreate(&a), "cudaEventCreate");
        check(cudaEventCreate(&b), "cudaEventCreate");
        check(cudaEventDestroy(a), "cudaEventDestroy");
        check(cudaEventDestroy(b), "cudaEventDestroy");
        check(cudaStreamDestroy(s), "cudaStreamDestroy");
      }), 0);
  row("cudaMalloc + cudaFree", median_ms([&] {
        void* p;
        check(cudaMalloc(&p, bytes), "cudaMalloc");
        check(cudaFree(p), "cudaFree");
      }), 0);
  row("host std::vector<float>(n) (allocate, zero, first touch) + free", median_ms([&] {
        std::vector<float> v(n);
        if (v[n / 2] != 0) std::abort();
      }), bytes);
  std::vector<float> host(n);
  row("fill_random (harness_common.hpp, threads)", median_ms([&] { adaexplore::fill_random(host.data(), n, 7u); }), bytes);

  float* dev = nullptr;
  float* dev2 = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  check(cudaMalloc(&dev2, bytes), "cudaMalloc");
  row("cudaMemcpy H2D from pageable (a warm std::vector)", median_ms([&] {
        check(cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
      }), bytes);
  row("cudaMemcpy H2D from a fresh std::vector (allocate + zero + copy)", median_ms([&] {
        std::vector<float> v(n);
        check(cudaMemcpy(dev, v.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
      }), bytes);
  row("cudaMemcpy D2H into a fresh std::vector (the harness's download)", median_ms([&] {
        std::vector<float> v(n);
        check(cudaMemcpy(v.data(), dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
      }), bytes);
  row("cudaMemcpy D2H into a warm std::vector", median_ms([&] {
        check(cudaMemcpy(host.data(), dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
      }), bytes);
  row("cudaHostRegister + cudaHostUnregister of the vector", median_ms([&] {
        check(cudaHostRegister(host.data(), bytes, cudaHostRegisterDefault), "cudaHostRegister");
        check(cudaHostUnregister(host.data()), "cudaHostUnregister");
      }), 0);
  check(cudaHostRegister(host.data(), bytes, cudaHostRegisterDefault), "cudaHostRegister");
  row("cudaMemcpy H2D from pinned (registered) memory", median_ms([&] {
        check(cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
      }), bytes);
  row("cudaMemcpy D2H into pinned (registered) memory", median_ms([&] {
        check(cudaMemcpy(host.data(), dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
      }), bytes);
  check(cudaHostUnregister(host.data()), "cudaHostUnregister");
  row("cudaMemcpy D2D + synchronize", median_ms([&] {
        check(cudaMemcpy(dev2, dev, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy D2D");
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      }), 2.0 * bytes);
  row("cudaMemset + synchronize", median_ms([&] {
        check(cudaMemset(dev, 0xFF, bytes), "cudaMemset");
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      }), bytes);
  row("host: std::isfinite over the vector", median_ms([&] {
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += !std::isfinite(host[i]);
        if (bad == n + 1) std::abort();
      }), bytes);
  check(cudaFree(dev), "cudaFree");
  check(cudaFree(dev2), "cudaFree");
  return 0;
}
