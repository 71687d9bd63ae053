// How fast the knowledge base learns from failures: the logistic failure model (failure_model.hpp)
// ranks a value down after a few failures and learns a product boundary; value rules do not
// flicker; and on recorded spaces every hard
// verdict is right (no configuration the recording says succeeds is called infeasible).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "learn/failure_model.hpp"
#include "replay/kernel_tuner_cache.hpp"
#include "learn/knowledge_base.hpp"
#include "replay/replay_backend.hpp"
#include "test_support.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

using test::numbers;

Observation obs(const Config& c, Status s) {
  Observation o;
  o.config = c;
  o.status = s;
  if (is_success(s)) o.objective = 1.0;
  return o;
}

// Area under the ROC curve of `score` for "fails" over `cases` (1 = every failure above every success).
double auc(const std::vector<std::pair<double, bool>>& cases) {
  double pairs = 0, right = 0;
  for (const auto& f : cases)
    if (f.second)
      for (const auto& s : cases)
        if (!s.second) {
          pairs += 1;
          right += f.first > s.first ? 1.0 : f.first == s.first ? 0.5 : 0.0;
        }
  return pairs > 0 ? right / pairs : 0.5;
}

TEST(FailureModel, WithoutDataItSaysOneHalfAndAfterThreeFailuresInThreeItRanksTheValueDown) {
  const Space space({numbers("A", {1, 2, 3, 4}), numbers("B", {1, 2, 3, 4})}, {});
  FailureModel m;
  EXPECT_DOUBLE_EQ(m.failure_probability({0, 0}), 0.5);
  // A=4 failed 3 times in 3; the other 9 evaluations: 2 failures scattered.
  std::vector<Config> cs = {{3, 0}, {3, 1}, {3, 2}, {0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 0}, {2, 1}, {0, 3}, {1, 0}, {2, 3}};
  std::vector<Status> ys = {Status::crash, Status::crash, Status::crash, Status::ok, Status::wrong_result,
                            Status::ok,    Status::ok,    Status::ok,    Status::ok, Status::timeout,
                            Status::ok,    Status::ok};
  std::vector<const Config*> x;
  for (const auto& c : cs) x.push_back(&c);
  m.fit(space, x, ys);
  ASSERT_TRUE(m.fitted());
  const double bad = m.failure_probability({3, 3}), good = m.failure_probability({1, 1});
  EXPECT_GT(bad, 0.75);  // unseen, but with A=4
  EXPECT_LT(good, 0.3);
  EXPECT_GT(bad / good, 3.0);
  const auto lines = m.describe(space, 0.5, 3);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("A=4 +", 0), 0u) << lines.front();
}

TEST(FailureModel, LearnsABoundaryAlongAProductOfParametersFromARandomSample) {
  // Fails when X * Y * Z > 512 (a shared-memory-like product over three parameters).
  const std::vector<double> v = {1, 2, 4, 8, 16, 32};
  const Space space({numbers("X", v), numbers("Y", v), numbers("Z", v)}, {});
  auto fails = [&](const Config& c) { return v[c[0]] * v[c[1]] * v[c[2]] > 512; };
  auto all = space.enumerate_valid();
  std::mt19937_64 rng(7);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<const Config*> x;
  std::vector<Status> y;
  for (std::size_t i = 0; i < 40; ++i) {
    x.push_back(&all[i]);
    y.push_back(fails(all[i]) ? Status::compile_error : Status::ok);
  }
  FailureModel m;
  m.fit(space, x, y);
  DecisionTree tree;
  tree.fit(space, x, y);
  std::vector<std::pair<double, bool>> model_cases, tree_cases;
  for (std::size_t i = 40; i < all.size(); ++i) {
    model_cases.emplace_back(m.failure_probability(all[i]), fails(all[i]));
    tree_cases.emplace_back(tree.leaf(all[i]).failure_probability(), fails(all[i]));
  }
  // The logistic model on log2 values represents the product; the tree's axis-aligned cuts from
  // 40 samples do worse (about 0.85 here).
  EXPECT_GT(auc(model_cases), 0.95);
  EXPECT_GT(auc(model_cases), auc(tree_cases));
}

TEST(FailureLearning, AValueRuleDoesNotFlickerAsTheFailureRateRises) {
  // V has 6 values, W 6: 12 candidate value rules, bound 0.01 / 12 = 8.3e-4. V=6 always fails.
  const Space space({numbers("V", {1, 2, 3, 4, 5, 6}), numbers("W", {1, 2, 3, 4, 5, 6})}, {});
  KnowledgeBase kb(space);
  // 20 successes with V < 6 and W < 5, then V=6 crashes, with W = 1..5.
  for (std::uint16_t i = 0; i < 20; ++i)
    kb.observe(obs({static_cast<std::uint16_t>(i % 5), static_cast<std::uint16_t>(i / 5)}, Status::ok));
  for (std::uint16_t w = 0; w < 2; ++w) kb.observe(obs({5, w}, Status::crash));
  EXPECT_TRUE(kb.rules().values().empty()) << "2 failures are fewer than min_value_failures";
  for (std::uint16_t w = 2; w < 5; ++w) kb.observe(obs({5, w}, Status::crash));
  ASSERT_EQ(kb.rules().values().size(), 1u);
  EXPECT_EQ(kb.rules().values()[0].value, 5);
  EXPECT_TRUE(kb.known_infeasible({5, 5}));
  // Then W=6 times out 5 times: the overall rate becomes 11 / 32 = 0.34, at which 5 failures in
  // 5 (4.8e-3) would not be significant; the rule stays.
  for (std::uint16_t v = 0; v < 5; ++v) kb.observe(obs({v, 5}, Status::timeout));
  bool stated = false;
  for (const auto& r : kb.rules().values()) stated = stated || (r.parameter == 0 && r.value == 5);
  EXPECT_TRUE(stated) << "the rule for V=6 flickered";
  EXPECT_TRUE(kb.known_infeasible({5, 5}));
  // A success with the value withdraws it.
  kb.observe(obs({5, 5}, Status::ok));
  for (const auto& r : kb.rules().values()) EXPECT_FALSE(r.parameter == 0 && r.value == 5);
}

TEST(FailureLearning, FailuresThatAnotherValueExplainsDoNotMakeAValueRule) {
  // Like pnpoly under an adaptive search: X=4 is only ever tried with Y=4, where most
  // configurations fail; X=4 succeeds with small Y, which was never tried.
  const Space space({numbers("X", {1, 2, 3, 4}), numbers("Y", {1, 2, 3, 4}), numbers("Z", {1, 2, 3, 4, 5, 6})}, {});
  KnowledgeBase kb(space);
  for (std::uint16_t x = 0; x < 3; ++x)
    for (std::uint16_t y = 0; y < 3; ++y)
      for (std::uint16_t z = 0; z < 3; ++z)
        if (x + y + z < 6) kb.observe(obs({x, y, z}, Status::ok));
  ASSERT_EQ(kb.size(), 26u);
  // Y=4 with X < 4: 3 of 5 fail.
  kb.observe(obs({0, 3, 0}, Status::launch_error));
  kb.observe(obs({1, 3, 1}, Status::launch_error));
  kb.observe(obs({2, 3, 2}, Status::launch_error));
  kb.observe(obs({0, 3, 3}, Status::ok));
  kb.observe(obs({1, 3, 4}, Status::ok));
  // X=4 fails 5 times in 5, always with Y=4. At the overall rate alone this is significant:
  // (5/34)(6/35)(7/36)(8/37)(9/38) = 2.5e-4 <= 0.01 / 14; at Y=4's rate without X=4 (3 of 5,
  // smoothed: about 0.45 each) it is not.
  for (std::uint16_t z = 0; z < 5; ++z) kb.observe(obs({3, 3, z}, Status::launch_error));
  for (const auto& r : kb.rules().values()) EXPECT_FALSE(r.parameter == 0 && r.value == 3) << "X=4 is a rule";
  EXPECT_FALSE(kb.known_infeasible({3, 0, 0}));
  // Unseen configurations with X=4 and Y=4 are still ranked as likely failures.
  EXPECT_GT(kb.failure_probability({3, 3, 5}), 0.7);
  EXPECT_LT(kb.failure_probability({3, 0, 5}), kb.failure_probability({3, 3, 5}));
}

TEST(FailureLearning, AValueThatFailedThreeTimesInThreeIsRankedDownBeforeItIsARule) {
  const Space space({numbers("T", {16, 64, 256, 1024, 2048}), numbers("U", {1, 2, 3}), numbers("S", {1, 4, 32})}, {});
  KnowledgeBase kb(space);
  std::mt19937_64 rng(1);
  // Failures are common (U=3 always, here), and T=2048 crashed 3 times in 3, as U=3 did (so the
  // status is no evidence: with U=3's failures of another status, the status test of
  // learned_rules.hpp (a) makes T=2048 a rule at once; the next test).
  for (std::uint16_t t = 0; t < 4; ++t)
    for (std::uint16_t s = 0; s < 3; ++s) kb.observe(obs({t, static_cast<std::uint16_t>((t + s) % 2), s}, Status::ok));
  for (std::uint16_t t = 0; t < 4; ++t) kb.observe(obs({t, 2, static_cast<std::uint16_t>(t % 3)}, Status::crash));
  for (std::uint16_t s = 0; s < 3; ++s) kb.observe(obs({4, static_cast<std::uint16_t>(s % 2), s}, Status::crash));
  ASSERT_FALSE(kb.known_infeasible({4, 1, 0}));  // not yet a hard rule: 3 failures
  EXPECT_GT(kb.failure_probability({4, 1, 0}), 0.8);
  EXPECT_LT(kb.failure_probability({1, 1, 0}), 0.3);
  EXPECT_EQ(kb.likely_status({4, 1, 0}), Status::crash);
}

TEST(FailureLearning, AValueThatFailedThreeTimesInThreeInItsOwnWayIsARule) {
  // The same evaluations, but U=3 fails with wrong_result: T=2048 is the only value that crashes,
  // 3 times in 3, which is unlikely by chance (learned_rules.hpp (a), the status test).
  const Space space({numbers("T", {16, 64, 256, 1024, 2048}), numbers("U", {1, 2, 3}), numbers("S", {1, 4, 32})}, {});
  for (const bool status_test : {true, false}) {
    KnowledgeBaseOptions options;
    options.rules.status_test = status_test;
    KnowledgeBase kb(space, options);
    for (std::uint16_t t = 0; t < 4; ++t)
      for (std::uint16_t s = 0; s < 3; ++s)
        kb.observe(obs({t, static_cast<std::uint16_t>((t + s) % 2), s}, Status::ok));
    for (std::uint16_t t = 0; t < 4; ++t)
      kb.observe(obs({t, 2, static_cast<std::uint16_t>(t % 3)}, Status::wrong_result));
    for (std::uint16_t s = 0; s < 3; ++s) kb.observe(obs({4, static_cast<std::uint16_t>(s % 2), s}, Status::crash));
    EXPECT_EQ(kb.known_infeasible({4, 1, 0}), status_test) << "status_test " << status_test;
    EXPECT_EQ(kb.likely_status({4, 1, 0}), Status::crash);
  }
}

TEST(FailureLearning, AStatusAnotherValueExplainsIsNoEvidenceForAValue) {
  // A=6 always crashes, nothing else does, and wrong results are common (B=3). C=4 was only ever
  // sampled beside A=6 (as an adaptive search may), so its 12 crashes are A=6's doing: among the
  // evaluations without C=4 that share A=6, every one crashed. Across the space crashes are rarer
  // (about 0.4 of the other failures), which alone made C=4 a rule before the status test also
  // took the rate of the status beside each other value.
  const Space space({numbers("A", {1, 2, 3, 4, 5, 6}), numbers("B", {1, 2, 3}), numbers("C", {1, 2, 3, 4})}, {});
  KnowledgeBase kb(space);
  for (std::uint16_t a = 0; a < 5; ++a)
    for (std::uint16_t b = 0; b < 3; ++b)
      for (std::uint16_t c = 0; c < 3; ++c) kb.observe(obs({a, b, c}, b == 2 ? Status::wrong_result : Status::ok));
  for (std::uint16_t b = 0; b < 3; ++b)
    for (std::uint16_t c = 0; c < 3; ++c) kb.observe(obs({5, b, c}, Status::crash));
  for (std::uint16_t i = 0; i < 12; ++i) kb.observe(obs({5, static_cast<std::uint16_t>(i % 3), 3}, Status::crash));
  for (const auto& r : kb.rules().values()) EXPECT_FALSE(r.parameter == 2 && r.value == 3) << "C=4 is a rule";
  EXPECT_FALSE(kb.known_infeasible({0, 0, 3}));
  EXPECT_TRUE(kb.known_infeasible({5, 0, 0}));  // A=6 is one
}

// Every hard verdict at several points of random evaluation orders agrees with the recording;
// with `max_wrong_share` > 0, at most that share of them may call a success infeasible (the value
// rules are significance tests: a value that fails almost always, 34 times in 36, passes them).
void expect_sound(const RecordedSpace& recorded, std::size_t orders, const std::vector<std::size_t>& prefixes,
                  double max_wrong_share = 0) {
  std::unordered_map<Config, Status, ConfigHash> truth;
  std::vector<const Outcome*> valid;
  for (const auto& o : recorded.records)
    if (o.status != Status::invalid && recorded.space.satisfies(o.config)) {
      truth[o.config] = o.status;
      valid.push_back(&o);
    }
  ASSERT_GT(valid.size(), prefixes.back());
  std::size_t verdicts = 0, wrong = 0;
  std::string first_wrong;
  for (std::size_t seed = 1; seed <= orders; ++seed) {
    std::mt19937_64 rng(seed);
    std::shuffle(valid.begin(), valid.end(), rng);
    KnowledgeBase kb(recorded.space);
    std::size_t seen = 0;
    for (std::size_t n : prefixes) {
      for (; seen < n; ++seen) kb.observe(*valid[seen]);
      for (std::size_t i = n; i < valid.size(); ++i)
        if (kb.known_infeasible(valid[i]->config)) {
          ++verdicts;
          if (!is_success(truth.at(valid[i]->config))) continue;
          ++wrong;
          if (first_wrong.empty())
            first_wrong = recorded.file.string() + ", order " + std::to_string(seed) + ", after " + std::to_string(n) +
                          ": " + recorded.space.label(valid[i]->config) + " succeeded in the recording but " +
                          *kb.why_infeasible(valid[i]->config);
        }
    }
  }
  EXPECT_GT(verdicts, 0u) << "nothing was learned: the test would pass vacuously";
  EXPECT_LE(static_cast<double>(wrong), max_wrong_share * static_cast<double>(verdicts))
      << wrong << " of " << verdicts << " verdicts wrong; the first: " << first_wrong;
  std::cout << "[          ] " << recorded.file.filename().string() << ": " << wrong << " of " << verdicts
            << " hard verdicts wrong\n";
}

// The host failure space's exhaustive recording (bench/failure_space/host).
RecordedSpace host_recording() {
  const fs::path dir = fs::path(ADAEXPLORE_SOURCE_DIR) / "bench" / "failure_space" / "host";
  return read_results_space(dir / "results" / "exhaustive-random.jsonl", dir / "spec.json");
}

TEST(FailureLearning, HardRulesAreSoundOnTheRecordedHostFailureSpace) {
  const RecordedSpace r = host_recording();
  expect_sound(r, 10, {10, 25, 50, 100});
}

TEST(FailureLearning, HardRulesAreSoundOnTheRecordedConvolutionSpace) {
  const fs::path file = fs::path(ADAEXPLORE_TEST_DATA) / "spaces" / "convolution" / "RTX_3090.json.gz";  // spaces/README.md
  ASSERT_TRUE(fs::exists(file)) << file << " is not here";
  const RecordedSpace r = read_kernel_tuner_cache(
      file, {"block_size_x*block_size_y>=64", "block_size_x*block_size_y<=1024", "tile_size_x*tile_size_y<30"});
  expect_sound(r, 6, {25, 100, 250, 400});
}

// BLOCK_ROWS=64 fails in 34 of its 36 configurations here (wrong_result, crash, launch_error): in
// one of the 20 orders all 17 seen by evaluation 100 had failed and the value rule called the
// other 2, which succeed, infeasible (2 of about 1500 verdicts). Value rules are significance
// tests, not proofs; this bounds how often they err on real data.
TEST(FailureLearning, HardRulesAreAlmostAlwaysRightOnTheRecordedH200TransposeSpace) {
  const fs::path dir = fs::path(ADAEXPLORE_SOURCE_DIR) / "bench" / "failure_space";
  const RecordedSpace r = read_results_space(dir / "results" / "h200-exhaustive-random.jsonl", dir / "spec.json");
  expect_sound(r, 20, {10, 25, 50, 100}, 0.005);
}

fs::path gemm_space_dir() { return fs::path(ADAEXPLORE_SOURCE_DIR) / "bench" / "failure_space" / "gemm"; }

RecordedSpace gemm_recording() {
  return read_results_space(gemm_space_dir() / "results" / "h200-exhaustive-random.jsonl", gemm_space_dir() / "spec.json");
}

// The H200 recording of the gemm example's space: the learned rules (the exact threads fit with
// the reported limit included) never call a configuration that succeeded infeasible.
TEST(FailureLearning, HardRulesAreSoundOnTheRecordedGemmSpace) { expect_sound(gemm_recording(), 30, {8, 10, 12, 16, 25, 50, 100}); }

// The replay of a cuda tuning makes the check the cuda backend made before compiling, with the
// recorded device's limits: exactly the 280 configurations recorded as rejected before compiling.
TEST(FailureLearning, TheGemmReplayMakesTheCudaBackendsCheckBeforeCompiling) {
  const RecordedSpace r = gemm_recording();
  ASSERT_TRUE(r.static_check);
  ReplayBackend backend(r);
  std::size_t rejected = 0;
  for (const auto& o : r.records) {
    const bool recorded = o.message.find("static check before compiling") != std::string::npos;
    const auto replayed = backend.check_statically(o.config);
    ASSERT_EQ(recorded, replayed.has_value()) << o.label << ": " << o.message;
    if (!replayed) continue;
    ++rejected;
    EXPECT_EQ(replayed->status, Status::resource_limit);
    EXPECT_EQ(replayed->message, o.message.substr(0, o.message.find('\n'))) << o.label;
  }
  EXPECT_EQ(rejected, 280u);
}

// With the knowledge base, adaexplore never spends an evaluation on a configuration the backend
// rejects before compiling (declared from the start); without it, the same search does.
TEST(FailureLearning, AdaexploreNeverProposesWhatTheBackendRejectsBeforeCompiling) {
  const RecordedSpace r = gemm_recording();
  ReplayBackend backend(r);
  std::size_t with_kb = 0, without_kb = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    for (const bool kb : {true, false}) {
      const TuneReport t = replay_tuning(backend, "adaexplore", {{"knowledge_base", kb}}, 60, seed);
      ASSERT_EQ(t.outcomes.size(), 60u);
      for (const auto& o : t.outcomes)
        if (backend.check_statically(o.config)) ++(kb ? with_kb : without_kb);
    }
  }
  EXPECT_EQ(with_kb, 0u);
  EXPECT_GT(without_kb, 5u) << "the space would not test the declared check";
}

// Likely failures are left out while an operator has another candidate (options
// max_failure_probability and max_failure_probability_local, strategy_adaexplore.cpp). On the host failure space (180
// configurations, 63 % fail: VEC=3, TILE=2048, UNROLL=3, TILE=16 with STRIPS=32), weighting the
// expected improvement by P(success) alone kept proposing configurations with P(fail) >= 0.7
// (a third of those after the start, 70 % of them failed). At budget 50 the search then wastes
// fewer evaluations (bench/failure_learning.py, 100 seeds: median 12 against 16) and finds as good
// a configuration. Since 2026-12-01 (status test) the value rules' status test (learned_rules.hpp (a)) learns
// VEC=3, TILE=2048 and UNROLL=3 sooner, which helps the search that only weights likely failures
// more (40 runs: 669 wasted before, 619 after) than the one that leaves them out (505, 497): 20 %
// fewer, which this test asked for until then, now holds only just (497 / 619 = 0.803), so it asks
// for a paired difference of at least 3 standard errors (3.05 +- 0.40 per run now) and 15 % fewer.
TEST(FailureLearning, LeavingOutLikelyFailuresWastesFewerEvaluationsOnTheHostSpace) {
  const RecordedSpace r = host_recording();
  double optimum = 1e300;
  for (const auto& o : r.records)
    if (is_success(o.status) && o.objective) optimum = std::min(optimum, *o.objective);
  ReplayBackend backend(r);
  std::size_t wasted[2] = {0, 0}, found_optimum[2] = {0, 0};
  std::vector<double> fewer;  // per seed: wasted weighting them only - wasted leaving them out
  const nlohmann::json options[2] = {nlohmann::json::object(),
                                     {{"max_failure_probability", 1}, {"max_failure_probability_local", 1}}};
  for (std::uint64_t seed = 1; seed <= 40; ++seed)
    for (int i = 0; i < 2; ++i) {
      if (i == 0) fewer.push_back(0);
      const TuneReport t = replay_tuning(backend, "adaexplore", options[i], 50, seed);
      ASSERT_EQ(t.outcomes.size(), 50u);
      bool found = false;
      for (const auto& o : t.outcomes) {
        ASSERT_NE(o.status, Status::invalid) << o.label;
        if (!is_success(o.status)) {
          ++wasted[i];
          fewer.back() += i == 0 ? -1 : 1;
        }
        found = found || (is_success(o.status) && o.objective && *o.objective == optimum);
      }
      found_optimum[i] += found ? 1 : 0;
    }
  std::cout << "[          ] 40 runs of 50: " << wasted[0] << " wasted, optimum found in " << found_optimum[0]
            << " leaving likely failures out; " << wasted[1] << " and " << found_optimum[1] << " weighting them only\n";
  double mean = 0, square = 0;
  for (double f : fewer) mean += f / fewer.size();
  for (double f : fewer) square += (f - mean) * (f - mean) / (fewer.size() - 1);
  const double standard_error = std::sqrt(square / fewer.size());
  std::cout << "[          ] per run " << mean << " +- " << standard_error << " fewer wasted leaving them out\n";
  EXPECT_GT(mean, 3 * standard_error);
  EXPECT_LT(static_cast<double>(wasted[0]), 0.85 * static_cast<double>(wasted[1]));
  EXPECT_GE(found_optimum[0] + 2, found_optimum[1]) << "the search found the optimum less often";
}

// With both thresholds at 1 (and without what was added later: alignment features, 2026-11-30;
// `explore`'s 768 candidates instead of 96, 2026-12-01; the value rules' status test,
// 2026-12-01) the search is the one before they
// existed, proposal by proposal (tests/data/adaexplore_host_space_before_2026-11-30-pipeline.json:
// traces of the tuner of commit 5b7aec8). This also holds the replay to 8 proposals per request,
// as the benchmarks were made with.
TEST(FailureLearning, ThresholdsAtOneAreTheSearchBeforeThem) {
  const RecordedSpace r = host_recording();
  std::ifstream in(fs::path(ADAEXPLORE_SOURCE_DIR) / "tests" / "data" / "adaexplore_host_space_before_2026-11-30-pipeline.json");
  ASSERT_TRUE(in) << "tests/data/adaexplore_host_space_before_2026-11-30-pipeline.json is missing";
  const nlohmann::json golden = nlohmann::json::parse(in);
  ReplayBackend backend(r);
  const nlohmann::json options = {{"max_failure_probability", 1},
                                  {"max_failure_probability_local", 1},
                                  {"alignment", false},
                                  {"explore_candidates", 96},
                                  {"status_test", false}};
  for (const auto& [seed, trace] : golden.at("runs").items()) {
    const TuneReport t = replay_tuning(backend, "adaexplore", options, 50, std::stoull(seed));
    ASSERT_EQ(t.outcomes.size(), trace.size()) << "seed " << seed;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      std::vector<double> values;
      for (std::size_t p = 0; p < r.space.dimension(); ++p)
        values.push_back(r.space.parameters()[p].values[t.outcomes[i].config[p]].number);
      ASSERT_EQ(values, trace[i].get<std::vector<double>>()) << "seed " << seed << ", evaluation " << i;
    }
  }
}

}  // namespace
}  // namespace adaexplore
