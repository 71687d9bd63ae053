// A pinned header of one problem size (no // Sizes: line), abridged.
// adaexplore: {"config":{"TILE":32,"UNROLL":2},"namespace":"adaexplore::sizes_missing","parameters":["TILE","UNROLL"],"tuned":true}
#pragma once
namespace adaexplore::sizes_missing {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 32;
inline constexpr int UNROLL = 2;
}
