#include "util/text.hpp"

#include <cstdio>

namespace adaexplore {
namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the byte there starts none.
std::size_t sequence_at(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, low = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) n = 3;
  else if (c == 0xED) n = 3, high = 0x9F;  // no surrogates
  else if (c >= 0xEE && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, low = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, high = 0x8F;
  else return 0;
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (!continuation(byte(i + k))) return 0;
  return n;
}

}  // namespace

std::string truncate_middle(const std::string& text, std::size_t keep) {
  if (text.size() <= keep) return text;
  const std::size_t half = keep / 2;
  std::size_t head = half, tail = text.size() - half;  // keep [0, head) and [tail, size)
  while (head > 0 && continuation(static_cast<unsigned char>(text[head]))) --head;
  while (tail < text.size() && continuation(static_cast<unsigned char>(text[tail]))) ++tail;
  return text.substr(0, head) + "\n[... " + std::to_string(tail - head) + " characters cut ...]\n" + text.substr(tail);
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_at(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// valid_utf8 with `escape` before each bad byte's two hex digits.
static std::string replace_bad_bytes(std::string_view text, const char* escape) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = sequence_at(text, i)) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(text[i]));
    out += escape;
    out += hex;
    ++i;
  }
  return out;
}

std::string valid_utf8(std::string_view text) { return replace_bad_bytes(text, "\\x"); }

std::string valid_utf8_json_text(std::string_view json) { return replace_bad_bytes(json, "\\\\x"); }

nlohmann::json valid_utf8_json(nlohmann::json j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (!is_valid_utf8(s)) j = valid_utf8(s);
    return j;
  }
  if (j.is_array()) {
    for (auto& e : j) e = valid_utf8_json(std::move(e));
    return j;
  }
  if (!j.is_object()) return j;
  bool keys_valid = true;
  for (auto it = j.begin(); it != j.end(); ++it) keys_valid = keys_valid && is_valid_utf8(it.key());
  if (keys_valid) {
    for (auto it = j.begin(); it != j.end(); ++it) *it = valid_utf8_json(std::move(*it));
    return j;
  }
  nlohmann::json out = nlohmann::json::object();
  for (auto it = j.begin(); it != j.end(); ++it) out[valid_utf8(it.key())] = valid_utf8_json(it.value());
  return out;
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

std::string counted(std::size_t n, std::string_view singular, std::string_view plural) {
  std::string s = std::to_string(n) + " ";
  if (n == 1)
    s += singular;
  else if (!plural.empty())
    s += plural;
  else
    (s += singular) += "s";
  return s;
}

}  // namespace adaexplore
