#include "learn/rule_text.hpp"

#include <algorithm>
#include <cstdio>

namespace adaexplore {

bool ascending_numbers(const Parameter& p) {
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    if (!p.values[i].numeric) return false;
    if (i > 0 && !(p.values[i - 1].number < p.values[i].number)) return false;
  }
  return true;
}

std::string describe_range(const Parameter& p, int lo, int hi) {
  const int last = static_cast<int>(p.values.size()) - 1;
  lo = std::clamp(lo, 0, last);
  hi = std::clamp(hi, lo, last);
  const auto& v = p.values;
  if (lo == hi) return p.name + " = " + v[lo].text;
  if (ascending_numbers(p)) {
    if (lo == 0 && hi == last) return p.name + " any";
    if (lo == 0) return p.name + " <= " + v[hi].text;
    if (hi == last) return p.name + " >= " + v[lo].text;
    return v[lo].text + " <= " + p.name + " <= " + v[hi].text;
  }
  std::string list;
  for (int i = lo; i <= hi; ++i) list += (i > lo ? ", " : "") + v[i].text;
  return p.name + " in {" + list + "}";
}

std::string format_number(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace adaexplore
