// One tuning over the ranks of an MPI job (`adaexplore-tuner tune --mpi`, docs/cluster.md).
// Rank 0 runs everything a local tuning runs (strategy, knowledge base, results file or tuning
// database, confirmation, header) through a ClusterBackend; every rank, rank 0 included, is a
// worker that compiles and measures what it is given on its own backend (its GPUs: --device,
// one measuring worker per GPU as in a local tuning). A configuration is compiled by the rank
// that measures it: the compile is the bottleneck (5.7 s of nvcc per gemm configuration against
// 0.27 s of measurement, docs/results/2026-12-01-h200-*), so each node's cores compile for its
// own GPUs and no artifact crosses the network.
//
// Faults. Each worker sends a heartbeat every second and the coordinator answers in kind. A
// worker not heard from for `timeout_s` (dead, hung, unreachable) is lost: the configurations it
// was compiling or holding are compiled and measured again elsewhere (ClusterBackend::prepare and
// measure_on retry on another rank), it gets no more work, and anything it sends later is ignored,
// so no configuration is recorded twice. A worker that no longer hears rank 0 stops (exit 1);
// rank 0 killed, the next run of the same command resumes from the results file like a local
// tuning (results are appended as each outcome arrives).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/transport.hpp"
#include "evaluate/backend.hpp"

namespace adaexplore {

/// A request to a rank that was declared lost (or was lost while it was waiting for the answer).
class WorkerLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A Prepared as it crosses the network: everything but the artifact, which stays on the rank
/// that compiled it (Prepared::rank, Prepared::handle).
nlohmann::json prepared_to_json(const Prepared& prepared, const Space& space);
/// An outcome's extra.mpi: {"rank": rank, "host": host} (no host when empty).
nlohmann::json mpi_extra(int rank, const std::string& host);
Prepared prepared_from_json(const nlohmann::json& j, const Space& space);

/// Rank 0's side of the job: a communication thread (the only caller of the Transport) that
/// sends, receives, matches answers to requests, exchanges heartbeats and declares silent ranks
/// lost. Thread-safe.
class Coordinator {
 public:
  /// `warnings`: where a lost rank is reported ("[adaexplore] warning: rank 2 (host) ..."), may be null.
  Coordinator(Transport& transport, double timeout_s, std::ostream* warnings);
  ~Coordinator();  // stop(), if not done
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  int size() const { return size_; }
  /// Rank 0's host name.
  const std::string& host() const { return host_; }
  /// Sends `message` (an object; its "id" is set here) to `rank` and returns the answer's future:
  /// the worker's reply object, or WorkerLost, or std::runtime_error with the worker's error.
  std::future<nlohmann::json> request(int rank, nlohmann::json message);
  /// Sends without an answer (calibrate, discard, end of a session).
  void post(int rank, nlohmann::json message);
  /// The worker ranks (1 .. size - 1) not lost.
  std::vector<int> live_workers() const;
  bool lost(int rank) const;
  /// The ranks declared lost, in order.
  std::vector<int> lost_ranks() const;
  /// Tells every live worker to stop and waits (a few seconds at most) for the messages to leave;
  /// then the thread ends; a request still waiting gets WorkerLost. A worker silent for more than
  /// three heartbeats by then is lost too (it may have died within the timeout). Returns whether
  /// a rank was lost: the workers were then told to end without MPI_Finalize (it would wait for
  /// the lost rank: OpenMPI's waits for every process), and rank 0 must do the same. Idempotent.
  bool stop();

 private:
  void run();
  void declare_lost(int rank, const std::string& why);  // with mutex_ held

  Transport& transport_;
  const int size_;
  const std::string host_;
  const double timeout_s_;
  std::ostream* warnings_;
  mutable std::mutex mutex_;
  std::vector<std::pair<int, nlohmann::json>> outbox_;
  struct Waiting {
    int rank;
    std::promise<nlohmann::json> answer;
  };
  std::map<std::uint64_t, Waiting> waiting_;
  std::uint64_t next_id_ = 1;
  std::vector<std::chrono::steady_clock::time_point> heard_;
  std::vector<bool> lost_;
  std::vector<int> lost_order_;
  bool stopping_ = false, abandoned_ = false;
  std::thread thread_;
};

/// What a worker said when a session opened (its answer to "setup"): its rank, host, backend
/// (name, device, measuring and compile workers) and whatever the caller checks (the key).
struct WorkerHello {
  int rank = 0;
  std::string host;
  std::uint64_t session = 0;  // open_session's number for it: a worker ends only its own session
  nlohmann::json body;
  std::size_t slots() const { return body.value("slots", std::size_t{1}); }
  std::size_t parallelism() const { return body.value("parallelism", std::size_t{1}); }
};

/// The GPUs two ranks would both measure on: each rank's hello lists its GPUs' UUIDs ("gpus");
/// `ranks` holds every rank's (rank 0's too) as (rank, host, uuids). Empty when none is shared;
/// else one line per shared GPU: "GPU-... on node01: ranks 0, 1".
std::vector<std::string> shared_gpus(const std::vector<std::tuple<int, std::string, std::vector<std::string>>>& ranks);

/// Sends `setup` (numbered: "session") to every live worker (each builds its backend for it: worker.hpp) and returns
/// their hellos, ranks in order; a rank lost meanwhile is left out (and reported as lost). A
/// worker that could not build its backend: std::runtime_error naming the rank and its reason.
std::vector<WorkerHello> open_session(Coordinator& coordinator, const nlohmann::json& setup);

/// The Backend of rank 0's tuning: `local` (rank 0's own backend, also what answers for the key,
/// the static check and the included headers) and the workers of an open session. prepare()
/// places each configuration on the rank with the least work per compile and measuring worker
/// (rank 0 first among equals), measure_on() measures it where it was compiled. Its destructor
/// ends the session on the workers.
class ClusterBackend final : public Backend {
 public:
  ClusterBackend(std::unique_ptr<Backend> local, Coordinator& coordinator, std::vector<WorkerHello> workers,
                 const Space& space);
  ~ClusterBackend() override;

  Backend& local() { return *local_; }
  std::string name() const override { return local_->name(); }
  nlohmann::json device() const override { return local_->device(); }
  Prepared prepare(const Config& config) override;
  Outcome measure(Prepared& prepared) override { return measure_on(prepared, 0); }
  Outcome measure_on(Prepared& prepared, std::size_t slot) override;
  void discard(const Prepared& prepared) override;
  std::size_t measure_slots() const override;
  std::size_t parallelism() const override;
  nlohmann::json included_headers(const std::vector<std::filesystem::path>& outputs) override {
    return local_->included_headers(outputs);
  }
  std::string evaluation_mode() const override;
  void calibrate(const Outcome& baseline) override;
  std::optional<Outcome> check_statically(const Config& config) const override {
    return local_->check_statically(config);
  }

 private:
  struct Worker {
    int rank = 0;
    std::string host;
    std::size_t slots = 1, parallelism = 1;
    std::size_t compiling = 0, held = 0, measuring = 0;
  };
  Worker& place();  // with mutex_ held
  Outcome measure_locally(Prepared& prepared);
  Worker* worker(int rank);  // with mutex_ held

  std::unique_ptr<Backend> local_;
  Coordinator& coordinator_;
  const Space& space_;
  mutable std::mutex mutex_;
  std::vector<Worker> workers_;  // rank 0 (local_) first
  std::uint64_t session_ = 0;
  // rank 0's measuring workers (local_->measure_slots()): which are busy
  std::vector<bool> local_busy_;
  std::condition_variable local_free_;
};

}  // namespace adaexplore
