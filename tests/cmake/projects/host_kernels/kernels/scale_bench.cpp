// Benchmark: y = 3 * x against the same arithmetic on the host. Arguments after the harness's
// own: --n N (default 2^20).
#include <adaexplore/harness_host.hpp>

#include <cstdlib>

#include "scale.hpp"

int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  std::size_t n = std::size_t(1) << 20;
  for (std::size_t i = 0; i + 1 < bench.args().size(); ++i)
    if (bench.args()[i] == "--n") n = std::strtoull(bench.args()[i + 1].c_str(), nullptr, 10);
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = 3.0f * x[i];
  bench.bytes(2.0 * static_cast<double>(n) * sizeof(float));
  return bench.run([&] { scale(3.0f, x.data(), y.data(), n); }, [&] { return bench.compare(y, expected); });
}
