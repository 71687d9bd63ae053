// configure_kernel (configure/configure_kernel.hpp) as a library call, with real host programs:
// each test writes a small C++ kernel and its benchmark (harness_host.hpp) into a temporary folder
// and configures it, reading the answer's values and the lines its Messages received. Per-size
// tuning with resume and verification, cached headers from a tuning database, a failed tuning
// that removes a stale header, and the defaults header.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "configure/configure_kernel.hpp"
#include "learn/features.hpp"
#include "model/sizes.hpp"
#include "search/strategy.hpp"
#include "store/results.hpp"
#include "test_support.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

// y = 2 x in blocks of BLOCK that drop the tail: a BLOCK that does not divide n leaves the last
// values unwritten (the harness poisons them), a wrong_result at that size only. ${BROKEN} 1: a
// compile error in every configuration.
const char* kTemplate = R"(#pragma once
#include <cstddef>
inline void twice(float* y, const float* x, std::size_t n) {
#if ${BROKEN}
  this line is not C++;
#endif
  for (std::size_t b = 0; b + ${BLOCK} <= n; b += ${BLOCK})
    for (std::size_t i = b; i < b + ${BLOCK}; ++i) y[i] = 2.0f * x[i];
}
)";

const char* kBenchmark = R"(#include <adaexplore/harness_host.hpp>
#include <vector>
#include "twice.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = static_cast<std::size_t>(bench.size("N", 256));
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = 2.0f * x[i];
  return bench.run([&] { twice(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
)";

class ConfigureKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = test::test_harness_cache();
    dir_ = test::fresh_test_directory("configure-kernel");
    std::ofstream(dir_ / "twice.hpp.in") << kTemplate;
    std::ofstream(dir_ / "twice_bench.cpp") << kBenchmark;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // BLOCK {1, 8, 16}, every one evaluated at each size (budget 3, sizes.budget 3); with sizes
  // N = 256 and N = 1000, BLOCK 16 is wrong at 1000 only.
  Spec spec(bool sizes, bool broken = false) const {
    nlohmann::json j = {
        {"name", "twice"},
        {"backend", "host"},
        {"template", "twice.hpp.in"},
        {"benchmark", "twice_bench.cpp"},
        {"parameters", {{{"name", "BLOCK"}, {"values", {1, 8, 16}}}, {{"name", "BROKEN"}, {"values", {broken ? 1 : 0}}}}},
        {"defaults", {{"BLOCK", 1}, {"BROKEN", broken ? 1 : 0}}},
        {"budget", {{"evaluations", 3}}},
        {"seed", 1},
        {"jobs", 2},
        {"compiler", {{"flags", {"-O0"}}}},
        {"run",
         {{"timeout_s", 30}, {"runner", false}, {"args", {"--adaexplore-measure-ms", "2", "--adaexplore-warmup-ms", "1"}}}}};
    if (sizes) j["sizes"] = {{"names", {"N"}}, {"values", {{256}, {1000}}}, {"budget", 3}};
    return parse_spec(j, dir_ / "spec.json");
  }

  Request request() const {
    Request r;
    r.header = dir_ / "out" / "twice.hpp";
    r.no_report = true;
    r.quiet = true;
    r.confirm_rounds = 0;  // the winner by one measurement each: these tests read no timings
    return r;
  }

  KernelResult configure(const Spec& s, const Request& r) {
    out_.str("");
    err_.str("");
    Messages messages{out_, err_};
    return configure_kernel(s, r, messages);
  }

  std::unique_ptr<test::ScopedEnv> cache_;
  fs::path dir_;
  std::ostringstream out_, err_;
};

// Each size tuned, then each size's winner verified at the other: BLOCK 16, wrong at N=1000, is
// crowned at neither size; the header holds both sizes. A second call resumes every size from its
// results, evaluates nothing and leaves the header as it was.
TEST_F(ConfigureKernel, TunesEachSizeVerifiesTheWinnersAndResumes) {
  const Spec s = spec(true);
  const KernelResult first = configure(s, request());
  ASSERT_EQ(first.ending, Ending::header_written) << first.reason << "\n" << err_.str();
  EXPECT_TRUE(first.reason.empty());
  EXPECT_EQ(first.header, dir_ / "out" / "twice.hpp");
  EXPECT_TRUE(first.header_changed);
  EXPECT_EQ(read_file(first.header), first.header_text);
  EXPECT_NE(first.header_text.find("kSizes"), std::string::npos) << first.header_text;
  ASSERT_EQ(first.keys.size(), 2u);
  EXPECT_EQ(first.keys[0].size, "N=256");
  EXPECT_EQ(first.keys[1].size, "N=1000");
  EXPECT_NE(first.keys[0].key, first.keys[1].key);
  for (const KeyResult& k : first.keys) {
    EXPECT_EQ(k.resumed, 0u) << k.size;
    EXPECT_EQ(k.evaluations, 3u) << k.size;  // the whole space at each size
    EXPECT_EQ(k.new_evaluations, 3u) << k.size;
    EXPECT_FALSE(k.failed) << k.size;
    EXPECT_TRUE(fs::exists(k.results)) << k.results;
    ASSERT_TRUE(k.winner) << k.size;
    EXPECT_NE(k.winner->label.find("BLOCK="), std::string::npos);
    EXPECT_EQ(k.winner->label.find("BLOCK=16"), std::string::npos) << k.size << ": crowned a configuration "
                                                                      "wrong at N=1000";
    EXPECT_EQ(k.verified.size(), 2u) << k.size;  // its winner ran and verified at both sizes
    EXPECT_TRUE(k.not_verified.empty()) << k.size;
  }
  EXPECT_NE(out_.str().find("2 problem sizes, in this order"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("2 sizes; header " + first.header.string() + " written"), std::string::npos)
      << out_.str();

  const KernelResult again = configure(s, request());
  ASSERT_EQ(again.ending, Ending::header_written) << again.reason << "\n" << err_.str();
  EXPECT_FALSE(again.header_changed);
  EXPECT_EQ(again.header_text, first.header_text);
  for (std::size_t i = 0; i < again.keys.size(); ++i) {
    EXPECT_EQ(again.keys[i].resumed, 3u);
    EXPECT_EQ(again.keys[i].new_evaluations, 0u);
    EXPECT_EQ(again.keys[i].winner->config, first.keys[i].winner->config);
  }
  EXPECT_NE(out_.str().find("done (budget), 3 evaluations (0 new)"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("header " + first.header.string() + " unchanged"), std::string::npos) << out_.str();
}

// With a tuning database: cached writes the same header from the stored winners, evaluating
// nothing; an empty database answers no_result with the reason, and writes nothing.
TEST_F(ConfigureKernel, CachedWritesTheStoredWinnersOrSaysThereAreNone) {
  const Spec s = spec(false);
  Request tuned = request();
  tuned.database = dir_ / "db";
  const KernelResult first = configure(s, tuned);
  ASSERT_EQ(first.ending, Ending::header_written) << first.reason << "\n" << err_.str();
  ASSERT_EQ(first.keys.size(), 1u);
  EXPECT_TRUE(first.keys[0].size.empty());
  EXPECT_EQ(first.keys[0].results.parent_path(), dir_ / "db" / "twice");

  Request cached = tuned;
  cached.cached = true;
  cached.header = dir_ / "cached" / "twice.hpp";
  const KernelResult from_db = configure(s, cached);
  ASSERT_EQ(from_db.ending, Ending::header_written) << from_db.reason << "\n" << err_.str();
  EXPECT_EQ(from_db.header_text, first.header_text);
  EXPECT_EQ(from_db.keys.at(0).winner->config, first.keys[0].winner->config);
  EXPECT_NE(out_.str().find("cached: best"), std::string::npos) << out_.str();

  cached.database = dir_ / "empty-db";
  cached.header = dir_ / "none" / "twice.hpp";
  const KernelResult none = configure(s, cached);
  EXPECT_EQ(none.ending, Ending::no_result);
  EXPECT_NE(none.reason.find("holds no results"), std::string::npos) << none.reason;
  EXPECT_FALSE(fs::exists(none.header));
  EXPECT_NE(err_.str().find("adaexplore-tuner tune --cached: twice: the tuning database"), std::string::npos)
      << err_.str();
}

// No configuration compiles: tuning_failed with the reason, and the header an earlier
// configuration wrote at the same place (here the defaults header) is removed, saying so, in the
// words of the request's command.
TEST_F(ConfigureKernel, AFailedTuningSaysWhyAndRemovesTheStaleHeader) {
  const Request r = [&] {
    Request q = request();
    q.command = "configure-test";
    return q;
  }();
  Messages quiet{out_, err_};
  const KernelResult defaults = write_defaults_header(spec(false), r.header, "no GPU here", quiet);
  ASSERT_TRUE(fs::exists(defaults.header));
  EXPECT_NE(defaults.header_text.find("kTuned = false"), std::string::npos);
  EXPECT_NE(defaults.header_text.find("no GPU here"), std::string::npos);

  const KernelResult failed = configure(spec(false, true), r);
  EXPECT_EQ(failed.ending, Ending::tuning_failed);
  EXPECT_NE(failed.reason.find("twice: "), std::string::npos) << failed.reason;  // a broken setup, said
  EXPECT_TRUE(failed.header_text.empty());
  EXPECT_TRUE(failed.stale_header_removed);
  EXPECT_FALSE(fs::exists(r.header));
  EXPECT_NE(err_.str().find("configure-test: twice: removed the header " + r.header.string()), std::string::npos)
      << err_.str();
  ASSERT_EQ(failed.keys.size(), 1u);
  EXPECT_FALSE(failed.keys[0].winner);
}

// A kernel with sizes whose header cannot be written (its folder is a file): Ending::environment,
// the header and the system's reason said, and every size's evaluations kept in its results, so
// that the next call with a writable header evaluates nothing and writes it.
TEST_F(ConfigureKernel, AHeaderOfSizesThatCannotBeWrittenSaysWhyAndKeepsTheEvaluations) {
  const Spec s = spec(true);
  Request r = request();
  r.command = "configure-test";
  std::ofstream(dir_ / "a-file") << "not a folder\n";
  r.header = dir_ / "a-file" / "twice.hpp";
  KernelResult failed;
  ASSERT_NO_THROW(failed = configure(s, r));
  EXPECT_EQ(failed.ending, Ending::environment) << failed.reason << "\n" << err_.str();
  EXPECT_EQ(failed.reason.rfind("no header written: cannot write " + r.header.string() + ": ", 0), 0u) << failed.reason;
  EXPECT_TRUE(failed.header_text.empty());
  EXPECT_NE(err_.str().find("configure-test: twice: no header written (the environment, not the input): cannot write " +
                            r.header.string() + ": "),
            std::string::npos)
      << err_.str();
  EXPECT_NE(err_.str().find("; the evaluations of its 2 sizes are kept in their results " +
                            failed.keys.at(0).results.string() + ", " + failed.keys.at(1).results.string() +
                            ": once it can be written"),
            std::string::npos)
      << err_.str();
  for (const KeyResult& k : failed.keys) EXPECT_EQ(k.evaluations, 3u) << k.size;

  r.header = dir_ / "out" / "twice.hpp";
  const KernelResult again = configure(s, r);
  ASSERT_EQ(again.ending, Ending::header_written) << again.reason << "\n" << err_.str();
  ASSERT_EQ(again.keys.size(), 2u);
  for (const KeyResult& k : again.keys) EXPECT_EQ(k.new_evaluations, 0u) << k.size;  // the kept ones answer
  EXPECT_TRUE(fs::exists(again.header));
}

// Size transfer through the performance model: twice at N=256 (budget 6), then N=1024 (budget 5,
// a start of 3 configurations), one configuration in flight so that the start is evaluated before
// any proposal. BLOCK {1, ..., 128} divides both sizes: every configuration succeeds.
class SizeTransfer : public ConfigureKernel {
 protected:
  Spec sized_spec() const {
    nlohmann::json j = spec(false).raw;
    j["parameters"][0]["values"] = {1, 2, 4, 8, 16, 32, 64, 128};
    j["budget"]["evaluations"] = 6;
    j["sizes"] = {{"names", {"N"}}, {"values", {{256}, {1024}}}, {"budget", 5}, {"warm_start", 3}};
    return parse_spec(j, dir_ / "spec.json");
  }

  Request sized_request(SizeTransferMode mode) const {
    Request r = request();
    r.in_flight = 1;
    r.size_transfer = mode;
    return r;
  }

  // The outcomes of the size N=256 its tuning recorded (its first `budget` records: the
  // verification rounds append after), with their size, as the N=1024 tuning's transfer.
  static std::vector<StrategyOptions::SizedOutcome> first_size(const Spec& s, const KernelResult& r) {
    std::vector<Outcome> outcomes = read_results(r.keys.at(0).results, s.space).outcomes;
    outcomes.resize(s.budget_evaluations);
    std::vector<StrategyOptions::SizedOutcome> out;
    for (const Outcome& o : outcomes) out.push_back({o, {256}});
    return out;
  }

  // The configurations of the records of size N=1024 after its defaults' (the second record), `n`
  // of them.
  static std::set<Config> after_defaults(const Spec& s, const KernelResult& r, std::size_t n) {
    const std::vector<Outcome> outcomes = read_results(r.keys.at(1).results, s.space).outcomes;
    EXPECT_GE(outcomes.size(), n + 1);
    EXPECT_EQ(outcomes.at(0).config, s.defaults);
    std::set<Config> out;
    for (std::size_t i = 1; i <= n && i < outcomes.size(); ++i) out.insert(outcomes[i].config);
    return out;
  }

  // The records of size N=1024 whose belief came from the model of the other sizes.
  static std::size_t from_other_sizes(const Spec& s, const KernelResult& r) {
    std::size_t n = 0;
    for (const Outcome& o : read_results(r.keys.at(1).results, s.space).outcomes)
      n += o.extra.contains("model") && o.extra["model"].value("source", "") == "other sizes";
    return n;
  }
};

// model: N=1024 starts, right after its defaults, from the configurations the adaexplore
// strategy's model fitted on N=256's evaluations predicts best at N=1024 (the same strategy
// rebuilt here from what N=256 recorded predicts the same start), each record carrying the
// model's belief; the log says so.
TEST_F(SizeTransfer, ALaterSizeStartsFromTheModelsPrediction) {
  const Spec s = sized_spec();
  const KernelResult r = configure(s, sized_request(SizeTransferMode::model));
  ASSERT_EQ(r.ending, Ending::header_written) << r.reason << "\n" << err_.str();
  ASSERT_EQ(r.keys.size(), 2u);

  const std::vector<StrategyOptions::SizedOutcome> transfer = first_size(s, r);
  std::vector<Outcome> first;
  for (const auto& t : transfer) first.push_back(t.outcome);
  const ::adaexplore::SizeTransfer winners = transfer_from({&first}, 3, {});
  StrategyOptions so;
  so.seed = s.seed;
  so.budget = 5;
  so.options = s.strategy_options;
  so.prior = winners.prior;
  FeatureContext context;
  context.size_names = {"N"};
  so.features = std::make_shared<const FeatureMap>(s.space, context);
  so.size = {1024};
  so.transfer = transfer;
  auto strategy = make_strategy("adaexplore", s.space, so);
  std::set<Config> predicted;
  for (const Config& c : strategy->predicted_start(3, winners.warm_start))
    if (c != s.defaults) predicted.insert(c);
  ASSERT_FALSE(predicted.empty());

  EXPECT_EQ(after_defaults(s, r, predicted.size()), predicted);
  EXPECT_GE(from_other_sizes(s, r), predicted.size());
  EXPECT_CONTAINS(out_.str(), "twice [N=1024]: start: " + std::to_string(predicted.size()) +
                                  " configurations predicted by the model from sizes N=256 (6 successful "
                                  "evaluations there)");
}

// winners: N=1024 starts from N=256's best configurations, as before the model; no record
// carries a belief of the other sizes' model.
TEST_F(SizeTransfer, WinnersKeepsTheOtherSizesBest) {
  const Spec s = sized_spec();
  const KernelResult r = configure(s, sized_request(SizeTransferMode::winners));
  ASSERT_EQ(r.ending, Ending::header_written) << r.reason << "\n" << err_.str();
  ASSERT_EQ(r.keys.size(), 2u);
  std::vector<Outcome> first;
  for (const auto& t : first_size(s, r)) first.push_back(t.outcome);
  std::set<Config> winners;
  for (const Config& c : transfer_from({&first}, 3, {}).warm_start)
    if (c != s.defaults) winners.insert(c);
  ASSERT_FALSE(winners.empty());
  EXPECT_EQ(after_defaults(s, r, winners.size()), winners);
  EXPECT_EQ(from_other_sizes(s, r), 0u);
  EXPECT_CONTAINS(out_.str(), "twice [N=1024]: start: 3 configurations, the other sizes' best (--size-transfer winners)");
  EXPECT_EQ(out_.str().find("predicted by the model"), std::string::npos) << out_.str();
}

// With a tuning database, the model also fits the kernel's sizes stored there that the spec no
// longer lists (same spec, sources and device): N=1024 tuned, then dropped for N=4096, still
// informs N=4096's start, after the declared N=256.
TEST_F(SizeTransfer, TheDatabasesOtherSizesInformTheModelToo) {
  Request r = sized_request(SizeTransferMode::model);
  r.database = dir_ / "db";
  const KernelResult first = configure(sized_spec(), r);
  ASSERT_EQ(first.ending, Ending::header_written) << first.reason << "\n" << err_.str();
  nlohmann::json j = sized_spec().raw;
  j["sizes"]["values"] = {{256}, {4096}};
  const KernelResult second = configure(parse_spec(j, dir_ / "spec.json"), r);
  ASSERT_EQ(second.ending, Ending::header_written) << second.reason << "\n" << err_.str();
  EXPECT_CONTAINS(out_.str(), "twice [N=4096]: start: ");
  EXPECT_CONTAINS(out_.str(), " configurations predicted by the model from sizes N=256; N=1024 (");
  EXPECT_TRUE(err_.str().find("size transfer skips") == std::string::npos) << err_.str();
}

// A kernel with sizes whose defaults header is written: every size's entry the defaults.
TEST_F(ConfigureKernel, DefaultsHeaderOfAKernelWithSizesHasEverySize) {
  Messages messages{out_, err_};
  const KernelResult r = write_defaults_header(spec(true), dir_ / "d.hpp", "no tuning was run", messages);
  EXPECT_EQ(r.ending, Ending::header_written);
  EXPECT_TRUE(r.header_changed);
  EXPECT_NE(r.header_text.find("kSizes"), std::string::npos) << r.header_text;
  EXPECT_NE(r.header_text.find("kTuned = false"), std::string::npos);
  EXPECT_EQ(out_.str(), "[adaexplore] twice: defaults header " + (dir_ / "d.hpp").string() + " written\n");
  EXPECT_TRUE(err_.str().empty()) << err_.str();
}

}  // namespace
}  // namespace adaexplore
