// Benchmark: y = 3 * x, compared exactly with the host (one correctly rounded multiply on both
// sides). Arguments after the harness's own: --n N (default 2^24).
#include <adaexplore/harness.cuh>

#include <cstdlib>
#include <string>

#include "scale.cuh"

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  std::size_t n = std::size_t(1) << 24;
  for (std::size_t i = 0; i + 1 < bench.args().size(); ++i)
    if (bench.args()[i] == "--n") n = std::strtoull(bench.args()[i + 1].c_str(), nullptr, 10);
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = 3.0f * x.host()[i];
  bench.bytes(2.0 * static_cast<double>(n) * sizeof(float));
  const adaexplore::Tolerance exact{/*rel=*/0.0, /*abs=*/0.0};
  return bench.run([&](cudaStream_t s) { launch_scale(x.get(), y.get(), 3.0f, n, s); },
                   [&] { return bench.compare(y, expected, exact); });
}
