// units() on the host (harness_host.hpp), for tests/cli/mpi_test.sh: its time grows with (A x B)^2.
#include <adaexplore/harness_host.hpp>
#include "units.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = 1 << 16;
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(x.data(), x.data() + n);
  return bench.run([&] { units(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
