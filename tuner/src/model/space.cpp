#include "model/space.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>

namespace adaexplore {

Value Value::from_number(double v) {
  Value r;
  r.number = v;
  r.numeric = true;
  char buf[64];
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    // The shortest text that reads back as the same double: 0.1, not 0.10000000000000001.
    for (int precision = 15; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
  }
  r.text = buf;
  return r;
}

Value Value::from_text(const std::string& text) {
  Value r;
  r.text = text;
  char* end = nullptr;
  r.number = std::strtod(text.c_str(), &end);
  // Numeric only when the whole text is a finite number as written: " 64", "inf" and "nan" are text.
  r.numeric = !text.empty() && end == text.c_str() + text.size() && !std::isspace(static_cast<unsigned char>(text[0])) &&
              std::isfinite(r.number);
  if (!r.numeric) r.number = 0.0;
  return r;
}

ExprValue Value::as_expr() const {
  ExprValue v;
  if (numeric) {
    v.number = number;
  } else {
    v.is_string = true;
    v.text = text;
  }
  return v;
}

std::size_t ConfigHash::operator()(const Config& c) const noexcept {
  std::size_t h = 1469598103934665603ull;
  for (auto v : c) h = (h ^ v) * 1099511628211ull;
  return h;
}

Space::Space(std::vector<Parameter> parameters, const std::vector<std::string>& constraints)
    : parameters_(std::move(parameters)) {
  std::set<std::string> seen;
  for (const auto& p : parameters_) {
    if (p.values.empty()) throw std::invalid_argument("parameter " + p.name + " has no values");
    if (p.values.size() > 65535) throw std::invalid_argument("parameter " + p.name + " has more than 65535 values");
    if (!seen.insert(p.name).second) throw std::invalid_argument("parameter " + p.name + " is declared twice");
    std::set<std::string> texts;
    std::set<double> numbers;  // "32" and "32.0" are one value to constraints and the results file
    for (const auto& v : p.values)
      if (!texts.insert(v.text).second || (v.numeric && !numbers.insert(v.number).second))
        throw std::invalid_argument("parameter " + p.name + " lists the value " + v.text + " twice");
  }
  const auto known = names();
  for (const auto& c : constraints) constraints_.push_back(Expr::parse(c, known));
}

std::vector<std::string> Space::names() const {
  std::vector<std::string> n;
  for (const auto& p : parameters_) n.push_back(p.name);
  return n;
}

double Space::cartesian_size() const {
  double n = 1;
  for (const auto& p : parameters_) n *= static_cast<double>(p.values.size());
  return n;
}

std::optional<std::size_t> Space::index_of(const std::string& parameter) const {
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].name == parameter) return i;
  return std::nullopt;
}

const Expr* Space::first_violated(const Config& c) const {
  auto lookup = [&](std::size_t i) { return value(c, i).as_expr(); };
  for (const auto& e : constraints_)
    if (!e.holds(lookup)) return &e;
  return nullptr;
}

bool Space::satisfies(const Config& c) const { return first_violated(c) == nullptr; }

void Space::check_enumerable(double limit) const {
  if (cartesian_size() > limit)
    throw std::length_error("the search space has " + std::to_string(cartesian_size()) +
                            " configurations before constraints, more than can be enumerated (" +
                            std::to_string(limit) + ")");
}

bool Space::advance(Config& c) const {
  for (std::size_t i = parameters_.size(); i > 0; --i) {
    if (++c[i - 1] < parameters_[i - 1].values.size()) return true;
    c[i - 1] = 0;
  }
  return false;
}

std::vector<Config> Space::enumerate_valid(double limit) const {
  check_enumerable(limit);
  std::vector<Config> out;
  if (parameters_.empty()) return out;
  Config c(parameters_.size(), 0);
  do {
    if (satisfies(c)) out.push_back(c);
  } while (advance(c));
  return out;
}

std::optional<Config> Space::first_valid(double limit) const {
  check_enumerable(limit);
  if (parameters_.empty()) return std::nullopt;
  Config c(parameters_.size(), 0);
  do {
    if (satisfies(c)) return c;
  } while (advance(c));
  return std::nullopt;
}

std::optional<Config> Space::sample_valid(std::mt19937_64& rng, int attempts) const {
  Config c(parameters_.size());
  for (int a = 0; a < attempts; ++a) {
    for (std::size_t i = 0; i < parameters_.size(); ++i)
      c[i] = static_cast<std::uint16_t>(std::uniform_int_distribution<std::size_t>(0, parameters_[i].values.size() - 1)(rng));
    if (satisfies(c)) return c;
  }
  return std::nullopt;
}

Config Space::config_from_texts(const std::vector<std::pair<std::string, std::string>>& assignment) const {
  Config c(parameters_.size(), 0);
  std::vector<bool> set(parameters_.size(), false);
  for (const auto& [name, text] : assignment) {
    auto i = index_of(name);
    if (!i) throw std::invalid_argument("unknown parameter " + name);
    if (set[*i]) throw std::invalid_argument("parameter " + name + " is given twice");
    const auto& values = parameters_[*i].values;
    const Value wanted = Value::from_text(text);
    std::size_t k = 0;
    for (; k < values.size(); ++k)
      if (values[k].text == text || (wanted.numeric && values[k].numeric && values[k].number == wanted.number)) break;
    if (k == values.size()) {
      std::string list;
      for (const auto& v : values) list += (list.empty() ? "" : " ") + v.text;
      throw std::invalid_argument("value " + text + " is not among the values of " + name + " (" + list + ")");
    }
    c[*i] = static_cast<std::uint16_t>(k);
    set[*i] = true;
  }
  for (std::size_t i = 0; i < set.size(); ++i)
    if (!set[i]) throw std::invalid_argument("no value given for parameter " + parameters_[i].name);
  return c;
}

std::string Space::label(const Config& c) const {
  std::string s;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (i) s += ',';
    s += parameters_[i].name + '=' + value(c, i).text;
  }
  return s;
}

double Space::distance(const Config& a, const Config& b) const {
  if (parameters_.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const double span = static_cast<double>(parameters_[i].values.size() - 1);
    if (span > 0) sum += std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) / span;
  }
  return sum / static_cast<double>(parameters_.size());
}

}  // namespace adaexplore
