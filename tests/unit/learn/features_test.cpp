// Behavioural features (learn/features.hpp) of known configurations, and the performance model
// (learn/performance_model.hpp) on a recorded space: its predictions at a size it never saw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
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
  model.fit(samples, rng, /*center=*/true);
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
  // Golden predictions (seed 1; 2026-12-06): the centred ln time, and the trees' spread, of the
  // 256^3 optimum and of the 2048^3 one (bench/size_transfer/gemm) at 512^3. A change of the
  // model's input or fit moves them; update them only with a reason.
  const Config small_best = large.space.config_from_texts(
      {{"BLOCK_M", "32"}, {"BLOCK_N", "32"}, {"BLOCK_K", "16"}, {"THREAD_M", "2"}, {"THREAD_N", "2"},
       {"VECTOR_LOADS", "1"}, {"PAD", "0"}, {"STAGES", "1"}});
  const Config big_tile = large.space.config_from_texts(
      {{"BLOCK_M", "64"}, {"BLOCK_N", "128"}, {"BLOCK_K", "16"}, {"THREAD_M", "8"}, {"THREAD_N", "8"},
       {"VECTOR_LOADS", "1"}, {"PAD", "0"}, {"STAGES", "1"}});
  const auto p_small = model.predict(small_best, &large.size), p_big = model.predict(big_tile, &large.size);
  std::cout.precision(17);
  std::cout << "golden: " << p_small.mean << " " << p_small.stdev << " " << p_big.mean << " " << p_big.stdev << "\n";
  EXPECT_NEAR(p_small.mean, -0.63704390953086143, 1e-6);
  EXPECT_NEAR(p_small.stdev, 0.10133562816016038, 1e-6);
  EXPECT_NEAR(p_big.mean, 0.057359935340829366, 1e-6);
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

}  // namespace
}  // namespace adaexplore
