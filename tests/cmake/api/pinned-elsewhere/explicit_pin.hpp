// A pinned header for the API cases, given as PINNED_HEADER (not in the pinned folder).
#pragma once
namespace adaexplore::explicit_pin {
inline constexpr bool kTuned = true;
inline constexpr int TILE = 16;
inline constexpr int UNROLL = 2;
}
