// A pinned header of another parameter set (no UNROLL).
#pragma once
namespace adaexplore::missing_param {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 16;
}
