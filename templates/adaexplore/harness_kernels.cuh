// The CUDA harness's own kernels (Benchmark::gather, nonfinite and compare on the device, the
// checksum of the kernel unit's pristine copies) and the
// functions that launch them. Included by harness.cuh; a benchmark does not include it itself.
//
// Seen by nvcc (__CUDACC__), the kernels and their launchers are templates defined here, for any
// element type. Seen by the host compiler alone (a benchmark the tuner compiles as plain C++: its
// kernel unit's benchmark has no device code of its own, program_backend.cpp), the launchers are
// only declared, and their definitions come from harness_kernels.cu's object, compiled once by
// nvcc with explicit instantiations for ADAEXPLORE_HARNESS_ELEMENT_TYPES (and the floating-point
// ones for nonfinite). A benchmark that gathers or compares another element type does not link
// as plain C++, and the tuner then compiles it with nvcc.
//
// Each launcher launches on `stream` and returns cudaGetLastError() (the launch's error, if any);
// `blocks` is the grid size, chosen by the caller.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

// The element types harness_kernels.cu instantiates the launchers for: every arithmetic type a
// benchmark's buffers commonly have (char16_t, wchar_t and long double are left out).
#define ADAEXPLORE_HARNESS_ELEMENT_TYPES(X)                                                              \
  X(bool) X(char) X(signed char) X(unsigned char) X(short) X(unsigned short) X(int) X(unsigned) X(long) \
      X(unsigned long) X(long long) X(unsigned long long) X(float) X(double)

namespace adaexplore {
namespace detail {

// One block's share of compare_values()'s figures (harness_common.hpp), added on the host.
struct ComparePartial {
  unsigned long long mismatches;
  double max_abs, max_rel, diff2, ref2;
};
constexpr unsigned kCompareThreads = 256, kCompareBlocks = 1024;

// out[i] = in[index[i]] for i < n.
template <typename T>
cudaError_t launch_gather(const T* in, const unsigned long long* index, T* out, unsigned long long n,
                          unsigned blocks, cudaStream_t stream);
// The NaN and infinite elements of in[0, n): counts[0] += their number, counts[1] = min(counts[1],
// the lowest index of one), counts[2] += the NaN among them. counts[0] must start at 0, counts[1]
// at n, counts[2] at 0. T float or double.
template <typename T>
cudaError_t launch_nonfinite(const T* in, unsigned long long n, unsigned long long* counts, unsigned blocks,
                             cudaStream_t stream);
// compare_values()'s figures for got[0, n) against expected[0, n), one ComparePartial per block
// into partials[0, blocks) (blocks <= kCompareBlocks, kCompareThreads threads each), with the same
// double operations as the host (no fused multiply-add: _rn intrinsics), so that "every element
// within the tolerance" is decided exactly as on the host.
template <typename T>
cudaError_t launch_compare(const T* got, const T* expected, unsigned long long n, double abs_tol, double rel_tol,
                           ComparePartial* partials, unsigned blocks, cudaStream_t stream);
// A checksum of the bytes data[0, bytes) added to *sum (which must start at 0): the sum, modulo
// 2^64, of a 64-bit mix (splitmix64) of each 8-byte word and its position, the last word
// zero-padded; any change of the bytes changes it but with a chance of 2^-64. The kernel unit's
// pristine input copies are checked with it before a later configuration reuses them
// (Benchmark::made). `data` 8-byte aligned (cudaMalloc's are). One instantiation, I = 0.
template <int I = 0>
cudaError_t launch_checksum(const void* data, unsigned long long bytes, unsigned long long* sum, unsigned blocks,
                            cudaStream_t stream);

#ifdef __CUDACC__
template <typename T>
__global__ void gather_kernel(const T* in, const unsigned long long* index, T* out, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x)
    out[i] = in[index[i]];
}

template <typename T>
__global__ void nonfinite_kernel(const T* in, unsigned long long n, unsigned long long* counts) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x)
    if (!isfinite(in[i])) {
      atomicAdd(&counts[0], 1ull);
      atomicMin(&counts[1], i);
      if (isnan(in[i])) atomicAdd(&counts[2], 1ull);
    }
}

__device__ inline void combine(ComparePartial& a, const ComparePartial& b) {
  a.mismatches += b.mismatches;
  a.max_abs = a.max_abs < b.max_abs ? b.max_abs : a.max_abs;
  a.max_rel = a.max_rel < b.max_rel ? b.max_rel : a.max_rel;
  a.diff2 = __dadd_rn(a.diff2, b.diff2);
  a.ref2 = __dadd_rn(a.ref2, b.ref2);
}
// x as a double, exactly, whatever the flags: nvcc's -ftz=true (and --use_fast_math) turns a
// float's conversion into cvt.ftz.f64.f32, which flushes subnormals to 0; the host does not.
template <typename T>
__device__ inline double exact_double(T x) {
  if constexpr (std::is_same<T, float>::value) {
    double d;
    asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
    return d;
  } else {
    return static_cast<double>(x);
  }
}
template <typename T>
__global__ void __launch_bounds__(kCompareThreads)
    compare_kernel(const T* got, const T* expected, unsigned long long n, double abs_tol, double rel_tol,
                   ComparePartial* partials) {
  ComparePartial p{0, 0, 0, 0, 0};
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x) {
    const double g = exact_double(got[i]), e = exact_double(expected[i]);
    const double err = fabs(__dsub_rn(g, e));
    const bool bad = !isfinite(g) || !(err <= __dadd_rn(abs_tol, __dmul_rn(rel_tol, fabs(e))));
    if (isfinite(g)) {
      p.max_abs = p.max_abs < err ? err : p.max_abs;
      if (e != 0) {
        const double rel = __ddiv_rn(err, fabs(e));
        p.max_rel = p.max_rel < rel ? rel : p.max_rel;
      }
      p.diff2 = __dadd_rn(p.diff2, __dmul_rn(err, err));
    }
    p.ref2 = __dadd_rn(p.ref2, __dmul_rn(e, e));
    if (bad) ++p.mismatches;
  }
  __shared__ ComparePartial shared[kCompareThreads];
  shared[threadIdx.x] = p;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) combine(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

__device__ inline unsigned long long checksum_mix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
template <int I>
__global__ void checksum_kernel(const unsigned char* data, unsigned long long bytes, unsigned long long* sum) {
  const unsigned long long words = (bytes + 7) / 8;
  unsigned long long s = 0;
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < words; i += 1ull * gridDim.x * blockDim.x) {
    unsigned long long w = 0;
    if (8 * i + 8 <= bytes) {
      w = reinterpret_cast<const unsigned long long*>(data)[i];
    } else {
      for (unsigned long long b = 8 * i; b < bytes; ++b) w |= static_cast<unsigned long long>(data[b]) << (8 * (b - 8 * i));
    }
    s += checksum_mix(w ^ checksum_mix(i));
  }
  atomicAdd(sum, s);
}

template <int I>
cudaError_t launch_checksum(const void* data, unsigned long long bytes, unsigned long long* sum, unsigned blocks,
                            cudaStream_t stream) {
  checksum_kernel<I><<<blocks, 256, 0, stream>>>(static_cast<const unsigned char*>(data), bytes, sum);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_gather(const T* in, const unsigned long long* index, T* out, unsigned long long n,
                          unsigned blocks, cudaStream_t stream) {
  gather_kernel<T><<<blocks, 256, 0, stream>>>(in, index, out, n);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_nonfinite(const T* in, unsigned long long n, unsigned long long* counts, unsigned blocks,
                             cudaStream_t stream) {
  static_assert(std::is_floating_point<T>::value, "nonfinite(): float or double buffers");
  nonfinite_kernel<T><<<blocks, 256, 0, stream>>>(in, n, counts);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_compare(const T* got, const T* expected, unsigned long long n, double abs_tol, double rel_tol,
                           ComparePartial* partials, unsigned blocks, cudaStream_t stream) {
  compare_kernel<T><<<blocks, kCompareThreads, 0, stream>>>(got, expected, n, abs_tol, rel_tol, partials);
  return cudaGetLastError();
}
#endif  // __CUDACC__

}  // namespace detail
}  // namespace adaexplore
