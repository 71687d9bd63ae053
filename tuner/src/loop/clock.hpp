// The tuning loop's clock: the time limit, the wall times of prepares and measurements (the
// pipeline depth), the progress lines and TuneReport::wall_s read it. Injected
// (TuneOptions::clock) so that a test of a time limit or of how long an outcome waits advances a
// clock of its own instead of sleeping.
#pragma once

#include <chrono>

namespace adaexplore {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  /// Must be safe to call from several threads at once (the compile workers time their prepares).
  virtual time_point now() const = 0;
  /// Seconds from `t` to now().
  double seconds_since(time_point t) const { return std::chrono::duration<double>(now() - t).count(); }
};

/// std::chrono::steady_clock: the clock of every real tuning.
inline const Clock& steady_clock() {
  struct Steady final : Clock {
    time_point now() const override { return std::chrono::steady_clock::now(); }
  };
  static const Steady clock;
  return clock;
}

}  // namespace adaexplore
