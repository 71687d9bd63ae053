// A pinned header of one problem size (no // Sizes: line), abridged.
#pragma once
namespace adaexplore::sizes_missing {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 32;
inline constexpr int UNROLL = 2;
}
