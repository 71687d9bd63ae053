// The heartbeats of a tuning over MPI (cluster.hpp): how often each side sends one, and the
// seconds between two instants of the steady clock they are timed by.
#pragma once

#include <algorithm>
#include <chrono>

namespace adaexplore {

using HeartbeatClock = std::chrono::steady_clock;

/// Every second; a quarter of the timeout when that is shorter (at least 50 ms), so that a short
/// --mpi-timeout (tests) still sees several heartbeats before it declares a rank lost.
inline double heartbeat_every_s(double timeout_s) { return std::clamp(timeout_s / 4, 0.05, 1.0); }

inline double seconds_between(HeartbeatClock::time_point a, HeartbeatClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace adaexplore
