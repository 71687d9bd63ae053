#include "loop/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>

namespace adaexplore {
namespace {

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
// kernels, few cores) keeps every compile slot busy. Until the first fresh outcome,
// kBlindDepth: those proposals are made without any outcome (adaexplore's space-filling start
// is 8). The limit gates the strategy's proposals: the defaults and the warm start
// (TuneOptions::warm_start) are queued at the start regardless and count as in flight.
//
// The budget caps that depth at ceil(budget / kEvaluationsPerDepth) on one GPU, one more per
// further GPU, and never below the GPUs plus one (budget_depth()): a tuning of 25 evaluations
// that kept every compile worker of a 16-core machine busy (17 in flight) made its 17 proposals
// after the start knowing only the start's outcomes. Replayed on the six failure spaces
// (bench/pipeline_depth.py, 100 seeds, paired against 17 in flight;
// docs/pipeline-depth-benchmark.md has the depths 4, 7, 13 and 17): 4 in flight +0.049 +- 0.008
// of the ratio optimum / best at 25 evaluations, 7 +0.035 +- 0.004 at 50, 13 +0.003 +- 0.002
// at 100; on an H100, the gemm example at budget 25, +0.079 +- 0.046 over 10 seeds
// (docs/results/2026-12-06-h100-smallbudget-sizemodel). The price is GPU idle time in a
// compile-bound tuning (docs/throughput.md, 'Pipeline depth').
constexpr std::size_t kBlindDepth = 8;
constexpr std::size_t kEvaluationsPerDepth = 8;
constexpr double kDepthMargin = 1.5;      // compile times vary (3.8 s median, 8 s at most)
constexpr std::size_t kRateWindow = 32;   // recent evaluations the rates are taken over

// The index of the first item of `items` whose future (future_of(item)) is ready, if any.
template <class Items, class FutureOf>
std::optional<std::size_t> first_ready(Items& items, FutureOf future_of) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (future_of(items[i]).wait_for(std::chrono::seconds(0)) == std::future_status::ready) return i;
  return std::nullopt;
}

}  // namespace

Pipeline::Pipeline(const Space& space, Backend& backend, Strategy& strategy, const TuneOptions& options,
                   const Clock& clock, PipelineClient& client, Config baseline)
    : space_(space),
      backend_(backend),
      strategy_(strategy),
      options_(options),
      clock_(clock),
      client_(client),
      baseline_(std::move(baseline)) {}

// The pipeline. Configurations wait in queue_ (proposed, not started), compile in pending_ (at
// most parallelism() at once, started in queue order) and are measured one at a time as their
// compiles finish (next_ready; the baseline first). When the queue is empty and a compile slot
// is free, the strategy is asked for the next proposals at once, before the configurations in
// flight are measured, so the compile workers (and then the GPU) never wait for a batch to
// finish; with parallelism() 1 (replays) it is asked only when nothing is in flight, i.e. batch
// by batch. The proposals are then made without the outcomes of the configurations still in
// flight, which are never proposed twice. To keep that lag short, the strategy is asked
// (TuneOptions::batch unset) for only as many as can start compiling now, the free compile
// slots, none to wait in the queue, and (TuneOptions::in_flight unset) no more than keep the GPU
// busy: depth(). (With max(8, 2 x parallelism) a 16-core machine proposed 32 at a time: at
// budget 50 the first 32 evaluations of the failure space were the same with the knowledge base
// on and off, docs/results/2026-11-30-h200-failure-driven-pipeline. With every compile slot
// filled, 16 at a time, the measurements were the bottleneck and the reduction of failures on
// the H200 was 31-35 % against the replay's 50 %, docs/results/2026-12-01-h200-status-test.)
//
// Measuring workers (Backend::measure_slots: one per GPU). With more than one, configurations
// are measured at once, one per worker, once the baseline is in (it is measured alone: it
// calibrates the backend and is the reference of `slow`); each outcome is recorded as soon as
// the loop sees its measurement finished (collect_finished(): before each new proposal, before
// each new measurement, and every 2 ms while the loop waits for a compile), so the strategy
// proposes knowing it and its GPU takes the next configuration. When every worker is busy, the
// loop waits for whichever measurement finishes first, on any worker (several finished: the
// earliest started is recorded first), so that one long measurement does not hold the other
// GPUs' finished outcomes unrecorded and those GPUs idle.

void Pipeline::enqueue(const std::vector<Config>& configs) {
  for (const auto& c : configs)
    if (!client_.recorded(c) && !in_flight_.count(c) && space_.satisfies(c)) {
      in_flight_.insert(c);
      queue_.push_back(c);
    }
}

void Pipeline::enqueue_warm_start(const std::vector<Config>& warm_start) {
  std::vector<Config> warm;
  std::unordered_set<Config, ConfigHash> in_batch;
  for (const auto& c : warm_start)
    if (warm.size() + queue_.size() < client_.remaining() && !client_.recorded(c) && space_.satisfies(c) &&
        in_batch.insert(c).second)
      warm.push_back(c);
  enqueue(warm);
}

// in_flight_ holds every configuration proposed and not yet recorded or dropped: queued,
// compiling, measuring; none is proposed twice, and the budget counts them.
void Pipeline::refill() {
  collect_finished();  // what has finished is known before anything more is proposed
  const std::size_t flight = in_flight_.size();
  const std::size_t remaining = client_.remaining();
  if (remaining <= flight) return;
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
  enqueue(strategy_.propose(std::min(remaining - flight, want)));
}

std::size_t Pipeline::depth() const {
  const std::size_t s = slots(), most = ahead() + s, least = std::min(most, s + 1);
  if (rates_.empty()) return std::clamp(kBlindDepth, least, most);
  return std::min(throughput_depth(), budget_depth());
}

// What keeps the measuring workers busy, from the measured rates (rates_ not empty).
std::size_t Pipeline::throughput_depth() const {
  const std::size_t s = slots(), most = ahead() + s, least = std::min(most, s + 1);
  const auto [prepare_ms, measure_ms] = mean_rates();
  if (measure_ms <= 0) return most;  // nothing measured: every compile slot may work
  const double c = std::ceil(kDepthMargin * static_cast<double>(s) * prepare_ms / measure_ms);
  if (!(c < static_cast<double>(most))) return most;
  return std::clamp(static_cast<std::size_t>(c) + s, least, most);
}

// The budget's cap: ceil(budget / kEvaluationsPerDepth) on one measuring worker; each further
// one (GPU, MPI rank's GPU) adds one, so that every GPU has a configuration to measure and at
// least one more compiles ahead.
std::size_t Pipeline::budget_depth() const {
  const std::size_t s = slots(), b = options_.budget;
  const std::size_t share = b / kEvaluationsPerDepth + (b % kEvaluationsPerDepth != 0);  // no overflow
  return s + std::max<std::size_t>(share, 2) - 1;
}

// The mean prepare and measurement wall times (ms) of rates_ (0 when it is empty).
std::pair<double, double> Pipeline::mean_rates() const {
  double prepare_ms = 0, measure_ms = 0;
  for (const auto& [p, m] : rates_) {
    prepare_ms += p;
    measure_ms += m;
  }
  const double n = static_cast<double>(std::max<std::size_t>(1, rates_.size()));
  return {prepare_ms / n, measure_ms / n};
}

void Pipeline::note_depth(TuneReport& report) const {
  report.rate_samples = rates_.size();
  std::tie(report.mean_prepare_ms, report.mean_measure_ms) = mean_rates();
  if (options_.in_flight) {
    report.in_flight = options_.in_flight;
  } else if (!options_.batch && ahead() > 1 && !rates_.empty()) {  // nothing new: nothing to say
    const std::size_t throughput = throughput_depth(), cap = budget_depth();
    report.in_flight = std::min(throughput, cap);  // depth(), rates_ not empty
    report.in_flight_automatic = true;
    report.in_flight_every_worker = report.in_flight == ahead() + slots();
    report.in_flight_budget = cap < throughput ? cap : 0;
  }
}

// A fresh evaluation's wall times for depth(): its prepare (compile) and its measurement, less
// what the measurement waited for once per tuning (stage benchmark_wait: the kernel unit's
// benchmark still building). The baseline gives none: measured alone and first, it also pays
// the runner's one-time setup (the reference, the first allocations; 0.6 s for the gemm
// example against 0.11 s for the next configurations on the H200), which with the wait made
// depth() keep 2 to 6 in flight instead of 17 until it left the window (2026-12-02: 33 of 100
// evaluations in the first 16 s of a 27 s tuning).
void Pipeline::note_rates(double prepare_ms, double measure_ms, const Outcome& o) {
  // Nor does a measurement that started a runner (another GPU's first, a restart after a crash
  // or a time-out): it paid that runner's one-time setup as well.
  if (o.config == baseline_ || o.stage_ms.count("runner_start")) return;
  if (const auto wait = o.stage_ms.find("benchmark_wait"); wait != o.stage_ms.end())
    measure_ms = std::max(0.0, measure_ms - wait->second);
  rates_.emplace_back(prepare_ms, measure_ms);
  if (rates_.size() > kRateWindow) rates_.pop_front();
}

void Pipeline::feed() {
  refill();
  pump();
  refill();
  pump();
}

void Pipeline::pump() {
  while (free_slots() > 0 && !queue_.empty() && !client_.over_time()) {
    const Config c = queue_.front();
    queue_.pop_front();
    pending_.push_back(std::async(std::launch::async, [this, c] {
      const auto t0 = clock_.now();
      Prepared p = backend_.prepare(c);
      return Ready{std::move(p), 1000.0 * clock_.seconds_since(t0)};
    }));
  }
}

// A prepared configuration that will not be measured: out of flight, its artifact removed.
void Pipeline::drop(const Prepared& p) {
  in_flight_.erase(p.config);
  backend_.discard(p);
}

// The next compiled configuration to measure: the oldest whose compile is done, waiting for the
// first to finish when none is, so that one slow compile (tens of seconds for a large unrolled
// tile) does not hold the GPU idle while later configurations are ready. The baseline (the
// front while pending: it is measured first) and a single compile worker (replays: the order
// is their trace) keep the queue order.
std::size_t Pipeline::next_ready() {
  if (client_.baseline_pending() || (ahead() == 1 && measuring_.empty())) return 0;
  while (true) {
    if (const auto i = first_ready(pending_, [](auto& f) -> auto& { return f; })) return *i;
    // Measurements finishing meanwhile (several GPUs) are recorded, and their freed places in
    // flight refilled, without waiting for this compile.
    if (!measuring_.empty()) feed();
    pending_.front().wait_for(std::chrono::milliseconds(2));
  }
}

Outcome Pipeline::evaluate_prepared(Prepared prepared, std::size_t slot) {
  Outcome o;
  if (prepared.failure) {
    o = *prepared.failure;
  } else {
    o = backend_.measure_on(prepared, slot);
  }
  o.config = prepared.config;
  o.label = space_.label(prepared.config);
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

Pipeline::Measured Pipeline::evaluate_timed(Prepared prepared, std::size_t slot) {
  const bool measures = !prepared.failure;
  const auto t0 = clock_.now();
  Outcome o = evaluate_prepared(std::move(prepared), slot);
  return {std::move(o), measures ? 1000.0 * clock_.seconds_since(t0) : 0.0};
}

void Pipeline::measure_next() {
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
  client_.take_arrivals();
  if (client_.over_time() || client_.recorded(p.config) || client_.remaining() <= measuring_.size()) return drop(p);
  if (!concurrent()) {
    finish_measuring();
    const Config config = p.config;
    Measured measured = evaluate_timed(std::move(p), 0);
    note_rates(prepare_ms, measured.measure_ms, measured.outcome);
    in_flight_.erase(config);
    client_.measured(std::move(measured.outcome));
    client_.check_setup();
    return;
  }
  std::size_t slot = 0;
  while (slot_busy_.size() > slot && slot_busy_[slot]) ++slot;
  if (slot_busy_.size() <= slot) slot_busy_.resize(slot + 1, false);
  slot_busy_[slot] = true;
  const Config config = p.config;
  measuring_.push_back({config, slot, prepare_ms, std::async(std::launch::async, [this, p = std::move(p), slot]() mutable {
                          return evaluate_timed(std::move(p), slot);
                        })});
}

// The first finished measurement (in start order), if any.
std::optional<std::size_t> Pipeline::first_finished() {
  return first_ready(measuring_, [](Measuring& m) -> auto& { return m.outcome; });
}

// Records every measurement that has finished, in start order among them, without waiting.
void Pipeline::collect_finished() {
  while (const auto i = first_finished()) finish(*i);
}

void Pipeline::finish_first() {
  while (true) {
    if (const auto i = first_finished()) return finish(*i);
    measuring_.front().outcome.wait_for(std::chrono::milliseconds(2));
  }
}

// `check`: whether this outcome may stop the tuning as a broken setup (check_setup). Before it
// does, the other measurements in flight are recorded first: one of them may succeed (the setup
// is fine after all), and a measured outcome is never dropped for a verdict it would change.
void Pipeline::finish(std::size_t index, bool check) {
  Measuring m = std::move(measuring_[index]);
  measuring_.erase(measuring_.begin() + static_cast<long>(index));
  Measured measured = m.outcome.get();
  note_rates(m.prepare_ms, measured.measure_ms, measured.outcome);
  slot_busy_[m.slot] = false;
  in_flight_.erase(m.config);
  client_.measured(std::move(measured.outcome));
  if (!check) return;
  if (!measuring_.empty() && client_.setup_broken())
    while (!measuring_.empty()) finish(0, /*check=*/false);
  client_.check_setup();
}

void Pipeline::finish_measuring() {
  while (!measuring_.empty()) finish(0);
}

void Pipeline::drain() {
  for (auto& f : pending_) drop(f.get().prepared);
  pending_.clear();
  queue_.clear();
  in_flight_.clear();
}

}  // namespace adaexplore
