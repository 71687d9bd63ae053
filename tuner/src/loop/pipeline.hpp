// The tuning's pipeline (tuner.hpp run_tuning): configurations wait in a queue (proposed, not
// started), are prepared (compiled) on up to Backend::parallelism() compile workers, started in
// queue order, and measured as their compiles finish on Backend::measure_slots() measuring
// workers (one per GPU), the baseline first and alone. How many configurations are in flight
// (queued, compiling, compiled and waiting, measuring) follows the measured compile and
// measurement times (depth()), so that each proposal is made without as few outcomes as keep the
// measuring workers busy, and the budget caps it (one eighth of it on one GPU), so that a small
// tuning's proposals know most outcomes. What becomes of an outcome is the client's (the loop:
// recorder.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <future>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "evaluate/backend.hpp"
#include "loop/clock.hpp"
#include "loop/tuner.hpp"
#include "search/strategy.hpp"

namespace adaexplore {

/// What the pipeline asks of the tuning it serves. Called from the loop's thread only.
class PipelineClient {
 public:
  virtual ~PipelineClient() = default;
  /// Evaluations the budget still allows (the outcomes recorded subtracted, not those in flight).
  virtual std::size_t remaining() const = 0;
  /// Past the time limit: nothing more starts compiling or measuring.
  virtual bool over_time() const = 0;
  /// Its outcome is recorded (another process sharing the results file may have measured it
  /// meanwhile): never proposed, started or measured again.
  virtual bool recorded(const Config& config) const = 0;
  /// Records what other processes sharing the results file recorded since the last look; asked
  /// before each measurement, so that recorded() knows of them.
  virtual void take_arrivals() = 0;
  /// The baseline is queued and its outcome not yet recorded: it is measured first and alone.
  virtual bool baseline_pending() const = 0;
  /// A fresh outcome, measured (or failed before measuring): record it.
  virtual void measured(Outcome outcome) = 0;
  /// Whether the outcomes recorded are those of a broken setup; check_setup() then throws
  /// SetupError.
  virtual bool setup_broken() const = 0;
  virtual void check_setup() const = 0;
};

class Pipeline {
 public:
  Pipeline(const Space& space, Backend& backend, Strategy& strategy, const TuneOptions& options, const Clock& clock,
           PipelineClient& client, Config baseline);
  // Its compile and measurement tasks hold `this`.
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Queues those of `configs` not recorded, not in flight and satisfying the constraints.
  void enqueue(const std::vector<Config>& configs);
  /// TuneOptions::warm_start: queued (right after the baseline), within the budget.
  void enqueue_warm_start(const std::vector<Config>& warm);
  /// Configurations queued and not yet compiling.
  std::size_t queued() const { return queue_.size(); }
  /// Proposals into free compile slots: the queue's first, then (its being empty) new proposals.
  void feed();
  /// Whether no configuration is compiling or compiled and waiting to be measured.
  bool nothing_prepared() const { return pending_.empty(); }
  /// Measurements running on the measuring workers (several workers only).
  std::size_t measuring() const { return measuring_.size(); }
  /// Measures the next compiled configuration (next_ready()), on a free worker, or drops it past
  /// the time limit, when recorded meanwhile or beyond the budget.
  void measure_next();
  /// Waits for the first measurement to finish (any worker) and records it.
  void finish_first();
  /// Waits for every measurement and records them, in start order.
  void finish_measuring();
  /// Waits for the compiles still running (budget or time limit reached); nothing more is measured.
  void drain();
  /// TuneReport::in_flight and the rates behind it (tuner.hpp).
  void note_depth(TuneReport& report) const;

 private:
  // An outcome and the wall time of its measurement (ms; 0 when it failed before measuring).
  struct Measured {
    Outcome outcome;
    double measure_ms;
  };
  struct Ready {
    Prepared prepared;
    double prepare_ms;  // wall
  };
  struct Measuring {
    Config config;
    std::size_t slot;
    double prepare_ms;
    std::future<Measured> outcome;
  };

  std::size_t ahead() const { return std::max<std::size_t>(1, backend_.parallelism()); }
  std::size_t free_slots() const { return pending_.size() >= ahead() ? 0 : ahead() - pending_.size(); }
  std::size_t slots() const { return std::max<std::size_t>(1, backend_.measure_slots()); }
  bool concurrent() const { return slots() > 1 && !client_.baseline_pending(); }
  void refill();
  std::size_t depth() const;
  std::size_t throughput_depth() const;
  std::size_t budget_depth() const;
  std::pair<double, double> mean_rates() const;
  void note_rates(double prepare_ms, double measure_ms, const Outcome& o);
  void pump();
  void drop(const Prepared& p);
  std::size_t next_ready();
  Measured evaluate_timed(Prepared prepared, std::size_t slot);
  Outcome evaluate_prepared(Prepared prepared, std::size_t slot);
  std::optional<std::size_t> first_finished();
  void collect_finished();
  void finish(std::size_t index, bool check = true);

  const Space& space_;
  Backend& backend_;
  Strategy& strategy_;
  const TuneOptions& options_;
  const Clock& clock_;
  PipelineClient& client_;
  Config baseline_;
  std::deque<Config> queue_;                          // proposed, not yet compiling
  std::deque<std::future<Ready>> pending_;            // compiling, in measurement order
  std::deque<Measuring> measuring_;                   // on the measuring workers, in start order (concurrent() only)
  std::vector<bool> slot_busy_;
  std::deque<std::pair<double, double>> rates_;       // note_rates(): (prepare ms, measure ms), the last kRateWindow
  std::unordered_set<Config, ConfigHash> in_flight_;  // in queue_ or pending_, or being measured
};

}  // namespace adaexplore
