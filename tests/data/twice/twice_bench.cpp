// twice() on the host (harness_host.hpp), checked against 2 x: for tests/cli/records_test.sh.
#include <adaexplore/harness_host.hpp>
#include "twice.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = 1 << 14;
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = 2.0f * x[i];
  return bench.run([&] { twice(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
