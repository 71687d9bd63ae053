// The library side of the example: the kernel the tuner measured, instantiated with the constants
// of the generated header.
#include "host_matmul.hpp"

#include <adaexplore/host_matmul.hpp>

#include "kernels/blocked_matmul.hpp"

namespace host_matmul {
namespace {
namespace tuned = adaexplore::host_matmul;
using TunedPolicy = Policy<tuned::TILE_M, tuned::TILE_N, tuned::TILE_K, tuned::UNROLL>;
}  // namespace

void multiply(const float* a, const float* b, float* c, std::size_t n) {
  matmul<TunedPolicy>(a, b, c, n);
}

Blocking blocking() {
  return {tuned::kTuned, tuned::TILE_M, tuned::TILE_N, tuned::TILE_K, tuned::UNROLL};
}

}  // namespace host_matmul
