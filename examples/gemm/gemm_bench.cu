// AdaExplore benchmark for the gemm example: C = alpha * A * B + beta * C, row-major float,
// M = N = K = 4096 by default (137 GFLOP per launch; 64 MiB per matrix).
//
// C is an inout buffer: beta != 0, so the kernel reads it, and the harness restores it from its
// initial random content before every run (untimed). The record's figure of merit is GFLOP/s =
// 2 * M * N * K / median time.
//
// Verification (the verify lambda). A full double-precision product on the host would take
// minutes at 4096, so:
// Only the sample and a count of non-finite elements come back to the host (Benchmark::gather,
// Benchmark::nonfinite, both on the device), not the 64 MiB of C:
//   1. the checked run (alpha = 1.5, beta = -0.5): every element of C must be finite, and a sample
//      of elements must match a double-precision host reference: 4096 random elements plus the
//      whole first and last rows and columns (they cross every block row and column, so indexing
//      and edge bugs show up);
//   2. every element written: the harness poisons output buffers only, and an unwritten element of
//      an inout C would keep its (finite) old value. So C is poisoned with NaN bytes and the kernel
//      runs once more with beta = 0, where it must not read C (the BLAS rule): every element must
//      then be finite, and the sample must match alpha * A * B.
// Tolerance, per sampled element, for a K-long float sum (accumulated in order with fmaf, then
// scaled by alpha and added to beta * C):
//     |got - ref| <= 4 * sqrt(K + 2) * u * (|alpha| * sum_k |a_ik * b_kj| + |beta * c_ij|),
//   u = 2^-24 (float unit roundoff). The shape is the probabilistic rounding-error bound of Higham
//   and Mary (SIAM J. Sci. Comput., 2019): errors of a length-K sum grow like sqrt(K) u, not like
//   the worst case K u. The factor 4 is set from a simulation of the kernel's exact summation order
//   on random inputs (20000 sums per K): the largest error reached 0.35 of the bound at K = 1,
//   0.23 at K = 8, 0.05 at K = 256 and 0.011 at K = 4096. At K = 4096 the bound is about 0.02
//   (the worst-case bound K u sum|a b| is 16 times larger), while a lost or doubled k term
//   (|a * b|, 0.25 on average) or a wrong index is far above it.
//   The sample must also have a relative L2 error (||got - ref|| / ||ref||) of at most
//   3 * sqrt(K + 2) * u (1.1e-5 at K = 4096; the simulation stays at 0.10 to 0.14 of that, and
//   tf32 or bf16 arithmetic would be 1e-4 and above): a uniform loss of precision fails here even
//   when no single element is out of bounds; it is then reported as one mismatch at the worst
//   element.
//
// Launch. With the kernel unit (the default; compiler.unit "kernel", ADAEXPLORE_KERNEL_UNIT
// defined): this file is compiled once per tuning, without the rendered template, and each
// configuration's gemm.cuh alone to a cubin; the launch is the configuration's
// tiled_sgemm::sgemm_kernel from that cubin (Benchmark::kernel), with the grid of
// tiled_sgemm::launch() from the parameters BLOCK_M and BLOCK_N (Benchmark::param) and the block
// size the template exports (Policy::kThreads, Benchmark::exported). With compiler.unit
// "program" (COMPILE_UNIT PROGRAM: the whole benchmark per configuration, as before 2026-12-01,
// kept for the throughput benchmark's before/after), it includes gemm.cuh and calls
// gemm_tuning::launch(). Both launch the same kernel with the same grid and block.
//
// The problem size: the size being tuned (SIZES "M=... N=... K=..." in CMakeLists.txt: the harness's
// Benchmark::size), else the arguments after the harness's own: --size S (M = N = K = S), or
// --m M --n N --k K; else 4096.
#include <adaexplore/harness.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#ifndef ADAEXPLORE_KERNEL_UNIT
#include "gemm.cuh"
#endif

namespace {

struct Shape {
  int m = 4096, n = 4096, k = 4096;
};

Shape parse_shape(const std::vector<std::string>& args) {
  Shape s;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    const int v = std::atoi(args[i + 1].c_str());
    if (args[i] == "--size")
      s.m = s.n = s.k = v;
    else if (args[i] == "--m")
      s.m = v;
    else if (args[i] == "--n")
      s.n = v;
    else if (args[i] == "--k")
      s.k = v;
  }
  return s;
}

/// One sampled element of C: its index and the double-precision sum_k a_ik * b_kj and sum_k |a_ik *
/// b_kj|.
struct Probe {
  std::size_t index;
  double dot;
  double abs_sum;
};

/// The sampled elements, ascending and unique: `random_count` random ones plus the first and last
/// rows and columns; all of C when it has at most 4 * random_count elements.
std::vector<std::size_t> sample_indices(const Shape& s, std::mt19937_64& rng,
                                        std::size_t random_count) {
  const std::size_t m = s.m, n = s.n;
  std::vector<std::size_t> idx;
  if (m * n <= 4 * random_count) {
    for (std::size_t i = 0; i < m * n; ++i) idx.push_back(i);
    return idx;
  }
  std::uniform_int_distribution<std::size_t> any(0, m * n - 1);
  for (std::size_t r = 0; r < random_count; ++r) idx.push_back(any(rng));
  for (std::size_t j = 0; j < n; ++j) {
    idx.push_back(j);                // first row
    idx.push_back((m - 1) * n + j);  // last row
  }
  for (std::size_t i = 0; i < m; ++i) {
    idx.push_back(i * n);          // first column
    idx.push_back(i * n + n - 1);  // last column
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

std::vector<Probe> reference(const Shape& s, const std::vector<float>& a,
                             const std::vector<float>& b, const std::vector<std::size_t>& indices) {
  const std::size_t n = s.n, k = s.k;
  std::vector<float> bt(n * k);  // B transposed, so every dot product reads both operands in order
  constexpr std::size_t kBlock = 64;
  for (std::size_t k0 = 0; k0 < k; k0 += kBlock)
    for (std::size_t j0 = 0; j0 < n; j0 += kBlock)
      for (std::size_t kk = k0; kk < std::min(k, k0 + kBlock); ++kk)
        for (std::size_t j = j0; j < std::min(n, j0 + kBlock); ++j) bt[j * k + kk] = b[kk * n + j];
  std::vector<Probe> probes;
  probes.reserve(indices.size());
  for (std::size_t index : indices) {
    const float* ar = a.data() + (index / n) * k;
    const float* bc = bt.data() + (index % n) * k;
    double dot = 0, abs_sum = 0;
    for (std::size_t q = 0; q < k; ++q) {
      const double p = static_cast<double>(ar[q]) * static_cast<double>(bc[q]);
      dot += p;
      abs_sum += std::fabs(p);
    }
    probes.push_back({index, dot, abs_sum});
  }
  return probes;
}

/// Checks one run's C (see the file comment): every element finite (`bad`, counted on the device
/// over all `elements`), the sample within tolerance (`sampled[i]`: C at probes[i].index, gathered
/// on the device).
adaexplore::Verification check(const adaexplore::NonFinite& bad, std::size_t elements,
                               const std::vector<float>& sampled, const std::vector<Probe>& probes,
                               const std::vector<float>& c0, double alpha, double beta, int k) {
  adaexplore::Verification v;
  v.checked = elements;
  auto mismatch = [&v](std::size_t index, double g, double e) {
    if (v.mismatches++ == 0) {
      v.first_index = index;
      v.first_got = g;
      v.first_expected = e;
    }
  };
  if (bad.count) {
    mismatch(bad.first_index, bad.first_value, std::numeric_limits<double>::quiet_NaN());
    v.mismatches = bad.count;
    v.nan = bad.nan;  // the message says how many are NaN or infinite (describe)
    v.infinite = bad.count - bad.nan;
  }

  const double u = std::ldexp(1.0, -24);
  const double scale = std::sqrt(static_cast<double>(k) + 2.0) * u;
  double diff2 = 0, ref2 = 0, worst = -1;
  std::size_t worst_probe = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const Probe& p = probes[i];
    const double c = beta != 0 ? static_cast<double>(c0[p.index]) : 0.0;
    const double expected = alpha * p.dot + beta * c;
    const double g = sampled[i];
    ref2 += expected * expected;
    if (!std::isfinite(g)) continue;  // already counted
    const double err = std::fabs(g - expected);
    const double tol = 4.0 * scale * (std::fabs(alpha) * p.abs_sum + std::fabs(beta * c));
    v.max_abs_error = std::max(v.max_abs_error, err);
    if (expected != 0) v.max_rel_error = std::max(v.max_rel_error, err / std::fabs(expected));
    diff2 += err * err;
    if (err > worst) {
      worst = err;
      worst_probe = i;
    }
    if (!(err <= tol)) mismatch(p.index, g, expected);
  }
  v.rel_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (v.mismatches == 0 && v.rel_l2_error > 3.0 * scale) {
    const Probe& p = probes[worst_probe];
    const double c = beta != 0 ? static_cast<double>(c0[p.index]) : 0.0;
    mismatch(p.index, sampled[worst_probe], alpha * p.dot + beta * c);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  adaexplore::Benchmark bench(argc, argv);
  Shape s = parse_shape(bench.args());
  s.m = static_cast<int>(bench.size("M", s.m));
  s.n = static_cast<int>(bench.size("N", s.n));
  s.k = static_cast<int>(bench.size("K", s.k));
  if (s.m <= 0 || s.n <= 0 || s.k <= 0) {
    std::fprintf(stderr, "gemm_bench: --size, --m, --n and --k must be positive\n");
    return 64;
  }
  const std::size_t m = s.m, n = s.n, k = s.k;
  const float alpha = 1.5f, beta = -0.5f;

  auto a = bench.input<float>(m * k);
  auto b = bench.input<float>(k * n);
  auto c = bench.inout<float>(m * n);
  bench.flops(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));

  // The sample is drawn here, from bench.rng(), in every run; the double-precision reference (the
  // setup's largest part) is computed once per tuner runner and kept for later configurations
  // (Benchmark::once: it depends on the shape, the seed and the sample, not on the configuration).
  const std::vector<std::size_t> indices = sample_indices(s, bench.rng(), 4096);
  const std::vector<Probe>& probes = bench.once(
      "gemm reference " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k),
      [&] { return reference(s, std::as_const(a).host(), std::as_const(b).host(), indices); });

  float run_beta = beta;  // the verify lambda's second run uses beta = 0
#ifdef ADAEXPLORE_KERNEL_UNIT
  // The configuration's kernel, launched as tiled_sgemm::launch<Policy>() does.
  const adaexplore::Kernel sgemm = bench.kernel("tiled_sgemm::sgemm_kernel");
  const long long block_m = bench.param("BLOCK_M"), block_n = bench.param("BLOCK_N");
  const dim3 grid(static_cast<unsigned>((s.n + block_n - 1) / block_n), static_cast<unsigned>((s.m + block_m - 1) / block_m));
  const dim3 block(static_cast<unsigned>(bench.exported("threads")));
  const float* a_in = a.get();
  const float* b_in = b.get();
  auto launch = [&](cudaStream_t stream) {
    sgemm.launch(grid, block, 0, stream, s.m, s.n, s.k, alpha, a_in, s.k, b_in, s.n, run_beta, c.get(), s.n);
  };
#else
  const auto sgemm = tiled_sgemm::sgemm_kernel<gemm_tuning::Policy>;
  const dim3 block(gemm_tuning::Policy::kThreads);
  auto launch = [&](cudaStream_t stream) {
    gemm_tuning::launch(s.m, s.n, s.k, alpha, a.get(), s.k, b.get(), s.n, run_beta, c.get(), s.n, stream);
  };
#endif
  // Only the sample and the non-finite count come back from the device (Benchmark::gather,
  // Benchmark::nonfinite), not the 64 MiB of C.
  auto check_c = [&](double with_beta) {
    return check(bench.nonfinite(c), m * n, bench.gather(c, indices), probes, std::as_const(c).host(), alpha, with_beta,
                 s.k);
  };
  auto verify = [&] {
    adaexplore::Verification v = check_c(beta);
    if (!v.passed()) return v;
    // Every element written: NaN-poison C and run with beta = 0 (C must then not be read).
    bench.check(cudaMemsetAsync(c.get(), 0xFF, m * n * sizeof(float), bench.stream()),
                "cudaMemsetAsync(poison C)");
    run_beta = 0.0f;
    launch(bench.stream());
    run_beta = beta;
    bench.check(cudaGetLastError(), "kernel launch (beta = 0 run)");
    bench.check(cudaStreamSynchronize(bench.stream()), "kernel execution (beta = 0 run)");
    const adaexplore::Verification v0 = check_c(0.0);
    if (!v0.passed()) return v0;
    v.max_abs_error = std::max(v.max_abs_error, v0.max_abs_error);
    v.max_rel_error = std::max(v.max_rel_error, v0.max_rel_error);
    v.rel_l2_error = std::max(v.rel_l2_error, v0.rel_l2_error);
    return v;
  };
  // The driver's verdict on this configuration's block before any launch (more threads than the
  // kernel's registers allow is resource_limit, with the figures), and its occupancy in the record.
  bench.check_launch(sgemm, block, 0, "sgemm_kernel");
  return bench.run(launch, verify);
}
