// A pinned header for the API cases.
// adaexplore: {"config":{"TILE":32,"UNROLL":2},"namespace":"adaexplore::pinned_kernel","parameters":["TILE","UNROLL"],"tuned":true}
#pragma once
namespace adaexplore::pinned_kernel {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 32;
inline constexpr int UNROLL = 2;
}
