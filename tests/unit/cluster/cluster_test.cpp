// The coordinator, ClusterBackend and the worker loop (cluster/) over an in-process transport:
// ranks are threads, messages go through queues. tests/cli/mpi_test.sh runs the same over real
// MPI processes (mpirun).
#include "cluster/cluster.hpp"
#include "cluster/worker.hpp"
#include "loop/tuner.hpp"
#include "test_support.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

using test::range;

// 6 x 6 configurations, all valid.
Space space() { return Space({range("X", 6), range("Y", 6)}, {}); }

// Queues between ranks. A rank "cut" loses every message it sends (a hung or unreachable rank,
// as the others see it).
class Network {
 public:
  explicit Network(int size) : inboxes_(static_cast<std::size_t>(size)) {}
  void deliver(int from, int to, const nlohmann::json& body) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cut_.count(from)) return;
    inboxes_.at(static_cast<std::size_t>(to)).push_back({from, body});
  }
  std::optional<Message> take(int rank) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& inbox = inboxes_.at(static_cast<std::size_t>(rank));
    if (inbox.empty()) return std::nullopt;
    Message m = std::move(inbox.front());
    inbox.pop_front();
    return m;
  }
  void cut(int rank) {
    std::lock_guard<std::mutex> lock(mutex_);
    cut_.insert(rank);
  }
  int size() const { return static_cast<int>(inboxes_.size()); }

 private:
  std::mutex mutex_;
  std::vector<std::deque<Message>> inboxes_;
  std::set<int> cut_;
};

class QueueTransport final : public Transport {
 public:
  QueueTransport(Network& network, int rank) : network_(network), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return network_.size(); }
  int local_rank() const override { return rank_; }
  std::string host() const override { return "host" + std::to_string(rank_); }
  void send(int destination, const nlohmann::json& body) override { network_.deliver(rank_, destination, body); }
  std::optional<Message> poll() override { return network_.take(rank_); }
  bool sends_done() override { return true; }

 private:
  Network& network_;
  int rank_;
};

// A deterministic objective, minimal at X=4, Y=1; X == 5 does not compile. `on_prepare` and
// `on_measure` are told each configuration it prepares and measures (in the working thread).
class StubBackend final : public Backend {
 public:
  explicit StubBackend(std::function<void(const Config&)> on_prepare = {},
                       std::function<void(const Config&)> on_measure = {})
      : on_prepare_(std::move(on_prepare)), on_measure_(std::move(on_measure)) {}
  std::string name() const override { return "stub"; }
  nlohmann::json device() const override { return {{"name", "stub device"}}; }
  std::size_t parallelism() const override { return 2; }
  Prepared prepare(const Config& c) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    if (on_prepare_) on_prepare_(c);
    Prepared p;
    p.config = c;
    p.stage_ms["compile"] = 3;
    p.resources.push_back({"k", 32, 1024});
    if (c[0] == 5) {
      Outcome o;
      o.status = Status::compile_error;
      o.message = "error: X = 5";
      p.failure = o;
    }
    return p;
  }
  Outcome measure(Prepared& p) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (on_measure_) on_measure_(p.config);
    Outcome o;
    o.status = Status::ok;
    o.objective = 1.0 + (p.config[0] - 4.0) * (p.config[0] - 4.0) + (p.config[1] - 1.0) * (p.config[1] - 1.0);
    return o;
  }

 private:
  std::function<void(const Config&)> on_prepare_, on_measure_;
};

using Hook = std::function<void(int rank, const Config&)>;

// Rank 0 (this thread) and two worker threads; `worker_prepare` and `worker_measure` are given to
// the workers' backends.
struct Job {
  explicit Job(Hook worker_prepare = {}, double timeout_s = 30, Hook worker_measure = {})
      : network(3), transport0(network, 0), coordinator(transport0, timeout_s, &warnings) {
    factories.reserve(2);  // the workers hold references to them
    for (int r = 1; r <= 2; ++r) {
      transports.push_back(std::make_unique<QueueTransport>(network, r));
      QueueTransport* t = transports.back().get();
      factories.push_back([worker_prepare, worker_measure, r](const nlohmann::json&, nlohmann::json& hello) {
        hello["key_parts"] = {{"device", "stub device"}};
        return std::make_unique<StubBackend>(
            [worker_prepare, r](const Config& c) {
              if (worker_prepare) worker_prepare(r, c);
            },
            [worker_measure, r](const Config& c) {
              if (worker_measure) worker_measure(r, c);
            });
      });
      workers.emplace_back([this, t, r] { codes[r] = serve_worker(*t, sp, factories[static_cast<std::size_t>(r - 1)], 600, log); });
    }
  }
  ~Job() { finish(); }  // also after a failed ASSERT
  // Stops the workers (a lost one, still running here, is told directly) and waits for them.
  void finish() {
    if (finished) return;
    finished = true;
    coordinator.stop();
    for (int r : coordinator.lost_ranks()) network.deliver(0, r, {{"type", "stop"}});
    for (auto& w : workers) w.join();
  }
  bool finished = false;
  Space sp = space();
  Network network;
  QueueTransport transport0;
  std::ostringstream warnings, log;
  Coordinator coordinator;
  std::vector<std::unique_ptr<QueueTransport>> transports;
  std::vector<SessionFactory> factories;
  std::vector<std::thread> workers;
  std::array<std::atomic<int>, 3> codes{{-1, -1, -1}};  // serve_worker's results, per rank
};

TuneReport tune(Backend& backend, const Space& sp, std::size_t budget) {
  StrategyOptions so;
  so.seed = 3;
  so.budget = budget;
  auto strategy = make_strategy("random", sp, so);
  TuneOptions options;
  options.budget = budget;
  return run_tuning(sp, {0, 0}, backend, *strategy, options, nullptr);
}

std::set<int> ranks_of(const std::vector<Outcome>& outcomes) {
  std::set<int> ranks;
  for (const auto& o : outcomes)
    if (o.extra.contains("mpi")) ranks.insert(o.extra["mpi"].value("rank", -1));
  return ranks;
}

TEST(PreparedJson, KeepsEverythingButTheArtifact) {
  const Space sp = space();
  Prepared p;
  p.config = {2, 3};
  p.resources.push_back({"_Z1kv", 40, 2048, 16, 4, 8, 0, 1, "k()", "sm_90"});
  p.ptxas_warnings = {"ptxas warning : Registers are spilled"};
  p.stage_ms = {{"render", 0.5}, {"compile", 812}};
  p.compile_cached = true;
  p.executable = "/w/eval/2_3/bench";
  p.directory = "/w/eval/2_3";
  Outcome failure;  // without its configuration, as backends leave it
  failure.status = Status::resource_limit;
  failure.message = "too much shared memory";
  p.failure = failure;
  const Prepared q = prepared_from_json(nlohmann::json::parse(prepared_to_json(p, sp).dump()), sp);
  EXPECT_EQ(q.config, p.config);
  ASSERT_EQ(q.resources.size(), 1u);
  EXPECT_EQ(q.resources[0].registers, 40);
  EXPECT_EQ(q.resources[0].shared_bytes, 2048);
  EXPECT_EQ(q.resources[0].spill_store_bytes, 4);
  EXPECT_EQ(q.resources[0].arch, "sm_90");
  EXPECT_EQ(q.ptxas_warnings, p.ptxas_warnings);
  EXPECT_EQ(q.stage_ms, p.stage_ms);
  EXPECT_TRUE(q.compile_cached);
  EXPECT_EQ(q.executable, p.executable);
  ASSERT_TRUE(q.failure);
  EXPECT_EQ(q.failure->config, p.config);
  EXPECT_EQ(q.failure->status, Status::resource_limit);
  EXPECT_EQ(q.failure->message, "too much shared memory");
}

TEST(Cluster, EvaluationsAreSpreadOverTheRanksAndEachRecordedOnce) {
  Job job;
  {
    ClusterBackend backend(std::make_unique<StubBackend>(), job.coordinator, open_session(job.coordinator, {}), job.sp);
    EXPECT_EQ(backend.measure_slots(), 3u);  // one measuring worker per rank
    EXPECT_EQ(backend.parallelism(), 6u);
    const TuneReport report = tune(backend, job.sp, 36);
    ASSERT_EQ(report.outcomes.size(), 36u);
    std::set<Config> configs;
    for (const auto& o : report.outcomes) configs.insert(o.config);
    EXPECT_EQ(configs.size(), 36u);
    EXPECT_EQ(ranks_of(report.outcomes), (std::set<int>{0, 1, 2}));
    ASSERT_TRUE(report.best);
    EXPECT_EQ(report.best->config, (Config{4, 1}));
    std::size_t failed = 0;  // a failure prepared on a worker crosses over whole
    for (const auto& o : report.outcomes)
      if (o.status == Status::compile_error) {
        ++failed;
        EXPECT_EQ(o.message, "error: X = 5");
        EXPECT_EQ(o.resources.size(), 1u);
      }
    EXPECT_EQ(failed, 6u);
  }
  job.finish();
  EXPECT_EQ(job.codes[1], kWorkerStopped);
  EXPECT_EQ(job.codes[2], kWorkerStopped);
  EXPECT_TRUE(job.coordinator.lost_ranks().empty());
}

// Rank 2 goes silent while compiling its third configuration: after the timeout its requests in
// flight are compiled and measured elsewhere, and every configuration is still recorded once.
TEST(Cluster, ASilentRanksConfigurationsAreEvaluatedElsewhere) {
  std::atomic<int> prepared_on_2{0};
  Network* network = nullptr;
  Job job(
      [&](int rank, const Config&) {
        if (rank == 2 && ++prepared_on_2 == 3) network->cut(2);
      },
      2.0);
  network = &job.network;
  {
    ClusterBackend backend(std::make_unique<StubBackend>(), job.coordinator, open_session(job.coordinator, {}), job.sp);
    const TuneReport report = tune(backend, job.sp, 36);
    ASSERT_EQ(report.outcomes.size(), 36u);
    std::set<Config> configs;
    for (const auto& o : report.outcomes) configs.insert(o.config);
    EXPECT_EQ(configs.size(), 36u);
    EXPECT_EQ(ranks_of(report.outcomes).count(1), 1u);
    std::size_t on_2 = 0;
    for (const auto& o : report.outcomes) on_2 += o.extra.contains("mpi") && o.extra["mpi"].value("rank", -1) == 2;
    EXPECT_LE(on_2, 2u);  // what it answered before it went silent
    ASSERT_TRUE(report.best);
    EXPECT_EQ(report.best->config, (Config{4, 1}));
  }
  EXPECT_EQ(job.coordinator.lost_ranks(), std::vector<int>{2});
  EXPECT_NE(job.warnings.str().find("MPI rank 2 not heard from"), std::string::npos) << job.warnings.str();
  job.finish();
  EXPECT_EQ(job.codes[1], kWorkerStoppedAfterLoss);  // told to end without MPI_Finalize
}

// Rank 1 goes silent while measuring its second configuration: the configuration it held is
// compiled and measured again on another rank, and recorded once.
TEST(Cluster, AConfigurationWhoseRankIsLostWhileMeasuringIsMeasuredElsewhere) {
  std::atomic<int> measured_on_1{0};
  std::atomic<bool> cut{false};
  Network* network = nullptr;
  Config silenced;
  std::mutex mutex;
  Job job({}, 2.0, [&](int rank, const Config& c) {
    if (rank == 1 && ++measured_on_1 == 2) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        silenced = c;
      }
      network->cut(1);
      cut = true;
    }
  });
  network = &job.network;
  {
    ClusterBackend backend(std::make_unique<StubBackend>(), job.coordinator, open_session(job.coordinator, {}), job.sp);
    const TuneReport report = tune(backend, job.sp, 36);
    ASSERT_TRUE(cut);
    ASSERT_EQ(report.outcomes.size(), 36u);
    std::set<Config> configs;
    for (const auto& o : report.outcomes) configs.insert(o.config);
    EXPECT_EQ(configs.size(), 36u);
    const auto it = std::find_if(report.outcomes.begin(), report.outcomes.end(),
                                 [&](const Outcome& o) { return o.config == silenced; });
    ASSERT_NE(it, report.outcomes.end());
    EXPECT_NE(it->extra["mpi"].value("rank", -1), 1) << "measured again elsewhere";
    EXPECT_EQ(it->status, Status::ok);
  }
  EXPECT_EQ(job.coordinator.lost_ranks(), std::vector<int>{1});
}

// A SetupError on a worker (its benchmark does not build) stops rank 0's tuning as a SetupError,
// as it would locally, not as another exception.
TEST(Cluster, AWorkersSetupErrorIsTheTuningsSetupError) {
  Job job({}, 30, [](int, const Config&) { throw SetupError("the benchmark does not build: bench.cu:3: error"); });
  ClusterBackend backend(std::make_unique<StubBackend>(), job.coordinator, open_session(job.coordinator, {}), job.sp);
  Prepared p = backend.prepare({1, 1});
  while (p.rank == 0) p = backend.prepare({1, 2});  // a configuration placed on a worker
  EXPECT_THROW(backend.measure_on(p, 0), SetupError);
}

// Two ranks on one GPU are named (per host: the same UUID on two hosts is not the same GPU);
// ranks without GPUs (the host backend) share nothing.
TEST(SharedGpus, NamesTheRanksThatWouldMeasureOnOneGpu) {
  EXPECT_TRUE(shared_gpus({{0, "n1", {"GPU-a"}}, {1, "n1", {"GPU-b"}}, {2, "n2", {"GPU-a"}}}).empty());
  EXPECT_TRUE(shared_gpus({{0, "n1", {}}, {1, "n1", {}}, {2, "n1", {""}}}).empty());
  EXPECT_EQ(shared_gpus({{0, "n1", {"GPU-a", "GPU-b"}}, {1, "n1", {"GPU-b"}}, {2, "n1", {"GPU-c"}}, {3, "n1", {"GPU-b"}}}),
            std::vector<std::string>{"GPU-b on n1: ranks 0, 1, 3"});
}

// A worker that cannot build its backend: the session does not open, and the error names the rank.
TEST(Cluster, AWorkerThatCannotBuildItsBackendIsNamed) {
  Job job;
  job.factories[1] = [](const nlohmann::json&, nlohmann::json&) -> std::unique_ptr<Backend> {
    throw std::runtime_error("no CUDA GPU 0 on host2: no device");
  };
  try {
    open_session(job.coordinator, {});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "MPI rank 2: no CUDA GPU 0 on host2: no device");
  }
  job.finish();
}

}  // namespace
}  // namespace adaexplore
