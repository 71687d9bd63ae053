// y = SCALE x on the host (harness_host.hpp), for tests/cli/profile_tune_test.cmake.
#include <adaexplore/harness_host.hpp>
#include "scale.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = 4096;
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = ADAEXPLORE_PARAM_SCALE * x[i];
  return bench.run([&] { scale(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
