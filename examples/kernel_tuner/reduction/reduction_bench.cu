// reduction's benchmark: sum_floats writes one partial sum per block (num_blocks of them); their
// total is compared with the exact (double) sum of the 800,000,000 inputs, within a bound on float
// rounding: each thread adds n / threads values, then log2(threads) levels of partial sums.
#include <adaexplore/harness.cuh>

#include <cmath>
#include <numeric>

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int n = 800000000;
  auto partial = bench.output<float>(32768);  // sum_global: the largest num_blocks
  auto x = bench.input<float>(n);
  const auto& exact = bench.once("sum", [&] {
    const auto& h = std::as_const(x).host();
    return std::vector<double>{std::accumulate(h.begin(), h.end(), 0.0)};
  });
  const long long blocks = bench.param("num_blocks");
  const double threads = double(blocks) * bench.param("block_size_x");
  const double bound = 4 * 0x1p-24 * (n / threads * std::sqrt(threads) + std::log2(threads) * std::sqrt(double(n)));
  const adaexplore::Kernel sum_floats = bench.kernel();
  bench.bytes(4.0 * n);
  return bench.run([&] { bench.launch(sum_floats, partial, x, n); }, [&] {
    const std::vector<float> got = bench.download(partial);
    adaexplore::Verification v;
    v.checked = 1;
    v.first_got = std::accumulate(got.begin(), got.begin() + blocks, 0.0), v.first_expected = exact[0];
    v.mismatches = std::fabs(v.first_got - v.first_expected) <= bound ? 0 : 1;
    return v;
  });
}
