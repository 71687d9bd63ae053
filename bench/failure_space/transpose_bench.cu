// The failure space's benchmark: out = in^T for n x n floats (default n = 8192: 256 MiB per
// matrix, 512 MiB moved per launch, ten times the H200's 50 MiB L2).
//
// `in` is random (never zeros) and `out` is poisoned (NaN bytes) before the checked run, so an
// element the kernel never writes is a mismatch. A transpose moves values without arithmetic, so
// every element is compared exactly with the host's transpose (on the device: compare() keeps the
// reference's device copy, Benchmark::once). Before any launch, check_launch()
// asks the driver for the kernel's attributes and occupancy with this configuration's block; they
// go into the result record ("kernels") whatever the status.
// The record's figure of merit is GB/s = 2 * n * n * 4 bytes / median time.
//
// The launch: the configuration's transpose_kernel from its cubin (Benchmark::kernel) on an
// n / TILE x n / TILE grid of TILE / VEC x BLOCK_ROWS blocks, the shape the template exports
// (Benchmark::exported), not declared in the spec on purpose (README.md): a block of more than 1024
// threads fails at the launch, for real. One path for both compile units (compiler.unit "program"
// compiles this file per configuration, for the throughput benchmark's before/after). The host
// transpose is computed once per runner (Benchmark::once).
//
// Arguments after the harness's own: --n N (a multiple of 128, the largest TILE; default 8192).
#include <adaexplore/harness.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {

int problem_size(const std::vector<std::string>& args) {
  int n = 8192;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--n") n = std::atoi(args[i + 1].c_str());
  return n;
}

// expected[j * n + i] = in[i * n + j], in 64 x 64 blocks (both sides stay in cache).
std::vector<float> host_transpose(const std::vector<float>& in, std::size_t n) {
  std::vector<float> t(n * n);
  constexpr std::size_t kBlock = 64;
  for (std::size_t i0 = 0; i0 < n; i0 += kBlock)
    for (std::size_t j0 = 0; j0 < n; j0 += kBlock)
      for (std::size_t i = i0; i < std::min(n, i0 + kBlock); ++i)
        for (std::size_t j = j0; j < std::min(n, j0 + kBlock); ++j) t[j * n + i] = in[i * n + j];
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = problem_size(bench.args());
  if (n <= 0 || n % 128 != 0) {
    std::fprintf(stderr, "transpose_bench: --n must be a positive multiple of 128 (got %d)\n", n);
    return 64;
  }
  const std::size_t elements = static_cast<std::size_t>(n) * n;
  auto in = bench.input<float>(elements);
  auto out = bench.output<float>(elements);
  const std::vector<float>& expected = bench.once("transpose expected " + std::to_string(n),
                                                 [&] { return host_transpose(std::as_const(in).host(), n); });
  bench.bytes(2.0 * static_cast<double>(elements) * sizeof(float));

  const adaexplore::Tolerance exact{/*rel=*/0.0, /*abs=*/0.0};
  const adaexplore::Kernel transpose = bench.kernel("failure_space::transpose_kernel");
  const dim3 block(static_cast<unsigned>(bench.exported("block_x")), static_cast<unsigned>(bench.exported("block_y")));
  const unsigned tiles = static_cast<unsigned>(n / bench.exported("tile"));
  bench.check_launch(transpose, block, 0, "transpose_kernel");
  const float* input = in.get();
  return bench.run([&](cudaStream_t s) { transpose.launch(dim3(tiles, tiles), block, 0, s, input, out.get(), n); },
                   [&] { return bench.compare(out, expected, exact); });
}
