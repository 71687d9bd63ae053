// The tuning database through the built adaexplore-tuner, as separate processes, on a real host
// spec (the host backend compiles and times each configuration): two tunings into one database
// at once, a tuning killed with SIGKILL and resumed, --cached, --retune, warm start, a corrupt
// file, merge and the multi-device header (compiled with nvcc for two architectures).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "store/database.hpp"
#include "util/process.hpp"
#include "evaluate/render.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"
#include "store/key.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

const char* kTemplate = R"(#pragma once
#include <cstddef>
inline void scale(float* y, const float* x, std::size_t n) {
  constexpr int kUnroll = ${UNROLL};
  std::size_t i = 0;
  for (; i + kUnroll <= n; i += kUnroll)
    for (int u = 0; u < kUnroll; ++u) y[i + u] = 2.0f * x[i + u];
  for (; i < n; ++i) y[i] = 2.0f * x[i];
}
)";

const char* kBenchmark = R"(#include <adaexplore/harness_host.hpp>
#include "scale.hpp"
int main(int argc, char** argv) {
  adaexplore::HostBenchmark bench(argc, argv);
  const std::size_t n = 4096;
  auto x = bench.input<float>(n);
  auto y = bench.output<float>(n);
  std::vector<float> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = 2.0f * x[i];
  bench.bytes(2.0 * n * sizeof(float));
  return bench.run([&] { scale(y.data(), x.data(), n); }, [&] { return bench.compare(y, ref); });
}
)";

struct TunerRun {
  int code = -1;
  std::string out, err;
};

// Every record line of a results file (the header line and a half-written last line left out).
std::vector<nlohmann::json> records_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<nlohmann::json> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (nlohmann::json::accept(line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

class DatabaseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("dbcli");
    std::ofstream(dir_ / "scale.hpp.in") << kTemplate;
    std::ofstream(dir_ / "scale_bench.cpp") << kBenchmark;
    const nlohmann::json spec = {
        {"name", "scale"},
        {"backend", "host"},
        {"template", "scale.hpp.in"},
        {"benchmark", "scale_bench.cpp"},
        {"parameters", {{{"name", "UNROLL"}, {"values", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}}}},
        {"defaults", {{"UNROLL", 1}}},
        {"strategy", "random"},
        {"jobs", 1},
        {"compiler", {{"flags", {"-O0"}}}},
        {"run",
         {{"timeout_s", 20},
          {"args", {"--adaexplore-measure-ms", "5", "--adaexplore-warmup-ms", "1"}}}}};
    std::ofstream(dir_ / "spec.json") << spec.dump(2);
    db_ = dir_ / "db";
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // (The header is not named scale.hpp: the benchmark's #include "scale.hpp" would find it first.)
  std::vector<std::string> tune_args(std::size_t budget,
                                     const std::string& header = "tuned.hpp") const {
    return {ADAEXPLORE_TUNER_EXECUTABLE,
            "tune",
            "--spec",
            (dir_ / "spec.json").string(),
            "--database",
            db_.string(),
            "--header",
            (dir_ / header).string(),
            "--budget",
            std::to_string(budget),
            "--quiet"};
  }
  static TunerRun run(const std::vector<std::string>& argv) {
    ProcessOptions o;
    o.timeout_s = 500;
    const ProcessResult r = run_process(argv, o);
    return {r.exit_code ? *r.exit_code : -1, r.out, r.err};
  }
  // The key's file: the only *.jsonl in db/scale.
  fs::path key_file() const {
    for (const auto& e : fs::directory_iterator(db_ / "scale"))
      if (e.path().extension() == ".jsonl") return e.path();
    return {};
  }

  fs::path dir_, db_;
};

// Malformed options exit with the documented 1 (bad usage or input), not CLI11's own codes, and
// say what is wrong; --help and --version exit 0.
TEST(CommandLine, MalformedOptionsExitOneAndSaySo) {
  const auto run = [](const std::vector<std::string>& argv) {
    ProcessOptions o;
    o.timeout_s = 60;
    return run_process(argv, o);
  };
  const std::string tuner = ADAEXPLORE_TUNER_EXECUTABLE;
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{tuner, "replay", "--cache", "x.json", "--strategy", "random", "--budget", "5", "--in-flight", "0"},
       "--in-flight"},                                                    // out of range
      {{tuner, "replay", "--cache", "x.json", "--strategy", "random"}, "--budget"},  // missing
      {{tuner, "tune", "--spec", tuner, "--no-such-option"}, "--no-such-option"},  // unknown (the spec exists)
      {{tuner, "no-such-command"}, "subcommand"},
  };
  for (const auto& [argv, named] : cases) {
    const ProcessResult r = run(argv);
    ASSERT_TRUE(r.exit_code) << argv[1];
    EXPECT_EQ(*r.exit_code, 1) << argv[1] << " " << argv.back() << ":\n" << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }
  for (const char* flag : {"--help", "--version"}) {
    const ProcessResult r = run({tuner, flag});
    ASSERT_TRUE(r.exit_code) << flag;
    EXPECT_EQ(*r.exit_code, 0) << flag;
  }
}

TEST_F(DatabaseCli, TwoTuningsIntoOneDatabaseAtOnceKeepEveryRecord) {
  // Two build trees: one database, each its own work folder (as the CMake module gives each tree),
  // the same key (paths are not part of it).
  auto tree = [&](const std::string& name, const std::string& seed) {
    nlohmann::json spec = nlohmann::json::parse(std::ifstream(dir_ / "spec.json"));
    spec["work_dir"] = (dir_ / ("work-" + name)).string();
    const fs::path file = dir_ / ("spec-" + name + ".json");
    std::ofstream(file) << spec.dump(2);
    auto args = tune_args(5, name + ".hpp");
    args[3] = file.string();  // --spec
    args.insert(args.end(), {"--seed", seed});
    return run(args);
  };
  auto a = std::async(std::launch::async, [&] { return tree("a", "1"); });
  auto b = std::async(std::launch::async, [&] { return tree("b", "2"); });
  const TunerRun ra = a.get(), rb = b.get();
  ASSERT_EQ(ra.code, 0) << ra.out << ra.err;
  ASSERT_EQ(rb.code, 0) << rb.out << rb.err;
  // "done (budget), 5 evaluations (N new)": what each process measured itself.
  auto new_of = [](const std::string& out) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(out, m, std::regex(R"(evaluations \((\d+) new\))"))) << out;
    return m.empty() ? 0ul : std::stoul(m[1]);
  };
  const std::size_t na = new_of(ra.out), nb = new_of(rb.out);
  const auto records = records_of(key_file());
  EXPECT_EQ(records.size(), na + nb);  // every record kept
  std::map<long, std::set<std::string>> per_process;
  for (const auto& r : records) {
    const long pid = r["origin"]["pid"].get<long>();
    EXPECT_TRUE(per_process[pid].insert(r["label"].get<std::string>()).second)
        << "process " << pid << " measured " << r["label"] << " twice";
  }
  EXPECT_EQ(per_process.size(), 2u);
  std::set<std::size_t> positions;
  for (const auto& r : records) positions.insert(r["index"].get<std::size_t>());
  EXPECT_EQ(positions.size(), records.size());
}

TEST_F(DatabaseCli, TuningKilledWithSigkillResumesWithoutMeasuringAnythingTwice) {
  const auto args = tune_args(8);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    const int out = ::open((dir_ / "killed.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(out, 2);
    std::vector<char*> argv;
    for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // Wait for three records, then kill -9 in the middle of the tuning.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (std::chrono::steady_clock::now() < give_up) {
    if (fs::exists(db_ / "scale") && !key_file().empty() && records_of(key_file()).size() >= 3)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << read_file(dir_ / "killed.out");
  const std::size_t before = records_of(key_file()).size();
  ASSERT_GE(before, 3u);
  ASSERT_LT(before, 8u) << "the tuning finished before it was killed";

  const TunerRun resumed = run(tune_args(8));
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("resuming from " + key_file().string() + " (" +
                             std::to_string(before) + " evaluations already measured)"),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.out.find("8 evaluations (" + std::to_string(8 - before) + " new)"),
            std::string::npos)
      << resumed.out;
  const auto records = records_of(key_file());
  ASSERT_EQ(records.size(), 8u);
  std::set<std::string> labels;
  for (const auto& r : records)
    EXPECT_TRUE(labels.insert(r["label"].get<std::string>()).second) << r["label"];
}

// Without --database, --fresh moves the results file aside under a name of its own each time: a
// second --fresh (within the same second too) never replaces the first one's file.
TEST_F(DatabaseCli, FreshTwiceKeepsEveryEarlierResultsFile) {
  const fs::path results = dir_ / "results.jsonl";
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> args = {ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(),
                                     "--results", results.string(), "--header", (dir_ / "tuned.hpp").string(),
                                     "--budget", "1", "--quiet"};
    if (i > 0) args.push_back("--fresh");
    const TunerRun r = run(args);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    if (i > 0) EXPECT_NE(r.err.find("--fresh given; earlier results kept in " + results.string() + "."), std::string::npos) << r.err;
  }
  std::vector<fs::path> aside;
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("results.jsonl.", 0) == 0 && e.path().extension() != ".lock") aside.push_back(e.path());
  }
  ASSERT_EQ(aside.size(), 2u);
  for (const auto& a : aside) {
    EXPECT_TRUE(std::regex_match(a.filename().string(),
                                 std::regex(R"(results\.jsonl\.[0-9a-f]{12}-\d{8}T\d{6}Z(-\d+)?)")))
        << a;
    EXPECT_EQ(records_of(a).size(), 1u) << a;
  }
  EXPECT_EQ(records_of(results).size(), 1u);
}

TEST_F(DatabaseCli, CachedRetuneAndHeaderCommands) {
  // Nothing stored: --cached exits 3 with one line.
  TunerRun cached =
      run({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(),
           "--database", db_.string(), "--header", (dir_ / "cached.hpp").string(), "--cached"});
  EXPECT_EQ(cached.code, 3) << cached.out << cached.err;
  EXPECT_EQ(std::count(cached.err.begin(), cached.err.end(), '\n'), 1) << cached.err;
  EXPECT_NE(cached.err.find("holds no results for key"), std::string::npos) << cached.err;
  EXPECT_FALSE(fs::exists(dir_ / "cached.hpp"));
  // `header` likewise.
  TunerRun header =
      run({ADAEXPLORE_TUNER_EXECUTABLE, "header", "--database", db_.string(), "--spec",
           (dir_ / "spec.json").string(), "--out", (dir_ / "from_db.hpp").string()});
  EXPECT_EQ(header.code, 3) << header.out << header.err;

  const TunerRun tuned = run(tune_args(2));
  ASSERT_EQ(tuned.code, 0) << tuned.out << tuned.err;
  const fs::path file = key_file();
  const auto first_records = records_of(file);
  ASSERT_EQ(first_records.size(), 2u);

  // Stored: --cached evaluates nothing and writes the same bytes as the tuning did.
  cached = run({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(),
                "--database", db_.string(), "--header", (dir_ / "cached.hpp").string(), "--cached",
                "--budget", "2"});
  ASSERT_EQ(cached.code, 0) << cached.out << cached.err;
  EXPECT_EQ(read_file(dir_ / "cached.hpp"), read_file(dir_ / "tuned.hpp"));
  EXPECT_EQ(records_of(file).size(), 2u);
  // One device stored: `header` writes the single-device header, byte for byte.
  header = run({ADAEXPLORE_TUNER_EXECUTABLE, "header", "--database", db_.string(), "--spec",
                (dir_ / "spec.json").string(), "--out", (dir_ / "from_db.hpp").string()});
  ASSERT_EQ(header.code, 0) << header.out << header.err;
  EXPECT_NE(read_file(dir_ / "from_db.hpp").find("inline constexpr bool kTuned = true;"),
            std::string::npos);
  // The same bytes, the budget included: the tuning's --budget 2 as recorded, not the spec's 100
  // (until 2026-12-05 `header` stated the spec's budget, against `header --help`).
  EXPECT_EQ(read_file(dir_ / "from_db.hpp"), read_file(dir_ / "tuned.hpp"));
  EXPECT_NE(read_file(dir_ / "from_db.hpp").find(", budget 2 evaluations\n"), std::string::npos);
  cached = run({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(), "--database",
                db_.string(), "--header", (dir_ / "cached.hpp").string(), "--cached"});  // without --budget
  ASSERT_EQ(cached.code, 0) << cached.out << cached.err;
  EXPECT_EQ(read_file(dir_ / "cached.hpp"), read_file(dir_ / "tuned.hpp"));

  // --retune: the stored results are moved aside, never deleted, and the key is tuned again.
  const TunerRun retuned = run([&] {
    auto args = tune_args(2);
    args.push_back("--retune");
    return args;
  }());
  ASSERT_EQ(retuned.code, 0) << retuned.out << retuned.err;
  EXPECT_NE(retuned.err.find("--retune: earlier results of this key kept in " + file.string() +
                             ".retune-"),
            std::string::npos)
      << retuned.err;
  std::vector<fs::path> aside;
  for (const auto& e : fs::directory_iterator(db_ / "scale"))
    if (e.path().string().find(".retune-") != std::string::npos) aside.push_back(e.path());
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(records_of(aside[0]), first_records);
  EXPECT_EQ(records_of(file).size(), 2u);
  EXPECT_EQ(retuned.err.find("resuming"), std::string::npos) << retuned.err;
}

TEST_F(DatabaseCli, WarmStartProposesTheBestOfAnEarlierKeyFirstAndSaysSo) {
  ResultsHeader h;
  h.kernel = "scale";
  h.key = content_hash("an earlier key: another CPU");
  h.device = {{"name", "Another CPU"}};
  h.started = "2024-01-01T00:00:00Z";
  const fs::path other = database_file(db_, "scale", h.key);
  std::vector<nlohmann::json> records;
  for (const auto& [unroll, ms] : std::vector<std::pair<int, double>>{{3, 0.3}, {7, 0.1}, {9, 0.2}})
    records.push_back({{"config", {{"UNROLL", unroll}}}, {"status", "ok"}, {"objective_ms", ms}});
  append_records_locked(other, h, records, 0);

  const TunerRun tuned = run([&] {
    auto args = tune_args(3);
    args.insert(args.end(), {"--warm-start", "2"});
    return args;
  }());
  ASSERT_EQ(tuned.code, 0) << tuned.out << tuned.err;
  EXPECT_NE(tuned.out.find("[adaexplore] scale: warm start: 2 configurations from 1 earlier key "
                           "(device Another CPU)"),
            std::string::npos)
      << tuned.out;
  fs::path mine;
  for (const auto& e : fs::directory_iterator(db_ / "scale"))
    if (e.path().extension() == ".jsonl" && e.path() != other) mine = e.path();
  const auto evaluated = records_of(mine);
  ASSERT_EQ(evaluated.size(), 3u);
  EXPECT_EQ(evaluated[0]["label"], "UNROLL=1");  // the defaults first
  EXPECT_EQ(evaluated[1]["label"], "UNROLL=7");  // then the earlier key's best two
  EXPECT_EQ(evaluated[2]["label"], "UNROLL=9");
  EXPECT_EQ(records_of(other).size(), 3u);  // the other key's file is only read
}

TEST_F(DatabaseCli, CorruptDatabaseFileIsAClearErrorAndStaysAsItWas) {
  const TunerRun probe =
      run({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--spec", (dir_ / "spec.json").string(),
           "--database", db_.string(), "--cached"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(probe.err, m, std::regex("key ([0-9a-f]{16})"))) << probe.err;
  const fs::path file = db_ / "scale" / (m[1].str() + ".jsonl");
  fs::create_directories(file.parent_path());
  {
    std::ofstream out(file);
    out << R"({"format": "adaexplore-results", "version": 1, "kernel": "scale"})"
        << "\n";
    out << "{\"config\": {\"UNROLL\": 2}, \"status\": \"ok\", \"objective_ms\": 1.0}\n";
    out << "{\"config\": {\"UNROLL\": 3}, \"sta\n";
    out << "{\"config\": {\"UNROLL\": 4}, \"status\": \"ok\", \"objective_ms\": 1.0}\n";
  }
  const std::string before = read_file(file);
  for (const bool cached : {true, false}) {
    auto args = tune_args(3);
    if (cached) args.push_back("--cached");
    const TunerRun r = run(args);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find(file.string() + ":3: not valid JSON"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("mv '" + file.string() + "' '" + file.string() + ".corrupt-"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(read_file(file), before);
  }
}

TEST_F(DatabaseCli, MergeCommandPrintsOneLinePerKernelAndKey) {
  ResultsHeader h;
  h.kernel = "scale";
  h.key = content_hash("k1");
  h.device = {{"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}};
  h.host = "gpu-box";
  const nlohmann::json rec = {{"config", {{"UNROLL", 2}}}, {"status", "ok"}, {"objective_ms", 1.0}};
  append_records_locked(database_file(dir_ / "machine-a", "scale", h.key), h, {rec}, 0);
  append_records_locked(dir_ / "tree" / "results.jsonl", h,
                        {rec, {{"config", {{"UNROLL", 3}}}, {"status", "crash"}}}, 0);
  const TunerRun r =
      run({ADAEXPLORE_TUNER_EXECUTABLE, "merge", "--into", db_.string(),
           (dir_ / "machine-a").string(), (dir_ / "tree" / "results.jsonl").string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[adaexplore] merge: scale " + h.key.substr(0, 16) +
                       " (NVIDIA H100 80GB HBM3, compute capability 9.0): 2 records added, 1 "
                       "already present; new file " +
                       database_file(db_, "scale", h.key).string()),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[adaexplore] merge: 2 records added to 1 key in " + db_.string()),
            std::string::npos)
      << r.out;
  const TunerRun missing = run(
      {ADAEXPLORE_TUNER_EXECUTABLE, "merge", "--into", db_.string(), (dir_ / "nothing").string()});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find((dir_ / "nothing").string() + ": no such results file or folder"),
            std::string::npos)
      << missing.err;
}

// Two GPUs' results merged into one database give one header that nvcc compiles for both
// architectures, each device pass seeing its own entry (static_assert), without a GPU.
TEST_F(DatabaseCli, MultiDeviceHeaderFromTheDatabaseCompilesAndSelectsPerArchitecture) {
#ifndef ADAEXPLORE_NVCC
  GTEST_SKIP() << "the tuner was built without the CUDA toolkit (no nvcc)";
#else
  std::ofstream(dir_ / "k.cu.in") << "// ${TILE} ${MODE}\n";
  std::ofstream(dir_ / "k_bench.cu") << "// benchmark\n";
  std::ofstream(dir_ / "cuda_spec.json") << nlohmann::json{
      {"name", "k"},
      {"backend", "cuda"},
      {"template", "k.cu.in"},
      {"benchmark", "k_bench.cu"},
      {"parameters",
       {{{"name", "TILE"}, {"values", {16, 32, 64}}}, {{"name", "MODE"}, {"values", {"a", "b"}}}}},
      {"defaults",
       {{"TILE", 16}, {"MODE", "a"}}}}.dump();
  const Spec spec = load_spec(dir_ / "cuda_spec.json");
  auto store = [&](const fs::path& database, const std::string& gpu, const std::string& cc,
                   int tile, const std::string& mode) {
    ResultsHeader h;
    h.kernel = "k";
    h.device = {{"name", gpu}, {"compute_capability", cc}, {"sm_count", 100}};
    h.key_parts = key_parts(spec, "cuda", h.device);
    h.key = content_hash(h.key_parts.dump());
    h.started = "2024-01-01T00:00:00Z";
    append_records_locked(
        database_file(database, "k", h.key), h,
        {{{"config", {{"TILE", 16}, {"MODE", "a"}}}, {"status", "ok"}, {"objective_ms", 2.0}},
         {{"config", {{"TILE", tile}, {"MODE", mode}}}, {"status", "ok"}, {"objective_ms", 1.0}}},
        0);
  };
  store(dir_ / "a100-box", "NVIDIA A100-SXM4-80GB", "8.0", 64, "b");
  store(dir_ / "h100-box", "NVIDIA H100 80GB HBM3", "9.0", 32, "a");
  ASSERT_EQ(run({ADAEXPLORE_TUNER_EXECUTABLE, "merge", "--into", db_.string(),
                 (dir_ / "a100-box").string(), (dir_ / "h100-box").string()})
                .code,
            0);
  const TunerRun r =
      run({ADAEXPLORE_TUNER_EXECUTABLE, "header", "--database", db_.string(), "--spec",
           (dir_ / "cuda_spec.json").string(), "--out", (dir_ / "k.hpp").string()});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(
      r.out.find(
          "2 compute capabilities (sm_80 NVIDIA A100-SXM4-80GB, sm_90 NVIDIA H100 80GB HBM3)"),
      std::string::npos)
      << r.out;
  std::ofstream(dir_ / "probe.cu") << R"(#include "k.hpp"
namespace k = adaexplore::k;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800
static_assert(k::TILE == 64 && k::MODE[0] == 'b' && k::kTuned, "sm_80: the A100's winner");
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
static_assert(k::TILE == 32 && k::kTuned, "sm_90: the H100's winner");
#else
static_assert(k::TILE == 16 && !k::kTuned, "host pass: the defaults");
#endif
__global__ void probe(int* out) { out[0] = k::TILE; }
int at_run_time() { return k::current_params().TILE; }
)";
  ProcessOptions o;
  o.timeout_s = 300;
  const ProcessResult nvcc =
      run_process({ADAEXPLORE_NVCC, "-std=c++17", "-c", (dir_ / "probe.cu").string(), "-o",
                   (dir_ / "probe.o").string(), "-I", dir_.string(), "-gencode",
                   "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"},
                  o);
  EXPECT_TRUE(nvcc.ok()) << nvcc.describe() << "\n"
                         << nvcc.err << nvcc.out << "\n"
                         << read_file(dir_ / "k.hpp");
#endif
}

// `header --database` states the budget the tuning recorded (`tune --budget`), not the spec's: a
// resumed tuning with a larger budget records under it; one that records nothing (a smaller
// budget) states the budget of the tuning that recorded the results, as `header` does.
TEST_F(DatabaseCli, HeaderStatesTheBudgetTheTuningsRecorded) {
  ASSERT_EQ(run(tune_args(2)).code, 0);
  ASSERT_EQ(run(tune_args(4)).code, 0);
  const fs::path file = key_file();
  EXPECT_EQ(records_of(file).size(), 4u);
  EXPECT_EQ(records_of(file).back()["origin"]["budget"], 4);
  EXPECT_NE(read_file(dir_ / "tuned.hpp").find(", budget 4 evaluations\n"), std::string::npos);
  ASSERT_EQ(run(tune_args(3)).code, 0);
  EXPECT_EQ(records_of(file).size(), 4u);
  EXPECT_NE(read_file(dir_ / "tuned.hpp").find(", budget 4 evaluations\n"), std::string::npos);
  const TunerRun header = run({ADAEXPLORE_TUNER_EXECUTABLE, "header", "--database", db_.string(), "--spec",
                               (dir_ / "spec.json").string(), "--out", (dir_ / "from_db.hpp").string()});
  ASSERT_EQ(header.code, 0) << header.out << header.err;
  EXPECT_EQ(read_file(dir_ / "from_db.hpp"), read_file(dir_ / "tuned.hpp"));
}

// Issue 37: near-ties 0.03 % apart made fresh tunings of one space crown different constants. A
// crafted results file, its records in either order: the header crowns the first in the space's
// order among those within 1 % (crown.hpp rule 2), byte for byte the same.
TEST_F(DatabaseCli, NearTiesInAResultsFileCrownTheSameWinnerInEitherRecordOrder) {
  ASSERT_EQ(run(tune_args(1)).code, 0);  // the key's file, with the tuner's own header line
  const fs::path file = key_file();
  std::ifstream in(file);
  std::string header_line, first;
  std::getline(in, header_line);
  std::getline(in, first);
  in.close();
  const nlohmann::json defaults = nlohmann::json::parse(first);
  ASSERT_EQ(defaults["config"]["UNROLL"], 1);
  auto record = [&](int unroll, double ms) {
    nlohmann::json r = defaults;
    r["config"]["UNROLL"] = unroll;
    r["label"] = "UNROLL=" + std::to_string(unroll);
    r["status"] = "ok";
    r["objective_ms"] = ms;
    r.erase("extra");
    return r;
  };
  const std::vector<nlohmann::json> records = {record(1, 2.0), record(9, 1.0), record(5, 1.0003)};
  std::string headers[2];
  for (int order = 0; order < 2; ++order) {
    std::ofstream out(file, std::ios::trunc);
    out << header_line << "\n";
    for (std::size_t i = 0; i < records.size(); ++i) {
      nlohmann::json r = records[order == 0 ? i : records.size() - 1 - i];
      r["index"] = i;
      out << r.dump() << "\n";
    }
    out.close();
    fs::remove(file.string() + ".confirmation.json");
    const TunerRun r = run(tune_args(3));  // 3 stored: nothing evaluated, the header crowned from them
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(records_of(file).size(), 3u);
    headers[order] = read_file(dir_ / "tuned.hpp");
    EXPECT_NE(headers[order].find("// Winner:      UNROLL=5  1.0003 ms"), std::string::npos) << headers[order];
    EXPECT_NE(headers[order].find("inline constexpr int UNROLL = 5;"), std::string::npos) << headers[order];
  }
  EXPECT_EQ(headers[0], headers[1]);
}

// Issue 37: a tuning database path that is a regular file was exit 1, "bad input", and read as the
// spec's fault; the environment has its own exit code (5) and words, before anything is tuned.
TEST_F(DatabaseCli, ADatabaseThatIsAFileIsTheEnvironmentWithItsOwnExitCode) {
  std::ofstream(db_) << "";
  const TunerRun r = run(tune_args(4));
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("adaexplore-tuner tune: error (the environment, not the input): " + db_.string() +
                       ": is a file, not a folder"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("evaluations"), std::string::npos) << r.out;  // nothing tuned
  EXPECT_FALSE(fs::exists(dir_ / "tuned.hpp"));
  // merge --into the file: the same exit code, and no word of POSIX locks.
  const TunerRun m = run({ADAEXPLORE_TUNER_EXECUTABLE, "merge", "--into", db_.string(), dir_.string()});
  EXPECT_EQ(m.code, 5) << m.err;
  EXPECT_EQ(m.err.find("POSIX"), std::string::npos) << m.err;
  // The codes are documented where a user looks.
  const TunerRun help = run({ADAEXPLORE_TUNER_EXECUTABLE, "--help"});
  EXPECT_NE(help.out.find("5 the environment"), std::string::npos) << help.out;
  const TunerRun tune_help = run({ADAEXPLORE_TUNER_EXECUTABLE, "tune", "--help"});
  EXPECT_NE(tune_help.out.find("5 the environment"), std::string::npos) << tune_help.out;
}

}  // namespace
}  // namespace adaexplore
