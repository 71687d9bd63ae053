#include "loop/tuner.hpp"
#include "loop/clock.hpp"
#include "loop/significance.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

using test::range;

// 10 x 10 configurations, 90 of them valid (X + Y <= 14).
Space space() { return Space({range("X", 10), range("Y", 10)}, {"X + Y <= 14"}); }

// A deterministic objective, minimal (1 ms) at X=7, Y=3; X == 0 does not compile, with a message
// that differs per configuration.
class FakeBackend : public Backend {
 public:
  explicit FakeBackend(std::size_t parallelism = 1, std::chrono::milliseconds prepare_time = {})
      : parallelism_(parallelism), prepare_time_(prepare_time) {}

  std::string name() const override { return "fake"; }
  nlohmann::json device() const override { return {{"name", "fake device"}}; }
  std::size_t parallelism() const override { return parallelism_; }

  Prepared prepare(const Config& c) override {
    if (prepare_time_.count()) std::this_thread::sleep_for(prepare_time_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      prepared_.push_back(c);
    }
    Prepared p;
    p.config = c;
    p.stage_ms["compile"] = 2.0;
    if (c[0] == 0) {
      Outcome o;
      o.status = Status::compile_error;
      o.message = "k.cu(" + std::to_string(10 + c[1]) + "): error: tile of width " + std::to_string(c[1]) +
                  " is too small\nsecond line";
      p.failure = o;
    }
    return p;
  }

  Outcome measure(Prepared& p) override {
    measured_.push_back(p.config);
    return outcome_for(p.config);
  }

  static double objective(const Config& c) { return 1.0 + (c[0] - 7.0) * (c[0] - 7.0) + (c[1] - 3.0) * (c[1] - 3.0); }
  static Outcome outcome_for(const Config& c) {
    Outcome o;
    o.status = Status::ok;
    o.objective = objective(c);
    return o;
  }

  std::vector<Config> prepared() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return prepared_;
  }
  const std::vector<Config>& measured() const { return measured_; }

 private:
  std::size_t parallelism_;
  std::chrono::milliseconds prepare_time_;
  mutable std::mutex mutex_;
  std::vector<Config> prepared_;
  std::vector<Config> measured_;
};

// Every configuration fails in prepare with the status and message a function gives.
class FailingBackend : public FakeBackend {
 public:
  explicit FailingBackend(std::function<Outcome(const Config&)> fail) : fail_(std::move(fail)) {}
  Prepared prepare(const Config& c) override {
    ++count;
    Prepared p;
    p.config = c;
    p.failure = fail_(c);
    return p;
  }
  int count = 0;

 private:
  std::function<Outcome(const Config&)> fail_;
};

// The compiler's warnings of every configuration with Y == 1, whether it then fails (X == 0) or not.
class WarningBackend : public FakeBackend {
 public:
  Prepared prepare(const Config& c) override {
    Prepared p = FakeBackend::prepare(c);
    if (c[1] == 1) p.ptxas_warnings = {"ptxas info    : (C7511) Potential Performance Loss: X=" + std::to_string(c[0])};
    return p;
  }
};

std::unique_ptr<Strategy> random_strategy(const Space& s, std::uint64_t seed = 1) {
  StrategyOptions o;
  o.seed = seed;
  return make_strategy("random", s, o);
}

TuneOptions options(std::size_t budget) {
  TuneOptions o;
  o.kernel = "fake";
  o.budget = budget;
  return o;
}

const Config kBaseline = {2, 2};

std::size_t unique_count(const std::vector<Config>& v) { return std::set<Config>(v.begin(), v.end()).size(); }

TEST(Tuner, BaselineFirstBudgetExactNoRepeats) {
  const Space s = space();
  FakeBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(30), nullptr);
  ASSERT_EQ(r.outcomes.size(), 30u);
  EXPECT_EQ(r.new_evaluations, 30u);
  EXPECT_EQ(r.stop_reason, "budget");
  ASSERT_FALSE(backend.prepared().empty());
  EXPECT_EQ(backend.prepared().front(), kBaseline);
  EXPECT_EQ(r.outcomes.front().config, kBaseline);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->config, kBaseline);
  EXPECT_EQ(r.baseline->objective, FakeBackend::objective(kBaseline));
  EXPECT_EQ(backend.prepared().size(), 30u);
  EXPECT_EQ(unique_count(backend.prepared()), 30u);
  for (const auto& o : r.outcomes) {
    EXPECT_TRUE(s.satisfies(o.config));
    EXPECT_EQ(o.label, s.label(o.config));
    EXPECT_EQ(o.stage_ms.at("compile"), 2.0);  // the prepare stage is kept
    if (o.config[0] == 0) {
      EXPECT_EQ(o.status, Status::compile_error);
      EXPECT_FALSE(o.objective);
    } else {
      EXPECT_EQ(o.objective, FakeBackend::objective(o.config));
    }
  }
  std::size_t failures = 0;
  for (const auto& o : r.outcomes) failures += o.status == Status::compile_error;
  EXPECT_EQ(r.counts.at("ok"), 30 - failures);
  EXPECT_EQ(backend.measured().size(), 30 - failures);  // failures decided in prepare are not measured
}

// The compile's ptxas warnings go into the outcome record as extra.ptxas_warnings, for successes
// and failures alike; an outcome without warnings has no such field.
TEST(Tuner, PtxasWarningsAreKeptInTheOutcome) {
  const Space s = space();
  WarningBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(85), nullptr);
  std::size_t ok_with = 0, failed_with = 0;
  for (const auto& o : r.outcomes) {
    const nlohmann::json record = to_json(o, s);
    if (o.config[1] != 1) {
      EXPECT_FALSE(record.contains("extra") && record["extra"].contains("ptxas_warnings")) << record.dump();
      continue;
    }
    ASSERT_TRUE(record.contains("extra") && record["extra"].contains("ptxas_warnings")) << record.dump();
    EXPECT_EQ(record["extra"]["ptxas_warnings"],
              nlohmann::json::array({"ptxas info    : (C7511) Potential Performance Loss: X=" + std::to_string(o.config[0])}));
    (o.status == Status::compile_error ? failed_with : ok_with) += 1;
  }
  EXPECT_EQ(ok_with, 9u);  // X = 1..9 with Y = 1 (X + Y <= 14)
  EXPECT_EQ(failed_with, 1u);
}

// The streaming pipeline with 4 compile workers: exactly the budget is compiled (no proposal beyond
// what the budget can take, counting those in flight), none twice, the baseline first.
TEST(Tuner, PipelineCompilesExactlyTheBudgetAndNothingTwice) {
  const Space s = space();
  FakeBackend backend(/*parallelism=*/4, std::chrono::milliseconds(2));
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(23), nullptr);
  ASSERT_EQ(r.outcomes.size(), 23u);
  EXPECT_EQ(r.outcomes.front().config, kBaseline);
  const auto prepared = backend.prepared();
  EXPECT_EQ(prepared.size(), 23u);
  EXPECT_EQ(unique_count(prepared), 23u);
  EXPECT_EQ(r.stop_reason, "budget");
}

// The strategy is asked for only as many configurations as can start compiling now (the free
// compile slots), so that later proposals see the outcomes measured meanwhile: none is for more
// than 16 with 16 compile workers, and no proposal waits in a queue behind the compile slots.
// (Before: max(8, 2 x 16) = 32 at a time, so at budget 50 two thirds of the evaluations were
// proposed before any outcome.) RecordingStrategy records each request.
class RecordingStrategy : public Strategy {
 public:
  explicit RecordingStrategy(std::unique_ptr<Strategy> inner) : inner_(std::move(inner)) {}
  std::vector<Config> propose(std::size_t count) override {
    asked.push_back(count);
    outstanding.push_back(mine_.size() - observed);
    observed_at.push_back(observed);
    proposed_at.push_back(mine_.size());
    auto out = inner_->propose(count);
    mine_.insert(out.begin(), out.end());
    return out;
  }
  void observe(const Outcome& o) override {
    if (mine_.count(o.config)) ++observed;  // not the baseline
    inner_->observe(o);
  }
  // Per request: the count asked, its own proposals not yet observed, observed, and made before.
  std::vector<std::size_t> asked, outstanding, observed_at, proposed_at;
  std::size_t observed = 0;

 private:
  std::unique_ptr<Strategy> inner_;
  std::set<Config> mine_;
};

TEST(Tuner, TheStrategyIsAskedOnlyForWhatCanStartCompiling) {
  const Space s = space();
  FakeBackend backend(/*parallelism=*/16, std::chrono::milliseconds(3));
  RecordingStrategy strategy(random_strategy(s));
  // A budget of 136 caps the depth at 17 (pipeline.cpp, budget_depth()): every compile worker; the
  // space's 90 valid configurations end the tuning.
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, options(136), nullptr);
  ASSERT_EQ(r.outcomes.size(), 90u);
  ASSERT_FALSE(strategy.asked.empty());
  EXPECT_EQ(strategy.asked.front(), 7u);
  EXPECT_LE(*std::max_element(strategy.asked.begin(), strategy.asked.end()), 16u);
  EXPECT_GT(strategy.asked.size(), 3u) << "asked in few large batches";
  // No proposal waits in a queue: those in flight and those asked for fit the compile slots plus
  // the one being measured.
  std::size_t deepest = 0;
  for (std::size_t i = 0; i < strategy.asked.size(); ++i) {
    EXPECT_LE(strategy.outstanding[i] + strategy.asked[i], 17u) << "request " << i;
    deepest = std::max(deepest, strategy.outstanding[i] + strategy.asked[i]);
  }
  EXPECT_GE(deepest, 15u) << "a compile-bound tuning left compile slots idle";
  EXPECT_EQ(unique_count(backend.prepared()), backend.prepared().size());
}

// Measurement-bound: compiles of 20 ms and measurements of 20 ms. One compile at a time keeps
// up with the GPU, so with 16 compile workers the loop keeps only a few configurations in flight
// (depth(), see KeepsInFlightOnlyWhatKeepsTheGpuBusy), and each proposal is made with all but
// those few outcomes known. Every compile worker busy would be 17 in flight: proposals 16
// outcomes behind, for no more throughput.
class SlowMeasureBackend : public FakeBackend {
 public:
  SlowMeasureBackend(std::chrono::milliseconds prepare, std::chrono::milliseconds measure)
      : FakeBackend(16, prepare), measure_(measure) {}
  Outcome measure(Prepared& p) override {
    std::this_thread::sleep_for(measure_);
    return FakeBackend::measure(p);
  }

 private:
  std::chrono::milliseconds measure_;
};

// The depths (in flight plus asked) of the requests made once 8 outcomes were in, and the report.
struct SettledDepths {
  std::size_t deepest = 0, shallowest = 1000;
  TuneReport report;
};
SettledDepths settled_depths(std::chrono::milliseconds prepare, std::chrono::milliseconds measure) {
  const Space s = space();
  SlowMeasureBackend backend(prepare, measure);
  RecordingStrategy strategy(random_strategy(s));
  SettledDepths d;
  // Budget 89: the budget's cap on the depth, 12, is above what these times ask for.
  d.report = run_tuning(s, kBaseline, backend, strategy, options(89), nullptr);
  EXPECT_EQ(d.report.outcomes.size(), 89u);
  EXPECT_EQ(d.report.in_flight_budget, 0u);
  EXPECT_EQ(strategy.asked.front(), 7u);  // blind: 8 with the baseline
  for (std::size_t i = 1; i < strategy.asked.size(); ++i) {
    if (strategy.observed_at[i] < 8) continue;                               // the rates settle over the first outcomes
    if (strategy.proposed_at[i] + strategy.asked[i] >= 88) continue;         // the budget, not the depth, limits it
    const std::size_t depth = strategy.outstanding[i] + strategy.asked[i];
    d.deepest = std::max(d.deepest, depth);
    d.shallowest = std::min(d.shallowest, depth);
  }
  EXPECT_EQ(unique_count(backend.prepared()), backend.prepared().size());
  return d;
}

TEST(Tuner, KeepsInFlightOnlyWhatKeepsTheGpuBusy) {
  // 12 % of this space fails to compile (X = 0) and takes no measurement, so Tm is about 18 ms:
  // ceil(1.5 x 20 / 18) + 1 = 3 in flight; a loaded machine stretches the ratio a little.
  const SettledDepths even = settled_depths(std::chrono::milliseconds(20), std::chrono::milliseconds(20));
  EXPECT_LE(even.deepest, 5u) << "proposals made further behind the outcomes than the GPU needs";
  EXPECT_GE(even.shallowest, 2u) << "the compiles no longer run ahead of the GPU";
  EXPECT_TRUE(even.report.in_flight_automatic);  // the report's account of it
  EXPECT_FALSE(even.report.in_flight_every_worker);
  EXPECT_GE(even.report.in_flight, 2u);
  EXPECT_LE(even.report.in_flight, 5u);
  EXPECT_GE(even.report.mean_prepare_ms, 15.0);
  EXPECT_GT(even.report.mean_measure_ms, 10.0);
  EXPECT_EQ(even.report.rate_samples, 32u);
  // Compiles three times as long as a measurement: ceil(1.5 x 60 / 18) + 1 = 6 in flight, more
  // than with even times, still far from every compile worker (17).
  const SettledDepths slow = settled_depths(std::chrono::milliseconds(60), std::chrono::milliseconds(20));
  EXPECT_GT(slow.shallowest, even.deepest) << "the depth does not follow the compile time";
  EXPECT_LE(slow.deepest, 10u);
}

// A small budget caps the depth at ceil(budget / 8): a compile-bound tuning of 25 evaluations on
// 16 compile workers keeps 4 in flight once the first outcome is in, not 17, so its proposals
// after the blind start are made knowing all but 3 outcomes.
TEST(Tuner, ASmallBudgetCapsTheConfigurationsInFlight) {
  const Space s = space();
  FakeBackend backend(/*parallelism=*/16, std::chrono::milliseconds(3));
  RecordingStrategy strategy(random_strategy(s));
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, options(25), nullptr);
  ASSERT_EQ(r.outcomes.size(), 25u);
  ASSERT_FALSE(strategy.asked.empty());
  EXPECT_EQ(strategy.asked.front(), 7u);  // blind: 8 with the baseline, whatever the budget
  std::size_t settled = 0;
  for (std::size_t i = 1; i < strategy.asked.size(); ++i) {
    if (strategy.observed_at[i] == 0) continue;  // still blind
    ++settled;
    EXPECT_LE(strategy.outstanding[i] + strategy.asked[i], 4u) << "request " << i;
  }
  EXPECT_GE(settled, 5u) << "asked in few large batches";
  EXPECT_TRUE(r.in_flight_automatic);
  EXPECT_EQ(r.in_flight, 4u);
  EXPECT_EQ(r.in_flight_budget, 4u);
  EXPECT_FALSE(r.in_flight_every_worker);
}

// With several GPUs the cap grows by one per further GPU: 4 GPUs at budget 25, 4 + 4 - 1 = 7, so
// that every GPU has a configuration to measure and more compile ahead.
class FourGpuBackend : public FakeBackend {
 public:
  FourGpuBackend() : FakeBackend(16, std::chrono::milliseconds(3)) {}
  std::size_t measure_slots() const override { return 4; }
  Outcome measure_on(Prepared& p, std::size_t) override { return outcome_for(p.config); }
};

TEST(Tuner, TheBudgetsCapGrowsWithTheGpus) {
  const Space s = space();
  FourGpuBackend backend;
  RecordingStrategy strategy(random_strategy(s));
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, options(25), nullptr);
  ASSERT_EQ(r.outcomes.size(), 25u);
  for (std::size_t i = 1; i < strategy.asked.size(); ++i)
    if (strategy.observed_at[i] > 0) EXPECT_LE(strategy.outstanding[i] + strategy.asked[i], 7u) << "request " << i;
  EXPECT_EQ(r.in_flight, 7u);
  EXPECT_EQ(r.in_flight_budget, 7u);
}

// TuneOptions::in_flight fixes the depth: the strategy is asked again as soon as fewer are in
// flight, with one compile worker (replay --in-flight) as with several.
TEST(Tuner, AFixedInFlightWindowProposesOneAsEachIsObserved) {
  const Space s = space();
  for (std::size_t workers : {1u, 4u}) {
    FakeBackend backend(workers);
    RecordingStrategy strategy(random_strategy(s));
    TuneOptions o = options(30);
    o.in_flight = 5;
    o.evaluate_baseline = false;  // as a replay: every evaluation is the strategy's
    const TuneReport r = run_tuning(s, kBaseline, backend, strategy, o, nullptr);
    ASSERT_EQ(r.outcomes.size(), 30u) << workers;
    ASSERT_GE(strategy.asked.size(), 2u);
    EXPECT_EQ(strategy.asked.front(), 5u) << workers;
    for (std::size_t i = 0; i < strategy.asked.size(); ++i)
      EXPECT_LE(strategy.outstanding[i] + strategy.asked[i], 5u) << workers << ", request " << i;
    EXPECT_EQ(r.in_flight, 5u);
    EXPECT_FALSE(r.in_flight_automatic);
    if (workers == 1)  // one outcome at a time: one proposal each, 4 others unobserved
      for (std::size_t i = 1; i < strategy.asked.size(); ++i) {
        EXPECT_EQ(strategy.asked[i], 1u) << i;
        EXPECT_EQ(strategy.outstanding[i], 4u) << i;
      }
    EXPECT_EQ(unique_count(backend.prepared()), backend.prepared().size());
  }
}

// With TuneOptions::batch the request size is fixed (replays ask for 8 at a time).
TEST(Tuner, AFixedBatchIsAskedForAsGiven) {
  const Space s = space();
  FakeBackend backend(/*parallelism=*/1);
  RecordingStrategy strategy(random_strategy(s));
  TuneOptions o = options(41);
  o.batch = 8;
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, o, nullptr);
  ASSERT_EQ(r.outcomes.size(), 41u);
  EXPECT_EQ(strategy.asked, (std::vector<std::size_t>{8, 8, 8, 8, 8}));
  EXPECT_EQ(r.in_flight, 0u);  // fixed batches: no depth to report
}

// A slow compile does not hold up the GPU: with 4 compile workers, the configuration prepared
// first after the baseline takes 400 ms to compile and the others none; those compiled meanwhile
// are measured (and recorded) before it, the baseline still first.
class OneSlowCompileBackend : public FakeBackend {
 public:
  OneSlowCompileBackend() : FakeBackend(4) {}
  Prepared prepare(const Config& c) override {
    if (!(c == kBaseline) && !taken_.exchange(true)) {
      slow_ = c;
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
    }
    return FakeBackend::prepare(c);
  }
  std::atomic<bool> taken_{false};
  Config slow_;
};

TEST(Tuner, ASlowCompileDoesNotHoldUpTheMeasurementsBehindIt) {
  const Space s = space();
  OneSlowCompileBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(12), nullptr);
  ASSERT_EQ(r.outcomes.size(), 12u);
  EXPECT_EQ(r.outcomes.front().config, kBaseline);
  std::size_t slow_at = 0;
  for (std::size_t i = 0; i < r.outcomes.size(); ++i)
    if (r.outcomes[i].config == backend.slow_) slow_at = i;
  EXPECT_GE(slow_at, 4u) << "the slow configuration was recorded " << slow_at << "th";
}

// Several measuring workers (one per GPU): after the baseline, measured alone, up to
// measure_slots() configurations are measured at once; every outcome is recorded once, the
// budget holds, the worker that measured each is the one its outcome names.
class SlottedBackend : public FakeBackend {
 public:
  SlottedBackend() : FakeBackend(4) {}
  std::size_t measure_slots() const override { return 2; }
  Outcome measure_on(Prepared& p, std::size_t slot) override {
    const int now = ++active_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      max_active_ = std::max(max_active_, now);
      if (p.config == kBaseline) baseline_alone_ = now == 1;
      slots_.push_back(slot);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --active_;
    Outcome o = outcome_for(p.config);
    o.extra["slot"] = slot;
    return o;
  }
  std::atomic<int> active_{0};
  std::mutex mutex_;
  int max_active_ = 0;
  bool baseline_alone_ = false;
  std::vector<std::size_t> slots_;
};

TEST(Tuner, SeveralMeasuringWorkersMeasureAtOnceAfterTheBaseline) {
  const Space s = space();
  SlottedBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(15), nullptr);
  ASSERT_EQ(r.outcomes.size(), 15u);
  EXPECT_EQ(r.outcomes.front().config, kBaseline);
  std::vector<Config> configs;
  for (const auto& o : r.outcomes) configs.push_back(o.config);
  EXPECT_EQ(unique_count(configs), 15u);
  EXPECT_TRUE(backend.baseline_alone_);
  EXPECT_EQ(backend.max_active_, 2);
  std::size_t measured = 0;
  for (const auto& o : r.outcomes)
    if (o.extra.contains("slot")) {
      ++measured;
      EXPECT_LT(o.extra["slot"].get<std::size_t>(), 2u);
    }
  EXPECT_EQ(measured, backend.slots_.size());
  EXPECT_EQ(std::set<std::size_t>(backend.slots_.begin(), backend.slots_.end()).size(), 2u);
}

// Two measuring workers; the first configuration after the baseline measures for 400 ms, the
// others for 5 ms. The other worker goes on measuring meanwhile, and their outcomes are recorded
// as they finish, before the long one's. Until 2026-12-01 (several-GPU loop fix) the loop waited for the oldest
// measurement whenever both workers were busy: the other GPU measured one configuration and then
// sat idle, its outcome unrecorded, for the rest of the 400 ms.
class OneLongMeasurementBackend : public FakeBackend {
 public:
  OneLongMeasurementBackend() : FakeBackend(4) {}
  std::size_t measure_slots() const override { return 2; }
  Outcome measure_on(Prepared& p, std::size_t) override {
    bool is_long = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      started_.push_back(p.config);
      is_long = !(p.config == kBaseline) && !long_;
      if (is_long) long_ = p.config;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(is_long ? 400 : 5));
    return outcome_for(p.config);
  }
  std::mutex mutex_;
  std::vector<Config> started_;  // in the order their measurements started
  std::optional<Config> long_;
};

TEST(Tuner, OneLongMeasurementDoesNotHoldUpTheOtherGpu) {
  const Space s = space();
  OneLongMeasurementBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(20), nullptr);
  ASSERT_EQ(r.outcomes.size(), 20u);
  ASSERT_TRUE(backend.long_);
  const auto started_at = std::find(backend.started_.begin(), backend.started_.end(), *backend.long_);
  std::set<Config> started_after(started_at + 1, backend.started_.end());
  std::size_t recorded_before = 0;  // started after the long one, recorded before it
  for (const auto& o : r.outcomes) {
    if (o.config == *backend.long_) break;
    recorded_before += started_after.count(o.config);
  }
  // 400 ms hold at least 3 measurements of 5 ms (one when the loop waited for the oldest).
  EXPECT_GE(recorded_before, 3u) << "the other worker measured " << recorded_before
                                 << " configurations while the long one ran";
}

// Two measuring workers: a measurement that finishes while the loop waits for a compile is
// recorded (the strategy observes it) then, not when that compile is done. Found by a review: the
// loop polled only the compiles while it waited. Each compile after the defaults' waits for a
// permit, and each observation gives one: a loop that recorded the finished measurement only
// once the compile it waits for was done would wait for a permit only that recording gives, and
// the compile gives up after 10 s instead (timed_out). No timing is asserted: a correct loop
// never waits for a permit that does not come. Catching a regression relies on the 20 ms
// measurement: a loop thread stalled longer records it at the top of the loop instead, so a
// regressed loop fails almost surely over the rounds, but slowly (up to 10 s a round).
class GatedCompileTwoGpuBackend : public FakeBackend {
 public:
  GatedCompileTwoGpuBackend() : FakeBackend(2) {}
  std::size_t measure_slots() const override { return 2; }
  Prepared prepare(const Config& c) override {
    if (!(c == kBaseline)) {
      std::unique_lock<std::mutex> lock(gate_mutex_);
      if (!gate_.wait_for(lock, std::chrono::seconds(10), [&] { return permits_ > 0; }))
        ++timed_out;
      else
        --permits_;
    }
    return FakeBackend::prepare(c);
  }
  Outcome measure_on(Prepared& p, std::size_t) override {
    // Long enough that the loop starts waiting for the next compile before this one is done.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return outcome_for(p.config);
  }
  void permit() {
    {
      std::lock_guard<std::mutex> lock(gate_mutex_);
      ++permits_;
    }
    gate_.notify_one();
  }
  std::atomic<int> timed_out{0};

 private:
  std::mutex gate_mutex_;
  std::condition_variable gate_;
  int permits_ = 0;
};

// Each observation gives the backend one compile permit.
class PermittingStrategy : public Strategy {
 public:
  PermittingStrategy(std::unique_ptr<Strategy> inner, GatedCompileTwoGpuBackend& backend)
      : inner_(std::move(inner)), backend_(backend) {}
  std::vector<Config> propose(std::size_t count) override { return inner_->propose(count); }
  void observe(const Outcome& o) override {
    inner_->observe(o);
    backend_.permit();
  }

 private:
  std::unique_ptr<Strategy> inner_;
  GatedCompileTwoGpuBackend& backend_;
};

TEST(Tuner, AMeasurementFinishedDuringACompileIsRecordedWithoutWaitingForIt) {
  const Space s = space();
  GatedCompileTwoGpuBackend backend;
  PermittingStrategy strategy(random_strategy(s), backend);
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, options(9), nullptr);
  ASSERT_EQ(r.outcomes.size(), 9u);
  EXPECT_EQ(backend.timed_out.load(), 0) << "a finished measurement was recorded only after the compile the loop "
                                            "waited for, which waited for that recording";
}

TEST(Tuner, BestIsTheLowestObjective) {
  const Space s = space();
  FakeBackend backend;
  auto strategy = random_strategy(s, 4);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(40), nullptr);
  ASSERT_TRUE(r.best);
  for (const auto& o : r.outcomes)
    if (o.objective) EXPECT_LE(*r.best->objective, *o.objective);
  EXPECT_EQ(r.best->objective, FakeBackend::objective(r.best->config));
}

TEST(Tuner, ExhaustsASmallSpaceAndFindsTheOptimum) {
  const Space s = space();
  FakeBackend backend(3);
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(1000), nullptr);
  EXPECT_EQ(r.stop_reason, "space exhausted");
  EXPECT_EQ(r.outcomes.size(), s.enumerate_valid().size());
  EXPECT_EQ(r.skipped, 0u);  // random proposes every configuration: none skipped
  EXPECT_EQ(unique_count(backend.prepared()), backend.prepared().size());
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->config, (Config{7, 3}));
}

TEST(Tuner, PreviousOutcomesCountTowardTheBudgetAndAreNotEvaluatedAgain) {
  const Space s = space();
  std::vector<Outcome> previous;
  for (const Config& c : {Config{1, 1}, Config{2, 2}, Config{5, 5}, Config{7, 3}}) {
    Outcome o = FakeBackend::outcome_for(c);
    o.config = c;
    o.label = s.label(c);
    previous.push_back(o);
  }
  FakeBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(12), nullptr, previous);
  EXPECT_EQ(r.outcomes.size(), 12u);
  EXPECT_EQ(r.new_evaluations, 8u);
  EXPECT_EQ(backend.prepared().size(), 8u);
  for (const auto& c : backend.prepared())
    for (const auto& p : previous) EXPECT_NE(c, p.config) << "evaluated again: " << s.label(c);
  for (std::size_t i = 0; i < previous.size(); ++i) EXPECT_EQ(r.outcomes[i].config, previous[i].config);
  ASSERT_TRUE(r.baseline);  // found among the previous outcomes
  EXPECT_EQ(r.baseline->config, kBaseline);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->config, (Config{7, 3}));  // a previous outcome can win
}

TEST(Tuner, BudgetSpentByPreviousOutcomesEvaluatesNothing) {
  const Space s = space();
  std::vector<Outcome> previous;
  for (const Config& c : {Config{1, 1}, Config{5, 5}}) {
    Outcome o = FakeBackend::outcome_for(c);
    o.config = c;
    previous.push_back(o);
  }
  FakeBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(2), nullptr, previous);
  EXPECT_EQ(r.new_evaluations, 0u);
  EXPECT_TRUE(backend.prepared().empty());
  EXPECT_EQ(r.stop_reason, "budget");
  EXPECT_FALSE(r.baseline);
}

// Proposes a fixed list, whatever it contains (repeats, the baseline, invalid configurations).
class ListStrategy : public Strategy {
 public:
  explicit ListStrategy(std::vector<Config> list) : list_(std::move(list)) {}
  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    while (out.size() < count && next_ < list_.size()) out.push_back(list_[next_++]);
    return out;
  }
  void observe(const Outcome& o) override { observed.push_back(o.config); }
  std::vector<Config> observed;

 private:
  std::vector<Config> list_;
  std::size_t next_ = 0;
};

TEST(Tuner, NoConfigurationIsEvaluatedTwiceEvenWhenTheStrategyRepeatsItself) {
  const Space s = space();
  FakeBackend backend;
  ListStrategy strategy({{3, 3}, {3, 3}, {2, 2}, {9, 9}, {4, 4}, {3, 3}, {4, 4}, {5, 5}});
  TuneOptions o = options(100);
  o.batch = 4;
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, o, nullptr);
  const std::vector<Config> expected = {{2, 2}, {3, 3}, {4, 4}, {5, 5}};
  EXPECT_EQ(backend.prepared(), expected);
  EXPECT_EQ(strategy.observed, expected);
  EXPECT_EQ(r.outcomes.size(), 4u);
}

TEST(Tuner, SetupErrorWhenEveryConfigurationFailsTheSameWay) {
  const Space s = space();
  FailingBackend backend([](const Config& c) {
    Outcome o;
    o.status = Status::compile_error;
    o.message = "nvcc fatal: Unsupported gpu architecture 'compute_99' (configuration " + std::to_string(c[0]) +
                std::to_string(c[1]) + ")\nmore";
    return o;
  });
  auto strategy = random_strategy(s);
  TuneOptions o = options(50);
  try {
    run_tuning(s, kBaseline, backend, *strategy, o, nullptr);
    FAIL() << "expected SetupError";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("compile_error"), std::string::npos) << what;
    EXPECT_NE(what.find("Unsupported gpu architecture"), std::string::npos) << what;
    EXPECT_NE(what.find("X=2,Y=2"), std::string::npos) << what;  // the first configuration: the baseline
  }
  // Stopped at the window (one more may have been prepared ahead of measurement).
  EXPECT_GE(backend.count, static_cast<int>(o.setup_failure_window));
  EXPECT_LE(backend.count, static_cast<int>(o.setup_failure_window) + 1);
}

// Each configuration compiles in its own folder, <work_dir>/evals/<16 hex>/, which the compiler's
// first line names: before 2026-12-05 no two such lines compared equal, and a template failing
// for every configuration spent the whole budget (120 nvcc compiles) instead of 6.
TEST(Tuner, SetupErrorWhenEveryConfigurationFailsNamingItsOwnFolder) {
  const Space s = space();
  FailingBackend backend([](const Config& c) {
    const std::string hash = content_hash(std::to_string(c[0]) + "," + std::to_string(c[1])).substr(0, 16);
    Outcome o;
    o.status = Status::compile_error;
    o.message = "/build/k.work/evals/" + hash + "/kernel.cuh(" + std::to_string(3 + c[0]) +
                "): error: identifier \"missing_t\" is undefined\n  command: nvcc ...";
    return o;
  });
  auto strategy = random_strategy(s);
  TuneOptions o = options(50);
  EXPECT_THROW(run_tuning(s, kBaseline, backend, *strategy, o, nullptr), SetupError);
  EXPECT_LE(backend.count, static_cast<int>(o.setup_failure_window) + 1);
}

// What differs between the configurations of one broken setup is not a difference: the folder,
// hashes and addresses, numbers, the configuration's own words; the status and the words are.
TEST(Tuner, FailureSignatureLeavesOutWhatEachConfigurationHasOfItsOwn) {
  auto failed = [](Status status, const std::string& label, const std::string& message) {
    Outcome o;
    o.status = status;
    o.label = label;
    o.message = message + "\nsecond line differs " + label;
    return o;
  };
  const Outcome a = failed(Status::compile_error, "TILE=16,TYPE=float",
                           "/w/k.work/evals/0123456789abcdef/k.cuh:4:10: error: float tile of 16 at 0x7ffd12ab (deadbeef01)");
  const Outcome b = failed(Status::compile_error, "TILE=64,TYPE=half",
                           "/w/k.work/concurrent-1/evals/fedcba9876543210/k.cuh:5:2: error: half tile of 64 at 0x7ffe0000 (0badcafe99)");
  EXPECT_EQ(failure_signature(a), failure_signature(b)) << failure_signature(a);
  EXPECT_EQ(failure_signature(a), "compile_error:<eval>/k.cuh:#:#: error: <value> tile of # at <hex> (<hex>)");
  Outcome c = b;
  c.status = Status::crash;
  EXPECT_NE(failure_signature(a), failure_signature(c));
  const Outcome d = failed(Status::compile_error, "TILE=16,TYPE=float", "/w/k.work/evals/0123456789abcdef/k.cuh:4:10: error: other");
  EXPECT_NE(failure_signature(a), failure_signature(d));
  // One shape of mismatch, whatever the values.
  const Outcome e = failed(Status::wrong_result, "TILE=16,TYPE=float",
                           "1024 of 1024 values differ from the reference; first at index 0: got 2.5e-05, expected -1 (max abs error 1.00003)");
  const Outcome f = failed(Status::wrong_result, "TILE=64,TYPE=half",
                           "12 of 1024 values differ from the reference; first at index 7: got 3, expected 0.5 (max abs error 2.5)");
  EXPECT_EQ(failure_signature(e), failure_signature(f)) << failure_signature(e);
}

// A broken reference (every configuration that runs disagrees with it in the same way) with one
// configuration that really fails mixed in (2026-12-05: not stopped, the whole budget spent).
TEST(Tuner, SetupErrorWhenEveryConfigurationThatRunsDisagreesWithTheReferenceTheSameWay) {
  const Space s = space();
  FailingBackend backend([](const Config& c) {
    Outcome o;
    if (c == kBaseline) {  // the defaults fail for real
      o.status = Status::compile_error;
      o.message = "kernel.cuh(7): error: static assertion failed";
      return o;
    }
    o.status = Status::wrong_result;
    o.message = std::to_string(100 + c[0]) + " of 1024 values differ from the reference; first at index " +
                std::to_string(c[1]) + ": got " + std::to_string(2.0 * c[0]) + ", expected 3.5 (max abs error 1.5)";
    return o;
  });
  auto strategy = random_strategy(s);
  TuneOptions o = options(50);
  try {
    run_tuning(s, kBaseline, backend, *strategy, o, nullptr);
    FAIL() << "expected SetupError";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("5 of the first 6 configurations failed with wrong_result in the same way, and the other "
                        "(X=2,Y=2) with compile_error"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("disagrees with the benchmark's reference"), std::string::npos) << what;
    EXPECT_NE(what.find("values differ from the reference"), std::string::npos) << what;  // the shared failure shown
  }
  EXPECT_LE(backend.count, static_cast<int>(o.setup_failure_window) + 1);
  // Two other failures, or one beside a compile error shared by the rest, are not a broken reference.
  std::vector<Outcome> outcomes;
  for (int i = 0; i < 6; ++i) {
    Outcome x;
    x.status = Status::wrong_result;
    x.message = "7 of 9 values differ from the reference; first at index 1: got 2, expected 1 (max abs error 1)";
    outcomes.push_back(x);
  }
  outcomes[2].status = Status::crash;
  EXPECT_TRUE(setup_failures_only(outcomes, 6));
  outcomes[4].status = Status::timeout;
  EXPECT_FALSE(setup_failures_only(outcomes, 6));
  for (auto& x : outcomes) x.status = Status::compile_error;
  outcomes[3].message = "error: something else";
  EXPECT_FALSE(setup_failures_only({outcomes.begin(), outcomes.begin() + 4}, 4));
}

TEST(Tuner, NoSetupErrorWhenFailuresDiffer) {
  const Space s = space();
  FailingBackend backend([](const Config& c) {
    Outcome o;
    o.status = (c[0] + c[1]) % 2 ? Status::crash : Status::compile_error;
    o.message = o.status == Status::crash ? "illegal memory access" : "error: too many registers";
    return o;
  });
  auto strategy = random_strategy(s);
  TuneReport r;
  EXPECT_NO_THROW(r = run_tuning(s, kBaseline, backend, *strategy, options(20), nullptr));
  EXPECT_EQ(r.outcomes.size(), 20u);
  EXPECT_FALSE(r.best);
  EXPECT_EQ(r.counts.at("crash") + r.counts.at("compile_error"), 20u);
}

TEST(Tuner, NoSetupErrorOnceAConfigurationSucceeded) {
  const Space s = space();
  // X == 0 fails, with messages equal apart from digits; {5, 5} succeeds.
  FakeBackend backend;
  ListStrategy strategy({{0, 2}, {5, 5}, {0, 3}, {0, 4}, {0, 5}});
  TuneOptions o = options(10);
  o.setup_failure_window = 3;
  TuneReport r;
  EXPECT_NO_THROW(r = run_tuning(s, {0, 1}, backend, strategy, o, nullptr));
  EXPECT_EQ(r.outcomes.size(), 6u);
  EXPECT_EQ(r.stop_reason, "space exhausted");
  EXPECT_EQ(r.skipped, s.enumerate_valid().size() - 6);  // the valid configurations the list never named
  // Without the success, the same failures are a SetupError.
  FakeBackend backend2;
  ListStrategy failing({{0, 2}, {0, 3}, {0, 4}, {0, 5}});
  EXPECT_THROW(run_tuning(s, {0, 1}, backend2, failing, o, nullptr), SetupError);
}

// Two measuring workers: the same launch failure everywhere except {5, 5}, whose measurement is
// still running (300 ms) when the window of identical failures fills. The loop records it before
// judging the setup, so the success counts and the tuning goes on; before (found by a review) the
// SetupError dropped the measurement in flight.
class SlowSuccessAmongSetupFailuresBackend : public FakeBackend {
 public:
  SlowSuccessAmongSetupFailuresBackend() : FakeBackend(4) {}
  std::size_t measure_slots() const override { return 2; }
  Prepared prepare(const Config& c) override {
    Prepared p;
    p.config = c;
    return p;
  }
  Outcome measure_on(Prepared& p, std::size_t) override {
    if (p.config == Config{5, 5}) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return outcome_for(p.config);
    }
    Outcome o;
    o.status = Status::launch_error;
    o.message = "cudaErrorNoKernelImageForDevice: no kernel image is available (configuration " +
                std::to_string(p.config[0]) + std::to_string(p.config[1]) + ")";
    return o;
  }
};

TEST(Tuner, AMeasurementInFlightIsRecordedBeforeTheSetupIsJudgedBroken) {
  const Space s = space();
  SlowSuccessAmongSetupFailuresBackend backend;
  ListStrategy strategy({{5, 5}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 1}});
  TuneOptions o = options(7);
  o.setup_failure_window = 3;
  TuneReport r;
  ASSERT_NO_THROW(r = run_tuning(s, {0, 1}, backend, strategy, o, nullptr));
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->config, (Config{5, 5}));
  EXPECT_EQ(r.outcomes.size(), 7u);
  // Without the success the same failures are a SetupError, with two workers too.
  SlowSuccessAmongSetupFailuresBackend backend2;
  ListStrategy failing({{0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 1}});
  EXPECT_THROW(run_tuning(s, {0, 1}, backend2, failing, o, nullptr), SetupError);
}

// A clock the test advances (TuneOptions::clock): time passes only when a backend says so.
class ManualClock final : public Clock {
 public:
  time_point now() const override { return time_point(std::chrono::nanoseconds(ns_.load())); }
  void advance(std::chrono::milliseconds d) { ns_ += std::chrono::nanoseconds(d).count(); }

 private:
  std::atomic<long long> ns_{0};
};

// Every compile takes 40 ms of the manual clock.
class ClockedBackend : public FakeBackend {
 public:
  explicit ClockedBackend(ManualClock& clock) : clock_(clock) {}
  Prepared prepare(const Config& c) override {
    clock_.advance(std::chrono::milliseconds(40));
    return FakeBackend::prepare(c);
  }

 private:
  ManualClock& clock_;
};

TEST(Tuner, TimeLimitIsRespected) {
  const Space s = space();
  ManualClock clock;
  ClockedBackend backend(clock);
  auto strategy = random_strategy(s);
  TuneOptions o = options(1000);
  o.time_limit_s = 0.3;
  o.batch = 16;
  o.clock = &clock;
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, o, nullptr);
  EXPECT_EQ(r.stop_reason, "time limit");
  // One compile worker: a compile starts only before the limit, so the last one ends at most 40
  // ms after it; 0.3 s hold 7 compiles of 40 ms (the 8th ends at 0.32 s, past the limit: its
  // configuration is not measured).
  EXPECT_LE(r.wall_s, 0.3 + 0.04 + 1e-9);
  EXPECT_GE(r.wall_s, 0.3);
  EXPECT_EQ(r.outcomes.size(), 7u) << backend.prepared().size() << " prepared";
  EXPECT_EQ(backend.prepared().size(), 8u);
}

TEST(Tuner, ProgressLinesArePrinted) {
  const Space s = space();
  FakeBackend backend;
  auto strategy = random_strategy(s);
  std::ostringstream progress;
  TuneOptions o = options(17);
  o.batch = 8;
  o.kernel = "gemm";
  o.progress = &progress;
  run_tuning(s, kBaseline, backend, *strategy, o, nullptr);
  std::istringstream in(progress.str());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 2u) << progress.str();  // one per batch after the baseline: 1 + 8 + 8
  EXPECT_EQ(lines[0].rfind("[adaexplore] gemm: 9/17 evaluations, best ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("[adaexplore] gemm: 17/17 evaluations, best ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(" ms"), std::string::npos) << lines[1];
}

// A folder of its own per test (the results file and its .lock), removed with everything in it,
// also when an assertion ends the test early.
class TunerFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("tuner");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TunerFiles, NewOutcomesAreAppendedToTheResultsFile) {
  const Space s = space();
  const fs::path path = dir_ / "results.jsonl";
  std::vector<Outcome> previous(1, FakeBackend::outcome_for({1, 1}));
  previous[0].config = {1, 1};
  {
    ResultsHeader h;
    h.kernel = "fake";
    ResultsWriter writer(path, h, s, previous.size());
    FakeBackend backend;
    auto strategy = random_strategy(s);
    run_tuning(s, kBaseline, backend, *strategy, options(6), &writer, previous);
  }
  const ResultsFile f = read_results(path, s);
  ASSERT_EQ(f.outcomes.size(), 5u);  // the previous outcome was not written again
  EXPECT_EQ(f.outcomes[0].config, kBaseline);
}

// FakeBackend with timings: ten per-run values within 0.1% of the objective; records calibrate().
class TimedBackend : public FakeBackend {
 public:
  Outcome measure(Prepared& p) override {
    Outcome o = FakeBackend::measure(p);
    o.timing = timing(*o.objective);
    o.stage_ms["run"] = 10.0;
    return o;
  }
  void calibrate(const Outcome& baseline) override { calibrated.push_back(baseline.config); }
  static Timing timing(double ms) {
    Timing t{ms, ms * 1.0005, ms, ms * 1.001, ms * 0.0003, 10, {}};
    for (int k = 0; k < 10; ++k) t.values_ms.push_back(ms * (1 + 0.0001 * ((k * 7) % 10)));
    return t;
  }
  std::vector<Config> calibrated;
};

// Issue 23 item 4: a tuning stopped by a broken setup kept its identical failures; the next
// tuning (setup fixed) resumed them, the defaults' compile_error included.
TEST_F(TunerFiles, SetupErrorKeepsNoneOfItsFailuresAndTheFixedSetupMeasuresThem) {
  const Space s = space();
  const fs::path path = dir_ / "results.jsonl";
  ResultsHeader h;
  h.kernel = "fake";
  {
    ResultsWriter writer(path, h, s);
    FailingBackend broken([](const Config&) {
      Outcome o;
      o.status = Status::compile_error;
      o.message = "bench.cpp:3:1: error: 'bench' was not declared in this scope\nmore";
      return o;
    });
    auto strategy = random_strategy(s);
    EXPECT_THROW(run_tuning(s, kBaseline, broken, *strategy, options(20), &writer), SetupError);
  }
  EXPECT_TRUE(!fs::exists(path) || read_results(path, s).outcomes.empty());
  ResultsWriter writer(path, h, s);
  const ResultsFile existing = writer.read_existing();
  EXPECT_TRUE(existing.outcomes.empty());
  TimedBackend fixed;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, fixed, *strategy, options(6), &writer, existing.outcomes);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->status, Status::ok);  // measured, not resumed as compile_error
  EXPECT_EQ(fixed.calibrated, std::vector<Config>{kBaseline});
  EXPECT_EQ(read_results(path, s).outcomes.size(), 6u);
}

// Failures held back while the setup is in doubt are written once it is not (another failure, a
// success), in their order, and at the end of a tuning too short to judge it.
TEST_F(TunerFiles, FailuresHeldWhileTheSetupIsInDoubtAreWrittenAfterwards) {
  const Space s = space();
  for (const std::size_t budget : {3u, 10u}) {
    const fs::path path = dir_ / ("results-" + std::to_string(budget) + ".jsonl");
    ResultsHeader h;
    h.kernel = "fake";
    ResultsWriter writer(path, h, s);
    FakeBackend backend;  // X == 0: compile_error, the same message apart from digits
    ListStrategy strategy({{0, 2}, {0, 3}, {5, 5}, {0, 4}});
    TuneOptions o = options(budget);
    o.setup_failure_window = 6;
    const TuneReport r = run_tuning(s, {0, 1}, backend, strategy, o, &writer);
    const ResultsFile f = read_results(path, s);
    ASSERT_EQ(f.outcomes.size(), r.outcomes.size()) << budget;
    for (std::size_t i = 0; i < f.outcomes.size(); ++i) EXPECT_EQ(f.outcomes[i].config, r.outcomes[i].config);
    EXPECT_EQ(f.outcomes.front().config, (Config{0, 1}));
    EXPECT_EQ(f.outcomes.front().status, Status::compile_error);
  }
}

// A results file holding only a broken setup's failures (written by an earlier tuner) is what
// setup_failures_only() recognises; `tune` sets such a file aside.
TEST(Tuner, SetupFailuresOnlyRecognisesABrokenSetupsRecords) {
  std::vector<Outcome> failures;
  for (int i = 0; i < 6; ++i) {
    Outcome o;
    o.config = {0, static_cast<Config::value_type>(i)};
    o.status = Status::compile_error;
    o.message = "bench.cpp:" + std::to_string(10 + i) + ": error: no main";
    failures.push_back(o);
  }
  EXPECT_TRUE(setup_failures_only(failures, 6));
  EXPECT_FALSE(setup_failures_only(failures, 7));
  EXPECT_FALSE(setup_failures_only({}, 0));
  auto other = failures;
  other[3].message = "bench.cpp: error: something else";
  EXPECT_FALSE(setup_failures_only(other, 6));
  auto success = failures;
  success[5] = FakeBackend::outcome_for({5, 5});
  EXPECT_FALSE(setup_failures_only(success, 6));
}

Status status_of(const TuneReport& r, const Config& c) {
  for (const auto& o : r.outcomes)
    if (o.config == c) return o.status;
  ADD_FAILURE() << "not evaluated";
  return Status::invalid;
}

// Baseline {2,2}: 27 ms. {1,1}: 41 ms and {2,3}+... are compared with it; {7,3} (1 ms) is faster.
TEST_F(TunerFiles, NewOutcomesSignificantlySlowerThanTheBaselineAreSlow) {
  const Space s = space();
  const fs::path path = dir_ / "results.jsonl";
  TimedBackend backend;
  ListStrategy strategy({{1, 1}, {7, 3}, {2, 3}, {0, 4}, {1, 2}});
  TuneReport r;
  {
    ResultsHeader h;
    h.kernel = "fake";
    ResultsWriter writer(path, h, s, 0);
    r = run_tuning(s, kBaseline, backend, strategy, options(10), &writer);
  }
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->status, Status::ok);  // never slow itself
  EXPECT_EQ(r.outcomes.front().status, Status::ok);
  EXPECT_EQ(status_of(r, {1, 1}), Status::slow);           // 41 ms vs 27 ms
  EXPECT_EQ(status_of(r, {1, 2}), Status::slow);           // 38 ms
  EXPECT_EQ(status_of(r, {7, 3}), Status::ok);             // 1 ms: faster
  EXPECT_EQ(status_of(r, {2, 3}), Status::ok);             // 26 ms: faster
  EXPECT_EQ(status_of(r, {0, 4}), Status::compile_error);  // failures stay failures
  EXPECT_EQ(r.counts.at("slow"), 2u);
  EXPECT_EQ(backend.calibrated, std::vector<Config>{kBaseline});
  for (const auto& o : r.outcomes) {
    if (o.status != Status::slow) continue;
    EXPECT_TRUE(o.objective);  // still a success
    EXPECT_EQ(o.message.rfind("slower than the defaults: median ", 0), 0u) << o.message;
    EXPECT_NE(o.message.find(" vs 27 ms (x1."), std::string::npos) << o.message;
    EXPECT_NE(o.message.find("Mann-Whitney p="), std::string::npos) << o.message;
    EXPECT_EQ(o.extra["slowdown"]["test"], "Mann-Whitney") << o.extra.dump();
    EXPECT_LT(o.extra["slowdown"]["p_value"].get<double>(), kSlowAlpha);
  }
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->config, (Config{7, 3}));
  // The results file carries the status, and the per-run values.
  const ResultsFile f = read_results(path, s);
  ASSERT_EQ(f.outcomes.size(), r.outcomes.size());
  std::size_t slow = 0;
  for (const auto& o : f.outcomes) slow += o.status == Status::slow;
  EXPECT_EQ(slow, 2u);
  ASSERT_TRUE(f.outcomes.front().timing);
  EXPECT_EQ(f.outcomes.front().timing->values_ms, TimedBackend::timing(27).values_ms);
}

TEST(Tuner, NothingIsSlowWithoutASuccessfulBaseline) {
  const Space s = space();
  {  // the baseline fails (X == 0 does not compile): nothing to compare with, no calibration
    TimedBackend backend;
    ListStrategy strategy({{7, 3}, {1, 1}});
    const TuneReport r = run_tuning(s, {0, 1}, backend, strategy, options(10), nullptr);
    EXPECT_EQ(r.outcomes.front().status, Status::compile_error);
    EXPECT_EQ(r.counts.count("slow"), 0u);
    EXPECT_TRUE(backend.calibrated.empty());
  }
  {  // no baseline evaluation (replay benchmarks)
    TimedBackend backend;
    ListStrategy strategy({{7, 3}, {1, 1}, {2, 2}});
    TuneOptions o = options(10);
    o.evaluate_baseline = false;
    const TuneReport r = run_tuning(s, kBaseline, backend, strategy, o, nullptr);
    EXPECT_EQ(r.outcomes.size(), 3u);
    EXPECT_EQ(r.counts.count("slow"), 0u);
  }
}

TEST(Tuner, ResumedOutcomesKeepTheirStatusAndAResumedBaselineIsTheReference) {
  const Space s = space();
  std::vector<Outcome> previous;
  for (const Config& c : {Config{2, 2}, Config{1, 1}}) {
    Outcome o = FakeBackend::outcome_for(c);
    o.config = c;
    o.timing = TimedBackend::timing(*o.objective);
    previous.push_back(o);
  }
  TimedBackend backend;
  ListStrategy strategy({{1, 2}, {7, 3}});
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, options(10), nullptr, previous);
  EXPECT_EQ(r.new_evaluations, 2u);
  EXPECT_EQ(status_of(r, {1, 1}), Status::ok);  // recorded as ok: kept
  EXPECT_EQ(status_of(r, {1, 2}), Status::slow);
  EXPECT_EQ(status_of(r, {7, 3}), Status::ok);
  EXPECT_EQ(backend.calibrated, std::vector<Config>{kBaseline});
}

TEST(CountStatuses, EvaluationsPerStatusName) {
  auto make = [](Config c, Status st) {
    Outcome o;
    o.config = c;
    o.status = st;
    return o;
  };
  const auto counts = count_statuses({make({1, 0}, Status::ok), make({2, 0}, Status::wrong_result),
                                      make({3, 0}, Status::slow), make({4, 0}, Status::ok), make({5, 0}, Status::ok)});
  EXPECT_EQ(counts.at("ok"), 3u);
  EXPECT_EQ(counts.at("slow"), 1u);
  EXPECT_EQ(counts.at("wrong_result"), 1u);
}


// Every configuration that runs times 1 ms, as a benchmark that times something else would.
class SameTimeBackend : public FakeBackend {
 public:
  Outcome measure(Prepared&) override {
    Outcome o;
    o.status = Status::ok;
    o.objective = 1.0;
    Timing t;
    t.median_ms = 1.0;
    t.samples = 5;
    o.timing = t;
    o.stage_ms["run"] = 40.0;
    return o;
  }
};

TEST(Tuner, SameTimingGateWarnsOnceWhenEveryConfigurationTimesTheSame) {
  const Space s = space();
  SameTimeBackend backend;
  auto strategy = random_strategy(s);
  std::ostringstream warnings;
  TuneOptions o = options(30);
  o.kernel = "gemm";
  o.warnings = &warnings;
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, o, nullptr);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("every one of the 8 configurations measured successfully so far timed 1 ms"),
            std::string::npos)
      << r.warnings[0];
  const std::string printed = warnings.str();
  EXPECT_EQ(printed.rfind("[adaexplore] gemm: warning: the benchmark may not time the kernel", 0), 0u) << printed;
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 1) << printed;  // once, not per evaluation
}

// The harness found a pristine input copy overwritten (extra.device_memory.damaged, harness.cuh):
// the tuning warns as it happens, naming the configuration; the outcome itself stands.
class DamagedInputsBackend : public FakeBackend {
 public:
  Outcome measure(Prepared& p) override {
    Outcome o = FakeBackend::measure(p);
    if (p.config == Config{5, 5})
      o.extra["device_memory"] = {{"reused_bytes", 8},
                                  {"damaged", {"input #0 (16 elements of f): its pristine device copy changed"}}};
    return o;
  }
};

TEST(Tuner, PristineInputsAConfigurationOverwroteAreWarnedOf) {
  const Space s = space();
  DamagedInputsBackend backend;
  ListStrategy strategy({{1, 1}, {5, 5}, {2, 3}});
  std::ostringstream warnings;
  TuneOptions o = options(4);
  o.kernel = "gemm";
  o.warnings = &warnings;
  const TuneReport r = run_tuning(s, kBaseline, backend, strategy, o, nullptr);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("X=5,Y=5: input #0 (16 elements of f): its pristine device copy changed", 0), 0u)
      << r.warnings[0];
  EXPECT_NE(warnings.str().find("[adaexplore] gemm: warning: X=5,Y=5: input #0"), std::string::npos) << warnings.str();
  EXPECT_TRUE(r.best);
}

TEST(Tuner, DifferentTimesRaiseNoWarningAndTheStageSummaryCoversNewEvaluationsOnly) {
  const Space s = space();
  std::vector<Outcome> previous;  // resumed: their stage times are not this tuning's
  for (const Config& c : {Config{1, 1}, Config{5, 5}}) {
    Outcome o = FakeBackend::outcome_for(c);
    o.config = c;
    o.label = s.label(c);
    o.stage_ms["compile"] = 99999.0;
    previous.push_back(o);
  }
  FakeBackend backend;
  auto strategy = random_strategy(s);
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, options(30), nullptr, previous);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.stages.evaluations, 28u);
  ASSERT_EQ(r.stages.stages.size(), 1u);  // FakeBackend reports compile alone
  EXPECT_EQ(r.stages.stages[0].name, "compile");
  EXPECT_EQ(r.stages.stages[0].count, 28u);
  EXPECT_DOUBLE_EQ(r.stages.stages[0].total_ms, 56.0);
  EXPECT_DOUBLE_EQ(r.stages.stages[0].max_ms, 2.0);
  EXPECT_DOUBLE_EQ(r.stages.wall_s, r.wall_s);
  EXPECT_GT(r.stages.evaluations_per_minute, 0);
}

// Records the configurations the tuning gives back to be discarded (Backend::discard).
class DiscardRecordingBackend : public FakeBackend {
 public:
  DiscardRecordingBackend() : FakeBackend(4, std::chrono::milliseconds(40)) {}
  void discard(const Prepared& p) override {
    std::lock_guard<std::mutex> lock(mutex_);
    discarded_.push_back(p.config);
  }
  std::vector<Config> discarded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return discarded_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Config> discarded_;
};

// A configuration compiled and then not measured (here: compiling when the time limit passed) is
// discarded by the backend, once; every other one was evaluated.
TEST(Tuner, APreparedConfigurationThatIsNotMeasuredIsDiscardedByTheBackend) {
  const Space s = space();
  DiscardRecordingBackend backend;
  auto strategy = random_strategy(s);
  TuneOptions o = options(1000);
  o.time_limit_s = 0.3;
  const TuneReport r = run_tuning(s, kBaseline, backend, *strategy, o, nullptr);
  EXPECT_EQ(r.stop_reason, "time limit");
  std::set<Config> evaluated;
  for (const auto& outcome : r.outcomes) evaluated.insert(outcome.config);
  const std::vector<Config> discarded = backend.discarded();
  EXPECT_FALSE(discarded.empty());  // four compile workers: some were compiling at the limit
  EXPECT_EQ(unique_count(discarded), discarded.size());
  for (const Config& c : discarded) EXPECT_EQ(evaluated.count(c), 0u) << s.label(c);
  EXPECT_EQ(evaluated.size() + discarded.size(), backend.prepared().size());
}

}  // namespace
}  // namespace adaexplore
