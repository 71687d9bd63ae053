// The tuning database (database.hpp, file_lock.hpp, the shared-file parts of results.hpp and of
// the tuning loop): key, layout, placement errors, --retune, concurrent writers (threads and
// processes), warm start, the choice of devices for a header, merge.
#include "store/database.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "util/file_lock.hpp"
#include "evaluate/render.hpp"
#include "search/strategy.hpp"
#include "loop/tuner.hpp"
#include "test_support.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"
#include "store/key.hpp"
#include "store/warm_start.hpp"
#include "store/merge.hpp"
#include "emit/header_selection.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

Parameter numbers(const std::string& name, int n) {
  Parameter p{name, {}};
  for (int i = 0; i < n; ++i) p.values.push_back(Value::from_number(i));
  return p;
}

// 400 configurations X in 0..19, Y in 0..19; X + Y <= 30.
Space space() { return Space({numbers("X", 20), numbers("Y", 20)}, {"X + Y <= 30"}); }

nlohmann::json record(int x, int y, const std::string& status, std::optional<double> ms) {
  nlohmann::json j = {{"label", "X=" + std::to_string(x) + ",Y=" + std::to_string(y)},
                      {"config", {{"X", x}, {"Y", y}}},
                      {"status", status}};
  j["objective_ms"] = ms ? nlohmann::json(*ms) : nlohmann::json(nullptr);
  return j;
}

ResultsHeader header(const std::string& kernel, const std::string& key, const std::string& device,
                     const std::string& cc, const std::string& started) {
  ResultsHeader h;
  h.kernel = kernel;
  h.key = key;
  h.device = {{"name", device}, {"compute_capability", cc}};
  h.strategy = "random";
  h.seed = 1;
  h.started = started;
  h.host = "machine-" + device.substr(0, 4);
  return h;
}

// Writes a results file line by line (records as given: they need not belong to any space).
void write_results(const fs::path& path, const ResultsHeader& h,
                   const std::vector<nlohmann::json>& records) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << header_to_json(h).dump() << '\n';
  std::size_t i = 0;
  for (auto r : records) {
    r["index"] = i++;
    out << r.dump() << '\n';
  }
}

std::vector<nlohmann::json> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

class Database : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_directory("database");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // A spec whose template and benchmark live in `folder`.
  // `patch`: merged into the spec's JSON (RFC 7386 merge patch).
  Spec spec(const fs::path& folder, const std::string& template_text = "// ${X} ${Y}\n",
            const nlohmann::json& patch = nlohmann::json::object()) const {
    fs::create_directories(folder);
    std::ofstream(folder / "k.cu.in") << template_text;
    std::ofstream(folder / "k_bench.cu") << "// benchmark\n";
    nlohmann::json j = {{"name", "k"},
                        {"backend", "cuda"},
                        {"template", (folder / "k.cu.in").string()},
                        {"benchmark", (folder / "k_bench.cu").string()},
                        {"parameters",
                         {{{"name", "X"}, {"range", {{"from", 0}, {"to", 19}}}},
                          {{"name", "Y"}, {"range", {{"from", 0}, {"to", 19}}}}}},
                        {"constraints", {"X + Y <= 30"}},
                        {"defaults", {{"X", 1}, {"Y", 1}}},
                        {"compiler", {{"path", folder.string() + "/nvcc"}, {"arch", "sm_90"}}}};
    j.merge_patch(patch);
    return parse_spec(j, folder / "spec.json");
  }
  fs::path dir_;
};

// Include directories (absolute, as CMake's INCLUDE_DIRECTORIES writes them) and time limits do
// not change a measurement's key; compiler flags and run arguments do.
TEST_F(Database, KeyLeavesOutIncludeDirectoriesAndTimeLimits) {
  auto with = [&](const std::string& where, const nlohmann::json& patch) {
    return content_key_parts(spec(dir_ / where, "// ${X} ${Y}\n", patch));
  };
  const nlohmann::json a = with("checkout-a", {{"compiler", {{"include_dirs", {(dir_ / "checkout-a" / "include").string()}},
                                                             {"timeout_s", 120}}},
                                               {"run", {{"timeout_s", 30}, {"args", {"--n", "64"}}}}});
  const nlohmann::json b = with("elsewhere/checkout-b",
                                {{"compiler", {{"include_dirs", {(dir_ / "elsewhere/checkout-b/include").string(), "/opt/x"}},
                                               {"timeout_s", 600}}},
                                 {"run", {{"timeout_s", 90}, {"timeout_factor", 4}, {"timeout_floor_s", 2},
                                          {"args", {"--n", "64"}}}}});
  EXPECT_EQ(a, b);
  const nlohmann::json other_args =
      with("checkout-c", {{"run", {{"timeout_s", 30}, {"args", {"--n", "128"}}}}});
  EXPECT_NE(a["spec"], other_args["spec"]);
  const nlohmann::json other_flags = with("checkout-d", {{"compiler", {{"flags", {"-O2"}}}},
                                                         {"run", {{"timeout_s", 30}, {"args", {"--n", "64"}}}}});
  EXPECT_NE(a["spec"], other_flags["spec"]);
}

// How a tuning is scheduled (parallel compiles, configurations in flight) is not what it measures.
TEST_F(Database, KeyLeavesOutJobsAndInFlight) {
  const Spec plain = spec(dir_ / "plain");
  const Spec scheduled = spec(dir_ / "scheduled", "// ${X} ${Y}\n", {{"jobs", 3}, {"in_flight", 4}});
  ASSERT_EQ(scheduled.jobs, 3u);
  ASSERT_EQ(scheduled.in_flight, 4u);
  EXPECT_EQ(content_key_parts(plain), content_key_parts(scheduled));
}

// A compiler launcher (ccache) changes how the benchmark is built, not what it measures.
TEST_F(Database, KeyLeavesOutTheCompilerLauncher) {
  const Spec plain = spec(dir_ / "plain");
  const Spec cached = spec(dir_ / "cached", "// ${X} ${Y}\n", {{"compiler", {{"launcher", {"ccache"}}}}});
  ASSERT_EQ(cached.compiler.launcher, std::vector<std::string>{"ccache"});
  EXPECT_EQ(content_key_parts(plain), content_key_parts(cached));
  const Spec flags = spec(dir_ / "flags", "// ${X} ${Y}\n", {{"compiler", {{"flags", {"-O2"}}}}});
  EXPECT_NE(content_key_parts(plain)["spec"], content_key_parts(flags)["spec"]);  // the check can fail
}

TEST_F(Database, KeyHashesContentNotPathsAndDeviceModelNotItsIdentity) {
  const Spec a = spec(dir_ / "checkout-a");
  const Spec b =
      spec(dir_ / "elsewhere" / "checkout-b");  // same content, other paths (compiler too)
  EXPECT_EQ(content_key_parts(a), content_key_parts(b));
  const Spec edited = spec(dir_ / "checkout-c", "// ${X} ${Y} edited\n");
  EXPECT_NE(content_key_parts(a)["template"], content_key_parts(edited)["template"]);
  EXPECT_EQ(content_key_parts(a)["spec"], content_key_parts(edited)["spec"]);

  const nlohmann::json gpu0 = {{"name", "NVIDIA H100 80GB HBM3"},
                               {"compute_capability", "9.0"},
                               {"sm_count", 132},
                               {"index", 0},
                               {"uuid", "GPU-aaaa"},
                               {"pci_bus_id", "0000:1b:00.0"}};
  nlohmann::json gpu1 = gpu0;  // the same model at another index: shares results
  gpu1["index"] = 1;
  gpu1["uuid"] = "GPU-bbbb";
  gpu1["pci_bus_id"] = "0000:3b:00.0";
  EXPECT_EQ(key_parts(a, "cuda", gpu0), key_parts(b, "cuda", gpu1));
  EXPECT_FALSE(device_key_part(gpu0).contains("uuid"));
  nlohmann::json other = gpu0;  // another model (a reordering of devices): never shares
  other["name"] = "NVIDIA H100 PCIe";
  other["sm_count"] = 114;
  EXPECT_NE(content_hash(key_parts(a, "cuda", gpu0).dump()),
            content_hash(key_parts(a, "cuda", other).dump()));
  nlohmann::json driver = gpu0;
  driver["driver_version"] = "13.1";
  EXPECT_NE(key_parts(a, "cuda", gpu0), key_parts(a, "cuda", driver));
}

TEST_F(Database, LayoutIsKernelFolderAndKeyPrefix) {
  EXPECT_EQ(database_file("db", "gemm", "0123456789abcdef0123456789abcdef"),
            fs::path("db/gemm/0123456789abcdef.jsonl"));
  EXPECT_EQ(lock_path_for("db/gemm/0123456789abcdef.jsonl"),
            fs::path("db/gemm/0123456789abcdef.jsonl.lock"));
}

TEST_F(Database, MisplacedFileIsAnErrorNamingFileAndTheMoveCommand) {
  const std::string key = content_hash("a");
  const fs::path wrong = dir_ / "gemm" / (content_hash("b").substr(0, 16) + ".jsonl");
  write_results(wrong, header("gemm", key, "GPU", "9.0", "2024-01-01T00:00:00Z"), {});
  std::vector<std::string> problems;
  EXPECT_TRUE(stored_keys(dir_, "gemm", &problems).empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(wrong.string() + ":1: holds results of kernel 'gemm', key " + key),
            std::string::npos)
      << problems[0];
  EXPECT_NE(problems[0].find("mv '" + wrong.string() + "' '" + wrong.string() + ".corrupt-"),
            std::string::npos)
      << problems[0];
  EXPECT_THROW(stored_keys(dir_, "gemm"), ResultsError);
  // A foreign JSON Lines file: the same, never touched.
  const fs::path foreign = dir_ / "gemm" / "0000000000000000.jsonl";
  std::ofstream(foreign) << "{\"some\": \"other tool\"}\n";
  problems.clear();
  stored_keys(dir_, "gemm", &problems);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find(foreign.string() + ":1: not an AdaExplore results file"),
            std::string::npos)
      << problems[0];
  EXPECT_EQ(read_file(foreign), "{\"some\": \"other tool\"}\n");
}

TEST_F(Database, RetuneSetsTheFileAsideAndNeverOverwritesAnEarlierAside) {
  const fs::path file = database_file(dir_, "gemm", content_hash("k"));
  EXPECT_TRUE(set_aside_for_retune(file).empty());  // nothing stored yet
  write_results(file, header("gemm", content_hash("k"), "GPU", "9.0", "2024-01-01T00:00:00Z"),
                {record(1, 1, "ok", 1.0)});
  const fs::path first = set_aside_for_retune(file);
  ASSERT_FALSE(first.empty());
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(first.string().rfind(file.string() + ".retune-", 0), 0u) << first;
  write_results(file, header("gemm", content_hash("k"), "GPU", "9.0", "2024-01-02T00:00:00Z"),
                {record(2, 2, "ok", 1.0)});
  const fs::path second = set_aside_for_retune(file);
  ASSERT_FALSE(second.empty());
  EXPECT_NE(first, second);
  EXPECT_EQ(lines_of(first).size(), 2u);
  EXPECT_EQ(lines_of(second)[1]["config"]["X"], 2);
  EXPECT_TRUE(stored_keys(dir_, "gemm").empty());  // set-aside files are not keys
}

// set_aside_if reads, judges and renames under one lock (before 2026-12-05 `tune` read a file of a
// broken setup's failures, then set it aside under a lock of its own: a record another tuning
// appended in between went aside with them, unjudged). A writer appending meanwhile waits, and its
// record starts the file anew instead of landing in the one set aside.
TEST_F(Database, SetAsideIfJudgesAndRenamesUnderOneLock) {
  const Space s = space();
  const fs::path file = database_file(dir_, "k", content_hash("k"));
  const ResultsHeader h = header("k", content_hash("k"), "GPU", "9.0", "2024-01-01T00:00:00Z");
  write_results(file, h, {record(1, 1, "compile_error", std::nullopt)});
  std::atomic<bool> appended{false};
  std::thread writer;
  const fs::path aside = set_aside_if(file, [&](const RawResults& raw) -> std::string {
    EXPECT_EQ(raw.records.size(), 1u);
    writer = std::thread([&] {  // another tuning of the key, appending a success
      ResultsWriter w(file, h, s);
      Outcome o;
      o.config = s.config_from_texts({{"X", "2"}, {"Y", "2"}});
      o.label = s.label(o.config);
      o.status = Status::ok;
      o.objective = 1.0;
      w.append(o);
      appended = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(appended) << "the writer appended while the file was being judged";
    return "setup-error";
  });
  writer.join();
  ASSERT_FALSE(aside.empty());
  EXPECT_EQ(aside.string().rfind(file.string() + ".setup-error-", 0), 0u) << aside;
  EXPECT_EQ(lines_of(aside).size(), 2u);  // the header and the failure judged, nothing else
  const auto now = lines_of(file);
  ASSERT_EQ(now.size(), 2u);  // a new file: the header and the writer's success
  EXPECT_EQ(now[1]["status"], "ok");
  // Kept when `decide` says so; nothing for a file that is not there (and no lock file made).
  EXPECT_TRUE(set_aside_if(file, [](const RawResults&) { return std::string(); }).empty());
  EXPECT_TRUE(fs::exists(file));
  EXPECT_TRUE(set_aside_if(dir_ / "k" / "none.jsonl", [](const RawResults&) { return std::string("x"); }).empty());
  EXPECT_FALSE(fs::exists(dir_ / "k" / "none.jsonl.lock"));
}

// Two writers in two threads of one process append to one file: every record kept, one header,
// positions 0..n-1, and the writer that appends last has seen every record of the other.
TEST_F(Database, TwoThreadsAppendingToOneFileKeepEveryRecord) {
  const Space s = space();
  const fs::path file = dir_ / "k" / "shared.jsonl";
  ResultsHeader h;
  h.kernel = "k";
  h.key = content_hash("shared");
  std::size_t foreign[2] = {0, 0};
  auto writer = [&](int id) {
    ResultsWriter w(file, h, s);
    for (int i = 0; i < 150; ++i) {
      Outcome o;
      o.config = {static_cast<std::uint16_t>(id * 10 + i % 10), static_cast<std::uint16_t>(i / 10)};
      o.status = Status::ok;
      o.objective = 1.0 + i;
      w.append(o);
      foreign[id] += w.take_foreign().size();
    }
  };
  std::thread a(writer, 0), b(writer, 1);
  a.join();
  b.join();
  const auto lines = lines_of(file);
  ASSERT_EQ(lines.size(), 301u);
  EXPECT_EQ(lines[0]["format"], "adaexplore-results");
  std::set<std::size_t> positions;
  for (std::size_t i = 1; i < lines.size(); ++i)
    positions.insert(lines[i]["index"].get<std::size_t>());
  EXPECT_EQ(positions.size(), 300u);
  EXPECT_EQ(*positions.rbegin(), 299u);
  EXPECT_EQ(std::max(foreign[0], foreign[1]), 150u);
  EXPECT_EQ(read_results(file, s).outcomes.size(), 300u);
}

// The same with two processes (fork): the lock is the file lock, not a mutex.
TEST_F(Database, TwoProcessesAppendingToOneFileKeepEveryRecord) {
  const Space s = space();
  const fs::path file = dir_ / "k" / "shared.jsonl";
  ResultsHeader h;
  h.kernel = "k";
  h.key = content_hash("shared");
  pid_t children[2];
  for (int id = 0; id < 2; ++id) {
    children[id] = ::fork();
    ASSERT_GE(children[id], 0);
    if (children[id] == 0) {
      try {
        ResultsWriter w(file, h, s);
        for (int i = 0; i < 200; ++i) {
          Outcome o;
          o.config = {static_cast<std::uint16_t>(id * 10 + i % 10),
                      static_cast<std::uint16_t>(i / 10)};
          o.status = Status::ok;
          o.objective = 1.0;
          o.message = std::string(3000, 'a' + id);  // long lines: several write() calls each
          w.append(o);
        }
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto lines = lines_of(file);  // throws on an interleaved line
  ASSERT_EQ(lines.size(), 401u);
  std::map<long, std::size_t> per_process;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["index"], i - 1);
    ++per_process[lines[i]["origin"]["pid"].get<long>()];
  }
  ASSERT_EQ(per_process.size(), 2u);
  for (const auto& [pid, n] : per_process) EXPECT_EQ(n, 200u) << pid;
}

// A tuning sharing its results file: records other processes append meanwhile are observed and
// never measured by this one; warm-start configurations come right after the baseline.
class CountingBackend : public Backend {
 public:
  std::string name() const override { return "fake"; }
  nlohmann::json device() const override { return {{"name", "fake"}}; }
  Prepared prepare(const Config& c) override {
    Prepared p;
    p.config = c;
    return p;
  }
  Outcome measure(Prepared& p) override {
    measured.push_back(p.config);
    if (on_measure) on_measure(p.config);
    Outcome o;
    o.status = Status::ok;
    o.objective = 1.0 + p.config[0] + p.config[1];
    return o;
  }
  void calibrate(const Outcome& baseline) override { calibrated.push_back(baseline.config); }
  std::vector<Config> measured;
  std::vector<Config> calibrated;
  std::function<void(const Config&)> on_measure;
};

TEST_F(Database, TuningObservesRecordsOtherProcessesAppendAndWarmStartsAfterTheBaseline) {
  const Space s = space();
  const fs::path file = dir_ / "k" / "shared.jsonl";
  ResultsHeader h;
  h.kernel = "k";
  h.key = content_hash("shared");
  ResultsWriter mine(file, h, s);
  ResultsWriter other(file, h, s);  // stands for another process
  CountingBackend backend;
  // While this tuning measures, "the other process" appends every configuration with X = 5.
  backend.on_measure = [&](const Config& c) {
    if (backend.measured.size() == 1)
      for (std::uint16_t y = 0; y < 20; ++y) {
        Outcome o;
        o.config = {5, y};
        o.status = Status::ok;
        o.objective = 50.0;
        other.append(o);
      }
    (void)c;
  };
  StrategyOptions so;
  so.seed = 3;
  so.budget = 60;
  auto strategy = make_strategy("random", s, so);
  TuneOptions options;
  options.budget = 60;
  options.warm_start = {{2, 2}, {1, 1}, {3, 3}, {2, 2}};  // a repeat and the baseline: skipped
  const TuneReport report = run_tuning(s, {1, 1}, backend, *strategy, options, &mine);
  // The other process's records arrive right after the baseline's, so the last outcome is not the
  // baseline: it is found by its configuration and calibrates the backend once.
  ASSERT_TRUE(report.baseline);
  EXPECT_EQ(report.baseline->config, (Config{1, 1}));
  EXPECT_EQ(backend.calibrated, (std::vector<Config>{{1, 1}}));
  ASSERT_GE(backend.measured.size(), 3u);
  EXPECT_EQ(backend.measured[0], (Config{1, 1}));
  EXPECT_EQ(backend.measured[1], (Config{2, 2}));
  EXPECT_EQ(backend.measured[2], (Config{3, 3}));
  for (const auto& c : backend.measured)
    EXPECT_NE(c[0], 5) << "measured what another process had measured";
  std::set<Config> unique(backend.measured.begin(), backend.measured.end());
  EXPECT_EQ(unique.size(), backend.measured.size());
  EXPECT_EQ(report.outcomes.size(), 60u);  // the budget counts the other process's 20 records
  EXPECT_EQ(report.new_evaluations, 40u);
  EXPECT_EQ(read_results(file, s).outcomes.size(), 60u);
}

TEST_F(Database, WarmStartTakesTheBestOfEachOtherKeyInTurn) {
  const Space s = space();
  const std::string current = content_hash("current");
  write_results(database_file(dir_, "k", current),
                header("k", current, "NVIDIA H100", "9.0", "2024-03-01T00:00:00Z"),
                {record(0, 0, "ok", 0.1)});
  const std::string a100 = content_hash("a100"), l4 = content_hash("l4");
  write_results(
      database_file(dir_, "k", a100),
      header("k", a100, "NVIDIA A100", "8.0", "2024-01-01T00:00:00Z"),
      {record(1, 1, "ok", 3.0), record(2, 2, "ok", 1.0), record(3, 3, "crash", std::nullopt),
       record(25, 1, "ok", 0.5) /* not in this space */,
       record(19, 19, "ok", 0.6) /* violates X+Y<=30 */, record(4, 4, "ok", 2.0)});
  write_results(database_file(dir_, "k", l4),
                header("k", l4, "NVIDIA L4", "8.9", "2024-02-01T00:00:00Z"),
                {record(2, 2, "ok", 5.0), record(6, 6, "ok", 4.0), record(7, 7, "slow", 9.0)});
  const auto keys = stored_keys(dir_, "k");
  ASSERT_EQ(keys.size(), 3u);
  const nlohmann::json device = {{"name", "NVIDIA H100"}};
  // Most recent key first (L4), then A100; within a key best first; (2,2) taken once.
  WarmStart w = warm_start(keys, current, device, s, 4);
  ASSERT_EQ(w.configs.size(), 4u);
  EXPECT_EQ(w.configs[0], (Config{6, 6}));
  EXPECT_EQ(w.configs[1], (Config{2, 2}));
  EXPECT_EQ(w.configs[2], (Config{7, 7}));
  EXPECT_EQ(w.configs[3], (Config{4, 4}));
  EXPECT_EQ(w.describe(), "4 configurations from 2 earlier keys (devices NVIDIA L4, NVIDIA A100)");
  // The current key's configuration (0,0) never comes back; measured ones are left out.
  w = warm_start(keys, current, device, s, 10, {[] {
                   Outcome o;
                   o.config = {6, 6};
                   return o;
                 }()});
  EXPECT_EQ(w.configs.size(), 4u);  // (2,2) (7,7) (4,4) (1,1)
  for (const auto& c : w.configs) EXPECT_NE(c, (Config{6, 6}));
  for (const auto& c : w.configs) EXPECT_NE(c, (Config{0, 0}));
  // A key of the same device name comes first.
  w = warm_start(keys, current, {{"name", "NVIDIA A100"}}, s, 1);
  EXPECT_EQ(w.configs, (std::vector<Config>{{2, 2}}));
  EXPECT_EQ(w.describe(), "1 configuration from 1 earlier key (device NVIDIA A100)");
}

TEST_F(Database, HeaderTakesOneDevicePerComputeCapabilityPreferredOrMostRecent) {
  const Spec sp = spec(dir_ / "src");
  nlohmann::json parts = content_key_parts(sp);
  auto store = [&](const std::string& device, const std::string& cc, const std::string& started,
                   const std::vector<nlohmann::json>& records, const nlohmann::json& content) {
    nlohmann::json kp = content;
    kp["device"] = {{"name", device}};
    const std::string key = content_hash(kp.dump());
    ResultsHeader h = header("k", key, device, cc, started);
    h.key_parts = kp;
    write_results(database_file(dir_, "k", key), h, records);
  };
  store("NVIDIA A100-SXM4-80GB", "8.0", "2024-01-01T00:00:00Z",
        {record(1, 1, "ok", 2.0), record(3, 1, "ok", 1.0)}, parts);
  store("NVIDIA A100-PCIE-40GB", "8.0", "2024-02-01T00:00:00Z",
        {record(1, 1, "ok", 2.5), record(4, 1, "ok", 1.5)}, parts);
  store("NVIDIA H100 80GB HBM3", "9.0", "2024-01-15T00:00:00Z",
        {record(1, 1, "ok", 1.0), record(9, 9, "ok", 0.25)}, parts);
  store("NVIDIA L4", "8.9", "2024-01-20T00:00:00Z", {record(1, 1, "crash", std::nullopt)}, parts);
  nlohmann::json old_template = parts;
  old_template["template"] = content_hash("an older template");
  store("NVIDIA V100", "7.0", "2023-01-01T00:00:00Z", {record(1, 1, "ok", 9.0)}, old_template);
  const auto keys = stored_keys(dir_, "k");
  ASSERT_EQ(keys.size(), 5u);

  HeaderSelection sel = select_for_header(keys, sp, {});
  EXPECT_EQ(sel.usable, 3u);
  ASSERT_EQ(sel.chosen.size(), 2u);
  EXPECT_EQ(sel.chosen[0].compute_capability, 80);
  EXPECT_EQ(sel.chosen[0].results.header.device["name"],
            "NVIDIA A100-PCIE-40GB");  // the most recent
  EXPECT_EQ(sel.chosen[0].best.config, (Config{4, 1}));
  EXPECT_NE(sel.chosen[0].why.find("the most recent tuning of 2 for compute capability 8.0"),
            std::string::npos)
      << sel.chosen[0].why;
  EXPECT_NE(sel.chosen[0].why.find("NVIDIA A100-SXM4-80GB (tuned 2024-01-01T00:00:00Z)"),
            std::string::npos);
  EXPECT_EQ(sel.chosen[1].compute_capability, 90);
  EXPECT_EQ(sel.chosen[1].best.config, (Config{9, 9}));
  EXPECT_TRUE(sel.chosen[1].why.empty());
  ASSERT_EQ(sel.notes.size(), 2u);  // the L4 (no success) and the V100 (older template)
  std::string notes = sel.notes[0] + "\n" + sel.notes[1];
  EXPECT_NE(notes.find("no successful result"), std::string::npos) << notes;
  EXPECT_NE(notes.find("another template than the spec's"), std::string::npos) << notes;

  sel = select_for_header(keys, sp, {"no such GPU", "SXM4"});
  EXPECT_EQ(sel.chosen[0].results.header.device["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_NE(sel.chosen[0].why.find("named by --prefer-device 'SXM4'"), std::string::npos)
      << sel.chosen[0].why;
}

TEST_F(Database, MergeCopiesWithProvenanceAndDoesNotDuplicate) {
  const std::string key = content_hash("k");
  const fs::path src = dir_ / "machine-b" / "k" / (key.substr(0, 16) + ".jsonl");
  ResultsHeader h = header("k", key, "NVIDIA H100", "9.0", "2024-01-01T00:00:00Z");
  h.host = "machine-b";
  write_results(src, h, {record(1, 1, "ok", 1.0), record(2, 2, "crash", std::nullopt)});
  const fs::path into = dir_ / "db";
  MergeReport r = merge_into(into, {dir_ / "machine-b"});
  ASSERT_EQ(r.keys.size(), 1u);
  EXPECT_TRUE(r.keys[0].created);
  EXPECT_EQ(r.keys[0].added, 2u);
  const fs::path dest = database_file(into, "k", key);
  auto lines = lines_of(dest);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["key"], key);
  EXPECT_EQ(lines[0]["device"]["name"], "NVIDIA H100");
  EXPECT_EQ(lines[0]["started"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(lines[0]["host"], "machine-b");
  ASSERT_EQ(lines[0]["merged_from"].size(), 1u);
  EXPECT_EQ(lines[0]["merged_from"][0]["path"], fs::absolute(src).lexically_normal().string());
  EXPECT_EQ(lines[0]["merged_from"][0]["host"], "machine-b");
  EXPECT_EQ(lines[1]["merged_from"]["host"], "machine-b");
  EXPECT_EQ(lines[2]["index"], 1);

  // Again, and with one more record, a re-measurement and a conflicting one: nothing duplicated.
  write_results(
      src, h,
      {record(1, 1, "ok", 1.0), record(2, 2, "crash", std::nullopt), record(3, 3, "ok", 2.0),
       record(1, 1, "ok", 1.25), record(3, 3, "compile_error", std::nullopt)});
  r = merge_into(into, {src});
  ASSERT_EQ(r.keys.size(), 1u);
  EXPECT_FALSE(r.keys[0].created);
  EXPECT_EQ(r.keys[0].present, 2u);
  EXPECT_EQ(r.keys[0].added, 3u);
  EXPECT_EQ(r.keys[0].remeasured, 1u);
  ASSERT_EQ(r.keys[0].conflicts.size(), 1u);
  EXPECT_NE(r.keys[0].conflicts[0].find("X=3,Y=3: ok ("), std::string::npos)
      << r.keys[0].conflicts[0];
  EXPECT_NE(r.keys[0].conflicts[0].find("and compile_error (" + src.string() + ":6)"),
            std::string::npos)
      << r.keys[0].conflicts[0];
  lines = lines_of(dest);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[5]["index"], 4);
  // Readers keep the first record of a configuration: the 1.0 ms one, and the ok of (3,3).
  const ResultsFile f = read_results(dest, space());
  EXPECT_EQ(f.outcomes.size(), 3u);
  EXPECT_EQ(f.duplicates, 2u);
  EXPECT_EQ(*f.outcomes[0].objective, 1.0);
  EXPECT_EQ(f.outcomes[2].status, Status::ok);
  // Merging the destination into itself changes nothing.
  r = merge_into(into, {into});
  EXPECT_TRUE(r.keys.empty());
  EXPECT_EQ(lines_of(dest).size(), 6u);
}

TEST_F(Database, MergeRefusesAForeignSourceNamingItAndTheMoveCommand) {
  const fs::path bad = dir_ / "src" / "notes.jsonl";
  fs::create_directories(bad.parent_path());
  std::ofstream(bad) << "{\"not\": \"ours\"}\n";
  try {
    merge_into(dir_ / "db", {dir_ / "src"});
    FAIL() << "expected an error";
  } catch (const ResultsError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(bad.string() + ":1: not an AdaExplore results file"), std::string::npos) << m;
    EXPECT_NE(m.find("mv '" + bad.string() + "'"), std::string::npos) << m;
  }
  EXPECT_THROW(merge_into(dir_ / "db", {dir_ / "missing"}), ResultsError);
}

// Issue 37: a bad source after good ones left the good ones merged without a word. Every source is
// read first: a bad one stops the merge before anything is written, and the message says so.
TEST_F(Database, MergeReadsEverySourceFirstAndABadOneMergesNothing) {
  const std::string key = content_hash("k");
  write_results(dir_ / "a" / "k" / (key.substr(0, 16) + ".jsonl"),
                header("k", key, "NVIDIA H100", "9.0", "2024-01-01T00:00:00Z"), {record(1, 1, "ok", 1.0)});
  const fs::path bad = dir_ / "b" / "k" / "broken.jsonl";
  fs::create_directories(bad.parent_path());
  std::ofstream(bad) << "{not json\n";
  const fs::path into = dir_ / "db";
  try {
    merge_into(into, {dir_ / "a", dir_ / "b"});
    FAIL() << "expected an error";
  } catch (const ResultsError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(bad.string() + ":1: not valid JSON"), std::string::npos) << m;
    EXPECT_NE(m.find("; nothing was merged (every source is read before anything is written)"), std::string::npos) << m;
  }
  EXPECT_FALSE(fs::exists(database_file(into, "k", key)));
}

// An error while writing (a destination that cannot be locked) ends with what was merged before.
TEST_F(Database, MergeStoppedWhileWritingSaysWhatItMerged) {
  const std::string first = content_hash("k1"), second = content_hash("k2");
  const std::string low = std::min(first, second), high = std::max(first, second);  // merged in key order
  write_results(dir_ / "a" / "k" / (low.substr(0, 16) + ".jsonl"),
                header("k", low, "NVIDIA H100", "9.0", "2024-01-01T00:00:00Z"),
                {record(1, 1, "ok", 1.0), record(2, 2, "ok", 2.0)});
  write_results(dir_ / "b" / "k" / (high.substr(0, 16) + ".jsonl"),
                header("k", high, "NVIDIA H200", "9.0", "2024-01-01T00:00:00Z"), {record(1, 1, "ok", 1.0)});
  const fs::path into = dir_ / "db";
  fs::create_directories(lock_path_for(database_file(into, "k", high)));  // a folder where its lock file goes
  try {
    merge_into(into, {dir_ / "a", dir_ / "b"});
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a folder stands where the lock file must be"), std::string::npos) << m;
    EXPECT_NE(m.find("; merged before it stopped (kept): k " + low.substr(0, 16) + ": 2 records into " +
                     database_file(into, "k", low).string()),
              std::string::npos)
        << m;
  }
  EXPECT_EQ(lines_of(database_file(into, "k", low)).size(), 3u);
}

// `merge --into <a file>` blamed POSIX locks; it is the environment, said as such, nothing merged.
TEST_F(Database, MergeIntoAFileSaysItIsAFile) {
  const std::string key = content_hash("k");
  write_results(dir_ / "a" / "k" / (key.substr(0, 16) + ".jsonl"),
                header("k", key, "NVIDIA H100", "9.0", "2024-01-01T00:00:00Z"), {record(1, 1, "ok", 1.0)});
  std::ofstream(dir_ / "db-file") << "";
  try {
    merge_into(dir_ / "db-file", {dir_ / "a"});
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find((dir_ / "db-file").string() + ": is a file, not a tuning database folder"), std::string::npos) << m;
    EXPECT_EQ(m.find("POSIX"), std::string::npos) << m;
    EXPECT_NE(m.find("nothing was merged"), std::string::npos) << m;
  }
  // A writer under a file where its folder must be: the same words, not a file-system error.
  try {
    ResultsWriter w(dir_ / "db-file" / "k" / "x.jsonl", header("k", key, "NVIDIA H100", "9.0", "2024-01-01T00:00:00Z"),
                    space());
    FAIL() << "expected an error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "db-file").string() + ": is a file, not a folder"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace adaexplore
