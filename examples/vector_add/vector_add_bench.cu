// AdaExplore benchmark for the vector_add example: c = a + b over n floats (default 2^27, i.e.
// 512 MiB per array and 1.5 GiB moved per launch, many times the H200's 50 MiB L2).
//
// Inputs are random (never zeros), the output is poisoned before the checked run, and every
// element is compared with the host's float sum exactly: a + b is one correctly rounded IEEE
// operation on both sides, so any difference is a wrong or unwritten element.
// The record's figure of merit is GB/s = 3 * n * 4 bytes / median time; its "kernels" entry holds
// the driver's figures for the kernel and block (registers, occupancy; Benchmark::check_launch).
//
// Arguments after the harness's own: --n N  (problem size; default 134217728).
#include <adaexplore/harness.cuh>
#include <cstdlib>
#include <string>

#include "vector_add.cuh"

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
  const std::size_t n = problem_size(bench.args());
  auto a = bench.input<float>(n);
  auto b = bench.input<float>(n);
  auto c = bench.output<float>(n);

  // The reference, computed once per tuner runner (Benchmark::once; n, the seed and the arguments
  // are its key).
  const std::vector<float> expected = bench.once("vector_add expected " + std::to_string(n), [&] {
    std::vector<float> sum(n);
    for (std::size_t i = 0; i < n; ++i) sum[i] = a.host()[i] + b.host()[i];
    return sum;
  });
  bench.bytes(3.0 * static_cast<double>(n) * sizeof(float));

  // The driver's verdict on this configuration's block before any launch, and its registers and
  // occupancy in the record.
  using Policy = vector_add_tuning::Policy;
  bench.check_launch(vecadd::vector_add_kernel<Policy>, dim3(Policy::kBlockSize), 0, "vector_add_kernel");
  const adaexplore::Tolerance exact{/*rel=*/0.0, /*abs=*/0.0};
  return bench.run(
      [&](cudaStream_t s) { vector_add_tuning::launch(a.get(), b.get(), c.get(), n, s); },
      [&] { return bench.compare(c, expected, exact); });
}
