// A pinned header whose values are in PARAMS but violate the constraint BLOCK * ITEMS <= 1024.
// Kernel:      scale_over (backend cuda)
#pragma once
namespace adaexplore::scale_over {
inline constexpr bool kTuned = true;
inline constexpr int BLOCK = 512;
inline constexpr int ITEMS = 4;
}
