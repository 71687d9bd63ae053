#include "model/space.hpp"
#include "test_support.hpp"

#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::numbers;

Parameter texts(const std::string& name, const std::vector<std::string>& values) {
  Parameter p{name, {}};
  for (const auto& v : values) p.values.push_back(Value::from_text(v));
  return p;
}

// TILE x UNROLL with TILE * UNROLL <= 64: 16x{1,2,4}, 32x{1,2}, 64x{1}.
Space small_space() {
  return Space({numbers("TILE", {16, 32, 64}), numbers("UNROLL", {1, 2, 4})}, {"TILE * UNROLL <= 64"});
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(Value, NumbersPrintShortestAndExact) {
  EXPECT_EQ(Value::from_number(64).text, "64");
  EXPECT_EQ(Value::from_number(-3).text, "-3");
  EXPECT_EQ(Value::from_number(2.5).text, "2.5");
  EXPECT_EQ(Value::from_number(0.1).text, "0.1");  // not 0.10000000000000001
  EXPECT_EQ(Value::from_number(1.0 / 3).number, 1.0 / 3);
  EXPECT_EQ(std::stod(Value::from_number(1.0 / 3).text), 1.0 / 3);
}

TEST(Value, TextIsNumericOnlyWhenItIsAFiniteNumberAsWritten) {
  EXPECT_TRUE(Value::from_text("64").numeric);
  EXPECT_EQ(Value::from_text("64").number, 64);
  EXPECT_TRUE(Value::from_text("1.5e2").numeric);
  EXPECT_FALSE(Value::from_text("float").numeric);
  EXPECT_FALSE(Value::from_text("64f").numeric);
  EXPECT_FALSE(Value::from_text("").numeric);
  EXPECT_FALSE(Value::from_text(" 64").numeric);  // the text is substituted verbatim
  EXPECT_FALSE(Value::from_text("inf").numeric);
  EXPECT_FALSE(Value::from_text("nan").numeric);
}

TEST(Space, EnumeratesOnlyValidConfigurationsInLexicographicOrder) {
  const Space s = small_space();
  EXPECT_EQ(s.cartesian_size(), 9);
  const std::vector<Config> expected = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {2, 0}};
  EXPECT_EQ(s.enumerate_valid(), expected);
  for (const auto& c : expected) EXPECT_TRUE(s.satisfies(c));
  EXPECT_FALSE(s.satisfies({2, 1}));
  ASSERT_NE(s.first_violated({2, 1}), nullptr);
  EXPECT_EQ(s.first_violated({2, 1})->text(), "TILE * UNROLL <= 64");
}

TEST(Space, FirstValidIsTheFirstOfTheEnumeration) {
  const Space s({numbers("A", {1, 2, 3, 4}), numbers("B", {1, 2, 3, 4})}, {"A >= 2", "B > A"});
  EXPECT_EQ(s.first_valid(), std::optional<Config>(Config{1, 2}));
  EXPECT_EQ(s.first_valid(), std::optional<Config>(s.enumerate_valid().front()));
  EXPECT_FALSE(Space({numbers("A", {1, 2})}, {"A > 5"}).first_valid());
  EXPECT_THROW(s.first_valid(15), std::length_error);
}

TEST(Space, EnumerationRefusesSpacesOverTheLimit) {
  const Space s = small_space();
  EXPECT_THROW(s.enumerate_valid(8), std::length_error);
  EXPECT_EQ(s.enumerate_valid(9).size(), 6u);
}

TEST(Space, EveryConstraintMustHold) {
  const Space s({numbers("A", {1, 2, 3, 4}), numbers("B", {1, 2, 3, 4})}, {"A <= B", "A + B != 5"});
  for (const auto& c : s.enumerate_valid()) {
    const double a = s.value(c, 0).number, b = s.value(c, 1).number;
    EXPECT_TRUE(a <= b && a + b != 5) << s.label(c);
  }
  EXPECT_EQ(s.enumerate_valid().size(), 8u);  // 10 with A <= B, minus (1,4) and (2,3)
}

TEST(Space, CategoricalValuesInConstraints) {
  const Space s({texts("LAYOUT", {"row", "col"}), numbers("VEC", {1, 2, 4})}, {"LAYOUT == 'row' or VEC == 1"});
  EXPECT_EQ(s.enumerate_valid().size(), 4u);
  EXPECT_FALSE(s.satisfies({1, 2}));
}

TEST(Space, SampleValidDrawsOnlyValidConfigurationsAndReachesAllOfThem) {
  const Space s = small_space();
  std::mt19937_64 rng(7);
  std::set<Config> seen;
  for (int i = 0; i < 500; ++i) {
    auto c = s.sample_valid(rng);
    ASSERT_TRUE(c);
    EXPECT_TRUE(s.satisfies(*c)) << s.label(*c);
    seen.insert(*c);
  }
  EXPECT_EQ(seen.size(), 6u);
}

TEST(Space, SampleValidGivesUpOnAnEmptySpace) {
  const Space s({numbers("A", {1, 2})}, {"A > 5"});
  std::mt19937_64 rng(1);
  EXPECT_FALSE(s.sample_valid(rng, 100));
  EXPECT_TRUE(s.enumerate_valid().empty());
}

TEST(Space, ConfigFromTexts) {
  const Space s = small_space();
  EXPECT_EQ(s.config_from_texts({{"UNROLL", "2"}, {"TILE", "32"}}), (Config{1, 1}));
  EXPECT_EQ(s.config_from_texts({{"TILE", "32.0"}, {"UNROLL", "4"}}), (Config{1, 2}));  // numerically equal
}

TEST(Space, ConfigFromTextsErrorsNameTheProblem) {
  const Space s = small_space();
  const std::string unknown = message_of([&] { s.config_from_texts({{"TILE", "32"}, {"UNROLL", "2"}, {"BLOCK", "1"}}); });
  EXPECT_NE(unknown.find("unknown parameter BLOCK"), std::string::npos) << unknown;
  const std::string not_listed = message_of([&] { s.config_from_texts({{"TILE", "48"}, {"UNROLL", "2"}}); });
  EXPECT_NE(not_listed.find("value 48 is not among the values of TILE (16 32 64)"), std::string::npos) << not_listed;
  const std::string missing = message_of([&] { s.config_from_texts({{"TILE", "32"}}); });
  EXPECT_NE(missing.find("no value given for parameter UNROLL"), std::string::npos) << missing;
  EXPECT_THROW(s.config_from_texts({{"TILE", "32"}, {"UNROLL", "2"}, {"TILE", "64"}}), std::invalid_argument);
}

TEST(Space, LabelIsNameEqualsValueInSpaceOrder) {
  const Space s({numbers("TILE", {16, 32}), texts("LAYOUT", {"row", "col"}), numbers("ALPHA", {0.5, 1.5})}, {});
  EXPECT_EQ(s.label({1, 0, 1}), "TILE=32,LAYOUT=row,ALPHA=1.5");
  EXPECT_NE(s.label({1, 0, 1}), s.label({1, 1, 1}));
}

TEST(Space, DistanceIsTheMeanNormalizedIndexGap) {
  const Space s({numbers("A", {1, 2, 3, 4, 5}), numbers("B", {1, 2, 3}), numbers("C", {7})}, {});
  EXPECT_DOUBLE_EQ(s.distance({0, 0, 0}, {0, 0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(s.distance({0, 0, 0}, {4, 2, 0}), 2.0 / 3);  // C has one value: never differs
  EXPECT_DOUBLE_EQ(s.distance({0, 0, 0}, {2, 0, 0}), 0.5 / 3);
  EXPECT_DOUBLE_EQ(s.distance({1, 2, 0}, {0, 1, 0}), s.distance({0, 1, 0}, {1, 2, 0}));
}

TEST(Space, RejectsDuplicateParametersAndValues) {
  const std::string twice = message_of([] { Space({numbers("A", {1}), numbers("A", {2})}, {}); });
  EXPECT_NE(twice.find("parameter A is declared twice"), std::string::npos) << twice;
  const std::string value = message_of([] { Space({numbers("A", {1, 2, 1})}, {}); });
  EXPECT_NE(value.find("parameter A lists the value 1 twice"), std::string::npos) << value;
  // "32" and "32.0" are the same number: the results file could not tell them apart.
  EXPECT_THROW(Space({texts("A", {"32", "32.0"})}, {}), std::invalid_argument);
  EXPECT_THROW(Space({Parameter{"A", {}}}, {}), std::invalid_argument);
}

TEST(Space, ConstraintOnUnknownParameterIsAnExprError) {
  EXPECT_THROW(Space({numbers("A", {1})}, {"B > 0"}), ExprError);
}

TEST(Space, IndexOf) {
  const Space s = small_space();
  EXPECT_EQ(s.index_of("UNROLL"), std::optional<std::size_t>(1));
  EXPECT_FALSE(s.index_of("unroll"));
  EXPECT_EQ(s.names(), (std::vector<std::string>{"TILE", "UNROLL"}));
}

}  // namespace
}  // namespace adaexplore
