#include "model/expr.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace adaexplore {

enum class Op {
  number, string, variable,
  neg, logical_not,
  add, sub, mul, div, floordiv, mod, pow,
  lt, le, gt, ge, eq, ne,
  logical_and, logical_or,
  chain,  // Python chained comparison: children are pairwise comparisons joined by "and"
  call,   // a function of kFunctions, `variable` its index
};

// The functions an expression may call (the grammar's `call`), for launch shapes and tolerances:
// ceil(x), floor(x), round(x) (halves away from zero), int(x) (towards zero, as Python's int),
// abs(x), sqrt(x), log2(x), min(x, y, ...), max(x, y, ...). A wrong argument count is an ExprError.
struct Function {
  const char* name;
  std::size_t min_args, max_args;  // max_args 0: any number >= min_args
};
constexpr Function kFunctions[] = {{"ceil", 1, 1}, {"floor", 1, 1}, {"round", 1, 1}, {"int", 1, 1}, {"abs", 1, 1},
                                   {"sqrt", 1, 1}, {"log2", 1, 1},  {"min", 1, 0},   {"max", 1, 0}};

struct Expr::Node {
  Op op = Op::number;
  ExprValue literal;
  std::size_t variable = 0;
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;

NodePtr make_node(Op op, std::vector<NodePtr> children) {
  auto n = std::make_shared<Expr::Node>();
  n->op = op;
  n->children = std::move(children);
  return n;
}

struct Token {
  enum Kind { end, numeral, identifier, string, symbol } kind = end;
  std::string text;
  double number = 0.0;
  std::size_t column = 0;  // 1-based
};

class Lexer {
 public:
  explicit Lexer(const std::string& text) : text_(text) {}

  std::vector<Token> tokenize() {
    std::vector<Token> tokens;
    while (true) {
      skip_space();
      Token t;
      t.column = pos_ + 1;
      if (pos_ >= text_.size()) {
        tokens.push_back(t);
        return tokens;
      }
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && pos_ + 1 < text_.size() &&
                                                          std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
        t.kind = Token::numeral;
        std::size_t used = 0;
        t.number = std::stod(text_.substr(pos_), &used);
        t.text = text_.substr(pos_, used);
        pos_ += used;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.kind = Token::identifier;
        std::size_t start = pos_;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
          ++pos_;
        t.text = text_.substr(start, pos_ - start);
      } else if (c == '\'' || c == '"') {
        t.kind = Token::string;
        std::size_t close = text_.find(c, pos_ + 1);
        if (close == std::string::npos) fail("unterminated string literal", pos_ + 1);
        t.text = text_.substr(pos_ + 1, close - pos_ - 1);
        pos_ = close + 1;
      } else {
        t.kind = Token::symbol;
        static const char* const two[] = {"<=", ">=", "==", "!=", "&&", "||", "//", "**"};
        t.text = std::string(1, c);
        for (const char* s : two)
          if (text_.compare(pos_, 2, s) == 0) t.text = s;
        static const std::string singles = "+-*/%<>()!,";
        if (t.text.size() == 1 && singles.find(c) == std::string::npos)
          fail(std::string("unexpected character '") + c + "'", pos_ + 1);
        pos_ += t.text.size();
      }
      tokens.push_back(t);
    }
  }

  [[noreturn]] void fail(const std::string& what, std::size_t column) const {
    throw ExprError("constraint \"" + text_ + "\", column " + std::to_string(column) + ": " + what);
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  const std::string& text_;
  std::size_t pos_ = 0;
};

class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& names)
      : text_(text), names_(names), lexer_(text), tokens_(lexer_.tokenize()) {}

  NodePtr parse_all() {
    NodePtr n = parse_or();
    if (peek().kind != Token::end) fail("unexpected '" + peek().text + "' after a complete expression");
    return n;
  }

  std::set<std::size_t> used;

 private:
  const Token& peek() const { return tokens_[index_]; }
  Token next() { return tokens_[index_++]; }
  bool accept_symbol(const char* s) {
    if (peek().kind == Token::symbol && peek().text == s) return ++index_, true;
    return false;
  }
  bool accept_word(const char* s) {
    if (peek().kind == Token::identifier && peek().text == s) return ++index_, true;
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const { lexer_.fail(what, peek().column); }

  NodePtr parse_or() {
    NodePtr left = parse_and();
    while (accept_symbol("||") || accept_word("or")) left = make_node(Op::logical_or, {left, parse_and()});
    return left;
  }
  NodePtr parse_and() {
    NodePtr left = parse_not();
    while (accept_symbol("&&") || accept_word("and")) left = make_node(Op::logical_and, {left, parse_not()});
    return left;
  }
  NodePtr parse_not() {
    if (accept_symbol("!") || accept_word("not")) return make_node(Op::logical_not, {parse_not()});
    return parse_comparison();
  }
  NodePtr parse_comparison() {
    NodePtr first = parse_sum();
    std::vector<NodePtr> pairs;
    NodePtr left = first;
    while (true) {
      static const std::pair<const char*, Op> ops[] = {{"<=", Op::le}, {">=", Op::ge}, {"<", Op::lt},
                                                       {">", Op::gt},  {"==", Op::eq}, {"!=", Op::ne}};
      bool matched = false;
      for (const auto& [sym, op] : ops) {
        if (accept_symbol(sym)) {
          NodePtr right = parse_sum();
          pairs.push_back(make_node(op, {left, right}));
          left = right;
          matched = true;
          break;
        }
      }
      if (!matched) break;
    }
    if (pairs.empty()) return first;
    if (pairs.size() == 1) return pairs.front();
    return make_node(Op::chain, pairs);
  }
  NodePtr parse_sum() {
    NodePtr left = parse_product();
    while (true) {
      if (accept_symbol("+")) left = make_node(Op::add, {left, parse_product()});
      else if (accept_symbol("-")) left = make_node(Op::sub, {left, parse_product()});
      else return left;
    }
  }
  NodePtr parse_product() {
    NodePtr left = parse_unary();
    while (true) {
      if (accept_symbol("*")) left = make_node(Op::mul, {left, parse_unary()});
      else if (accept_symbol("//")) left = make_node(Op::floordiv, {left, parse_unary()});
      else if (accept_symbol("/")) left = make_node(Op::div, {left, parse_unary()});
      else if (accept_symbol("%")) left = make_node(Op::mod, {left, parse_unary()});
      else return left;
    }
  }
  NodePtr parse_unary() {
    if (accept_symbol("-")) return make_node(Op::neg, {parse_unary()});
    if (accept_symbol("+")) return parse_unary();
    return parse_power();
  }
  NodePtr parse_power() {
    NodePtr base = parse_atom();
    if (accept_symbol("**")) return make_node(Op::pow, {base, parse_unary()});
    return base;
  }
  NodePtr parse_atom() {
    const Token& t = peek();
    auto n = std::make_shared<Expr::Node>();
    switch (t.kind) {
      case Token::numeral:
        n->literal.number = next().number;
        return n;
      case Token::string:
        n->op = Op::string;
        n->literal.is_string = true;
        n->literal.text = next().text;
        return n;
      case Token::identifier: {
        if (t.text == "True" || t.text == "true" || t.text == "False" || t.text == "false") {
          const std::string word = next().text;
          n->literal.number = (word == "True" || word == "true") ? 1.0 : 0.0;
          return n;
        }
        if (tokens_[index_ + 1].kind == Token::symbol && tokens_[index_ + 1].text == "(") return parse_call();
        auto it = std::find(names_.begin(), names_.end(), t.text);
        if (it == names_.end()) {
          std::string known;
          for (const auto& name : names_) known += (known.empty() ? "" : ", ") + name;
          fail("unknown parameter '" + t.text + "' (parameters of this space: " + known + ")");
        }
        n->op = Op::variable;
        n->variable = static_cast<std::size_t>(it - names_.begin());
        used.insert(n->variable);
        next();
        return n;
      }
      case Token::symbol:
        if (accept_symbol("(")) {
          NodePtr inner = parse_or();
          if (!accept_symbol(")")) fail("expected ')'");
          return inner;
        }
        fail("unexpected '" + t.text + "'");
      case Token::end:
        fail("unexpected end of expression");
    }
    fail("unexpected token");
  }

  // name "(" or-expr { "," or-expr } ")": one of kFunctions.
  NodePtr parse_call() {
    const std::string name = next().text;
    const Function* f = nullptr;
    std::string known;
    for (const Function& candidate : kFunctions) {
      known += (known.empty() ? "" : ", ") + std::string(candidate.name);
      if (name == candidate.name) f = &candidate;
    }
    if (!f) fail("unknown function '" + name + "' (functions: " + known + ")");
    next();  // "("
    std::vector<NodePtr> args;
    if (!accept_symbol(")")) {
      do args.push_back(parse_or());
      while (accept_symbol(","));
      if (!accept_symbol(")")) fail("expected ',' or ')' in the arguments of " + name + "()");
    }
    if (args.size() < f->min_args || (f->max_args && args.size() > f->max_args))
      fail(name + "() takes " +
           (f->max_args == f->min_args ? std::to_string(f->min_args) : "at least " + std::to_string(f->min_args)) +
           (f->min_args == 1 ? " argument" : " arguments") + ", not " + std::to_string(args.size()));
    NodePtr call = make_node(Op::call, std::move(args));
    auto node = std::const_pointer_cast<Expr::Node>(call);
    node->variable = static_cast<std::size_t>(f - kFunctions);
    return call;
  }

  const std::string& text_;
  const std::vector<std::string>& names_;
  Lexer lexer_;
  std::vector<Token> tokens_;
  std::size_t index_ = 0;
};

ExprValue number(double v) {
  ExprValue r;
  r.number = v;
  return r;
}

bool truthy(const ExprValue& v) { return v.is_string ? !v.text.empty() : (v.number != 0.0 && !std::isnan(v.number)); }

bool compare(Op op, const ExprValue& a, const ExprValue& b) {
  if (a.is_string || b.is_string) {
    bool same = a.is_string == b.is_string && a.text == b.text;
    if (op == Op::eq) return same;
    if (op == Op::ne) return !same;
    return false;
  }
  switch (op) {
    case Op::lt: return a.number < b.number;
    case Op::le: return a.number <= b.number;
    case Op::gt: return a.number > b.number;
    case Op::ge: return a.number >= b.number;
    case Op::eq: return a.number == b.number;
    case Op::ne: return a.number != b.number;  // NaN != x is true, as in IEEE and Python
    default: return false;
  }
}

double floored_mod(double a, double b) {
  if (b == 0.0) return std::nan("");
  double r = std::fmod(a, b);
  if (r != 0.0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

ExprValue eval(const Expr::Node& n, const std::function<ExprValue(std::size_t)>& lookup);

// A function of kFunctions on its (numeric) arguments; NaN in, NaN out.
ExprValue call(const Expr::Node& n, const std::function<ExprValue(std::size_t)>& lookup) {
  std::vector<double> x;
  for (const auto& child : n.children) x.push_back(eval(*child, lookup).number);
  const std::string name = kFunctions[n.variable].name;
  if (name == "min" || name == "max") {
    double r = x.front();
    for (double v : x) {
      if (std::isnan(v)) return number(v);
      r = name == "min" ? std::min(r, v) : std::max(r, v);
    }
    return number(r);
  }
  if (name == "ceil") return number(std::ceil(x[0]));
  if (name == "floor") return number(std::floor(x[0]));
  if (name == "round") return number(std::round(x[0]));
  if (name == "int") return number(std::trunc(x[0]));
  if (name == "abs") return number(std::fabs(x[0]));
  if (name == "sqrt") return number(x[0] < 0 ? std::nan("") : std::sqrt(x[0]));
  return number(x[0] <= 0 ? std::nan("") : std::log2(x[0]));  // log2
}

ExprValue eval(const Expr::Node& n, const std::function<ExprValue(std::size_t)>& lookup) {
  auto arg = [&](std::size_t i) { return eval(*n.children[i], lookup); };
  switch (n.op) {
    case Op::number:
    case Op::string: return n.literal;
    case Op::variable: return lookup(n.variable);
    case Op::neg: return number(-arg(0).number);
    case Op::logical_not: return number(truthy(arg(0)) ? 0.0 : 1.0);
    case Op::add: return number(arg(0).number + arg(1).number);
    case Op::sub: return number(arg(0).number - arg(1).number);
    case Op::mul: return number(arg(0).number * arg(1).number);
    case Op::div: {
      double d = arg(1).number;
      return number(d == 0.0 ? std::nan("") : arg(0).number / d);
    }
    case Op::floordiv: {
      double d = arg(1).number;
      return number(d == 0.0 ? std::nan("") : std::floor(arg(0).number / d));
    }
    case Op::mod: return number(floored_mod(arg(0).number, arg(1).number));
    case Op::pow: return number(std::pow(arg(0).number, arg(1).number));
    case Op::lt: case Op::le: case Op::gt: case Op::ge: case Op::eq: case Op::ne:
      return number(compare(n.op, arg(0), arg(1)) ? 1.0 : 0.0);
    case Op::logical_and: return number(truthy(arg(0)) && truthy(arg(1)) ? 1.0 : 0.0);
    case Op::logical_or: return number(truthy(arg(0)) || truthy(arg(1)) ? 1.0 : 0.0);
    case Op::chain:
      for (std::size_t i = 0; i < n.children.size(); ++i)
        if (!truthy(arg(i))) return number(0.0);
      return number(1.0);
    case Op::call: return call(n, lookup);
  }
  return number(std::nan(""));
}

}  // namespace

Expr Expr::parse(const std::string& text, const std::vector<std::string>& known_names) {
  Parser parser(text, known_names);
  Expr e;
  e.root_ = parser.parse_all();
  e.parameters_.assign(parser.used.begin(), parser.used.end());
  e.text_ = text;
  return e;
}

ExprValue Expr::evaluate(const std::function<ExprValue(std::size_t)>& lookup) const {
  return eval(*root_, lookup);
}

bool Expr::holds(const std::function<ExprValue(std::size_t)>& lookup) const { return truthy(evaluate(lookup)); }

}  // namespace adaexplore
