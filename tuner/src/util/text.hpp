// Text helpers for diagnostics.
#pragma once

#include <cstddef>
#include <string>

namespace adaexplore {

/// Keeps the first and last `keep/2` characters of a long diagnostic, marking the cut.
std::string truncate_middle(const std::string& text, std::size_t keep = 8000);

/// `text` made safe for one line of a C++ comment, a log or a progress line: line breaks and tabs
/// become spaces, other control characters (NUL, ESC, DEL, ...) the four characters \xNN, trailing
/// spaces go, and a backslash that would end the line is written \x5c (a // comment ending in one
/// continues on the next line).
std::string one_line_text(const std::string& text);

/// `text` as a C++ string literal, quotes included: " and \ escaped, line breaks \n and \r,
/// every other control character (NUL included) a three-digit octal escape.
std::string cpp_string_literal(const std::string& text);

}  // namespace adaexplore
