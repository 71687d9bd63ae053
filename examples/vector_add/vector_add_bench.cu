// AdaExplore benchmark for the vector_add example: c = a + b over n floats (default 2^27, i.e.
// 512 MiB per array and 1.5 GiB moved per launch, many times the H200's 50 MiB L2).
//
// Inputs are random (never zeros), the output is poisoned before the checked run, and every
// element is compared with the host's float sum exactly: a + b is one correctly rounded IEEE
// operation on both sides, so any difference is a wrong or unwritten element. The comparison runs
// on the device (Benchmark::compare with the reference once() keeps, uploaded once per runner):
// 512 MiB are not read back per configuration.
// The record's figure of merit is GB/s = 3 * n * 4 bytes / median time; its "kernels" entry holds
// the driver's figures for the kernel and block (registers, occupancy; Benchmark::check_launch).
//
// Launch. With the kernel unit (the default; ADAEXPLORE_KERNEL_UNIT defined: this file is compiled
// once per tuning, each configuration's vector_add.cuh alone to a cubin): the configuration's
// vecadd::vector_add_kernel (Benchmark::kernel) with the grid of vecadd::launch(): one block per
// tile of the Policy's elements, or, with a grid stride, at most as many blocks as fit on the GPU
// at once (SMs x resident blocks per SM, from the occupancy calculator); the Policy's figures come
// from the template (Benchmark::exported). With compiler.unit "program" (the whole benchmark per
// configuration, kept for the throughput benchmark's before/after): vector_add_tuning::launch().
//
// The problem size N: the size being tuned (SIZES "N=..." in CMakeLists.txt: Benchmark::size), else
// the argument after the harness's own --n N, else 134217728.
#include <adaexplore/harness.cuh>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#ifndef ADAEXPLORE_KERNEL_UNIT
#include "vector_add.cuh"
#endif

namespace {

std::size_t problem_size(const std::vector<std::string>& args) {
  std::size_t n = std::size_t(1) << 27;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--n") n = std::strtoull(args[i + 1].c_str(), nullptr, 10);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const std::size_t n = static_cast<std::size_t>(bench.size("N", static_cast<long long>(problem_size(bench.args()))));
  auto a = bench.input<float>(n);
  auto b = bench.input<float>(n);
  auto c = bench.output<float>(n);

  // The reference, computed once per tuner runner (Benchmark::once; n, the seed and the arguments
  // are its key), bound to a reference: compare() then finds its device copy.
  const std::vector<float>& expected = bench.once("vector_add expected " + std::to_string(n), [&] {
    std::vector<float> sum(n);
    const std::vector<float>& x = std::as_const(a).host();
    const std::vector<float>& y = std::as_const(b).host();
    for (std::size_t i = 0; i < n; ++i) sum[i] = x[i] + y[i];
    return sum;
  });
  bench.bytes(3.0 * static_cast<double>(n) * sizeof(float));

  const adaexplore::Tolerance exact{/*rel=*/0.0, /*abs=*/0.0};
#ifndef ADAEXPLORE_KERNEL_UNIT
  using Policy = vector_add_tuning::Policy;
  bench.check_launch(vecadd::vector_add_kernel<Policy>, dim3(Policy::kBlockSize), 0, "vector_add_kernel");
  return bench.run([&](cudaStream_t s) { vector_add_tuning::launch(a.get(), b.get(), c.get(), n, s); },
                   [&] { return bench.compare(c, expected, exact); });
#else
  const adaexplore::Kernel add = bench.kernel("vecadd::vector_add_kernel");
  const long long block = bench.exported("block"), tile = bench.exported("tile");
  std::size_t grid = (n + static_cast<std::size_t>(tile) - 1) / static_cast<std::size_t>(tile);
  if (bench.exported("grid_stride")) {
    int device = 0, sms = 0, per_sm = 0;
    bench.check(cudaGetDevice(&device), "cudaGetDevice");
    bench.check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute(SMs)");
    // Fails when the block cannot run at all (more than 1024 threads): the launch then fails for
    // the same reason, as in vecadd::resident_blocks().
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add.function(), static_cast<int>(block), 0) != cudaSuccess)
      (void)cudaGetLastError();
    if (sms > 0 && per_sm > 0) grid = std::min<std::size_t>(grid, static_cast<std::size_t>(sms) * per_sm);
  }
  // The driver's verdict on this configuration's block before any launch, and its registers and
  // occupancy in the record.
  bench.check_launch(add, dim3(static_cast<unsigned>(block)), 0, "vector_add_kernel");
  const float* x = a.get();
  const float* y = b.get();
  return bench.run(
      [&](cudaStream_t s) {
        if (n) add.launch(dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(block)), 0, s, x, y, c.get(), n);
      },
      [&] { return bench.compare(c, expected, exact); });
#endif
}
