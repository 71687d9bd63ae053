// The host_matmul benchmark: random n x n inputs (n: the size being tuned, SIZES "N=..."; else the
// first run argument; else 256), a
// double-precision reference, and the rendered configuration timed by the host harness.
#include <adaexplore/harness_host.hpp>
#include <string>

#include "matmul_tuning.hpp"

int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = static_cast<std::size_t>(
      bench.size("N", bench.args().empty() ? 256 : static_cast<long long>(std::stoul(bench.args()[0]))));
  auto a = bench.input<float>(n * n);
  auto b = bench.input<float>(n * n);
  auto c = bench.output<float>(n * n);
  std::vector<float> ref(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::size_t k = 0; k < n; ++k) sum += static_cast<double>(a[i * n + k]) * b[k * n + j];
      ref[i * n + j] = static_cast<float>(sum);
    }
  bench.flops(2.0 * n * n * n);
  bench.bytes(3.0 * n * n * sizeof(float));
  return bench.run([&] { matmul_tuning::matmul(a.data(), b.data(), c.data(), n); },
                   [&] {
                     return bench.compare(c, ref, adaexplore::Tolerance{1e-4, 1e-4});
                   });
}
