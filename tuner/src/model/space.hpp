// The search space: parameters with ordered value lists, constraint expressions over them, and
// the configurations (one value per parameter) that satisfy every constraint.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "model/expr.hpp"

namespace adaexplore {

/// One value of a parameter as written in the spec: its text (substituted into templates
/// verbatim) and, when numeric, its number (used by constraints and distances).
struct Value {
  std::string text;
  double number = 0.0;
  bool numeric = true;

  static Value from_number(double v);
  static Value from_text(const std::string& text);  // numeric when the whole text parses as one
  ExprValue as_expr() const;
  bool operator==(const Value& o) const { return text == o.text; }
};

struct Parameter {
  std::string name;
  std::vector<Value> values;  // ordered; ordinal parameters keep spec order (distance = index gap)
};

/// A configuration: for each parameter (in space order) the index of its value.
using Config = std::vector<std::uint16_t>;

struct ConfigHash {
  std::size_t operator()(const Config& c) const noexcept;
};

class Space {
 public:
  Space() = default;
  /// Throws std::invalid_argument for an empty/duplicate parameter or value list, and ExprError
  /// for a constraint that does not parse or names an unknown parameter.
  Space(std::vector<Parameter> parameters, const std::vector<std::string>& constraints);

  const std::vector<Parameter>& parameters() const { return parameters_; }
  const std::vector<Expr>& constraints() const { return constraints_; }
  std::vector<std::string> names() const;
  std::size_t dimension() const { return parameters_.size(); }
  /// Number of configurations of the Cartesian product (before constraints), saturating.
  double cartesian_size() const;

  std::optional<std::size_t> index_of(const std::string& parameter) const;
  const Value& value(const Config& c, std::size_t parameter) const { return parameters_[parameter].values[c[parameter]]; }

  /// True when every constraint holds.
  bool satisfies(const Config& c) const;
  /// The first constraint that does not hold, if any.
  const Expr* first_violated(const Config& c) const;

  /// Every valid configuration, in lexicographic index order. Throws std::length_error when the
  /// Cartesian product exceeds `limit`.
  std::vector<Config> enumerate_valid(double limit = 2e7) const;
  /// The first valid configuration in that order, found without storing the space; std::nullopt
  /// when there is none. Throws std::length_error when the Cartesian product exceeds `limit`.
  std::optional<Config> first_valid(double limit = 2e7) const;

  /// A uniformly random valid configuration by rejection (at most `attempts` draws).
  std::optional<Config> sample_valid(std::mt19937_64& rng, int attempts = 10000) const;

  /// Finds the configuration whose values have these texts; error names the parameter/value.
  Config config_from_texts(const std::vector<std::pair<std::string, std::string>>& assignment) const;

  /// "TILE_M=64,TILE_N=32": stable and unique, used as a key in results files and logs.
  std::string label(const Config& c) const;

  /// Normalized distance in [0, 1]: the mean over parameters of |index difference| / (values - 1).
  double distance(const Config& a, const Config& b) const;

 private:
  /// The next configuration in lexicographic index order; false after the last one.
  bool advance(Config& c) const;
  void check_enumerable(double limit) const;

  std::vector<Parameter> parameters_;
  std::vector<Expr> constraints_;
};

}  // namespace adaexplore
