// A pinned header whose machine line is JSON of the wrong shape: "config" a list, not {name: value}.
// adaexplore: {"config":[16,1],"namespace":"adaexplore::config_list","parameters":["TILE","UNROLL"],"tuned":true}
#pragma once
namespace adaexplore::config_list {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 16;
inline constexpr int UNROLL = 1;
}
