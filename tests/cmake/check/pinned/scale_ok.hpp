// A pinned header that fits the CheckPasses call.
// Kernel:      scale_ok (backend cuda)
// adaexplore: {"backend":"cuda","config":{"BLOCK":256,"ITEMS":4},"kernel":"scale_ok","namespace":"adaexplore::scale_ok","parameters":["BLOCK","ITEMS"],"tuned":true}
#pragma once
namespace adaexplore::scale_ok {
inline constexpr bool kTuned = true;
inline constexpr int BLOCK = 256;
inline constexpr int ITEMS = 4;
}
