#include "util/text.hpp"

#include <cstdio>

namespace adaexplore {

std::string truncate_middle(const std::string& text, std::size_t keep) {
  if (text.size() <= keep) return text;
  const std::size_t half = keep / 2;
  return text.substr(0, half) + "\n[... " + std::to_string(text.size() - 2 * half) + " characters cut ...]\n" +
         text.substr(text.size() - half);
}

namespace {

bool control(unsigned char c) { return c < 0x20 || c == 0x7f; }

std::string escaped(unsigned char c, const char* format) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, static_cast<unsigned>(c));
  return buf;
}

}  // namespace

std::string one_line_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (control(c)) out += escaped(c, "\\x%02x");
    else out += static_cast<char>(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (!out.empty() && out.back() == '\\') out.replace(out.size() - 1, 1, "\\x5c");
  return out;
}

std::string cpp_string_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (control(c)) out += escaped(c, "\\%03o");  // three digits: a digit after it stays a character
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

}  // namespace adaexplore
