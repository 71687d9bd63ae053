// A pinned header for the API cases, given as PINNED_HEADER (not in the pinned folder).
// adaexplore: {"config":{"TILE":16,"UNROLL":2},"namespace":"adaexplore::explicit_pin","parameters":["TILE","UNROLL"],"tuned":true}
#pragma once
namespace adaexplore::explicit_pin {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 16;
inline constexpr int UNROLL = 2;
}
