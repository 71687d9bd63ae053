#include "loop/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <optional>
#include <ostream>
#include <tuple>
#include <unordered_set>

#include "loop/crown.hpp"
#include "loop/significance.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

Outcome evaluate_prepared(Backend& backend, Prepared prepared, const Space& space, std::size_t slot = 0) {
  Outcome o;
  if (prepared.failure) {
    o = *prepared.failure;
  } else {
    o = backend.measure_on(prepared, slot);
  }
  o.config = prepared.config;
  o.label = space.label(prepared.config);
  if (o.resources.empty()) o.resources = prepared.resources;
  for (const auto& [stage, ms] : prepared.stage_ms) o.stage_ms.emplace(stage, ms);
  if (prepared.compile_cached) {
    if (!o.extra.is_object()) o.extra = nlohmann::json::object();
    o.extra["compile_cache"] = "hit";
  }
  if (!prepared.ptxas_warnings.empty()) {
    if (!o.extra.is_object()) o.extra = nlohmann::json::object();
    o.extra["ptxas_warnings"] = prepared.ptxas_warnings;
  }
  if (!is_success(o.status)) o.objective.reset();
  return o;
}

// An outcome and the wall time of its measurement (ms; 0 when it failed before measuring), for
// the pipeline depth (Loop::depth()).
struct Measured {
  Outcome outcome;
  double measure_ms;
};

Measured evaluate_timed(Backend& backend, Prepared prepared, const Space& space, std::size_t slot = 0) {
  const bool measures = !prepared.failure;
  const auto t0 = Clock::now();
  Outcome o = evaluate_prepared(backend, std::move(prepared), space, slot);
  return {std::move(o), measures ? 1000.0 * seconds_since(t0) : 0.0};
}

// A failure's signature: status and first line of the message with digits removed, so that the
// same error at different sizes or lines compares equal.
std::string signature(const Outcome& o) {
  std::string line = o.message.substr(0, o.message.find('\n'));
  std::string s = to_string(o.status);
  s += ':';
  for (char c : line)
    if (!std::isdigit(static_cast<unsigned char>(c))) s += c;
  return s;
}

class Loop {
 public:
  Loop(const Space& space, Backend& backend, Strategy& strategy, const TuneOptions& options, ResultsWriter* writer)
      : space_(space), backend_(backend), strategy_(strategy), options_(options), writer_(writer) {}

  TuneReport run(const Config& baseline, const std::vector<Outcome>& previous) {
    try {
      return run_loop(baseline, previous);
    } catch (const SetupError&) {
      throw;  // the failures held back are not configuration outcomes: dropped (see held_)
    } catch (...) {
      write_held();  // any other stop: what was measured is kept
      throw;
    }
  }

 private:
  TuneReport run_loop(const Config& baseline, const std::vector<Outcome>& previous) {
    start_ = Clock::now();
    baseline_ = baseline;
    // record() adopts the baseline wherever its outcome comes from: a previous run, this
    // evaluation, or another process sharing the results file (take_foreign). Without
    // evaluate_baseline (replays) only a previous run's outcome is the baseline, as before.
    for (const auto& o : previous) record(o, /*fresh=*/false);
    adopt_arrivals_ = options_.evaluate_baseline;
    // The baseline first, then the warm start, then the strategy's proposals, through one pipeline:
    // compiled in this order up to parallelism() ahead (see pump()), the baseline measured first,
    // the others as their compiles finish (next_ready()).
    if (options_.evaluate_baseline && !report_.baseline && remaining() > 0) {
      enqueue({baseline});
      baseline_pending_ = !queue_.empty();
    }
    std::size_t printed = report_.outcomes.size() + queue_.size();  // a progress line per batch after the baseline
    enqueue_warm_start();
    while (true) {
      if (remaining() <= measuring_.size()) {  // the budget is spent once those measuring now are in
        finish_measuring();
        if (remaining() == 0) {
          report_.stop_reason = "budget";
          break;
        }
        continue;
      }
      if (over_time()) {
        report_.stop_reason = "time limit";
        break;
      }
      feed();
      if (pending_.empty()) {
        if (!measuring_.empty()) {  // an outcome may lead the strategy to new proposals
          finish_first();
          continue;
        }
        report_.stop_reason = over_time() ? "time limit" : "space exhausted";
        if (report_.stop_reason == "space exhausted") report_.skipped = unevaluated_valid(space_, report_.outcomes);
        break;
      }
      measure_next();
      if (report_.outcomes.size() >= printed + progress_every()) {
        print_progress();
        printed = report_.outcomes.size();
      }
    }
    finish_measuring();  // what the GPUs are measuring still counts
    drain();
    write_held();  // the budget ended before the setup was judged: the failures are outcomes
    if (report_.outcomes.size() > printed) print_progress();
    report_.best = crown(report_.outcomes);
    report_.counts = count_statuses(report_.outcomes);
    report_.wall_s = seconds_since(start_);
    report_.stages = summarize_stages(fresh_, report_.wall_s);
    note_depth();
    return report_;
  }

  std::size_t remaining() const {
    return report_.outcomes.size() >= options_.budget ? 0 : options_.budget - report_.outcomes.size();
  }
  // Past the time limit, once something was measured and the baseline is in (it always is measured).
  bool over_time() const {
    return options_.time_limit_s > 0 && seconds_since(start_) >= options_.time_limit_s && !report_.outcomes.empty() &&
           !baseline_pending_;
  }
  // Outcomes per progress line.
  std::size_t progress_every() const {
    return options_.batch ? options_.batch : std::max<std::size_t>(8, 2 * backend_.parallelism());
  }

  // The pipeline. Configurations wait in queue_ (proposed, not started), compile in pending_ (at
  // most parallelism() at once, started in queue order) and are measured one at a time as their
  // compiles finish (next_ready; the baseline first). When the queue is empty and a compile slot is free, the strategy is asked for
  // the next proposals at once, before the configurations in flight are measured, so the compile
  // workers (and then the GPU) never wait for a batch to finish; with parallelism() 1 (replays)
  // it is asked only when nothing is in flight, i.e. batch by batch as before. The proposals are
  // then made without the outcomes of the configurations still in flight, which are never
  // proposed twice. To keep that lag short, the strategy is asked (TuneOptions::batch unset) for
  // only as many as can start compiling now, the free compile slots, none to wait in the queue,
  // and (TuneOptions::in_flight unset) no more than keep the GPU busy: depth().
  // (With max(8, 2 x parallelism) a 16-core machine proposed 32 at a time: at budget 50 the first
  // 32 evaluations of the failure space were the same with the knowledge base on and off,
  // docs/results/2026-11-30-h200-failure-driven-pipeline. With every compile slot filled, 16 at a time, the
  // measurements were the bottleneck and the reduction of failures on the H200 was 31-35 %
  // against the replay's 50 %, docs/results/2026-12-01-h200-status-test.)
  std::size_t ahead() const { return std::max<std::size_t>(1, backend_.parallelism()); }
  std::size_t free_slots() const { return pending_.size() >= ahead() ? 0 : ahead() - pending_.size(); }
  // Measuring workers (Backend::measure_slots: one per GPU). With more than one, configurations
  // are measured at once, one per worker, once the baseline is in (it is measured alone: it
  // calibrates the backend and is the reference of `slow`); each outcome is recorded as soon as
  // the loop sees its measurement finished (collect_finished(): before each new proposal, before
  // each new measurement, and every 2 ms while the loop waits for a compile), so the strategy
  // proposes knowing it and its GPU takes the next configuration. When every worker is busy, the
  // loop waits for whichever measurement finishes first, on any worker (several finished: the
  // earliest started is recorded first). Until 2026-12-01 (several-GPU loop fix) it waited for the oldest: one long
  // measurement held the other GPUs' finished outcomes unrecorded and those GPUs idle.
  std::size_t slots() const { return std::max<std::size_t>(1, backend_.measure_slots()); }
  bool concurrent() const { return slots() > 1 && !baseline_pending_; }

  void enqueue(const std::vector<Config>& configs) {
    for (const auto& c : configs)
      if (!seen_.count(c) && !in_flight_.count(c) && space_.satisfies(c)) {
        in_flight_.insert(c);
        queue_.push_back(c);
      }
  }

  // in_flight_ holds every configuration proposed and not yet recorded or dropped: queued,
  // compiling, measuring; none is proposed twice, and the budget counts them.
  void refill() {
    collect_finished();  // what has finished is known before anything more is proposed
    const std::size_t flight = in_flight_.size();
    if (remaining() <= flight) return;
    std::size_t want = 0;
    if (options_.in_flight) {  // a fixed window: proposals as soon as fewer are in flight
      if (flight >= options_.in_flight) return;
      want = options_.in_flight - flight;
    } else {
      if (!queue_.empty()) return;
      const std::size_t start = free_slots();
      if (start == 0) return;
      if (options_.batch) {
        want = options_.batch;
      } else {
        const std::size_t most = depth();
        if (flight >= most) return;
        want = std::min(start, most - flight);
      }
    }
    enqueue(strategy_.propose(std::min(remaining() - flight, want)));
  }

  // TuneOptions::in_flight unset, batch unset: the configurations in flight at most (queued,
  // compiling, compiled and waiting, measuring), so that each proposal is made without as few
  // outcomes as keep the measuring workers busy. A compile slot fills a measuring worker's
  // demand when compiles finish as fast as measurements: c compiles at once, each taking Tp
  // (mean wall ms of the recent prepares), supply c / Tp configurations per ms; s workers
  // measuring for Tm each (mean ms, 0 for a configuration that failed before measuring) take
  // s / Tm. So c = ceil(kDepthMargin x s x Tp / Tm), plus the s measuring: in [s + 1,
  // parallelism() + s]. On the H200 machine the transpose failure space compiles in 3.7 s
  // (mean) and measures in 1.16 s, so ceil(1.5 x 3.7 / 1.16) + 1 = 6 are in flight instead of 17
  // (docs/results/2026-12-01-h200-pipeline-depth); a compile-bound tuning (a host backend, fast
  // kernels, few cores) keeps every compile slot busy as before. Until the first fresh outcome,
  // kBlindDepth: those proposals are made without any outcome (adaexplore's space-filling start
  // is 8). The limit gates the strategy's proposals: the defaults and the warm start
  // (TuneOptions::warm_start) are queued at the start regardless and count as in flight.
  static constexpr std::size_t kBlindDepth = 8;
  static constexpr double kDepthMargin = 1.5;  // compile times vary (3.8 s median, 8 s at most)
  static constexpr std::size_t kRateWindow = 32;  // recent evaluations the rates are taken over
  std::size_t depth() const {
    const std::size_t s = slots(), most = ahead() + s, least = std::min(most, s + 1);
    if (rates_.empty()) return std::clamp(kBlindDepth, least, most);
    const auto [prepare_ms, measure_ms] = mean_rates();
    if (measure_ms <= 0) return most;  // nothing measured: every compile slot may work
    const double c = std::ceil(kDepthMargin * static_cast<double>(s) * prepare_ms / measure_ms);
    if (!(c < static_cast<double>(most))) return most;
    return std::clamp(static_cast<std::size_t>(c) + s, least, most);
  }
  // The mean prepare and measurement wall times (ms) of rates_ (0 when it is empty).
  std::pair<double, double> mean_rates() const {
    double prepare_ms = 0, measure_ms = 0;
    for (const auto& [p, m] : rates_) {
      prepare_ms += p;
      measure_ms += m;
    }
    const double n = static_cast<double>(std::max<std::size_t>(1, rates_.size()));
    return {prepare_ms / n, measure_ms / n};
  }
  // TuneReport::in_flight and the rates behind it.
  void note_depth() {
    report_.rate_samples = rates_.size();
    std::tie(report_.mean_prepare_ms, report_.mean_measure_ms) = mean_rates();
    if (options_.in_flight) {
      report_.in_flight = options_.in_flight;
    } else if (!options_.batch && ahead() > 1 && !rates_.empty()) {  // nothing new: nothing to say
      report_.in_flight = depth();
      report_.in_flight_automatic = true;
      report_.in_flight_every_worker = report_.in_flight == ahead() + slots();
    }
  }
  // A fresh evaluation's wall times for depth(): its prepare (compile) and its measurement, less
  // what the measurement waited for once per tuning (stage benchmark_wait: the kernel unit's
  // benchmark still building). The baseline gives none: measured alone and first, it also pays
  // the runner's one-time setup (the reference, the first allocations; 0.6 s for the gemm
  // example against 0.11 s for the next configurations on the H200), which with the wait made
  // depth() keep 2 to 6 in flight instead of 17 until it left the window (2026-12-02: 33 of 100
  // evaluations in the first 16 s of a 27 s tuning).
  void note_rates(double prepare_ms, double measure_ms, const Outcome& o) {
    // Nor does a measurement that started a runner (another GPU's first, a restart after a crash
    // or a time-out): it paid that runner's one-time setup as well.
    if (o.config == baseline_ || o.stage_ms.count("runner_start")) return;
    if (const auto wait = o.stage_ms.find("benchmark_wait"); wait != o.stage_ms.end())
      measure_ms = std::max(0.0, measure_ms - wait->second);
    rates_.emplace_back(prepare_ms, measure_ms);
    if (rates_.size() > kRateWindow) rates_.pop_front();
  }

  // Proposals into free compile slots: the queue's first, then (its being empty) new proposals.
  void feed() {
    refill();
    pump();
    refill();
    pump();
  }

  void pump() {
    while (free_slots() > 0 && !queue_.empty() && !over_time()) {
      const Config c = queue_.front();
      queue_.pop_front();
      pending_.push_back(std::async(std::launch::async, [this, c] {
        const auto t0 = Clock::now();
        Prepared p = backend_.prepare(c);
        return Ready{std::move(p), 1000.0 * seconds_since(t0)};
      }));
    }
  }

  // A prepared configuration that will not be measured: out of flight, its artifact removed.
  void drop(const Prepared& p) {
    in_flight_.erase(p.config);
    std::error_code ec;
    if (!p.executable.empty()) std::filesystem::remove(p.executable, ec);
  }

  // The next compiled configuration to measure: the oldest whose compile is done, waiting for the
  // first to finish when none is, so that one slow compile (tens of seconds for a large unrolled
  // tile) does not hold the GPU idle while later configurations are ready. The baseline (the
  // front while pending: it is measured first) and a single compile worker (replays: the order
  // is their trace) keep the queue order.
  std::size_t next_ready() {
    if (baseline_pending_ || (ahead() == 1 && measuring_.empty())) return 0;
    while (true) {
      if (const auto i = first_ready(pending_, [](auto& f) -> auto& { return f; })) return *i;
      // Measurements finishing meanwhile (several GPUs) are recorded, and their freed places in
      // flight refilled, without waiting for this compile.
      if (!measuring_.empty()) feed();
      pending_.front().wait_for(std::chrono::milliseconds(2));
    }
  }

  void measure_next() {
    const std::size_t next = next_ready();
    Ready ready = pending_[next].get();
    Prepared p = std::move(ready.prepared);
    const double prepare_ms = ready.prepare_ms;
    pending_.erase(pending_.begin() + static_cast<long>(next));
    if (ahead() > 1) feed();  // the freed compile slot starts the next one while this one is measured
    if (concurrent()) {  // a free worker: record what has finished, else wait for the first to finish
      collect_finished();
      if (measuring_.size() >= slots()) finish_first();
    }
    // Past the time limit (perhaps reached while waiting above), nothing more starts. Another
    // process sharing the results file measured it, or used up the budget, meanwhile.
    if (over_time() || seen_.count(p.config) || remaining() <= measuring_.size()) return drop(p);
    if (!concurrent()) {
      finish_measuring();
      const Config config = p.config;
      Measured measured = evaluate_timed(backend_, std::move(p), space_);
      Outcome o = std::move(measured.outcome);
      note_rates(prepare_ms, measured.measure_ms, o);
      in_flight_.erase(config);
      classify_slow(o);
      record(o, /*fresh=*/true);
      check_setup();
      return;
    }
    std::size_t slot = 0;
    while (slot_busy_.size() > slot && slot_busy_[slot]) ++slot;
    if (slot_busy_.size() <= slot) slot_busy_.resize(slot + 1, false);
    slot_busy_[slot] = true;
    const Config config = p.config;
    measuring_.push_back({config, slot, prepare_ms, std::async(std::launch::async, [this, p = std::move(p), slot]() mutable {
                            return evaluate_timed(backend_, std::move(p), space_, slot);
                          })});
  }

  // The index of the first item of `items` whose future (future_of(item)) is ready, if any.
  template <class Items, class FutureOf>
  static std::optional<std::size_t> first_ready(Items& items, FutureOf future_of) {
    for (std::size_t i = 0; i < items.size(); ++i)
      if (future_of(items[i]).wait_for(std::chrono::seconds(0)) == std::future_status::ready) return i;
    return std::nullopt;
  }
  // The first finished measurement (in start order), if any.
  std::optional<std::size_t> first_finished() {
    return first_ready(measuring_, [](Measuring& m) -> auto& { return m.outcome; });
  }
  // Records every measurement that has finished, in start order among them, without waiting.
  void collect_finished() {
    while (const auto i = first_finished()) finish(*i);
  }
  // Waits for the first measurement to finish (any worker) and records it.
  void finish_first() {
    while (true) {
      if (const auto i = first_finished()) return finish(*i);
      measuring_.front().outcome.wait_for(std::chrono::milliseconds(2));
    }
  }
  // `check`: whether this outcome may stop the tuning as a broken setup (check_setup). Before it
  // does, the other measurements in flight are recorded first: one of them may succeed (the setup
  // is fine after all), and a measured outcome is never dropped for a verdict it would change.
  void finish(std::size_t index, bool check = true) {
    Measuring m = std::move(measuring_[index]);
    measuring_.erase(measuring_.begin() + static_cast<long>(index));
    Measured measured = m.outcome.get();
    Outcome o = std::move(measured.outcome);
    note_rates(m.prepare_ms, measured.measure_ms, o);
    slot_busy_[m.slot] = false;
    in_flight_.erase(m.config);
    classify_slow(o);
    record(o, /*fresh=*/true);
    if (!check) return;
    if (!measuring_.empty() && setup_failures_only(report_.outcomes, options_.setup_failure_window))
      while (!measuring_.empty()) finish(0, /*check=*/false);
    check_setup();
  }

  void finish_measuring() {
    while (!measuring_.empty()) finish(0);
  }

  // Waits for the compiles still running (budget or time limit reached); nothing more is measured.
  void drain() {
    for (auto& f : pending_) drop(f.get().prepared);
    pending_.clear();
    queue_.clear();
    in_flight_.clear();
  }

  // A successful baseline calibrates the backend (its run time limit) and becomes the reference
  // of the `slow` status when it has a timing.
  void adopt_baseline() {
    if (!report_.baseline || !is_success(report_.baseline->status)) return;
    backend_.calibrate(*report_.baseline);
    if (report_.baseline->timing) baseline_timing_ = *report_.baseline->timing;
  }

  // A new `ok` outcome significantly slower than the baseline (significance.hpp) becomes `slow`,
  // its message and extra["slowdown"] stating the evidence. Resumed outcomes keep their status.
  void classify_slow(Outcome& o) const {
    if (!baseline_timing_ || o.status != Status::ok || !o.timing || o.config == baseline_) return;
    const SlowdownEvidence e = compare_with_baseline(*o.timing, *baseline_timing_);
    if (!e.slower) return;
    o.status = Status::slow;
    o.message = e.describe() + (o.message.empty() ? "" : "\n" + o.message);
    o.extra["slowdown"] = {{"test", to_string(e.test)},
                           {"statistic", e.statistic},
                           {"p_value", e.p_value},
                           {"median_ratio", e.median_ratio},
                           {"baseline_median_ms", e.baseline_median_ms}};
  }

  void record(const Outcome& o, bool fresh) {
    seen_.insert(o.config);
    report_.outcomes.push_back(o);
    if (o.config == baseline_) baseline_pending_ = false;
    if (adopt_arrivals_ && !report_.baseline && o.config == baseline_) {
      report_.baseline = o;
      adopt_baseline();
    }
    strategy_.observe(o);
    if (fresh) {
      ++report_.new_evaluations;
      fresh_.push_back(o);
      if (is_success(o.status)) check_same_timing();
      if (writer_) {
        if (setup_in_doubt()) {
          held_.push_back(o);
          return;
        }
        write_held();
        append(o);
      }
    }
  }

  void append(const Outcome& o) {
    writer_->append(o);
    for (const auto& other : writer_->take_foreign())  // appended by other processes
      if (!seen_.count(other.config)) record(other, /*fresh=*/false);
  }

  // Whether every outcome so far failed in the same way, with none successful: the setup may be
  // broken (check_setup), and new failures are then held back from the results file (held_).
  // Once false it stays false (outcomes are only added).
  bool setup_in_doubt() {
    if (setup_judged_) return false;
    const auto& all = report_.outcomes;
    const std::string first = all.empty() ? std::string() : signature(all.front());
    for (const auto& o : all)
      if (is_success(o.status) || signature(o) != first) {
        setup_judged_ = true;
        return false;
      }
    return true;
  }

  // The failures held back, appended in order: the setup is not broken (a success, another
  // failure) or the tuning ended before it could tell.
  void write_held() {
    if (!writer_ || held_.empty()) return;
    std::vector<Outcome> held = std::move(held_);
    held_.clear();
    for (const auto& o : held) append(o);
  }

  // TuneOptions::warm_start: queued right after the baseline (compiled first, measured as their
  // compiles finish), within the budget.
  void enqueue_warm_start() {
    std::vector<Config> warm;
    std::unordered_set<Config, ConfigHash> in_batch;
    for (const auto& c : options_.warm_start)
      if (warm.size() + queue_.size() < remaining() && !seen_.count(c) && space_.satisfies(c) && in_batch.insert(c).second)
        warm.push_back(c);
    enqueue(warm);
  }

  // The same-timing gate (stage_summary.hpp), warned once per tuning.
  void check_same_timing() {
    if (same_timing_warned_) return;
    const auto warning = same_timing_warning(fresh_);
    if (!warning) return;
    same_timing_warned_ = true;
    report_.warnings.push_back(*warning);
    if (options_.warnings)
      *options_.warnings << "[adaexplore] " << options_.kernel << ": warning: " << *warning << std::endl;
  }

  void check_setup() const {
    const auto& all = report_.outcomes;
    if (!setup_failures_only(all, options_.setup_failure_window)) return;
    throw SetupError("every one of the first " + std::to_string(all.size()) + " configurations failed with " +
                     to_string(all.front().status) +
                     " in the same way: the setup is broken, not the configurations (compiler, flags, "
                     "architecture or benchmark reference); " +
                     (held_.empty() ? std::string()
                                    : "these " + std::to_string(held_.size()) +
                                          " failures are not kept in the results file, so the tuning after the "
                                          "fix evaluates them again; ") +
                     "first configuration " + all.front().label + ":\n" + truncate_middle(all.front().message, 4000));
  }

  void print_progress() const {
    if (!options_.progress) return;
    const auto counts = count_statuses(report_.outcomes);
    std::size_t failures = 0;
    std::string detail;
    for (const auto& [status, n] : counts) {
      if (is_success(status_from_string(status))) continue;
      failures += n;
      detail += (detail.empty() ? "" : ", ") + status + " " + std::to_string(n);
    }
    auto best = crown(report_.outcomes);
    char line[256];
    std::snprintf(line, sizeof line, "[adaexplore] %s: %zu/%zu evaluations, best %s, failures %zu%s%s%s, %.1f s",
                  options_.kernel.c_str(), report_.outcomes.size(), options_.budget,
                  best ? (std::to_string(*best->objective).substr(0, 10) + " ms").c_str() : "none yet", failures,
                  detail.empty() ? "" : " (", detail.c_str(), detail.empty() ? "" : ")", seconds_since(start_));
    *options_.progress << line << (best ? "  [" + best->label + "]" : std::string()) << std::endl;
  }

  const Space& space_;
  Backend& backend_;
  Strategy& strategy_;
  const TuneOptions& options_;
  ResultsWriter* writer_;
  TuneReport report_;
  std::unordered_set<Config, ConfigHash> seen_;
  Clock::time_point start_;
  Config baseline_;
  std::optional<Timing> baseline_timing_;  // set once the baseline succeeded with a timing
  bool adopt_arrivals_ = true;  // record() adopts the baseline's outcome (see run())
  std::vector<Outcome> fresh_;   // the outcomes evaluated by this tuning, in order
  bool same_timing_warned_ = false;
  // Setup failures are not configuration outcomes: while setup_in_doubt(), this tuning's new
  // outcomes (all failures) wait here instead of the results file. A SetupError drops them (a
  // later tuning, the setup fixed, evaluates those configurations again and calibrates its run
  // limit on the defaults); the first success or differing failure, the end of the tuning, or any
  // other error appends them in order (write_held).
  std::vector<Outcome> held_;
  bool setup_judged_ = false;  // setup_in_doubt() was false once
  struct Measuring {
    Config config;
    std::size_t slot;
    double prepare_ms;
    std::future<Measured> outcome;
  };
  std::deque<Measuring> measuring_;  // on the measuring workers, in start order (concurrent() only)
  std::vector<bool> slot_busy_;
  bool baseline_pending_ = false;    // the baseline is queued and not yet recorded
  std::deque<Config> queue_;                          // proposed, not yet compiling
  struct Ready {
    Prepared prepared;
    double prepare_ms;  // wall
  };
  std::deque<std::future<Ready>> pending_;            // compiling, in measurement order
  std::deque<std::pair<double, double>> rates_;       // note_rates(): (prepare ms, measure ms), the last kRateWindow
  std::unordered_set<Config, ConfigHash> in_flight_;  // in queue_ or pending_, or being measured
};

}  // namespace

bool setup_failures_only(const std::vector<Outcome>& outcomes, std::size_t window) {
  if (outcomes.empty() || outcomes.size() < window) return false;
  const std::string first = signature(outcomes.front());
  for (const auto& o : outcomes)
    if (is_success(o.status) || signature(o) != first) return false;
  return true;
}

std::map<std::string, std::size_t> count_statuses(const std::vector<Outcome>& outcomes) {
  std::map<std::string, std::size_t> counts;
  for (const auto& o : outcomes) ++counts[to_string(o.status)];
  return counts;
}

std::optional<std::size_t> unevaluated_valid(const Space& space, const std::vector<Outcome>& outcomes) {
  if (space.cartesian_size() > 4e6) return std::nullopt;  // as UnseenSampler enumerates (strategy.cpp)
  std::unordered_set<Config, ConfigHash> evaluated;
  for (const auto& o : outcomes) evaluated.insert(o.config);
  std::size_t n = 0;
  for (const auto& c : space.enumerate_valid(4e6)) n += evaluated.count(c) == 0;
  return n;
}

TuneReport run_tuning(const Space& space, const Config& baseline, Backend& backend, Strategy& strategy,
                      const TuneOptions& options, ResultsWriter* writer, const std::vector<Outcome>& previous) {
  Loop loop(space, backend, strategy, options, writer);
  return loop.run(baseline, previous);
}

}  // namespace adaexplore
