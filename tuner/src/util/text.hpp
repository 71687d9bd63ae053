// Text helpers for diagnostics.
#pragma once

#include <cstddef>
#include <string>

namespace adaexplore {

/// Keeps the first and last `keep/2` characters of a long diagnostic, marking the cut.
std::string truncate_middle(const std::string& text, std::size_t keep = 8000);

}  // namespace adaexplore
