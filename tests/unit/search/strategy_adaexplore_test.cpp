// The `adaexplore` strategy (strategy_adaexplore.cpp): its options, the knowledge-base switch,
// and what its search must keep doing (no repeats, constraints respected, same seed same trace,
// failures avoided once learned, the optimum of a smooth space found). The contract every
// strategy shares is checked in strategy_test.cpp.
#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "search/strategy.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

using test::range;

// 8^4 = 4096 configurations, one constraint; A >= 5 exceeds a resource limit (a monotone
// failure region of 3/8 of the space); the objective is smooth with its optimum at (4, 1, 5, 2),
// next to the failure boundary.
Space space() {
  return Space({range("A", 8), range("B", 8), range("C", 8), range("D", 8)}, {"B + D <= 12"});
}

bool fails(const Config& c) { return c[0] >= 5; }

Outcome evaluate(const Config& c) {
  static const int target[] = {4, 1, 5, 2};
  Outcome o;
  o.config = c;
  if (fails(c)) {
    o.status = Status::resource_limit;
    o.message = "too many resources requested for launch";
    return o;
  }
  double sum = 1.0;
  for (std::size_t i = 0; i < 4; ++i) sum += (c[i] - target[i]) * (c[i] - target[i]);
  o.objective = sum;
  return o;
}

std::unique_ptr<Strategy> make(const Space& s, std::uint64_t seed, std::size_t budget,
                               const nlohmann::json& options = nlohmann::json::object()) {
  StrategyOptions o;
  o.seed = seed;
  o.budget = budget;
  o.options = options;
  return make_strategy("adaexplore", s, o);
}

// Proposes `batch` at a time and observes each proposal, `budget` proposals in all.
std::vector<Config> drive(Strategy& strategy, std::size_t budget, std::size_t batch = 1) {
  std::vector<Config> proposed;
  while (proposed.size() < budget) {
    const auto got = strategy.propose(std::min(batch, budget - proposed.size()));
    if (got.empty()) break;
    for (const auto& c : got) {
      proposed.push_back(c);
      strategy.observe(evaluate(c));
    }
  }
  return proposed;
}

std::size_t failures(const std::vector<Config>& configs) {
  return static_cast<std::size_t>(std::count_if(configs.begin(), configs.end(), fails));
}

double best(const std::vector<Config>& configs) {
  double b = 1e300;
  for (const auto& c : configs)
    if (auto o = evaluate(c); o.objective) b = std::min(b, *o.objective);
  return b;
}

std::string message_of(const nlohmann::json& options) {
  try {
    make(space(), 1, 100, options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(AdaExploreStrategy, OptionErrorsNameTheOptionAndTheChoices) {
  EXPECT_NE(message_of({{"knowledge_base", "no"}}).find("option knowledge_base must be true or false, not \"no\""),
            std::string::npos)
      << message_of({{"knowledge_base", "no"}});
  const std::string unknown = message_of({{"kb", false}});
  EXPECT_NE(unknown.find("unknown option 'kb'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("knowledge_base"), std::string::npos) << unknown;
  EXPECT_EQ(message_of({{"knowledge_base", false}}), "");
  EXPECT_EQ(message_of({{"knowledge_base", true}}), "");
  for (const std::string key : {"max_failure_probability", "max_failure_probability_local"}) {
    for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(1.5), nlohmann::json(-0.1), nlohmann::json("0.5")}) {
      const std::string m = message_of({{key, bad}});
      EXPECT_NE(m.find("option " + key + " must be a number in (0, 1]"), std::string::npos) << m;
      EXPECT_NE(m.find("not " + bad.dump()), std::string::npos) << m;
    }
    EXPECT_NE(unknown.find(key), std::string::npos) << unknown;
    EXPECT_EQ(message_of({{key, 1}}), "");
    EXPECT_EQ(message_of({{key, 0.3}}), "");
  }
}

// Every count option names itself, its range and the bad value; a string, a boolean, a fraction
// (even 8.0), a negative, one too large, or a zero where at least one is needed is refused (niches
// 0 used to mean no cap on the elites, by accident of the clearing loop; candidates 0 left the
// operators without candidates).
TEST(AdaExploreStrategy, CountOptionsAreCheckedIntegers) {
  const std::string unknown = message_of({{"kb", false}});
  for (const std::string key :
       {"initial", "batch", "candidates", "explore_candidates", "niches", "trees"}) {
    const bool zero_ok = key == "initial" || key == "batch";
    for (const nlohmann::json& bad :
         {nlohmann::json("8"), nlohmann::json(true), nlohmann::json(2.5), nlohmann::json(8.0),
          nlohmann::json(-1), nlohmann::json(2000000), nlohmann::json(18446744073709551615ull)}) {
      const std::string m = message_of({{key, bad}});
      EXPECT_NE(m.find("option " + key + " must be an integer from " + (zero_ok ? "0" : "1") +
                       " to 1000000"),
                std::string::npos)
          << m;
      EXPECT_NE(m.find("not " + bad.dump()), std::string::npos) << m;
    }
    EXPECT_EQ(message_of({{key, 0}}).empty(), zero_ok) << key;
    EXPECT_EQ(message_of({{key, 12}}), "") << key;
    EXPECT_NE(unknown.find(key), std::string::npos) << unknown;
  }
  for (const nlohmann::json& bad :
       {nlohmann::json(-0.1), nlohmann::json(1.5), nlohmann::json("0.1")}) {
    const std::string m = message_of({{"niche_radius", bad}});
    EXPECT_NE(m.find("option niche_radius must be a number in [0, 1]"), std::string::npos) << m;
    EXPECT_NE(m.find("not " + bad.dump()), std::string::npos) << m;
  }
  EXPECT_EQ(message_of({{"niche_radius", 0.2}}), "");
}

TEST(AdaExploreStrategy, AlignmentIsABooleanOption) {
  const std::string m = message_of({{"alignment", "yes"}});
  EXPECT_NE(m.find("option alignment must be true or false, not \"yes\""), std::string::npos) << m;
  EXPECT_NE(message_of({{"kb", false}}).find("alignment"), std::string::npos);
  EXPECT_EQ(message_of({{"alignment", false}}), "");
}

// A block size of 16 to 256 in steps of 16 (as convolution_milo's block_size_x): the start's
// 8 strata of two values each take the more aligned one, 32, 64, ..., 256; without the option
// the start draws uniformly within each stratum and odd multiples of 16 appear.
TEST(AdaExploreStrategy, TheStartLandsOnAlignedBlockSizes) {
  std::vector<double> sizes;
  for (int b = 16; b <= 256; b += 16) sizes.push_back(b);
  const Space s({test::numbers("BLOCK", sizes), range("T", 4)}, {});
  std::size_t unaligned_without = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    for (const bool aligned : {true, false}) {
      auto strategy = make(s, seed, 48, {{"alignment", aligned}});
      const auto start = strategy->propose(8);
      ASSERT_EQ(start.size(), 8u);
      std::set<double> blocks;
      for (const Config& c : start) blocks.insert(s.value(c, 0).number);
      const auto odd = std::count_if(blocks.begin(), blocks.end(), [](double b) { return static_cast<int>(b) % 32 != 0; });
      if (aligned) {
        EXPECT_EQ(odd, 0) << "seed " << seed;
        EXPECT_EQ(blocks.size(), 8u) << "seed " << seed << ": one block size per stratum";
      } else {
        unaligned_without += static_cast<std::size_t>(odd);
      }
    }
  }
  EXPECT_GT(unaligned_without, 5u) << "without alignment the start is uniform within each stratum";
}

TEST(AdaExploreStrategy, WithoutTheKnowledgeBaseItStillSearchesButDiffers) {
  const Space s = space();
  auto on = make(s, 7, 120), off = make(s, 7, 120, {{"knowledge_base", false}});
  const auto p_on = drive(*on, 120), p_off = drive(*off, 120);
  ASSERT_EQ(p_off.size(), 120u);
  for (const auto& c : p_off) EXPECT_TRUE(s.satisfies(c)) << s.label(c);
  EXPECT_EQ(std::set<Config>(p_off.begin(), p_off.end()).size(), p_off.size()) << "a repeat without the KB";
  EXPECT_NE(p_on, p_off) << "knowledge_base=false changed nothing on a space with failures";
}

TEST(AdaExploreStrategy, TheKnowledgeBaseAvoidsALearnedFailureRegion) {
  // Over several seeds, the search with the knowledge base spends fewer evaluations on the
  // failing region than the same search without it (which only sees failures as bad fitness).
  const Space s = space();
  std::size_t with = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto on = make(s, seed, 100), off = make(s, seed, 100, {{"knowledge_base", false}});
    with += failures(drive(*on, 100));
    without += failures(drive(*off, 100));
  }
  EXPECT_LT(with, without);
  EXPECT_LT(with, 6u * 100u * 3u / 8u / 2u) << "at most half the failure rate of uniform sampling";
}

TEST(AdaExploreStrategy, SameSeedSameTraceInBothModes) {
  const Space s = space();
  for (bool kb : {true, false}) {
    const nlohmann::json o = {{"knowledge_base", kb}};
    auto a = make(s, 3, 80, o), b = make(s, 3, 80, o), c = make(s, 4, 80, o);
    const auto pa = drive(*a, 80, 3), pb = drive(*b, 80, 3), pc = drive(*c, 80, 3);
    ASSERT_EQ(pa.size(), 80u);
    EXPECT_EQ(pa, pb) << "knowledge_base=" << kb;
    EXPECT_NE(pa, pc) << "knowledge_base=" << kb;
  }
}

// A real tuning asks for one configuration per freed compile slot while others are still in
// flight; each proposal is spread away from every configuration proposed and not yet observed,
// so asking for 8 one at a time proposes exactly what one request for 8 does.
TEST(AdaExploreStrategy, ProposalsInFlightAreSpreadAsOneBatchIs) {
  const Space s = space();
  for (std::uint64_t seed : {2u, 5u}) {
    auto a = make(s, seed, 200), b = make(s, seed, 200);
    ASSERT_EQ(drive(*a, 72, 8), drive(*b, 72, 8));  // the same history: past the start and the turns
    const auto together = a->propose(8);
    std::vector<Config> one_by_one;
    for (int i = 0; i < 8; ++i)
      for (const auto& c : b->propose(1)) one_by_one.push_back(c);
    ASSERT_EQ(together.size(), 8u);
    EXPECT_EQ(one_by_one, together) << "seed " << seed;
  }
}

TEST(AdaExploreStrategy, NoRepeatsAndConstraintsRespectedInBatches) {
  const Space s = space();
  for (std::size_t batch : {1u, 4u, 16u}) {
    auto st = make(s, 11, 600);
    const auto p = drive(*st, 600, batch);
    ASSERT_GE(p.size(), 500u) << "batch " << batch;
    for (const auto& c : p) ASSERT_TRUE(s.satisfies(c)) << s.label(c);
    EXPECT_EQ(std::set<Config>(p.begin(), p.end()).size(), p.size()) << "batch " << batch;
  }
}

TEST(AdaExploreStrategy, FindsTheOptimumOfASmoothSpaceNextToAFailureBoundary) {
  // 4096 configurations (about 3900 valid), the optimum one index short of the failing region:
  // 120 evaluations in batches of 8 find it in most seeds; uniform sampling would in about 3%.
  const Space s = space();
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto st = make(s, seed, 120);
    found += best(drive(*st, 120, 8)) == 1.0;
  }
  EXPECT_GE(found, 7);
}

TEST(AdaExploreStrategy, RefinesAroundTheBestWhenTheKnowledgeBaseHasNothingToProbe) {
  // 16^4 = 65536 configurations, none failing: the knowledge base learns no boundary, so `probe`
  // makes no candidate. The other operators must still take turns (an operator without
  // candidates once held the bandit, leaving only `explore`, whose random candidates seldom hold
  // the optimum of so large a space). With refinement around the elites 300 evaluations find
  // the optimum of this smooth objective in 7 of these 10 seeds; with `explore` alone in none.
  const Space s({range("A", 16), range("B", 16), range("C", 16), range("D", 16)}, {});
  auto objective = [](const Config& c) {
    static const int target[] = {11, 3, 7, 13};
    double sum = 1.0;
    for (std::size_t i = 0; i < 4; ++i) sum += (c[i] - target[i]) * (c[i] - target[i]);
    return sum;
  };
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto st = make(s, seed, 300);
    double b = 1e300;
    for (std::size_t n = 0; n < 300;) {
      const auto got = st->propose(8);
      if (got.empty()) break;
      for (const auto& c : got) {
        Outcome o;
        o.config = c;
        o.objective = objective(c);
        b = std::min(b, *o.objective);
        st->observe(o);
        ++n;
      }
    }
    found += b == 1.0;
  }
  EXPECT_GE(found, 4);
}

TEST(AdaExploreStrategy, TheFirstBatchAfterTheStartMixesTheOperators) {
  // The bandit is credited only when outcomes arrive, so by itself it gives a whole batch to one
  // operator: the first batch of 8 after the start would be 8 of `explore`'s random
  // configurations. While the operators take turns, `local` makes 2 of those 8, each one or two
  // index steps from a success of the start. 16^4 = 65536 configurations: a random
  // configuration lies that close to one of the 8 start points with probability about 0.5%.
  const Space s({range("A", 16), range("B", 16), range("C", 16), range("D", 16)}, {});
  auto steps = [](const Config& a, const Config& b) {
    int n = 0;
    for (std::size_t p = 0; p < a.size(); ++p) n += std::abs(int(a[p]) - int(b[p]));
    return n;
  };
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto st = make(s, seed, 100, {{"initial", 8}});
    const auto start = st->propose(8);
    ASSERT_EQ(start.size(), 8u);
    for (const auto& c : start) {
      Outcome o;
      o.config = c;
      o.objective = 1.0 + c[0] + 2.0 * c[1] + 3.0 * c[2] + 4.0 * c[3];
      st->observe(o);
    }
    const auto next = st->propose(8);
    ASSERT_EQ(next.size(), 8u);
    std::size_t near = 0;
    for (const auto& c : next)
      near += std::any_of(start.begin(), start.end(), [&](const Config& s0) { return steps(c, s0) <= 2; });
    EXPECT_GE(near, 2u) << "seed " << seed;
  }
}

}  // namespace
}  // namespace adaexplore

namespace adaexplore {
namespace {

// What the model believed of a proposal (Strategy::belief, recorded as extra.model): nothing
// before the surrogate has two successes to fit, then its prediction with an interval around it
// and the knowledge base's P(fail); nothing for a configuration it never proposed.
TEST(AdaExploreStrategy, BeliefIsThePredictionAtProposal) {
  const Space s = space();
  auto strategy = make(s, 1, 40);
  const auto first = strategy->propose(8);
  ASSERT_EQ(first.size(), 8u);
  EXPECT_EQ(strategy->belief(first[0]).count("predicted_ms"), 0u) << strategy->belief(first[0]).dump();
  for (const auto& c : first) strategy->observe(evaluate(c));
  const auto second = strategy->propose(8);
  ASSERT_FALSE(second.empty());
  for (const auto& c : second) {
    const nlohmann::json b = strategy->belief(c);
    ASSERT_TRUE(b.is_object()) << s.label(c);
    ASSERT_TRUE(b.contains("predicted_ms")) << b.dump();
    const double p = b["predicted_ms"].get<double>();
    EXPECT_GT(p, 0);
    EXPECT_LE(b["interval_ms"][0].get<double>(), p);
    EXPECT_GE(b["interval_ms"][1].get<double>(), p);
    EXPECT_GE(b["p_fail"].get<double>(), 0.0);
    EXPECT_LE(b["p_fail"].get<double>(), 1.0);
  }
  Config never = second[0];
  for (const auto& c : s.enumerate_valid())
    if (std::find(first.begin(), first.end(), c) == first.end() &&
        std::find(second.begin(), second.end(), c) == second.end()) {
      never = c;
      break;
    }
  EXPECT_TRUE(strategy->belief(never).is_null());
}

// The option "launch" (a replay without a spec) declares the launch shape over the parameters; a
// bad one names the option and what is wrong. With "behaviour": true the search differs (the
// surrogate has the behavioural features) and still keeps its contract; without it (the default
// within one size) the launch changes nothing.
TEST(AdaExploreStrategy, LaunchOptionGivesTheSurrogateBehaviouralFeatures) {
  const nlohmann::json launch = {{"block", {"A * 32", "B + 1"}}, {"grid", {"ceil(4096 / (A + 1))"}}, {"sm_count", 132}};
  EXPECT_EQ(message_of({{"launch", launch}}), "");
  EXPECT_NE(message_of({{"launch", 3}}).find("option launch must be an object"), std::string::npos);
  EXPECT_NE(message_of({{"launch", {{"block", "A"}}}}).find("block must list 1 to 3 expressions"), std::string::npos);
  EXPECT_NE(message_of({{"launch", {{"grid", {"Z * 2"}}}}}).find("option launch.grid"), std::string::npos)
      << message_of({{"launch", {{"grid", {"Z * 2"}}}}});
  EXPECT_NE(message_of({{"launch", {{"warps", 2}}}}).find("unknown key 'warps'"), std::string::npos);
  EXPECT_NE(message_of({{"start_kappa", -1}}).find("option start_kappa must be a number in [0, 10]"),
            std::string::npos);
  EXPECT_NE(message_of({{"size_model", 1}}).find("option size_model must be true or false"), std::string::npos);
  const Space s = space();
  auto with = make(s, 3, 60, {{"launch", launch}, {"behaviour", true}});
  auto without = make(s, 3, 60);
  auto ignored = make(s, 3, 60, {{"launch", launch}});
  const auto a = drive(*with, 60, 8), b = drive(*without, 60, 8), c = drive(*ignored, 60, 8);
  EXPECT_NE(a, b);
  EXPECT_EQ(b, c);
  EXPECT_EQ(std::set<Config>(a.begin(), a.end()).size(), a.size());
  for (const auto& x : a) EXPECT_TRUE(s.satisfies(x));
}

}  // namespace
}  // namespace adaexplore

namespace adaexplore {
namespace {

// A later size (StrategyOptions::transfer, issue 39's review): the other size's times are a 16th
// of this size's (20 x the test objective), and what the model believed of a proposal (extra.model) must be this size's
// absolute time, both for the start predicted from the other size alone and for the surrogate
// fitted on this size's evaluations with the other size's. Before the per-size offsets the
// surrogate centred each size's ln times and reported them as ms (predicted_ms near 1 against
// times of 20 and more here), and expected improvement compared them with the best absolute time.
TEST(AdaExploreStrategy, BeliefsAtALaterSizeAreThatSizesTimes) {
  const Space s = space();
  auto at = [](const Config& c, double scale) {
    Outcome o = evaluate(c);
    if (o.objective) *o.objective *= scale;
    return o;
  };
  StrategyOptions o;
  o.seed = 5;
  o.budget = 40;
  o.size = {1024};
  std::mt19937_64 rng(11);
  const auto valid = s.enumerate_valid();
  std::vector<Config> winners;
  for (int i = 0; i < 120; ++i) {
    const Config& c = valid[std::uniform_int_distribution<std::size_t>(0, valid.size() - 1)(rng)];
    const Outcome other = at(c, 20.0 / 16);  // the other size, 16 x faster (volume 64 against 1024)
    o.transfer.push_back({other, {64}});
    if (other.objective && winners.size() < 4) winners.push_back(c);
  }
  auto strategy = make_strategy("adaexplore", s, o);
  // |ln(predicted / measured)| of each belief with predicted_ms, for `source` "other sizes"
  // (the start) or none (the surrogate).
  auto errors = [&](const std::vector<Config>& configs, bool start) {
    std::vector<double> e;
    for (const auto& c : configs) {
      const nlohmann::json b = strategy->belief(c);
      const Outcome measured = at(c, 20.0);
      if (!b.is_object() || !b.contains("predicted_ms") || !measured.objective) continue;
      EXPECT_EQ(b.contains("source"), start) << b.dump();
      e.push_back(std::abs(std::log(b["predicted_ms"].get<double>() / *measured.objective)));
    }
    std::sort(e.begin(), e.end());
    return e;
  };
  const auto start = strategy->predicted_start(8, winners);
  ASSERT_EQ(start.size(), 8u);
  for (const auto& c : start) strategy->observe(at(c, 20.0));
  // The start's scale at 1024 is extrapolated from one size (slope 1 in ln volume: 16 x), the
  // measured one is 16 x too: the median prediction is within a factor 2.
  const auto e_start = errors(start, true);
  ASSERT_GE(e_start.size(), 4u);
  EXPECT_LT(e_start[e_start.size() / 2], std::log(2.0));
  std::vector<Config> later;
  while (later.size() < 24) {
    const auto got = strategy->propose(4);
    ASSERT_FALSE(got.empty());
    for (const auto& c : got) {
      later.push_back(c);
      strategy->observe(at(c, 20.0));
    }
  }
  const auto e_later = errors(later, false);
  ASSERT_GE(e_later.size(), 12u);
  EXPECT_LT(e_later[e_later.size() / 2], std::log(2.0)) << "median |ln(predicted / measured)|";
}

// Option start_sizes: a later size's start is ranked by a model of the nearest other size only
// (1, the default), or of all of them (0). Here the far size (8) ranks the configurations the
// other way round from the near one (512) and this one (1024): the start from the near size alone
// is the faster, and a bad count names the option.
TEST(AdaExploreStrategy, TheStartLearnsFromTheNearestSizes) {
  EXPECT_NE(message_of({{"start_sizes", -1}}).find("option start_sizes must be an integer from 0"), std::string::npos)
      << message_of({{"start_sizes", -1}});
  const Space s = space();
  const auto valid = s.enumerate_valid();
  auto start_mean = [&](int sizes) {
    StrategyOptions o;
    o.seed = 2;
    o.budget = 20;
    o.size = {1024};
    o.options = {{"start_sizes", sizes}};
    std::mt19937_64 rng(3);
    for (int i = 0; i < 150; ++i) {
      const Config& c = valid[std::uniform_int_distribution<std::size_t>(0, valid.size() - 1)(rng)];
      Outcome near = evaluate(c), far = evaluate(c);
      if (!near.objective) continue;
      far.objective = 1000.0 / *near.objective;  // the far size's order is the reverse
      o.transfer.push_back({near, {512}});
      o.transfer.push_back({far, {8}});
    }
    auto strategy = make_strategy("adaexplore", s, o);
    const auto start = strategy->predicted_start(8, {});
    EXPECT_EQ(start.size(), 8u);
    double sum = 0;
    for (const auto& c : start) sum += evaluate(c).objective.value_or(1000.0);
    return sum / static_cast<double>(start.size());
  };
  const double nearest = start_mean(1), all = start_mean(0);
  EXPECT_LT(nearest, all) << "mean objective of the start: nearest size " << nearest << ", all sizes " << all;
}


// A new GPU (issue 39: "the same for a new GPU from the database"): another GPU's records of the
// same kernel (StrategyOptions::SizedOutcome::device, no size: a Kernel Tuner space) start the
// tuning through the model. That GPU's times are 3 x these and its order the same, plus noise;
// the start of 8 holds the model's picks (not only the other GPU's best), none of `exclude`, each
// among this GPU's fastest configurations. The beliefs say "other GPUs".
TEST(AdaExploreStrategy, ANewGpuStartsFromTheOtherGpusModel) {
  const Space s = space();
  const auto valid = s.enumerate_valid();
  StrategyOptions o;
  o.seed = 4;
  o.budget = 25;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<std::pair<double, Config>> measured;  // the other GPU's, as a tuning of 60 measured them
  for (int i = 0; i < 60; ++i) {
    const Config& c = valid[std::uniform_int_distribution<std::size_t>(0, valid.size() - 1)(rng)];
    Outcome other = evaluate(c);
    if (other.objective) {
      *other.objective *= 3.0 * std::exp(noise(rng));
      measured.emplace_back(*other.objective, c);
    }
    o.prior.push_back(other);  // its outcomes, known to hold here too (the knowledge base's)
    o.transfer.push_back({other, {}, "GPU B"});
  }
  std::sort(measured.begin(), measured.end());
  std::vector<Config> winners;
  for (const auto& [ms, c] : measured)
    if (winners.size() < 4 && std::find(winners.begin(), winners.end(), c) == winners.end()) winners.push_back(c);
  auto strategy = make_strategy("adaexplore", s, o);
  const std::vector<Config> exclude = {winners[1]};
  const auto start = strategy->predicted_start(8, winners, exclude);
  ASSERT_EQ(start.size(), 8u);
  EXPECT_EQ(std::count(start.begin(), start.end(), winners[1]), 0) << "an excluded configuration was picked";
  std::size_t picks = 0;
  for (const auto& c : start) picks += std::find(winners.begin(), winners.end(), c) == winners.end();
  EXPECT_GE(picks, 4u) << "the model's picks";
  for (const auto& c : start) {
    const nlohmann::json b = strategy->belief(c);
    ASSERT_TRUE(b.is_object() && b.contains("source")) << b.dump();
    EXPECT_EQ(b["source"], "other GPUs");
  }
  // The model's picks are among this GPU's fastest: each within the best 5 % of the successful
  // configurations (what the other GPU measured covers 60 of 4096).
  std::vector<double> all;
  for (const auto& c : valid)
    if (const auto r = evaluate(c); r.objective) all.push_back(*r.objective);
  std::sort(all.begin(), all.end());
  const double top = all[all.size() / 20];
  for (const auto& c : start)
    if (std::find(winners.begin(), winners.end(), c) == winners.end()) {
      const Outcome here = evaluate(c);
      ASSERT_TRUE(here.objective) << "a pick of the model fails: A=" << c[0] << " " << strategy->belief(c).dump();
      EXPECT_LE(*here.objective, top) << "a pick of the model outside this GPU's best 5 %";
    }
  // A strategy without the size model starts from the winners (the caller's), as before.
  o.options = {{"size_model", false}};
  EXPECT_TRUE(make_strategy("adaexplore", s, o)->predicted_start(8, winners).empty());
}

// A later size whose knowledge base has seen only the other sizes' size-independent failures
// (StrategyOptions::prior) and no success finds every configuration likely to fail; the start
// still holds the model's picks, ranked after those the knowledge base does not expect to fail.
// On an H100 (2026-12-06, docs/results/2026-12-06-h100-sizemodel) two such failures at 512^3 left
// the gemm example's start at 1024^3 with the other sizes' 4 best alone.
TEST(AdaExploreStrategy, AStartAfterOnlyFailuresKeepsTheModelsPicks) {
  const Space s = space();
  const auto valid = s.enumerate_valid();
  StrategyOptions o;
  o.seed = 6;
  o.budget = 25;
  o.size = {1024};
  for (const auto& c : valid)
    if (fails(c) && o.prior.size() < 2) o.prior.push_back(evaluate(c));
  std::mt19937_64 rng(5);
  std::vector<Config> winners;
  for (int i = 0; i < 80; ++i) {
    const Config& c = valid[std::uniform_int_distribution<std::size_t>(0, valid.size() - 1)(rng)];
    const Outcome other = evaluate(c);
    o.transfer.push_back({other, {512}});
    if (other.objective && winners.size() < 4) winners.push_back(c);
  }
  auto strategy = make_strategy("adaexplore", s, o);
  const auto start = strategy->predicted_start(8, winners);
  ASSERT_EQ(start.size(), 8u);
  std::size_t picks = 0;
  for (const auto& c : start) picks += std::find(winners.begin(), winners.end(), c) == winners.end();
  EXPECT_EQ(picks, 4u) << "the model's picks beside the 4 winners";
}

}  // namespace
}  // namespace adaexplore
