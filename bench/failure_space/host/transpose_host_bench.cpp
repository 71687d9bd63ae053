// The host failure space's benchmark: out = in^T for n x n floats (default n = 1536: 9 MiB per
// matrix; 1536 = 1.5 x 1024, so the largest working tile has edge tiles).
//
// `in` is random (never zeros), `out` is poisoned (NaN) before the checked run, so an element
// the kernel never writes is a mismatch; a transpose moves values without arithmetic, so every
// element is compared exactly with a plain transpose. GB/s = 2 * n * n * 4 bytes / median time.
//
// Arguments after the harness's own: --n N (default 1536).
#include <adaexplore/harness_host.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "transpose_host.hpp"

int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  long n = 1536;
  for (std::size_t i = 0; i + 1 < bench.args().size(); ++i)
    if (bench.args()[i] == "--n") n = std::atol(bench.args()[i + 1].c_str());
  if (n <= 0) {
    std::fprintf(stderr, "transpose_host_bench: --n must be positive (got %ld)\n", n);
    return 64;
  }
  const std::size_t size = static_cast<std::size_t>(n);
  auto in = bench.input<float>(size * size);
  auto out = bench.output<float>(size * size);
  std::vector<float> expected(size * size);
  for (std::size_t i = 0; i < size; ++i)
    for (std::size_t j = 0; j < size; ++j) expected[j * size + i] = in[i * size + j];
  bench.bytes(2.0 * static_cast<double>(size * size) * sizeof(float));
  const adaexplore::Tolerance exact{/*rel=*/0.0, /*abs=*/0.0};
  return bench.run([&] { failure_space_host::transpose(in.data(), out.data(), size); },
                   [&] { return bench.compare(out, expected, exact); });
}
