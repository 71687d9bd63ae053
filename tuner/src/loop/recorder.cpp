#include "loop/recorder.hpp"

#include <ostream>

#include "loop/significance.hpp"
#include "util/text.hpp"

namespace adaexplore {

Recorder::Recorder(Backend& backend, Strategy& strategy, const TuneOptions& options, ResultsWriter* writer,
                   Config baseline)
    : backend_(backend),
      strategy_(strategy),
      options_(options),
      writer_(writer),
      baseline_(std::move(baseline)) {}

void Recorder::resume(const std::vector<Outcome>& previous) {
  // record() adopts the baseline wherever its outcome comes from: a previous run, this
  // evaluation, or another process sharing the results file (take_foreign). Without
  // evaluate_baseline (replays) only a previous run's outcome is the baseline.
  for (const auto& o : previous) record(o, /*fresh=*/false);
  adopt_arrivals_ = options_.evaluate_baseline;
}

void Recorder::measured(Outcome o) {
  classify_slow(o);
  // What the strategy's model believed when it proposed the configuration (Strategy::belief).
  if (nlohmann::json belief = strategy_.belief(o.config); !belief.is_null()) {
    if (!o.extra.is_object()) o.extra = nlohmann::json::object();
    o.extra["model"] = std::move(belief);
  }
  record(o, /*fresh=*/true);
}

void Recorder::record(const Outcome& o, bool fresh) {
  seen_.insert(o.config);
  report_.outcomes.push_back(o);
  if (o.config == baseline_) baseline_pending_ = false;
  if (adopt_arrivals_ && !report_.baseline && o.config == baseline_) {
    report_.baseline = o;
    adopt_baseline();
  }
  strategy_.observe(o);
  if (!fresh) return;
  ++report_.new_evaluations;
  fresh_.push_back(o);
  if (is_success(o.status)) check_same_timing();
  warn_damaged_inputs(o);
  if (!writer_) return;
  if (setup_in_doubt()) {
    held_.push_back(o);
    return;
  }
  write_held();
  append(o);
}

void Recorder::append(const Outcome& o) {
  writer_->append(o);
  for (const auto& other : writer_->take_foreign())  // appended by other processes
    if (!seen_.count(other.config)) record(other, /*fresh=*/false);
}

void Recorder::take_arrivals() {
  if (!writer_) return;
  writer_->refresh();
  for (const auto& other : writer_->take_foreign())
    if (!seen_.count(other.config)) record(other, /*fresh=*/false);
}

// Whether the outcomes so far could be a broken setup's (setup_failures over all of them: none
// successful, all failed in the same way, or all but one with the same wrong_result): the setup
// may be broken (check_setup), and new failures are then held back from the results file (held_).
// Once false it stays false (outcomes are only added).
bool Recorder::setup_in_doubt() {
  if (setup_judged_) return false;
  const auto& all = report_.outcomes;
  if (all.empty() || setup_failures(all, 1)) return true;
  setup_judged_ = true;
  return false;
}

void Recorder::write_held() {
  if (!writer_ || held_.empty()) return;
  std::vector<Outcome> held = std::move(held_);
  held_.clear();
  for (const auto& o : held) append(o);
}

// A successful baseline calibrates the backend (its run time limit) and becomes the reference of
// the `slow` status when it has a timing.
void Recorder::adopt_baseline() {
  if (!report_.baseline || !is_success(report_.baseline->status)) return;
  backend_.calibrate(*report_.baseline);
  if (report_.baseline->timing) baseline_timing_ = *report_.baseline->timing;
}

void Recorder::classify_slow(Outcome& o) const {
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

// The harness found the kernel unit's pristine input copies changed when this outcome's
// configuration was to reuse them (extra.device_memory.damaged; harness.cuh Benchmark::made): a
// configuration measured before it on the same GPU wrote outside its buffers without faulting. Its
// buffers were made afresh, so this outcome stands; the writer's may not. Warned as it happens.
void Recorder::warn_damaged_inputs(const Outcome& o) {
  const auto memory = o.extra.find("device_memory");
  if (memory == o.extra.end() || !memory->is_object() || !memory->contains("damaged")) return;
  for (const auto& d : (*memory)["damaged"]) {
    const std::string warning = o.label + ": " + (d.is_string() ? d.get<std::string>() : d.dump()) +
                                " (the configuration measured just before it on that GPU is the likely writer; its "
                                "own outcome may hide the fault)";
    report_.warnings.push_back(warning);
    if (options_.warnings)
      *options_.warnings << "[adaexplore] " << options_.kernel << ": warning: " << warning << std::endl;
  }
}

// The same-timing gate (stage_summary.hpp), warned once per tuning.
void Recorder::check_same_timing() {
  if (same_timing_warned_) return;
  const auto warning = same_timing_warning(fresh_);
  if (!warning) return;
  same_timing_warned_ = true;
  report_.warnings.push_back(*warning);
  if (options_.warnings)
    *options_.warnings << "[adaexplore] " << options_.kernel << ": warning: " << *warning << std::endl;
}

bool Recorder::setup_broken() const { return setup_failures_only(report_.outcomes, options_.setup_failure_window); }

void Recorder::check_setup() const {
  const auto& all = report_.outcomes;
  const auto found = setup_failures(all, options_.setup_failure_window);
  if (!found) return;
  const Outcome& shown = all[found->shown];
  const std::string n = std::to_string(all.size());
  std::string what;
  if (!found->other) {
    what = "every one of the first " + n + " configurations failed with " + to_string(shown.status) +
           " in the same way: the setup is broken, not the configurations (compiler, flags, architecture or "
           "benchmark reference); ";
  } else {
    const Outcome& other = all[*found->other];
    what = std::to_string(all.size() - 1) + " of the first " + n + " configurations failed with " +
           to_string(shown.status) + " in the same way, and the other (" + other.label + ") with " +
           to_string(other.status) +
           ": every configuration that ran disagrees with the benchmark's reference in the same way, so the "
           "reference (or the benchmark's inputs, or its comparison) is broken, not the configurations; ";
  }
  if (!held_.empty())
    what += "these " + std::to_string(held_.size()) +
            " failures are not kept in the results file, so the tuning after the fix evaluates them again; ";
  throw SetupError(what + (found->shown == 0 ? "first configuration " : "configuration ") + shown.label + ":\n" +
                   truncate_middle(shown.message, 4000));
}

}  // namespace adaexplore
