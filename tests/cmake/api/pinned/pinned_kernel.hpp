// A pinned header for the API cases.
#pragma once
namespace adaexplore::pinned_kernel {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 32;
inline constexpr int UNROLL = 2;
}
