// Text helpers for diagnostics.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// Keeps the first and last `keep/2` characters of a long diagnostic, marking the cut. The cuts
/// fall between UTF-8 sequences, never inside one (a cut ‘quote’ of gcc's would be invalid text).
std::string truncate_middle(const std::string& text, std::size_t keep = 8000);

/// `text` as valid UTF-8, for JSON (nlohmann's dump throws type_error 316 on anything else): each
/// byte that is not part of a well-formed UTF-8 sequence (Latin-1 or Windows-1252 text, a cut
/// sequence, an overlong form, a surrogate) becomes the four characters \xNN, its value in
/// lower-case hex (Python's "backslashreplace": nothing is lost, and the reader sees which byte);
/// valid text is returned unchanged. Every text from outside the tuner (a compiler's or a
/// benchmark's output, a driver's message, a file's name or content) passes here before it reaches
/// an outcome, a record or a message: at read_captured (process.hpp), the benchmark's record
/// (program_outcome.cpp), the runner's replies (runner.cpp), and the JSON writers (valid_utf8_json).
std::string valid_utf8(std::string_view text);
/// JSON text whose strings may hold bytes that are not UTF-8 (the harness writes a benchmark's
/// messages byte for byte), made parseable: each such byte becomes \\xNN, which a JSON string
/// reads as the \xNN valid_utf8 gives (a bare \x would be an invalid escape).
std::string valid_utf8_json_text(std::string_view json);
/// Whether `text` is valid UTF-8 (valid_utf8 would return it unchanged).
bool is_valid_utf8(std::string_view text);
/// `j` with valid_utf8 applied to every string in it, keys included: the last guard of the JSON
/// writers (results records and header lines, profiles, the runner's replies), so that one byte
/// that came in another way never loses a measurement.
nlohmann::json valid_utf8_json(nlohmann::json j);
/// `text` made safe for one line of a C++ comment, a log or a progress line: line breaks and tabs
/// become spaces, other control characters (NUL, ESC, DEL, ...) the four characters \xNN, trailing
/// spaces go, and a backslash that would end the line is written \x5c (a // comment ending in one
/// continues on the next line).
std::string one_line_text(const std::string& text);

/// `n` and a noun, for messages: "1 configuration", "3 configurations", "0 configurations". The
/// plural is `singular` + "s" unless `plural` is given ("capability", "capabilities").
std::string counted(std::size_t n, std::string_view singular, std::string_view plural = {});

/// `text` as a C++ string literal, quotes included: " and \ escaped, line breaks \n and \r,
/// every other control character (NUL included) a three-digit octal escape.
std::string cpp_string_literal(const std::string& text);

}  // namespace adaexplore
