// A pinned header that fits the CheckPasses call.
// Kernel:      scale_ok (backend cuda)
#pragma once
namespace adaexplore::scale_ok {
inline constexpr bool kTuned = true;
inline constexpr int BLOCK = 256;
inline constexpr int ITEMS = 4;
}
