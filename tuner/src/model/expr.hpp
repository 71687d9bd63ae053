// Constraint expressions over tuning parameters.
//
// One grammar accepts both the product's own syntax (C-like) and Kernel Tuner's restriction
// syntax (Python boolean expressions), so spaces port without rewriting:
//
//   or-expr    := and-expr   { ("||" | "or")  and-expr }
//   and-expr   := not-expr   { ("&&" | "and") not-expr }
//   not-expr   := ("!" | "not") not-expr | comparison
//   comparison := sum { ("<"|"<="|">"|">="|"=="|"!=") sum }     (chained as in Python:
//                                                               a < b <= c  means a<b && b<=c)
//   sum        := product { ("+"|"-") product }
//   product    := unary { ("*"|"/"|"//"|"%") unary }
//   unary      := ("-"|"+") unary | power
//   power      := atom [ "**" unary ]                            (right associative)
//   atom       := number | identifier | "True" | "False" | "true" | "false"
//               | "'" string "'" | '"' string '"' | "(" or-expr ")"
//               | function "(" or-expr { "," or-expr } ")"
//   function   := "ceil" | "floor" | "round" | "int" | "abs" | "sqrt" | "log2" | "min" | "max"
//
// The functions (for launch shapes such as "ceil(N / (BLOCK * ITEMS))" and tolerances such as
// "4 * sqrt(K) * 2**-24"): ceil, floor, round (halves away from zero), int (towards zero, as
// Python's int()), abs, sqrt, log2 of one argument; min and max of one or more. sqrt of a
// negative number and log2 of one <= 0 are NaN. A function's name is not a parameter name: a
// parameter called `min` is read as the parameter unless followed by "(".
//
// Semantics: numbers are doubles (exact for the integers of any real search space). "/" is
// true division, "//" floor division, "%" the floored modulo of Python (result has the sign of
// the divisor). Division or modulo by zero yields NaN, and every comparison with NaN is false,
// so such a configuration violates the constraint instead of aborting the tuning. Strings are
// only compared for (in)equality with string-valued (categorical) parameters.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace adaexplore {

/// A value of a parameter or of an expression: a number, or a string for categorical values.
struct ExprValue {
  double number = 0.0;
  std::string text;
  bool is_string = false;
};

/// Thrown for malformed expressions and unknown identifiers. `what()` names the expression,
/// the column (1-based) and what was expected.
class ExprError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Expr {
 public:
  /// Parses `text`. Every identifier must be one of `known_names` (the parameters of the space);
  /// an unknown one is an ExprError that lists the known names.
  static Expr parse(const std::string& text, const std::vector<std::string>& known_names);

  /// Evaluates with `lookup(i)` giving the value of known_names[i].
  ExprValue evaluate(const std::function<ExprValue(std::size_t)>& lookup) const;

  /// True when the evaluated value is a non-zero number (or non-empty string).
  bool holds(const std::function<ExprValue(std::size_t)>& lookup) const;

  /// Indices (into known_names) of the parameters the expression reads, ascending, unique.
  const std::vector<std::size_t>& parameters() const { return parameters_; }
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::vector<std::size_t> parameters_;
  std::string text_;
};

}  // namespace adaexplore
