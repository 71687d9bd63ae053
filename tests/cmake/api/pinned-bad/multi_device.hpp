// A multi-device pinned header (adaexplore-tuner header), abridged, whose sm_80 entry has UNROLL 3.
// adaexplore: {"config":{"TILE":16,"UNROLL":1},"devices":[{"compute_capability":90,"config":{"TILE":32,"UNROLL":2}},{"compute_capability":80,"config":{"TILE":16,"UNROLL":3}}],"namespace":"adaexplore::multi_device","parameters":["TILE","UNROLL"],"tuned":false}
#pragma once
namespace adaexplore::multi_device {
struct Params {
  bool tuned;
  int TILE;
  int UNROLL;
};
ADAEXPLORE_HOST_DEVICE constexpr Params params_for(int cc) {
  if (cc == 90) return Params{true, 32, 2};  // NVIDIA H200, 1.5 ms
  if (cc == 80) return Params{true, 16, 3};  // NVIDIA A100, 2.5 ms
  return Params{false, 16, 1};  // the defaults
}
}  // namespace adaexplore::multi_device
