// Behavioural features (learn/features.hpp) of known configurations, and the performance model
// (learn/performance_model.hpp) on a recorded space: its predictions at a size it never saw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <random>

#include "learn/features.hpp"
#include "learn/performance_model.hpp"
#include "replay/replay_backend.hpp"

namespace adaexplore {
namespace {

Parameter numbers(const std::string& name, std::vector<double> values) {
  Parameter p{name, {}};
  for (double v : values) p.values.push_back(Value::from_number(v));
  return p;
}

// The gemm example's space (examples/gemm/CMakeLists.txt): BLOCK_DIM and GRID_DIM as declared there.
struct Gemm {
  Space space{{numbers("BLOCK_M", {32, 64, 128}), numbers("BLOCK_N", {32, 64, 128}), numbers("THREAD_M", {2, 4, 8}),
               numbers("THREAD_N", {2, 4, 8})},
              {"BLOCK_M % THREAD_M == 0", "BLOCK_N % THREAD_N == 0"}};
  FeatureContext context() const {
    FeatureContext c;
    c.size_names = {"M", "N", "K"};
    std::vector<std::string> names = space.names();
    names.insert(names.end(), c.size_names.begin(), c.size_names.end());
    c.launch.threads_per_block = Expr::parse("(BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N)", names);
    c.launch.grid = {Expr::parse("ceil(N / BLOCK_N)", names), Expr::parse("ceil(M / BLOCK_M)", names)};
    c.sm_count = 132;
    DeviceLimits h200;  // the H200's limits as its results header records them
    h200.shared_per_block = 49152;
    h200.shared_per_block_optin = 232448;
    h200.shared_per_sm = 233472;
    h200.registers_per_block = 65536;
    h200.registers_per_sm = 65536;
    h200.max_threads_per_block = 1024;
    h200.max_threads_per_sm = 2048;
    c.limits = h200;
    return c;
  }
  Config config(int bm, int bn, int tm, int tn) const {
    return space.config_from_texts({{"BLOCK_M", std::to_string(bm)}, {"BLOCK_N", std::to_string(bn)},
                                    {"THREAD_M", std::to_string(tm)}, {"THREAD_N", std::to_string(tn)}});
  }
};

TEST(Features, WithoutACompileFromTheDeclaredLaunchAndTheSize) {
  const Gemm g;
  const FeatureMap map(g.space, g.context());
  ASSERT_TRUE(map.declared());
  const std::vector<long long> size = {2048, 2048, 2048};
  const Behaviour b = map.at(g.config(64, 128, 4, 8), &size);
  EXPECT_EQ(*b.threads_per_block, 256);                     // (64/4) * (128/8)
  EXPECT_EQ(*b.blocks, 512);                                // ceil(2048/128) * ceil(2048/64)
  EXPECT_EQ(*b.total_threads, 131072);
  EXPECT_EQ(*b.work_per_thread, 65536);                     // 2048^3 / 131072
  EXPECT_NEAR(*b.waves, 512.0 / 132, 1e-12);
  EXPECT_FALSE(b.dynamic_shared_bytes);                     // not declared
  EXPECT_FALSE(b.registers);                                // needs a compile
  EXPECT_FALSE(b.occupancy);
  // The same configuration at 256^3: 8 blocks, a fraction of a wave.
  const std::vector<long long> small = {256, 256, 256};
  const Behaviour s = map.at(g.config(64, 128, 4, 8), &small);
  EXPECT_EQ(*s.blocks, 8);
  EXPECT_NEAR(*s.waves, 8.0 / 132, 1e-12);
  // Without a size the grid (which reads M and N) is unknown; the threads per block are not.
  const Behaviour none = map.at(g.config(64, 128, 4, 8));
  EXPECT_EQ(*none.threads_per_block, 256);
  EXPECT_FALSE(none.blocks);
  EXPECT_FALSE(none.work_per_thread);
}

TEST(Features, AfterACompileFromPtxasAndTheOccupancyCalculator) {
  const Gemm g;
  const FeatureMap map(g.space, g.context());
  const std::vector<long long> size = {2048, 2048, 2048};
  KernelResources k;  // the ptxas report of this configuration on sm_90 (bench/size_transfer/gemm)
  k.registers = 60;
  k.shared_bytes = 4096;
  const Behaviour b = map.compiled(g.config(64, 128, 4, 8), {k}, &size);
  EXPECT_EQ(*b.registers, 60);
  EXPECT_EQ(*b.shared_bytes, 4096);
  // 60 registers: 1920 per warp, 32 warps per SM by registers, 8 warps per block: 4 blocks.
  EXPECT_EQ(*b.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(*b.occupancy, 0.5);
  EXPECT_NEAR(*b.waves_resident, 512.0 / (4 * 132), 1e-12);
  EXPECT_EQ(b.to_json()["blocks_per_sm"], 4);
}

TEST(Features, ModelInputColumnsAreFixedPerSpace) {
  const Gemm g;
  const FeatureMap map(g.space, g.context());
  const std::vector<std::string> names = {"log2_threads_per_block", "log2_blocks", "log2_total_threads",
                                          "log2_work_per_thread", "log2_waves", "ln_M", "ln_N", "ln_K"};
  EXPECT_EQ(map.model_input_names(), names);
  const std::vector<long long> size = {1024, 1024, 1024};
  const auto x = map.model_input(g.config(128, 128, 8, 8), &size);
  ASSERT_EQ(x.size(), names.size());
  EXPECT_DOUBLE_EQ(x[0], 8);   // 256 threads
  EXPECT_DOUBLE_EQ(x[1], 6);   // 64 blocks
  EXPECT_DOUBLE_EQ(x[2], 14);
  EXPECT_DOUBLE_EQ(x[3], 16);  // 2^30 / 2^14
  EXPECT_NEAR(x[4], std::log2(64.0 / 132), 1e-12);
  EXPECT_NEAR(x[5], std::log(1024.0), 1e-12);
  // Nothing declared and no size: no columns.
  EXPECT_TRUE(FeatureMap(g.space, FeatureContext{}).model_input(g.config(32, 32, 2, 2)).empty());
}

TEST(Features, ALaunchExpressionOverUnknownNamesIsRefused) {
  const Gemm g;
  FeatureContext c;
  c.launch.threads_per_block = Expr::parse("BLOCK_M * X", {"BLOCK_M", "BLOCK_N", "THREAD_M", "THREAD_N", "X"});
  EXPECT_THROW(FeatureMap(g.space, c), std::invalid_argument);
}

// Fit on the gemm space recorded at 256^3 (every configuration), predict 512^3: the model never saw
// that size, and ranks its configurations by how their shape changes with it.
TEST(PerformanceModel, PredictsAnotherSizeOfARecordedSpace) {
  const std::filesystem::path dir = std::filesystem::path(ADAEXPLORE_TEST_DATA) / "spaces/sizes/gemm";
  const RecordedSpace small = read_results_space(dir / "h200.M256_N256_K256.jsonl", dir / "spec.json");
  const RecordedSpace large = read_results_space(dir / "h200.M512_N512_K512.jsonl", dir / "spec.json");
  ASSERT_EQ(small.size, (std::vector<long long>{256, 256, 256}));
  ASSERT_EQ(large.size, (std::vector<long long>{512, 512, 512}));
  ASSERT_EQ(small.features.sm_count, 132);
  const FeatureMap map(small.space, small.features);
  PerformanceModel model(small.space, &map, {});
  std::vector<PerformanceModel::Sample> samples;
  for (const Outcome& o : small.records)
    if (is_success(o.status)) samples.push_back({o.config, small.size, std::log(*o.objective)});
  ASSERT_GT(samples.size(), 100u);
  std::mt19937_64 rng(1);
  model.fit(samples, rng, PerformanceModel::Scale::per_size);
  // Rank correlation of the predictions at 512^3 with what 512^3 measured (Spearman).
  std::vector<std::pair<double, double>> pairs;  // predicted, measured
  for (const Outcome& o : large.records)
    if (is_success(o.status) && large.space.satisfies(o.config))
      pairs.emplace_back(model.predict(o.config, &large.size).mean, std::log(*o.objective));
  ASSERT_GT(pairs.size(), 100u);
  auto ranks = [&](bool second) {
    std::vector<std::size_t> order(pairs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return second ? pairs[a].second < pairs[b].second : pairs[a].first < pairs[b].first;
    });
    std::vector<double> r(pairs.size());
    for (std::size_t i = 0; i < order.size(); ++i) r[order[i]] = static_cast<double>(i);
    return r;
  };
  const auto rp = ranks(false), rm = ranks(true);
  double d2 = 0;
  for (std::size_t i = 0; i < rp.size(); ++i) d2 += (rp[i] - rm[i]) * (rp[i] - rm[i]);
  const double n = static_cast<double>(rp.size());
  const double spearman = 1 - 6 * d2 / (n * (n * n - 1));
  std::cout << "Spearman rank correlation, predicted at 512^3 from 256^3: " << spearman << "\n";
  EXPECT_GT(spearman, 0.7);
  // Golden predictions (seed 1; 2026-12-06): the ln time, and the trees' spread, of the 256^3
  // optimum and of the 2048^3 one (bench/size_transfer/gemm) at 512^3. A change of the model's
  // input or fit moves them; update them only with a reason. (The means were centred ln times
  // until the per-size offsets; they moved by the constant offset added back, 256^3's mean ln
  // time + ln 8 = -1.0720 (one fitted size: its volume scaling), and the spreads did not move.)
  const Config small_best = large.space.config_from_texts(
      {{"BLOCK_M", "32"}, {"BLOCK_N", "32"}, {"BLOCK_K", "16"}, {"THREAD_M", "2"}, {"THREAD_N", "2"},
       {"VECTOR_LOADS", "1"}, {"PAD", "0"}, {"STAGES", "1"}});
  const Config big_tile = large.space.config_from_texts(
      {{"BLOCK_M", "64"}, {"BLOCK_N", "128"}, {"BLOCK_K", "16"}, {"THREAD_M", "8"}, {"THREAD_N", "8"},
       {"VECTOR_LOADS", "1"}, {"PAD", "0"}, {"STAGES", "1"}});
  const auto p_small = model.predict(small_best, &large.size), p_big = model.predict(big_tile, &large.size);
  std::cout.precision(17);
  std::cout << "golden: " << p_small.mean << " " << p_small.stdev << " " << p_big.mean << " " << p_big.stdev << "\n";
  EXPECT_NEAR(p_small.mean, -1.7090763351479712, 1e-6);
  EXPECT_NEAR(p_small.stdev, 0.10133562816016038, 1e-6);
  EXPECT_NEAR(p_big.mean, -1.0146724902762803, 1e-6);
  EXPECT_NEAR(p_big.stdev, 0.31212569410009788, 1e-6);
  EXPECT_LT(p_small.mean, p_big.mean);  // measured at 512^3: 0.0362 ms and 0.0847 ms
  // The configuration predicted fastest at 512^3 is within 10 % of 512^3's optimum.
  const Outcome* fastest = nullptr;
  double best_prediction = 1e300, optimum = 1e300;
  for (const Outcome& o : large.records) {
    if (!is_success(o.status)) continue;
    optimum = std::min(optimum, *o.objective);
    const double p = model.predict(o.config, &large.size).mean;
    if (p < best_prediction) {
      best_prediction = p;
      fastest = &o;
    }
  }
  ASSERT_NE(fastest, nullptr);
  EXPECT_GT(optimum / *fastest->objective, 0.9) << fastest->label;
}

// A later size with a few evaluations of its own (issue 39's review): fit on every configuration
// of 256^3 and 16 of 512^3 (8 of them 256^3's best, as a later size's start takes the other
// sizes' winners), the model's predictions for all of 512^3's configurations are 512^3's absolute
// times: its offset is fitted from the configurations both sizes measured. Centring each size's
// ln times on its mean (the model before) predicted ln times near 0, i.e. about 1 ms for times of
// 0.04 to 0.3 ms.
TEST(PerformanceModel, PredictsTheCurrentSizesAbsoluteTimes) {
  const std::filesystem::path dir = std::filesystem::path(ADAEXPLORE_TEST_DATA) / "spaces/sizes/gemm";
  const RecordedSpace small = read_results_space(dir / "h200.M256_N256_K256.jsonl", dir / "spec.json");
  const RecordedSpace large = read_results_space(dir / "h200.M512_N512_K512.jsonl", dir / "spec.json");
  const FeatureMap map(small.space, small.features);
  std::vector<PerformanceModel::Sample> samples;
  std::vector<const Outcome*> small_ok;
  for (const Outcome& o : small.records)
    if (is_success(o.status)) {
      samples.push_back({o.config, small.size, std::log(*o.objective)});
      small_ok.push_back(&o);
    }
  std::stable_sort(small_ok.begin(), small_ok.end(),
                   [](const Outcome* a, const Outcome* b) { return *a->objective < *b->objective; });
  std::map<Config, double> large_ms;
  for (const Outcome& o : large.records)
    if (is_success(o.status)) large_ms[o.config] = *o.objective;
  std::vector<Config> own;
  for (const Outcome* o : small_ok)
    if (own.size() < 8 && large_ms.count(o->config)) own.push_back(o->config);
  std::mt19937_64 pick(7);
  std::vector<Config> all;
  for (const auto& [c, ms] : large_ms) all.push_back(c);
  std::shuffle(all.begin(), all.end(), pick);
  for (const Config& c : all)
    if (own.size() < 16 && std::find(own.begin(), own.end(), c) == own.end()) own.push_back(c);
  ASSERT_EQ(own.size(), 16u);
  for (const Config& c : own) samples.push_back({c, large.size, std::log(large_ms.at(c))});
  PerformanceModel model(small.space, &map, {});
  std::mt19937_64 rng(1);
  model.fit(samples, rng, PerformanceModel::Scale::per_size);
  EXPECT_TRUE(model.fitted_size(&large.size));
  std::vector<double> error;  // ln(predicted / measured) at 512^3
  for (const auto& [c, ms] : large_ms) error.push_back(model.predict(c, &large.size).mean - std::log(ms));
  ASSERT_GT(error.size(), 100u);
  double bias = 0;
  for (double e : error) bias += e;
  bias /= static_cast<double>(error.size());
  std::vector<double> absolute;
  for (double e : error) absolute.push_back(std::abs(e));
  std::sort(absolute.begin(), absolute.end());
  std::cout << "512^3 from 256^3 and 16 of its own: mean ln(predicted / measured) " << bias
            << ", median |ln(predicted / measured)| " << absolute[absolute.size() / 2] << "\n";
  EXPECT_LT(std::abs(bias), std::log(1.25));                     // no scale error beyond 25 %
  EXPECT_LT(absolute[absolute.size() / 2], std::log(1.25));      // half the predictions within 25 %
  // A size the model has no samples of (1024^3): scaled from the fitted offsets in ln volume (the
  // slope between 256^3 and 512^3, at most 1): above 512^3's offset, at most 8 x its time.
  const std::vector<long long> next = {1024, 1024, 1024};
  EXPECT_FALSE(model.fitted_size(&next));
  EXPECT_GT(model.offset(&next), model.offset(&large.size));
  EXPECT_LE(model.offset(&next), model.offset(&large.size) + std::log(8.0) + 1e-12);
  // Two sizes whose times differ by 10 x (the same configurations, 512^3's times scaled): the
  // offsets differ by ln 10, and so do the predictions.
  std::vector<PerformanceModel::Sample> scaled;
  const std::vector<long long> fake = {2048, 2048, 2048};
  for (const auto& [c, ms] : large_ms) {
    scaled.push_back({c, large.size, std::log(ms)});
    scaled.push_back({c, fake, std::log(10 * ms)});
  }
  PerformanceModel ten(small.space, &map, {});
  ten.fit(scaled, rng, PerformanceModel::Scale::per_size);
  EXPECT_NEAR(ten.offset(&fake) - ten.offset(&large.size), std::log(10.0), 1e-9);
  std::vector<double> gap;  // |predicted ln time at the fake size - at 512^3 - ln 10|
  for (const auto& [c, ms] : large_ms)
    gap.push_back(std::abs(ten.predict(c, &fake).mean - ten.predict(c, &large.size).mean - std::log(10.0)));
  std::sort(gap.begin(), gap.end());
  EXPECT_LT(gap[gap.size() / 2], 0.05);
}

// Another GPU's records (Sample::device > 0) at the same size are a group of their own: its
// times, 3 x this GPU's on the configurations both measured, get their own offset, and predictions
// are this GPU's times; before this GPU has a sample, its offset is the other GPU's (the same
// volume), so the order the other GPU measured carries.
TEST(PerformanceModel, AnotherGpusRecordsHaveTheirOwnOffset) {
  const std::filesystem::path dir = std::filesystem::path(ADAEXPLORE_TEST_DATA) / "spaces/sizes/gemm";
  const RecordedSpace r = read_results_space(dir / "h200.M512_N512_K512.jsonl", dir / "spec.json");
  const FeatureMap map(r.space, r.features);
  std::vector<std::pair<Config, double>> ok;
  for (const Outcome& o : r.records)
    if (is_success(o.status)) ok.emplace_back(o.config, *o.objective);
  ASSERT_GT(ok.size(), 100u);
  std::vector<PerformanceModel::Sample> other, both;
  for (const auto& [c, ms] : ok) other.push_back({c, r.size, std::log(3 * ms), 1});
  std::mt19937_64 rng(1);
  PerformanceModel before(r.space, &map, {});
  before.fit(other, rng, PerformanceModel::Scale::per_size);
  EXPECT_FALSE(before.fitted_size(&r.size)) << "this GPU has no sample yet";
  double other_mean = 0;  // the other GPU's offset: one group, so its mean ln time
  for (const auto& s : other) other_mean += s.log_ms / static_cast<double>(other.size());
  EXPECT_NEAR(before.offset(&r.size), other_mean, 1e-9);
  both = other;
  for (std::size_t i = 0; i < 16; ++i) both.push_back({ok[i * 7].first, r.size, std::log(ok[i * 7].second), 0});
  PerformanceModel after(r.space, &map, {});
  after.fit(both, rng, PerformanceModel::Scale::per_size);
  EXPECT_TRUE(after.fitted_size(&r.size));
  std::vector<double> error;  // |ln(predicted / this GPU's time)| over every configuration
  for (const auto& [c, ms] : ok) error.push_back(std::abs(after.predict(c, &r.size).mean - std::log(ms)));
  std::sort(error.begin(), error.end());
  EXPECT_LT(error[error.size() / 2], std::log(1.25)) << "predictions on this GPU's scale, not 3 x";
  // The order: the fastest predicted before this GPU measured anything is among its fastest.
  double best_prediction = 1e300, at = 0, fastest = 1e300;
  for (const auto& [c, ms] : ok) {
    fastest = std::min(fastest, ms);
    if (const double p = before.predict(c, &r.size).mean; p < best_prediction) best_prediction = p, at = ms;
  }
  EXPECT_GT(fastest / at, 0.9);
}

// A feature that is missing (its expression gives no finite positive number) is encoded apart
// from every real value: work per thread 0.5 is log2 -1, which the encoding once used for missing.
TEST(Features, AMissingFeatureIsNotARealValue) {
  const Gemm g;
  FeatureContext c;
  c.size_names = {"N"};
  std::vector<std::string> names = g.space.names();
  names.push_back("N");
  c.launch.threads_per_block = Expr::parse("BLOCK_M - 32", names);  // 0 (missing) for BLOCK_M 32
  c.launch.grid = {Expr::parse("BLOCK_N / 32", names)};
  const FeatureMap map(g.space, c);
  ASSERT_EQ(map.model_input_names(),
            (std::vector<std::string>{"log2_threads_per_block", "log2_blocks", "log2_total_threads",
                                      "log2_work_per_thread", "ln_N"}));
  const std::vector<long long> size = {64};
  // 32 threads x 4 blocks = 128 threads for 64 elements: 0.5 per thread.
  const auto half = map.model_input(g.config(64, 128, 4, 4), &size);
  EXPECT_DOUBLE_EQ(half[0], 5);
  EXPECT_DOUBLE_EQ(half[3], -1);
  const auto missing = map.model_input(g.config(32, 128, 4, 4), &size);
  EXPECT_EQ(missing[0], FeatureMap::kMissingInput);
  EXPECT_DOUBLE_EQ(missing[1], 2);  // the blocks are known
  EXPECT_EQ(missing[2], FeatureMap::kMissingInput);
  EXPECT_EQ(missing[3], FeatureMap::kMissingInput);
  EXPECT_NE(missing[3], half[3]);
  // Below log2 of every positive double: no real value encodes as missing.
  EXPECT_LT(FeatureMap::kMissingInput, std::log2(std::numeric_limits<double>::denorm_min()));
}

}  // namespace
}  // namespace adaexplore
