// spmv's benchmark: a random CSR matrix as spmv.py makes it (131072 x 65536, 0.1 % non-zeros,
// sorted random row offsets), the launch the tuning call declares, y compared with the reference's.
#include <adaexplore/harness.cuh>

#include <algorithm>
#include <random>

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  const int nrows = 128 * 1024, ncols = 64 * 1024, nnz = static_cast<int>(double(nrows) * ncols * 0.001);
  auto y = bench.output<float>(nrows);
  auto rows = bench.input<int>(nrows + 1);
  auto cols = bench.input<int>(nnz);
  auto values = bench.input<float>(nnz);
  auto x = bench.input<float>(ncols);
  const auto& csr = bench.once("spmv csr", [&] {  // row offsets, then column indices
    std::mt19937_64 rng(bench.options().seed);
    std::vector<int> v(nrows + 1 + nnz);
    for (int i = 0; i <= nrows; ++i) v[i] = std::uniform_int_distribution<int>(0, nnz)(rng);
    std::sort(v.begin(), v.begin() + nrows + 1);
    v[0] = 0, v[nrows] = nnz;
    for (int j = 0; j < nnz; ++j) v[nrows + 1 + j] = std::uniform_int_distribution<int>(0, ncols - 1)(rng);
    return v;
  });
  rows.host().assign(csr.begin(), csr.begin() + nrows + 1);
  cols.host().assign(csr.begin() + nrows + 1, csr.end());
  bench.upload(rows), bench.upload(cols);
  const adaexplore::Kernel spmv = bench.kernel();
  return bench.run([&] { bench.launch(spmv, y, rows, cols, values, x, nrows); }, bench.tolerance());
}
