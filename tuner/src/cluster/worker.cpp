#include "cluster/worker.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cluster/cluster.hpp"
#include "cluster/heartbeat.hpp"

namespace adaexplore {
namespace {

class Worker {
 public:
  Worker(Transport& transport, const Space& space, const SessionFactory& open, double timeout_s, std::ostream& log)
      : transport_(transport), space_(space), open_(open), timeout_s_(timeout_s), log_(log) {}

  int serve() {
    auto heard = HeartbeatClock::now();
    auto beat = heard - std::chrono::hours(1);
    const double beat_every = heartbeat_every_s(timeout_s_);
    while (true) {
      bool busy = false;
      while (true) {
        std::optional<Message> m;
        try {
          m = transport_.poll();
        } catch (const std::exception& e) {
          log_ << "[adaexplore] MPI rank " << transport_.rank() << ": a message could not be read: " << e.what() << std::endl;
          continue;
        }
        if (!m) break;
        busy = true;
        if (m->source != 0 || !m->body.is_object()) continue;
        heard = HeartbeatClock::now();
        if (m->body.value("type", "") != "heartbeat") inbox_.push_back(std::move(m->body));
      }
      busy = handle_inbox() || busy;
      busy = start_measurements() || busy;
      busy = collect() || busy;
      if (stopped_ && tasks_.empty()) {
        const auto until = HeartbeatClock::now() + std::chrono::seconds(5);  // a dead rank 0 never takes them
        while (!transport_.sends_done() && HeartbeatClock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return abandon_ ? kWorkerStoppedAfterLoss : kWorkerStopped;
      }
      const auto now = HeartbeatClock::now();
      if (seconds_between(beat, now) >= beat_every) {
        beat = now;
        transport_.send(0, {{"type", "heartbeat"}});
      }
      if (seconds_between(heard, now) > timeout_s_) {
        log_ << "[adaexplore] MPI rank " << transport_.rank() << " (" << transport_.host()
             << "): rank 0 not heard from for " << timeout_s_
             << " s (killed, hung or unreachable): stopping; the next run of the command resumes from the results file"
             << std::endl;
        std::_Exit(1);  // what runs (a compile, a measurement) is abandoned: waiting for it could hang
      }
      if (!busy) std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }

 private:
  struct Task {
    std::uint64_t id;
    std::future<nlohmann::json> answer;
    std::size_t slot;    // measuring worker it holds, or kNoSlot
    bool reply = true;   // answered to rank 0 (an end of session is not)
  };
  static constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);

  bool measuring() const {
    return !measure_queue_.empty() ||
           std::any_of(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.slot != kNoSlot; });
  }

  // Messages in order. A setup, an end or a stop waits for every task to finish first, and what
  // follows a setup or an end waits for it (they run as tasks, so that the heartbeats go on while
  // a backend is built or released); a calibration waits for the measurements only (the backend
  // is never calibrated while it measures; compiles may go on).
  bool handle_inbox() {
    bool did = false;
    while (!inbox_.empty()) {
      const nlohmann::json& m = inbox_.front();
      const std::string type = m.value("type", "");
      const bool barrier = type == "setup" || type == "end" || type == "stop";
      if (switching_ || (barrier && (!tasks_.empty() || !measure_queue_.empty())) ||
          (type == "calibrate" && measuring()))
        return did;
      did = true;
      try {
        handle(m, type);
      } catch (const std::exception& e) {  // a malformed message: answered as an error, the worker goes on
        log_ << "[adaexplore] MPI rank " << transport_.rank() << ": message " << type << ": " << e.what() << std::endl;
        if (m.contains("id")) transport_.send(0, {{"type", "error"}, {"id", m["id"]}, {"what", e.what()}});
      }
      inbox_.pop_front();
    }
    return did;
  }

  void handle(const nlohmann::json& m, const std::string& type) {
    {
      if (type == "setup") {
        setup(m);
      } else if (type == "end") {
        if (m.value("session", std::uint64_t{0}) == session_) end_session();  // else an older one's
      } else if (type == "stop") {
        end_session();
        stopped_ = true;
        abandon_ = m.value("abandon", false);
      } else if (type == "prepare") {
        prepare(m);
      } else if (type == "measure") {
        measure_queue_.push_back(m);
      } else if (type == "discard") {
        discard(m.value("handle", std::uint64_t{0}));
      } else if (type == "calibrate" && backend_) {
        backend_->calibrate(outcome_from_json(m.at("outcome"), space_));
      }
    }
  }

  // Releases the session's backend (its artifacts discarded), as a task.
  void end_session() {
    switching_ = true;
    tasks_.push_back({0, std::async(std::launch::async, [this] {
                        release();
                        return nlohmann::json();
                      }),
                      kNoSlot, false});
  }

  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [handle, p] : held_) backend_->discard(p);
    held_.clear();
    backend_.reset();
  }

  void setup(const nlohmann::json& m) {
    switching_ = true;
    session_ = m.value("setup", nlohmann::json::object()).value("session", std::uint64_t{0});
    const std::uint64_t id = m.value("id", std::uint64_t{0});
    const nlohmann::json setup = m.value("setup", nlohmann::json::object());
    tasks_.push_back({id, std::async(std::launch::async, [this, setup] {
                        release();  // the session before, if any
                        nlohmann::json hello = nlohmann::json::object();
                        auto backend = open_(setup, hello);
                        hello["slots"] = std::max<std::size_t>(1, backend->measure_slots());
                        hello["parallelism"] = std::max<std::size_t>(1, backend->parallelism());
                        hello["host"] = transport_.host();
                        std::lock_guard<std::mutex> lock(mutex_);
                        backend_ = std::move(backend);
                        return hello;
                      }),
                      kNoSlot});
  }

  void prepare(const nlohmann::json& m) {
    const std::uint64_t id = m.value("id", std::uint64_t{0}), handle = m.value("handle", std::uint64_t{0});
    const nlohmann::json config_record = m.at("config");
    tasks_.push_back({id, std::async(std::launch::async, [this, handle, config_record] {
                        if (!backend_) throw std::runtime_error("no session open (its setup failed)");
                        const Config config = space_.config_from_texts(config_texts(config_record));
                        Prepared p = backend_->prepare(config);
                        nlohmann::json answer = {{"prepared", prepared_to_json(p, space_)}};
                        if (!p.failure) {
                          std::lock_guard<std::mutex> lock(mutex_);
                          held_[handle] = std::move(p);
                        }
                        return answer;
                      }),
                      kNoSlot});
  }

  void discard(std::uint64_t handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = held_.find(handle);
    if (it == held_.end()) return;
    backend_->discard(it->second);
    held_.erase(it);
  }

  // The measurements waiting, each on a free measuring worker.
  bool start_measurements() {
    bool did = false;
    while (!measure_queue_.empty()) {
      const auto free = std::find(busy_.begin(), busy_.end(), false);
      if (free == busy_.end()) return did;
      const std::size_t slot = static_cast<std::size_t>(free - busy_.begin());
      const nlohmann::json m = std::move(measure_queue_.front());
      measure_queue_.pop_front();
      did = true;
      const std::uint64_t id = m.value("id", std::uint64_t{0}), handle = m.value("handle", std::uint64_t{0});
      const bool keep = m.value("keep", false);
      Prepared p;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = held_.find(handle);
        if (it == held_.end()) {
          transport_.send(0, {{"type", "error"}, {"id", id}, {"what", "no compiled configuration " + std::to_string(handle) + " here"}});
          continue;
        }
        p = std::move(it->second);
        held_.erase(it);
      }
      busy_[slot] = true;
      tasks_.push_back({id, std::async(std::launch::async, [this, p = std::move(p), keep, handle, slot]() mutable {
                          p.keep_artifact = keep;
                          Outcome o = backend_->measure_on(p, slot);
                          o.config = p.config;
                          nlohmann::json answer = {{"outcome", to_json(o, space_)}};
                          if (keep) {
                            std::lock_guard<std::mutex> lock(mutex_);
                            held_[handle] = std::move(p);
                          }
                          return answer;
                        }),
                        slot});
    }
    return did;
  }

  // The tasks that finished, answered.
  bool collect() {
    bool did = false;
    for (auto it = tasks_.begin(); it != tasks_.end();) {
      if (it->answer.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        ++it;
        continue;
      }
      did = true;
      nlohmann::json answer;
      try {
        answer = it->answer.get();
        answer["type"] = "reply";
      } catch (const SetupError& e) {  // the setup is broken: rank 0's tuning stops as a local one does
        answer = {{"type", "error"}, {"kind", "setup"}, {"what", e.what()}};
      } catch (const std::exception& e) {
        answer = {{"type", "error"}, {"what", e.what()}};
      } catch (...) {
        answer = {{"type", "error"}, {"what", "an exception that is not a std::exception"}};
      }
      answer["id"] = it->id;
      if (it->reply) transport_.send(0, answer);
      if (it->slot != kNoSlot) busy_[it->slot] = false;
      it = tasks_.erase(it);
      if (switching_) {  // a setup or an end is the only task while it runs
        switching_ = false;
        std::lock_guard<std::mutex> lock(mutex_);
        busy_.assign(backend_ ? std::max<std::size_t>(1, backend_->measure_slots()) : 1, false);
      }
    }
    return did;
  }

  Transport& transport_;
  const Space& space_;
  const SessionFactory& open_;
  const double timeout_s_;
  std::ostream& log_;
  std::deque<nlohmann::json> inbox_, measure_queue_;
  std::vector<Task> tasks_;
  std::vector<bool> busy_;
  std::mutex mutex_;  // backend_ (set by the setup task) and held_
  std::unique_ptr<Backend> backend_;
  std::map<std::uint64_t, Prepared> held_;
  bool switching_ = false, stopped_ = false, abandon_ = false;
  std::uint64_t session_ = 0;  // the open session's (its setup's "session")
};

}  // namespace

int serve_worker(Transport& transport, const Space& space, const SessionFactory& open, double timeout_s,
                 std::ostream& log) {
  Worker worker(transport, space, open, timeout_s, log);
  return worker.serve();
}

}  // namespace adaexplore
