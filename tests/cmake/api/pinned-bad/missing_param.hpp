// A pinned header of another parameter set (no UNROLL).
// adaexplore: {"config":{"TILE":16},"namespace":"adaexplore::missing_param","parameters":["TILE"],"tuned":true}
#pragma once
namespace adaexplore::missing_param {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 16;
}
