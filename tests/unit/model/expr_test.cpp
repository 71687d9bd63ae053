#include "model/expr.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

double eval(const std::string& text, const std::vector<std::string>& names, const std::vector<double>& values) {
  Expr e = Expr::parse(text, names);
  return e.evaluate([&](std::size_t i) {
            ExprValue v;
            v.number = values[i];
            return v;
          })
      .number;
}

TEST(Expr, ProductSyntax) {
  EXPECT_EQ(eval("TILE_M * TILE_N / (UNROLL) <= 1024", {"TILE_M", "TILE_N", "UNROLL"}, {64, 64, 4}), 1.0);
  EXPECT_EQ(eval("TILE_M * TILE_N / (UNROLL) <= 1024", {"TILE_M", "TILE_N", "UNROLL"}, {128, 64, 4}), 0.0);
  EXPECT_EQ(eval("a % 3 == 1 && (b > 2 || !c)", {"a", "b", "c"}, {7, 1, 0}), 1.0);
}

TEST(Expr, PythonSyntaxAndChainedComparisons) {
  EXPECT_EQ(eval("32 <= a*b <= 1024", {"a", "b"}, {16, 2}), 1.0);
  EXPECT_EQ(eval("32 <= a*b <= 1024", {"a", "b"}, {16, 1}), 0.0);
  EXPECT_EQ(eval("32 <= a*b <= 1024", {"a", "b"}, {1024, 2}), 0.0);
  EXPECT_EQ(eval("not a == 0 and b // 2 == 3 or False", {"a", "b"}, {1, 7}), 1.0);
  EXPECT_EQ(eval("2 ** 3 ** 2", {}, {}), 512.0);
  EXPECT_EQ(eval("-7 % 3", {}, {}), 2.0);  // Python's floored modulo
  EXPECT_EQ(eval("-7 // 2", {}, {}), -4.0);
}

TEST(Expr, FunctionsForLaunchShapesAndTolerances) {
  EXPECT_EQ(eval("ceil(N / (B * T))", {"N", "B", "T"}, {10000000, 128, 3}), 26042.0);  // 26041.67 up
  EXPECT_EQ(eval("floor(N / B)", {"N", "B"}, {1000, 128}), 7.0);
  EXPECT_EQ(eval("min(a, 8, b)", {"a", "b"}, {16, 4}), 4.0);
  EXPECT_EQ(eval("max(a)", {"a"}, {3}), 3.0);
  EXPECT_EQ(eval("int(-7 / 2) + round(2.5) + abs(-2)", {}, {}), -3.0 + 3.0 + 2.0);
  EXPECT_DOUBLE_EQ(eval("4 * sqrt(K + 2) * 2**-24", {"K"}, {4094}), 4 * 64 * std::ldexp(1.0, -24));
  EXPECT_EQ(eval("log2(1024)", {}, {}), 10.0);
  EXPECT_TRUE(std::isnan(eval("sqrt(-1)", {}, {})));
  EXPECT_TRUE(std::isnan(eval("ceil(a / b)", {"a", "b"}, {1, 0})));
  // A parameter named like a function is the parameter unless called.
  EXPECT_EQ(eval("min * 2", {"min"}, {3}), 6.0);
}

TEST(Expr, FunctionErrorsNameTheFunction) {
  auto error = [](const std::string& text) {
    try {
      Expr::parse(text, {"a"});
    } catch (const ExprError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error("ciel(a)").find("unknown function 'ciel' (functions: ceil, floor"), std::string::npos) << error("ciel(a)");
  EXPECT_NE(error("ceil(a, 2)").find("ceil() takes 1 argument, not 2"), std::string::npos) << error("ceil(a, 2)");
  EXPECT_NE(error("min()").find("min() takes at least 1 argument, not 0"), std::string::npos) << error("min()");
  EXPECT_NE(error("max(a, 2").find("expected ',' or ')' in the arguments of max()"), std::string::npos);
}

TEST(Expr, DivisionByZeroViolatesInsteadOfAborting) {
  EXPECT_EQ(eval("a % b == 0", {"a", "b"}, {4, 0}), 0.0);
  EXPECT_EQ(eval("a / b < 2", {"a", "b"}, {4, 0}), 0.0);
}

TEST(Expr, UnknownNameIsAnErrorListingTheParameters) {
  try {
    Expr::parse("TILE * BLOCK <= 1024", {"TILE", "UNROLL"});
    FAIL() << "expected ExprError";
  } catch (const ExprError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown parameter 'BLOCK'"), std::string::npos) << what;
    EXPECT_NE(what.find("TILE, UNROLL"), std::string::npos) << what;
    EXPECT_NE(what.find("column 8"), std::string::npos) << what;
  }
}

TEST(Expr, MalformedExpressionsAreErrors) {
  for (const char* bad : {"a <", "(a", "a b", "a @ 2", "", "a == 'x"}) EXPECT_THROW(Expr::parse(bad, {"a"}), ExprError) << bad;
}

TEST(Expr, ReportsTheParametersItReads) {
  Expr e = Expr::parse("c * a > 2", {"a", "b", "c"});
  EXPECT_EQ(e.parameters(), (std::vector<std::size_t>{0, 2}));
}

}  // namespace
}  // namespace adaexplore
