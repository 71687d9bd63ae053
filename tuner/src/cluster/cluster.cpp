#include "cluster/cluster.hpp"
#include "cluster/heartbeat.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <atomic>
#include <set>

namespace adaexplore {

// extra.mpi of an outcome evaluated on `rank`: {"rank", "host"}.
nlohmann::json mpi_extra(int rank, const std::string& host) {
  nlohmann::json j = {{"rank", rank}};
  if (!host.empty()) j["host"] = host;
  return j;
}

nlohmann::json prepared_to_json(const Prepared& p, const Space& space) {
  Outcome carrier;  // the resources in the results' form (model/outcome.hpp to_json)
  carrier.config = p.config;
  carrier.resources = p.resources;
  nlohmann::json j = {{"config", record_config(p.config, space)},
                      {"resources", to_json(carrier, space).value("resources", nlohmann::json::array())},
                      {"ptxas_warnings", p.ptxas_warnings},
                      {"stage_ms", p.stage_ms},
                      {"compile_cached", p.compile_cached},
                      {"executable", p.executable.string()},
                      {"directory", p.directory.string()}};
  if (p.failure) {  // a backend need not set the failure's configuration (the pipeline does)
    Outcome failure = *p.failure;
    failure.config = p.config;
    j["failure"] = to_json(failure, space);
  }
  return j;
}

Prepared prepared_from_json(const nlohmann::json& j, const Space& space) {
  Prepared p;
  nlohmann::json carrier = {{"config", j.at("config")}, {"status", "ok"}, {"resources", j.value("resources", nlohmann::json::array())}};
  Outcome o = outcome_from_json(carrier, space);
  p.config = o.config;
  p.resources = std::move(o.resources);
  p.ptxas_warnings = j.value("ptxas_warnings", std::vector<std::string>{});
  p.stage_ms = j.value("stage_ms", std::map<std::string, double>{});
  p.compile_cached = j.value("compile_cached", false);
  p.executable = j.value("executable", std::string());
  p.directory = j.value("directory", std::string());
  if (j.contains("failure")) p.failure = outcome_from_json(j["failure"], space);
  return p;
}

// ---- Coordinator ------------------------------------------------------------------------------

Coordinator::Coordinator(Transport& transport, double timeout_s, std::ostream* warnings)
    : transport_(transport),
      size_(transport.size()),
      host_(transport.host()),
      timeout_s_(timeout_s),
      warnings_(warnings),
      heard_(static_cast<std::size_t>(size_), HeartbeatClock::now()),
      lost_(static_cast<std::size_t>(size_), false) {
  thread_ = std::thread([this] { run(); });
}

Coordinator::~Coordinator() { stop(); }

std::future<nlohmann::json> Coordinator::request(int rank, nlohmann::json message) {
  std::lock_guard<std::mutex> lock(mutex_);
  Waiting w{rank, {}};
  auto future = w.answer.get_future();
  if (lost_.at(static_cast<std::size_t>(rank)) || stopping_) {
    w.answer.set_exception(std::make_exception_ptr(
        WorkerLost("rank " + std::to_string(rank) + (stopping_ ? ": the tuning stopped" : " was lost"))));
    return future;
  }
  const std::uint64_t id = next_id_++;
  message["id"] = id;
  outbox_.emplace_back(rank, std::move(message));
  waiting_.emplace(id, std::move(w));
  return future;
}

void Coordinator::post(int rank, nlohmann::json message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lost_.at(static_cast<std::size_t>(rank))) outbox_.emplace_back(rank, std::move(message));
}

std::vector<int> Coordinator::live_workers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> ranks;
  for (int r = 1; r < size_; ++r)
    if (!lost_[static_cast<std::size_t>(r)]) ranks.push_back(r);
  return ranks;
}

bool Coordinator::lost(int rank) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_.at(static_cast<std::size_t>(rank));
}

std::vector<int> Coordinator::lost_ranks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_order_;
}

bool Coordinator::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || !thread_.joinable()) return abandoned_;
    const auto now = HeartbeatClock::now();
    const double silent_s = 3 * heartbeat_every_s(timeout_s_);
    for (int r = 1; r < size_; ++r)
      if (!lost_[static_cast<std::size_t>(r)] && seconds_between(heard_[static_cast<std::size_t>(r)], now) > silent_s)
        declare_lost(r, "not heard from for " + std::to_string(seconds_between(heard_[static_cast<std::size_t>(r)], now)).substr(0, 4) +
                            " s at the end of the tuning (dead or hung)");
    for (auto& [id, w] : waiting_)
      w.answer.set_exception(std::make_exception_ptr(WorkerLost("the tuning stopped")));
    waiting_.clear();
    abandoned_ = !lost_order_.empty();
    for (int r = 1; r < size_; ++r)
      if (!lost_[static_cast<std::size_t>(r)])
        outbox_.emplace_back(r, nlohmann::json{{"type", "stop"}, {"abandon", abandoned_}});
    stopping_ = true;
  }
  thread_.join();
  return abandoned_;
}

void Coordinator::declare_lost(int rank, const std::string& why) {
  if (lost_[static_cast<std::size_t>(rank)]) return;
  lost_[static_cast<std::size_t>(rank)] = true;
  lost_order_.push_back(rank);
  std::size_t in_flight = 0;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->second.rank == rank) {
      it->second.answer.set_exception(std::make_exception_ptr(WorkerLost("rank " + std::to_string(rank) + " " + why)));
      it = waiting_.erase(it);
      ++in_flight;
    } else {
      ++it;
    }
  }
  if (warnings_)
    *warnings_ << "[adaexplore] warning: MPI rank " << rank << " " << why << ": lost; its "
               << counted(in_flight, "request")
               << " in flight will go to other ranks, it gets no more work, and nothing it sends is recorded"
               << std::endl;
}

// The communication thread: the only caller of the Transport.
void Coordinator::run() {
  auto last_beat = HeartbeatClock::now() - std::chrono::hours(1);
  std::optional<HeartbeatClock::time_point> stop_at;
  while (true) {
    std::vector<std::pair<int, nlohmann::json>> out;
    bool stopping = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      out.swap(outbox_);
      stopping = stopping_;
    }
    for (const auto& [rank, body] : out) transport_.send(rank, body);
    bool received = false;
    while (true) {
      std::optional<Message> m;
      try {
        m = transport_.poll();
      } catch (const std::exception& e) {  // a message that is not MessagePack: dropped, said
        if (warnings_) *warnings_ << "[adaexplore] warning: MPI: a message could not be read: " << e.what() << std::endl;
        continue;
      }
      if (!m) break;
      received = true;
      std::lock_guard<std::mutex> lock(mutex_);
      const auto r = static_cast<std::size_t>(m->source);
      if (r >= lost_.size() || lost_[r]) continue;  // a lost rank's late word is never recorded
      heard_[r] = HeartbeatClock::now();
      if (!m->body.is_object()) continue;
      const std::string type = m->body.value("type", "");
      if (type != "reply" && type != "error") continue;  // heartbeat
      const auto it = waiting_.find(m->body.value("id", std::uint64_t{0}));
      if (it == waiting_.end()) continue;
      const std::string what = "MPI rank " + std::to_string(m->source) + ": " + m->body.value("what", std::string("failed"));
      if (type == "reply")
        it->second.answer.set_value(std::move(m->body));
      else if (m->body.value("kind", "") == "setup")  // the worker's backend's SetupError: the tuning's verdict
        it->second.answer.set_exception(std::make_exception_ptr(SetupError(what)));
      else
        it->second.answer.set_exception(std::make_exception_ptr(std::runtime_error(what)));
      waiting_.erase(it);
    }
    const auto now = HeartbeatClock::now();
    if (stopping) {
      if (!stop_at) stop_at = now;
      if (transport_.sends_done() || seconds_between(*stop_at, now) > 5) return;
    } else {
      if (seconds_between(last_beat, now) >= heartbeat_every_s(timeout_s_)) {
        last_beat = now;
        std::lock_guard<std::mutex> lock(mutex_);
        for (int r = 1; r < size_; ++r)
          if (!lost_[static_cast<std::size_t>(r)]) transport_.send(r, {{"type", "heartbeat"}});
      }
      std::lock_guard<std::mutex> lock(mutex_);
      for (int r = 1; r < size_; ++r)
        if (!lost_[static_cast<std::size_t>(r)] && seconds_between(heard_[static_cast<std::size_t>(r)], now) > timeout_s_)
          declare_lost(r, "not heard from for " + std::to_string(static_cast<int>(timeout_s_)) +
                              " s (dead or hung; --mpi-timeout)");
    }
    if (!received && out.empty()) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

std::vector<std::string> shared_gpus(const std::vector<std::tuple<int, std::string, std::vector<std::string>>>& ranks) {
  std::map<std::pair<std::string, std::string>, std::vector<int>> users;  // (host, uuid) -> ranks
  for (const auto& [rank, host, uuids] : ranks)
    for (const auto& uuid : std::set<std::string>(uuids.begin(), uuids.end()))
      if (!uuid.empty()) users[{host, uuid}].push_back(rank);
  std::vector<std::string> lines;
  for (const auto& [where, by] : users) {
    if (by.size() < 2) continue;
    std::string line = where.second + " on " + where.first + ": ranks";
    for (std::size_t i = 0; i < by.size(); ++i) line += (i ? ", " : " ") + std::to_string(by[i]);
    lines.push_back(line);
  }
  return lines;
}

std::vector<WorkerHello> open_session(Coordinator& coordinator, const nlohmann::json& setup) {
  static std::atomic<std::uint64_t> sessions{0};
  const std::uint64_t session = ++sessions;
  nlohmann::json numbered = setup;
  numbered["session"] = session;
  std::vector<std::pair<int, std::future<nlohmann::json>>> asked;
  for (int rank : coordinator.live_workers()) {
    nlohmann::json m = {{"type", "setup"}, {"setup", numbered}};
    asked.emplace_back(rank, coordinator.request(rank, std::move(m)));
  }
  std::vector<WorkerHello> hellos;
  for (auto& [rank, answer] : asked) {
    try {
      nlohmann::json body = answer.get();
      WorkerHello h;
      h.rank = rank;
      h.host = body.value("host", std::string());
      h.session = session;
      h.body = std::move(body);
      hellos.push_back(std::move(h));
    } catch (const WorkerLost&) {
      // reported by the coordinator; the tuning goes on without it
    }
  }
  return hellos;
}

// ---- ClusterBackend ---------------------------------------------------------------------------

ClusterBackend::ClusterBackend(std::unique_ptr<Backend> local, Coordinator& coordinator,
                               std::vector<WorkerHello> workers, const Space& space)
    : local_(std::move(local)), coordinator_(coordinator), space_(space) {
  Worker self;
  self.rank = 0;
  self.host = coordinator.host();
  self.slots = std::max<std::size_t>(1, local_->measure_slots());
  self.parallelism = std::max<std::size_t>(1, local_->parallelism());
  workers_.push_back(self);
  for (const auto& h : workers) {
    Worker w;
    w.rank = h.rank;
    w.host = h.host;
    w.slots = std::max<std::size_t>(1, h.slots());
    w.parallelism = std::max<std::size_t>(1, h.parallelism());
    workers_.push_back(w);
    session_ = h.session;
  }
  local_busy_.assign(self.slots, false);
}

ClusterBackend::~ClusterBackend() {
  for (const auto& w : workers_)
    if (w.rank != 0) coordinator_.post(w.rank, {{"type", "end"}, {"session", session_}});
}

std::size_t ClusterBackend::measure_slots() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t n = 0;
  for (const auto& w : workers_) n += w.slots;
  return n;
}

std::size_t ClusterBackend::parallelism() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t n = 0;
  for (const auto& w : workers_) n += w.parallelism;
  return n;
}

std::string ClusterBackend::evaluation_mode() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string mode = local_->evaluation_mode();
  std::size_t slots = 0;
  for (const auto& w : workers_) slots += w.slots;
  return mode + (mode.empty() ? "" : "; ") + "over " + std::to_string(workers_.size()) + " MPI ranks (" +
         std::to_string(slots) + " measuring workers), each compiling what it measures";
}

ClusterBackend::Worker* ClusterBackend::worker(int rank) {
  for (auto& w : workers_)
    if (w.rank == rank) return &w;
  return nullptr;
}

// The rank with the least work (compiling, compiled and waiting, measuring) per compile and
// measuring worker, among the live ones with a free compile worker if any; rank 0 first among
// equals.
ClusterBackend::Worker& ClusterBackend::place() {
  Worker* best = nullptr;
  double best_load = 0;
  bool best_free = false;
  for (auto& w : workers_) {
    if (w.rank != 0 && coordinator_.lost(w.rank)) continue;
    const bool free = w.compiling < w.parallelism;
    const double load = static_cast<double>(w.compiling + w.held + w.measuring) / static_cast<double>(w.parallelism + w.slots);
    if (!best || (free && !best_free) || (free == best_free && load < best_load)) {
      best = &w;
      best_load = load;
      best_free = free;
    }
  }
  return *best;  // rank 0 is never lost
}

Prepared ClusterBackend::prepare(const Config& config) {
  while (true) {
    int rank = 0;
    std::uint64_t handle = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Worker& w = place();
      ++w.compiling;
      rank = w.rank;
      static std::atomic<std::uint64_t> handles{0};  // process-wide: never reused by a later session
      handle = ++handles;
    }
    try {
      Prepared p;
      if (rank == 0) {
        p = local_->prepare(config);
        p.rank = 0;
      } else {
        const nlohmann::json answer =
            coordinator_.request(rank, {{"type", "prepare"}, {"handle", handle}, {"config", record_config(config, space_)}})
                .get();
        p = prepared_from_json(answer.at("prepared"), space_);
        p.config = config;
        p.rank = rank;
        p.handle = handle;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      Worker* w = worker(rank);
      --w->compiling;
      if (p.failure) {  // its outcome names the rank that compiled it, as a measured one does
        if (!p.failure->extra.is_object()) p.failure->extra = nlohmann::json::object();
        p.failure->extra["mpi"] = mpi_extra(w->rank, w->host);
      } else {
        ++w->held;
      }
      return p;
    } catch (const WorkerLost&) {
      std::lock_guard<std::mutex> lock(mutex_);
      --worker(rank)->compiling;  // compiled again on another rank
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      --worker(rank)->compiling;
      throw;
    }
  }
}

Outcome ClusterBackend::measure_locally(Prepared& prepared) {
  std::size_t slot = 0;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    local_free_.wait(lock, [&] { return std::find(local_busy_.begin(), local_busy_.end(), false) != local_busy_.end(); });
    slot = static_cast<std::size_t>(std::find(local_busy_.begin(), local_busy_.end(), false) - local_busy_.begin());
    local_busy_[slot] = true;
  }
  struct Release {
    ClusterBackend& b;
    std::size_t slot;
    ~Release() {
      {
        std::lock_guard<std::mutex> lock(b.mutex_);
        b.local_busy_[slot] = false;
      }
      b.local_free_.notify_one();
    }
  } release{*this, slot};
  return local_->measure_on(prepared, slot);
}

Outcome ClusterBackend::measure_on(Prepared& prepared, std::size_t slot) {
  const int rank = prepared.rank;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Worker* w = worker(rank);
    --w->held;
    ++w->measuring;
  }
  auto done = [&](bool keep) {
    std::lock_guard<std::mutex> lock(mutex_);
    Worker* w = worker(rank);
    --w->measuring;
    if (keep) ++w->held;
  };
  try {
    Outcome o;
    if (rank == 0) {
      o = measure_locally(prepared);
    } else {
      const nlohmann::json answer =
          coordinator_.request(rank, {{"type", "measure"}, {"handle", prepared.handle}, {"keep", prepared.keep_artifact}})
              .get();
      o = outcome_from_json(answer.at("outcome"), space_);
    }
    done(prepared.keep_artifact);
    if (!o.extra.is_object()) o.extra = nlohmann::json::object();
    std::lock_guard<std::mutex> lock(mutex_);
    o.extra["mpi"] = mpi_extra(rank, worker(rank)->host);
    return o;
  } catch (const WorkerLost&) {
    done(false);
  } catch (...) {
    done(false);
    throw;
  }
  // Its rank was lost with the artifact: compiled and measured again on another.
  Prepared again = prepare(prepared.config);
  again.keep_artifact = prepared.keep_artifact;
  prepared = std::move(again);  // the caller merges the new compile's stages and warnings
  if (prepared.failure) return *prepared.failure;
  return measure_on(prepared, slot);
}

void ClusterBackend::discard(const Prepared& prepared) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Worker* w = worker(prepared.rank);
    if (w && w->held > 0 && !prepared.failure) --w->held;
  }
  if (prepared.rank == 0)
    local_->discard(prepared);
  else
    coordinator_.post(prepared.rank, {{"type", "discard"}, {"handle", prepared.handle}});
}

void ClusterBackend::calibrate(const Outcome& baseline) {
  local_->calibrate(baseline);
  const nlohmann::json outcome = to_json(baseline, space_);
  for (const auto& w : workers_)
    if (w.rank != 0) coordinator_.post(w.rank, {{"type", "calibrate"}, {"outcome", outcome}});
}

}  // namespace adaexplore
