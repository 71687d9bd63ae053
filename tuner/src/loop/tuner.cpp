#include "loop/tuner.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <ostream>
#include <unordered_set>

#include "loop/clock.hpp"
#include "loop/crown.hpp"
#include "loop/pipeline.hpp"
#include "loop/recorder.hpp"

namespace adaexplore {
namespace {

// The configuration's own values in `line` (whole words, from its label "A=1,MODE=fast") as
// "<value>": a string parameter's value named in a message is no difference of the setup.
std::string without_values(std::string line, const std::string& label) {
  std::size_t start = 0;
  while (start < label.size()) {
    std::size_t end = label.find(',', start);
    if (end == std::string::npos) end = label.size();
    const std::size_t eq = label.find('=', start);
    if (eq != std::string::npos && eq + 1 < end) {
      const std::string value = label.substr(eq + 1, end - eq - 1);
      char* rest = nullptr;
      std::strtod(value.c_str(), &rest);
      if (rest && *rest == '\0') {  // a number: the numbers' own rule below (one 16 must equal another)
        start = end + 1;
        continue;
      }
      const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      for (std::size_t at = line.find(value); at != std::string::npos; at = line.find(value, at + 1)) {
        const bool whole = (at == 0 || !word(line[at - 1])) && (at + value.size() == line.size() || !word(line[at + value.size()]));
        if (!whole) continue;
        line.replace(at, value.size(), "<value>");
        at += 6;
      }
    }
    start = end + 1;
  }
  return line;
}

}  // namespace

std::string failure_signature(const Outcome& o) {
  // Paths into a configuration's own folder (<work_dir>/evals/<16 hex>/..., also under
  // concurrent-<n>/ or mpi-rank-<n>/): each configuration has its own, so a compiler's message
  // naming the rendered template differed by it alone (2026-12-05: 120 failed nvcc compiles
  // spent and recorded instead of 6).
  static const std::regex own_folder(R"([^\s:'"`(<>]*/evals/[0-9a-f]{16}/)");
  // Hashes and addresses: 0x..., or 8 hex digits or more with a digit and a letter among them.
  static const std::regex hex(R"(0[xX][0-9a-fA-F]+|\b(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b)");
  // Numbers: sizes, line and column numbers, values ("got 2.5e-05, expected -1").
  static const std::regex number(R"([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)");
  std::string line = o.message.substr(0, o.message.find('\n'));
  line = std::regex_replace(line, own_folder, "<eval>/");
  line = without_values(line, o.label);
  line = std::regex_replace(line, hex, "<hex>");
  return std::string(to_string(o.status)) + ':' + std::regex_replace(line, number, "#");
}

namespace {

// The loop: the budget and the time limit, the progress lines, and the order of the work; the
// pipeline (pipeline.hpp) prepares and measures, the recorder (recorder.hpp) records.
class Loop final : public PipelineClient {
 public:
  Loop(const Space& space, const Config& baseline, Backend& backend, Strategy& strategy, const TuneOptions& options,
       ResultsWriter* writer)
      : options_(options),
        clock_(options.clock ? *options.clock : steady_clock()),
        recorder_(backend, strategy, options, writer, baseline),
        pipeline_(space, backend, strategy, options, clock_, *this, baseline),
        space_(space),
        backend_(backend),
        baseline_(baseline) {}

  TuneReport run(const std::vector<Outcome>& previous) {
    try {
      return run_loop(previous);
    } catch (const SetupError&) {
      throw;  // the failures held back are not configuration outcomes: dropped (see Recorder::held_)
    } catch (...) {
      recorder_.write_held();  // any other stop: what was measured is kept
      throw;
    }
  }

  std::size_t remaining() const override {
    const std::size_t done = recorder_.outcomes().size();
    return done >= options_.budget ? 0 : options_.budget - done;
  }
  // Past the time limit, once something was measured and the baseline is in (it always is measured).
  bool over_time() const override {
    return options_.time_limit_s > 0 && clock_.seconds_since(start_) >= options_.time_limit_s &&
           !recorder_.outcomes().empty() && !recorder_.baseline_pending();
  }
  bool recorded(const Config& config) const override { return recorder_.recorded(config); }
  void take_arrivals() override { recorder_.take_arrivals(); }
  bool baseline_pending() const override { return recorder_.baseline_pending(); }
  void measured(Outcome outcome) override { recorder_.measured(std::move(outcome)); }
  bool setup_broken() const override { return recorder_.setup_broken(); }
  void check_setup() const override { recorder_.check_setup(); }

 private:
  TuneReport run_loop(const std::vector<Outcome>& previous) {
    start_ = clock_.now();
    recorder_.resume(previous);
    TuneReport& report = recorder_.report();
    // The baseline first, then the warm start, then the strategy's proposals, through one pipeline:
    // compiled in this order up to parallelism() ahead, the baseline measured first, the others as
    // their compiles finish.
    if (options_.evaluate_baseline && !report.baseline && remaining() > 0) {
      pipeline_.enqueue({baseline_});
      if (pipeline_.queued() > 0) recorder_.expect_baseline();
    }
    std::size_t printed = report.outcomes.size() + pipeline_.queued();  // a progress line per batch after the baseline
    pipeline_.enqueue_warm_start(options_.warm_start);
    while (true) {
      if (remaining() <= pipeline_.measuring()) {  // the budget is spent once those measuring now are in
        pipeline_.finish_measuring();
        if (remaining() == 0) {
          report.stop_reason = "budget";
          break;
        }
        continue;
      }
      if (over_time()) {
        report.stop_reason = "time limit";
        break;
      }
      pipeline_.feed();
      if (pipeline_.nothing_prepared()) {
        if (pipeline_.measuring() > 0) {  // an outcome may lead the strategy to new proposals
          pipeline_.finish_first();
          continue;
        }
        report.stop_reason = over_time() ? "time limit" : "space exhausted";
        if (report.stop_reason == "space exhausted") report.skipped = unevaluated_valid(space_, report.outcomes);
        break;
      }
      pipeline_.measure_next();
      if (report.outcomes.size() >= printed + progress_every()) {
        print_progress();
        printed = report.outcomes.size();
      }
    }
    pipeline_.finish_measuring();  // what the GPUs are measuring still counts
    pipeline_.drain();
    recorder_.write_held();  // the budget ended before the setup was judged: the failures are outcomes
    if (report.outcomes.size() > printed) print_progress();
    report.best = crown(report.outcomes);
    report.counts = count_statuses(report.outcomes);
    report.wall_s = clock_.seconds_since(start_);
    report.stages = summarize_stages(recorder_.fresh(), report.wall_s);
    pipeline_.note_depth(report);
    return report;
  }

  // Outcomes per progress line.
  std::size_t progress_every() const {
    return options_.batch ? options_.batch : std::max<std::size_t>(8, 2 * backend_.parallelism());
  }

  void print_progress() const {
    if (!options_.progress) return;
    const auto& outcomes = recorder_.outcomes();
    const auto counts = count_statuses(outcomes);
    std::size_t failures = 0;
    std::string detail;
    for (const auto& [status, n] : counts) {
      if (is_success(status_from_string(status))) continue;
      failures += n;
      detail += (detail.empty() ? "" : ", ") + status + " " + std::to_string(n);
    }
    auto best = crown(outcomes);
    char line[256];
    std::snprintf(line, sizeof line, "[adaexplore] %s: %zu/%zu evaluations, best %s, failures %zu%s%s%s, %.1f s",
                  options_.kernel.c_str(), outcomes.size(), options_.budget,
                  best ? (std::to_string(*best->objective).substr(0, 10) + " ms").c_str() : "none yet", failures,
                  detail.empty() ? "" : " (", detail.c_str(), detail.empty() ? "" : ")", clock_.seconds_since(start_));
    *options_.progress << line << (best ? "  [" + best->label + "]" : std::string()) << std::endl;
  }

  const TuneOptions& options_;
  const Clock& clock_;
  Recorder recorder_;
  Pipeline pipeline_;
  const Space& space_;
  Backend& backend_;
  Config baseline_;
  Clock::time_point start_;
};

}  // namespace

std::optional<SetupFailures> setup_failures(const std::vector<Outcome>& outcomes, std::size_t window) {
  if (outcomes.empty() || outcomes.size() < window) return std::nullopt;
  for (const auto& o : outcomes)
    if (is_success(o.status)) return std::nullopt;
  // A signature shared by all the outcomes but one is the first's or the second's.
  std::vector<std::string> signatures;
  signatures.push_back(failure_signature(outcomes[0]));
  if (outcomes.size() > 1) signatures.push_back(failure_signature(outcomes[1]));
  for (std::size_t c = 0; c < std::min<std::size_t>(2, outcomes.size()); ++c) {
    const std::string shared = signatures[c];
    std::optional<std::size_t> other;
    bool two = false;
    for (std::size_t i = 0; i < outcomes.size() && !two; ++i) {
      if (i >= signatures.size()) signatures.push_back(failure_signature(outcomes[i]));
      if (signatures[i] == shared) continue;
      two = other.has_value();
      other = i;
    }
    if (two) continue;
    if (!other) return SetupFailures{c, std::nullopt};
    // One other failure mixed in: a broken setup only when the shared one is the reference's
    // (every configuration that ran disagrees with it in the same way).
    if (outcomes[c].status == Status::wrong_result) return SetupFailures{c, other};
  }
  return std::nullopt;
}

bool setup_failures_only(const std::vector<Outcome>& outcomes, std::size_t window) {
  return setup_failures(outcomes, window).has_value();
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
  Loop loop(space, baseline, backend, strategy, options, writer);
  return loop.run(previous);
}

}  // namespace adaexplore
