// The library: the three kernels instantiated with the generated headers' values (tuned, pinned
// or the defaults).
#include <adaexplore/add.hpp>
#include <adaexplore/saxpy.hpp>
#include <adaexplore/scale.hpp>

#include "elementwise.hpp"

void saxpy(float a, const float* x, float* y, std::size_t n) {
  elementwise::apply<adaexplore::saxpy::UNROLL, adaexplore::saxpy::BLOCK>(
      n, [&](std::size_t i) { y[i] = a * x[i] + y[i]; });
}

void scale(float a, const float* x, float* y, std::size_t n) {
  elementwise::apply<adaexplore::scale::UNROLL, adaexplore::scale::BLOCK>(n, [&](std::size_t i) { y[i] = a * x[i]; });
}

void add(const float* x, const float* y, float* z, std::size_t n) {
  elementwise::apply<adaexplore::add::UNROLL, adaexplore::add::BLOCK>(n, [&](std::size_t i) { z[i] = x[i] + y[i]; });
}
