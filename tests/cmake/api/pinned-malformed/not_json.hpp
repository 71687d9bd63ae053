// A pinned header whose machine line is not JSON (cut off by hand).
// adaexplore: {"config":{"TILE":16,"UNROLL":1},"namespace":"adaexplore::not_json"
#pragma once
namespace adaexplore::not_json {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 16;
inline constexpr int UNROLL = 1;
}
