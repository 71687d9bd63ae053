// A pinned header whose values are in PARAMS but violate the constraint BLOCK * ITEMS <= 1024.
// Kernel:      scale_over (backend cuda)
// adaexplore: {"backend":"cuda","config":{"BLOCK":512,"ITEMS":4},"kernel":"scale_over","namespace":"adaexplore::scale_over","parameters":["BLOCK","ITEMS"],"tuned":true}
#pragma once
namespace adaexplore::scale_over {
inline constexpr bool kTuned = true;
inline constexpr int BLOCK = 512;
inline constexpr int ITEMS = 4;
}
