// The library: the kernel instantiated with the generated header's values.
#include <adaexplore/saxpy.hpp>

#include "saxpy_kernel.hpp"

static_assert(adaexplore::saxpy::kTuned, "the host backend tunes on any machine");

void saxpy(float a, const float* x, float* y, std::size_t n) {
  saxpy_kernel::run<adaexplore::saxpy::UNROLL, adaexplore::saxpy::BLOCK>(a, x, y, n);
}
