// "Failures line up with one parameter value": a summary the tuner prints at the end of a
// tuning, so that a systematic failure (a template bug at VEC=4, a crash at the largest block)
// is read as such rather than as bad luck.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

/// Lines, in parameter and value order:
///   "every VEC=4 configuration is wrong_result (12 of 12)"
///   "every BLOCK=1024 configuration failed (9 of 9: crash 5, launch_error 4)"
///   "all 7 crash failures have BLOCK=1024 (7 of 9 BLOCK=1024 evaluations)"
/// A value needs at least `min_count` evaluations, a status at least `min_count` failures; a
/// value every evaluation shares (a one-value parameter) says nothing and is left out.
std::vector<std::string> failure_alignment(const Space& space, const std::vector<Outcome>& outcomes,
                                           std::size_t min_count = 3);

}  // namespace adaexplore
