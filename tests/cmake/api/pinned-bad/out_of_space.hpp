// A pinned header with a value PARAMS does not list (TILE 48; PARAMS TILE 16 32).
// adaexplore: {"config":{"TILE":48,"UNROLL":1},"namespace":"adaexplore::out_of_space","parameters":["TILE","UNROLL"],"tuned":true}
#pragma once
namespace adaexplore::out_of_space {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 48;
inline constexpr int UNROLL = 1;
}
