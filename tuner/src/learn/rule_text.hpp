// Wording shared by the knowledge base's explanations: conditions on parameter values and
// numbers, as people write them ("TILE >= 64", "4.1*TILE^2", "0.83").
#pragma once

#include <string>

#include "model/space.hpp"

namespace adaexplore {

/// The condition "value index in [lo, hi]" on `p`: "TILE = 64", "TILE >= 64", "TILE <= 32",
/// "16 <= TILE <= 64" when the values are numbers in ascending order; otherwise the values are
/// listed ("LAYOUT in {row, tiled}"). `lo`/`hi` are clamped to the value list.
std::string describe_range(const Parameter& p, int lo, int hi);

/// True when every value of `p` is a number and they ascend in the listed order, so that index
/// order is numeric order and "at least" reads naturally.
bool ascending_numbers(const Parameter& p);

/// A number for people: up to `digits` significant digits, no exponent for ordinary sizes.
std::string format_number(double v, int digits = 3);

}  // namespace adaexplore
