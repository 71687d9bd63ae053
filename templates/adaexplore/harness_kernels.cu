// The CUDA harness's kernels for a benchmark compiled as plain C++ (harness_kernels.cuh): the
// launchers instantiated for ADAEXPLORE_HARNESS_ELEMENT_TYPES, compiled once by nvcc (and cached,
// by content, across tunings) with the benchmark's own flags, and linked into the kernel unit's
// benchmark when the tuner compiles that benchmark with the host compiler alone.
#include "harness_kernels.cuh"

namespace adaexplore {
namespace detail {
#define ADAEXPLORE_INSTANTIATE(T)                                                                              \
  template cudaError_t launch_gather<T>(const T*, const unsigned long long*, T*, unsigned long long, unsigned, \
                                        cudaStream_t);                                                         \
  template cudaError_t launch_compare<T>(const T*, const T*, unsigned long long, double, double, ComparePartial*, \
                                         unsigned, cudaStream_t);
ADAEXPLORE_HARNESS_ELEMENT_TYPES(ADAEXPLORE_INSTANTIATE)
#undef ADAEXPLORE_INSTANTIATE
template cudaError_t launch_checksum<0>(const void*, unsigned long long, unsigned long long*, unsigned, cudaStream_t);
template cudaError_t launch_nonfinite<float>(const float*, unsigned long long, unsigned long long*, unsigned,
                                             cudaStream_t);
template cudaError_t launch_nonfinite<double>(const double*, unsigned long long, unsigned long long*, unsigned,
                                              cudaStream_t);
}  // namespace detail
}  // namespace adaexplore
