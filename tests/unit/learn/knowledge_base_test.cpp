#include "learn/knowledge_base.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <ctime>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::numbers;

// A x B x C x D with the constraint A * B >= 2 (the (1, 1) corner is not in the space).
Space space4() {
  return Space({numbers("A", {1, 2, 4, 8, 16, 32, 64}), numbers("B", {1, 2, 4, 8, 16, 32, 64}),
                numbers("C", {1, 2, 4, 8}), numbers("D", {0, 1})},
               {"A * B >= 2"});
}

// Fails with resource_limit iff A*B > 512; every C=4 configuration is wrong_result; C=8 is slow
// where it works.
Status truth(const Space& s, const Config& c) {
  if (s.value(c, 2).number == 4) return Status::wrong_result;
  if (s.value(c, 0).number * s.value(c, 1).number > 512) return Status::resource_limit;
  return s.value(c, 2).number == 8 ? Status::slow : Status::ok;
}

Outcome outcome(const Space& s, const Config& c) {
  Outcome o;
  o.config = c;
  o.label = s.label(c);
  o.status = truth(s, c);
  // Bigger products are faster, up to the limit.
  if (is_success(o.status)) o.objective = 1000.0 / (s.value(c, 0).number * s.value(c, 1).number);
  return o;
}

Config cfg(const Space& s, double a, double b, double c, double d) {
  auto t = [](double v) { return Value::from_number(v).text; };
  return s.config_from_texts({{"A", t(a)}, {"B", t(b)}, {"C", t(c)}, {"D", t(d)}});
}

// Observes a random `fraction` of the valid configurations.
KnowledgeBase observe_fraction(const Space& space, double fraction, std::uint64_t seed = 3) {
  KnowledgeBase kb(space);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution take(fraction);
  for (const auto& c : space.enumerate_valid())
    if (take(rng)) kb.observe(outcome(space, c));
  return kb;
}

bool contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(KnowledgeBase, LearnsTheValueRuleAndTheBoundaryAndExplainsThemWithCounts) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.5);
  const auto lines = kb.explain();
  EXPECT_EQ(lines[0].rfind("knowledge base: " + std::to_string(kb.size()) + " evaluations (ok ", 0), 0u) << lines[0];
  EXPECT_TRUE(contains(lines, "hard: C=4 always fails: ")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(contains(lines, "hard: resource_limit is monotone in A: ")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(contains(lines, "hard: resource_limit is monotone in B: ")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(contains(lines, "soft: sample less where C=8: ")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(contains(lines, "model: CART decision tree over parameter values, ")) << ::testing::PrintToString(lines);
  // Every rule line carries its evaluations.
  for (const auto& l : lines)
    if (l.rfind("hard: ", 0) == 0) EXPECT_NE(l.find(" evaluations"), std::string::npos) << l;
}

TEST(KnowledgeBase, KnownInfeasibleIsSoundAndExplained) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.4);
  std::size_t flagged = 0;
  for (const auto& c : space.enumerate_valid()) {
    if (kb.observed(c) || !kb.known_infeasible(c)) continue;
    ++flagged;
    EXPECT_FALSE(is_success(truth(space, c))) << space.label(c);
    const auto why = kb.why_infeasible(c);
    ASSERT_TRUE(why);
    EXPECT_FALSE(why->empty());
  }
  EXPECT_GT(flagged, 50u);
  const Config c4 = cfg(space, 2, 2, 4, 0);
  if (!kb.observed(c4)) {
    EXPECT_EQ(kb.likely_status(c4), Status::wrong_result);
    EXPECT_EQ(kb.why_infeasible(c4)->rfind("C=4 always fails: ", 0), 0u) << *kb.why_infeasible(c4);
  }
}

TEST(KnowledgeBase, ObservedConfigurationsAnswerFromTheirOutcome) {
  const Space space = space4();
  KnowledgeBase kb(space);
  const Config bad = cfg(space, 64, 64, 1, 0), good = cfg(space, 2, 2, 1, 0);
  kb.observe(outcome(space, bad));
  kb.observe(outcome(space, good));
  EXPECT_TRUE(kb.known_infeasible(bad));
  EXPECT_EQ(kb.failure_probability(bad), 1.0);
  EXPECT_EQ(kb.likely_status(bad), Status::resource_limit);
  EXPECT_FALSE(kb.known_infeasible(good));
  EXPECT_EQ(kb.failure_probability(good), 0.0);
}

TEST(KnowledgeBase, DeepInTheFailingRegionIsMoreLikelyToFailThanDeepInTheFeasibleOne) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.25);
  double worst_feasible = 0, best_failing = 1;
  for (double a : {1, 2, 4})
    for (double b : {2, 4})
      for (double d : {0, 1}) {
        const Config c = cfg(space, a, b, 1, d);
        if (!kb.observed(c)) worst_feasible = std::max(worst_feasible, kb.failure_probability(c));
      }
  for (double a : {64, 32})
    for (double b : {64, 32})
      for (double d : {0, 1}) {
        const Config c = cfg(space, a, b, 2, d);
        if (!kb.observed(c)) {
          best_failing = std::min(best_failing, kb.failure_probability(c));
          EXPECT_EQ(kb.likely_status(c), Status::resource_limit) << space.label(c);
        }
      }
  EXPECT_LT(worst_feasible, 0.5);
  EXPECT_GT(best_failing, 0.5);
  EXPECT_LT(worst_feasible, best_failing);
}

TEST(KnowledgeBase, RepairFindsANearbyValidUnseenConfigurationDeterministically) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.4);
  const Config broken = cfg(space, 64, 64, 4, 1);  // fails twice over
  std::mt19937_64 rng1(11), rng2(11);
  const auto fixed = kb.repair(broken, rng1);
  ASSERT_TRUE(fixed);
  EXPECT_EQ(kb.repair(broken, rng2), fixed);
  EXPECT_TRUE(space.satisfies(*fixed));
  EXPECT_FALSE(kb.known_infeasible(*fixed));
  EXPECT_FALSE(kb.observed(*fixed));
  EXPECT_LE(kb.failure_probability(*fixed), 0.5);
  EXPECT_TRUE(is_success(truth(space, *fixed))) << space.label(*fixed);
  EXPECT_NE((*fixed)[2], 2);  // C=4 left
  EXPECT_LT(space.distance(broken, *fixed), 0.3);
  // A configuration that qualifies is its own repair; the accept predicate is honoured.
  Config fine = cfg(space, 2, 4, 1, 0);
  for (std::mt19937_64 r(5); kb.observed(fine);) fine = *space.sample_valid(r);
  if (!kb.known_infeasible(fine) && kb.failure_probability(fine) <= 0.5) {
    std::mt19937_64 rng(1);
    EXPECT_EQ(kb.repair(fine, rng), fine);
    const auto other = kb.repair(fine, rng, [&](const Config& c) { return c != fine; });
    ASSERT_TRUE(other);
    EXPECT_NE(*other, fine);
  }
}

// A probe is one step inside a learned boundary: one more index step of A or B is known or
// predicted to fail. Most probes also work: they sit on the true boundary, near the best.
TEST(KnowledgeBase, BoundaryProbesAreJustInsideTheBoundary) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.3);
  const auto probes = kb.boundary_probes(6);
  ASSERT_EQ(probes.size(), 6u);
  std::size_t working = 0;
  for (const auto& p : probes) {
    EXPECT_FALSE(kb.observed(p));
    EXPECT_TRUE(space.satisfies(p));
    EXPECT_FALSE(kb.known_infeasible(p));
    EXPECT_LE(kb.failure_probability(p), 0.5);
    working += is_success(truth(space, p)) ? 1 : 0;
    bool inside = false;
    for (std::size_t q : {0u, 1u}) {
      Config next = p;
      if (next[q] + 1 >= 7) continue;
      ++next[q];
      inside = inside || kb.known_infeasible(next) || kb.failure_probability(next) > 0.5;
    }
    EXPECT_TRUE(inside) << space.label(p);
  }
  EXPECT_GE(working, 4u);
  EXPECT_EQ(kb.boundary_probes(6), probes);  // deterministic
  const auto some = kb.boundary_probes(6, [&](const Config& c) { return c != probes[0]; });
  EXPECT_EQ(std::count(some.begin(), some.end(), probes[0]), 0);
}

TEST(KnowledgeBase, SlowRegionsWeighLessButNeverZero) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.5);
  const double slow = kb.preference(cfg(space, 2, 2, 8, 0)), fine = kb.preference(cfg(space, 2, 2, 1, 0));
  EXPECT_LT(slow, fine);
  EXPECT_GE(slow, 0.05);
  EXPECT_EQ(fine, 1.0);
}

// Shared memory 4*TILE*(TILE+1) bytes against the 48 KiB ptxas reports: successes report their
// figure (ptxas -v), failures the figure and the limit in the message.
Outcome smem_outcome(const Space& space, const Config& c) {
  const double tile = space.value(c, 0).number;
  const long bytes = static_cast<long>(4 * tile * (tile + 1));
  Outcome o;
  o.config = c;
  if (bytes <= 49152) {
    o.status = Status::ok;
    o.objective = 100.0 / tile;
    o.resources.push_back(KernelResources{"k", 32, bytes});
  } else {
    o.status = Status::resource_limit;
    char msg[128];
    std::snprintf(msg, sizeof msg,
                  "ptxas error   : Entry function 'k' uses too much shared data (0x%lx bytes, 0xc000 max)", bytes);
    o.message = msg;
  }
  return o;
}

TEST(KnowledgeBase, ResourceFiguresBecomeARuleForConfigurationsNeverCompiled) {
  const Space space({numbers("TILE", {4, 8, 16, 32, 64, 96, 128, 192, 256}), numbers("VEC", {1, 2, 4})}, {});
  KnowledgeBase kb(space);
  const Config inside = space.config_from_texts({{"TILE", "96"}, {"VEC", "4"}});
  for (const auto& c : space.enumerate_valid())
    if (c != inside && space.value(c, 0).number != 256) kb.observe(smem_outcome(space, c));
  ASSERT_EQ(kb.resource_rules().size(), 1u);
  const ResourceRule& r = kb.resource_rules()[0];
  EXPECT_EQ(r.figure, "shared_bytes");
  EXPECT_TRUE(r.limit_reported);
  EXPECT_EQ(r.limit, 49152);
  EXPECT_EQ(r.status, Status::resource_limit);
  EXPECT_EQ(r.failures_above, 6u);
  EXPECT_EQ(r.fit.exponents, (std::vector<double>{2, 0}));
  EXPECT_TRUE(contains(kb.explain(), "resource: shared_bytes ~ 4.")) << ::testing::PrintToString(kb.explain());
  EXPECT_TRUE(contains(kb.explain(), "> 49152 (the reported limit) => resource_limit"))
      << ::testing::PrintToString(kb.explain());
  for (const char* vec : {"1", "2", "4"}) {
    const Config huge = space.config_from_texts({{"TILE", "256"}, {"VEC", vec}});
    EXPECT_TRUE(r.predicts_failure(space, huge));
    EXPECT_TRUE(kb.known_infeasible(huge));
    EXPECT_EQ(kb.likely_status(huge), Status::resource_limit);
  }
  EXPECT_FALSE(r.predicts_failure(space, inside));
  EXPECT_FALSE(kb.known_infeasible(inside));
  // The one unseen configuration just inside the limit is the probe: the largest tile that fits.
  EXPECT_EQ(kb.boundary_probes(3), std::vector<Config>{inside});
}

// gemm's threads per block BM*BN/(TM*TN) over 1024 fails (the cuda backend's check before
// compiling, the figure and the device's limit on every outcome). Most configurations with
// BM = 256 or BN = 256 fail so, but the ones the resource rule clears are where the fast kernels
// are: the failures the rule accounts for are explained away, so that the statistical models do
// not rank BM = 256 down as a value.
TEST(KnowledgeBase, FailuresAResourceRuleAccountsForDoNotRankTheirValuesDown) {
  const Space space({numbers("BM", {16, 32, 64, 128, 256}), numbers("BN", {16, 32, 64, 128, 256}),
                     numbers("TM", {1, 2, 4, 8}), numbers("TN", {1, 2, 4, 8})},
                    {});
  auto threads = [&](const Config& c) {
    return space.value(c, 0).number * space.value(c, 1).number / (space.value(c, 2).number * space.value(c, 3).number);
  };
  const std::vector<Config> fits = {space.config_from_texts({{"BM", "256"}, {"BN", "256"}, {"TM", "8"}, {"TN", "8"}}),
                                    space.config_from_texts({{"BM", "256"}, {"BN", "128"}, {"TM", "8"}, {"TN", "4"}}),
                                    space.config_from_texts({{"BM", "128"}, {"BN", "256"}, {"TM", "4"}, {"TN", "8"}})};
  KnowledgeBase kb(space);
  std::mt19937_64 rng(3);
  auto configs = space.enumerate_valid();
  std::shuffle(configs.begin(), configs.end(), rng);
  std::size_t observed = 0, failed = 0;
  for (const auto& c : configs) {
    if (std::find(fits.begin(), fits.end(), c) != fits.end()) continue;
    Observation o;
    o.config = c;
    o.figures["threads"] = threads(c);
    o.limits["threads"] = 1024;
    o.status = threads(c) > 1024 ? Status::resource_limit : Status::ok;
    if (o.status == Status::ok) o.objective = 1;
    failed += o.status != Status::ok;
    kb.observe(o);
    if (++observed == 60) break;
  }
  ASSERT_GT(failed, 10u);
  ASSERT_EQ(kb.resource_rules().size(), 1u);
  EXPECT_TRUE(contains(kb.explain(), " evaluations (" + std::to_string(failed) +
                                         " failures a resource rule accounts for left out)"))
      << ::testing::PrintToString(kb.explain());
  for (const auto& c : fits) {
    EXPECT_FALSE(kb.known_infeasible(c)) << space.label(c);
    EXPECT_LT(kb.failure_probability(c), 0.25) << space.label(c);
  }
  const Config over = space.config_from_texts({{"BM", "256"}, {"BN", "256"}, {"TM", "4"}, {"TN", "8"}});
  if (!kb.observed(over)) EXPECT_TRUE(kb.known_infeasible(over));
}

// What the backend rejects before compiling is known infeasible before any evaluation, with the
// backend's own message, and says so in the explanation; it is not part of what is persisted.
TEST(KnowledgeBase, DeclaredStaticCheckIsKnownFromTheStart) {
  const Space space = space4();
  KnowledgeBase kb(space);
  kb.declare([&](const Config& c) -> std::optional<Outcome> {
    if (space.value(c, 0).number * space.value(c, 1).number <= 1024) return std::nullopt;
    Outcome o;
    o.status = Status::resource_limit;
    o.message = "2048 threads per block, over the device's limit of 1024 threads (sm_90, static check before compiling)";
    return o;
  });
  const Config over = space.config_from_texts({{"A", "64"}, {"B", "32"}, {"C", "1"}, {"D", "0"}});
  const Config fits = space.config_from_texts({{"A", "32"}, {"B", "32"}, {"C", "1"}, {"D", "0"}});
  EXPECT_EQ(kb.size(), 0u);
  EXPECT_TRUE(kb.known_infeasible(over));
  EXPECT_EQ(kb.failure_probability(over), 1.0);
  EXPECT_EQ(kb.likely_status(over), Status::resource_limit);
  EXPECT_EQ(*kb.why_infeasible(over),
            "decided before compiling: 2048 threads per block, over the device's limit of 1024 threads (sm_90, static "
            "check before compiling)");
  EXPECT_FALSE(kb.known_infeasible(fits));
  EXPECT_LT(kb.failure_probability(fits), 1.0);
  EXPECT_TRUE(contains(kb.explain(), "declared: the configurations the backend rejects before compiling"));
  std::mt19937_64 rng(1);
  const auto repaired = kb.repair(over, rng);
  ASSERT_TRUE(repaired);
  EXPECT_LE(space.value(*repaired, 0).number * space.value(*repaired, 1).number, 1024);
  EXPECT_FALSE(KnowledgeBase::from_json(space, kb.to_json()).known_infeasible(over));
}

TEST(KnowledgeBase, PersistsItsObservationsAndRebuildsTheSameKnowledge) {
  const Space space = space4();
  const KnowledgeBase kb = observe_fraction(space, 0.4);
  const nlohmann::json j = kb.to_json();
  EXPECT_EQ(j["format"], "adaexplore-knowledge");
  EXPECT_EQ(j["explanation"], kb.explain());
  const KnowledgeBase back = KnowledgeBase::from_json(space, nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.size(), kb.size());
  EXPECT_EQ(back.explain(), kb.explain());
  for (const auto& c : space.enumerate_valid()) {
    EXPECT_EQ(back.known_infeasible(c), kb.known_infeasible(c));
    EXPECT_EQ(back.failure_probability(c), kb.failure_probability(c));
  }
  EXPECT_EQ(back.boundary_probes(4), kb.boundary_probes(4));
  const Space other({numbers("A", {1, 2})}, {});
  EXPECT_THROW(KnowledgeBase::from_json(other, j), std::invalid_argument);
}

// Cost on the scale of a real tuning: 400 observations of a 15-parameter space, relearned after
// every batch of 10, queried 50 times per batch. Printed, not asserted (timings vary by machine);
// processor time, so that other processes on a busy machine do not count.
TEST(KnowledgeBase, CostOfObservingAndQueryingIsSmall) {
  std::vector<Parameter> params;
  for (int i = 0; i < 15; ++i) params.push_back(numbers("P" + std::to_string(i), {1, 2, 4, 8, 16, 32}));
  const Space space(params, {});
  std::mt19937_64 rng(1);
  KnowledgeBase kb(space);
  auto cpu_seconds = [] { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; };
  std::size_t queries = 0;
  double query_s = 0, observe_s = 0;
  for (int batch = 0; batch < 40; ++batch) {
    double t = cpu_seconds();
    for (int i = 0; i < 10; ++i) {
      const Config c = *space.sample_valid(rng);
      const Status s = c[0] * c[1] > 12 ? Status::resource_limit : c[2] == 3 ? Status::crash : Status::ok;
      kb.observe(Observation{c, s, s == Status::ok ? std::optional<double>(1.0 + c[3]) : std::nullopt, {}, {}});
    }
    observe_s += cpu_seconds() - t;
    t = cpu_seconds();
    for (int i = 0; i < 50; ++i, ++queries) {
      const Config c = *space.sample_valid(rng);
      (void)kb.failure_probability(c);
      (void)kb.known_infeasible(c);
    }
    query_s += cpu_seconds() - t;
  }
  // One relearning at 400 observations, and repairs (their searches query many configurations).
  kb.observe(Observation{*space.sample_valid(rng), Status::crash, std::nullopt, {}, {}});
  double t = cpu_seconds();
  (void)kb.failure_probability(*space.sample_valid(rng));
  const double relearn_s = cpu_seconds() - t;
  t = cpu_seconds();
  for (int i = 0; i < 20; ++i) (void)kb.repair(*space.sample_valid(rng), rng);
  const double repair_s = (cpu_seconds() - t) / 20;
  std::cout << "[ knowledge base ] 400 observations of 15 parameters, processor time: " << 1e6 * observe_s / 400
            << " us per observe, " << 1e6 * query_s / queries
            << " us per query (relearning once per batch of 10 included), " << 1e6 * relearn_s << " us per relearning, "
            << 1e6 * repair_s << " us per repair" << std::endl;
  EXPECT_EQ(kb.size(), 401u);
}

}  // namespace
}  // namespace adaexplore
