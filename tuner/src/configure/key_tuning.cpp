// One key tuned (tuning.hpp tune_key): its results file made ready (moved aside when it holds
// another key, a broken setup's failures, or --fresh / --retune asks), resumed, evaluated up to the
// budget, its winner's near-ties confirmed; then profiled and reported (finish.cpp).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cluster/cluster.hpp"
#include "configure/tuning.hpp"
#include "learn/failure_summary.hpp"
#include "learn/features.hpp"
#include "loop/confirm.hpp"
#include "loop/crown.hpp"
#include "search/strategy.hpp"
#include "store/database.hpp"
#include "store/warm_start.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

// One line on the pipeline depth (TuneReport::in_flight): the limit on configurations in flight
// at the end of the tuning, and why.
std::string pipeline_line(const TuneReport& r, std::size_t jobs) {
  char times[120];
  std::snprintf(times, sizeof times, "a compile of %.2f s and a measurement of %.2f s per configuration",
                r.mean_prepare_ms / 1000, r.mean_measure_ms / 1000);
  const std::string rates = std::string(times) + " (means over the last " +
                            counted(r.rate_samples, "new evaluation") + " measured after the defaults)";
  std::string line = "pipeline: at most " + counted(r.in_flight, "configuration") +
                     " in flight (queued, compiling, waiting or measuring; " + counted(jobs, "compile worker") +
                     ")";
  if (!r.in_flight_automatic) return line + ", as asked (--in-flight, or the spec's in_flight); " + rates;
  line += " at the end of the tuning, a limit that follows the measured times";
  const std::string pin = "; --in-flight N (CMake: IN_FLIGHT N) pins it";
  // The budget's cap first: it can bind whatever the times say, none measured included.
  if (r.in_flight_budget)
    return line +
           ": the budget's cap (ceil(budget / 8) on one GPU, one more per further GPU), below what would "
           "keep the GPU busy, so that each proposal is made knowing all but a few outcomes; " + rates + pin;
  if (r.mean_measure_ms <= 0)
    return line + ": every compile worker busy, since none of the last " +
           counted(r.rate_samples, "new evaluation") + " reached the measurement" + pin;
  if (r.in_flight_every_worker)
    return line + ": every compile worker busy, since the compiles are the bottleneck at " + rates + pin;
  return line + ": enough to keep the measurements busy at " + rates + pin;
}

// Without a database: a results file with another key (or any, with fresh) is moved aside as
// "<file>.<its key's first 12 hex>-<UTC time>" (set_aside: never replaces an earlier one).
// Read and renamed under one lock (set_aside_if).
void move_aside_if_other_key(const Tuning& t, const std::filesystem::path& path, const Spec& spec,
                             const std::string& key) {
  const bool fresh = t.request.fresh;
  std::string theirs;
  const auto aside = set_aside_if(path, [&](const RawResults& file) -> std::string {
    theirs = file.header.key;
    if (!fresh && file.header.key == key) return "";
    return file.header.key.empty() ? "old" : file.header.key.substr(0, 12);
  });
  if (aside.empty()) return;  // none, this key's, or moved meanwhile
  t.err() << "[adaexplore] " << spec.name << ": "
          << (fresh ? "--fresh given" : "spec, sources or device changed (key " + theirs + " -> " + key + ")")
          << "; earlier results kept in " << aside.string() << "\n";
}

// A results file of this key holding nothing but the failures of a broken setup (tuner.hpp
// setup_failures_only; written by a tuner that kept them): they are not configuration outcomes,
// and resumed they would be the defaults' outcome and every one's. Moved aside (kept) as
// "<file>.setup-error-<UTC time>"; the tuning starts the key afresh.
// The check and the rename hold the file's lock throughout (set_aside_if): another tuning of the
// key appending a success in between is never set aside with them.
void set_aside_setup_failures(const Tuning& t, const std::filesystem::path& path, const Spec& spec,
                              const std::string& key) {
  ResultsFile file;
  const auto aside = set_aside_if(path, [&](const RawResults& raw) -> std::string {
    if (raw.header.key != key) return "";
    file = results_from_raw(raw, path, spec.space);
    return setup_failures_only(file.outcomes, TuneOptions().setup_failure_window) ? "setup-error" : "";
  });
  if (aside.empty()) return;
  t.err() << "[adaexplore] " << spec.name << ": " << path.string() << " holds only the " << file.outcomes.size()
          << " identical failures of a broken setup (" << to_string(file.outcomes.front().status)
          << "), not outcomes of the configurations; kept in " << aside.string() << ", tuning afresh\n";
}

// The first successful outcome the harness's sanity gates flagged (extra.suspicious, an array).
const Outcome* first_suspicious(const std::vector<Outcome>& outcomes) {
  for (const auto& o : outcomes) {
    if (!is_success(o.status) || !o.objective) continue;
    const auto it = o.extra.find("suspicious");
    if (it != o.extra.end() && it->is_array() && !it->empty() && it->front().is_string()) return &o;
  }
  return nullptr;
}

// With a database: the best configurations of the kernel's other keys (of the same problem size),
// evaluated after the defaults.
std::vector<Config> database_warm_start(const Tuning& t, const Spec& spec, const ResultsHeader& header,
                                        const std::vector<Outcome>& measured) {
  if (t.request.warm_start == 0) return {};
  std::vector<std::string> problems;
  std::vector<StoredKey> keys = stored_keys(t.request.database, spec.name, &problems);
  for (const auto& p : problems) t.err() << "[adaexplore] warning: warm start skips " << p << "\n";
  // A kernel with sizes: only keys of the same size (another GPU); the other sizes' keys of this
  // GPU are the sizes' transfer (sized.cpp), in their nearest-first order.
  const nlohmann::json size = header.key_parts.value("size", nlohmann::json());
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const StoredKey& k) { return k.raw.header.key_parts.value("size", nlohmann::json()) != size; }),
             keys.end());
  const WarmStart ws = warm_start(keys, header.key, header.device, spec.space, t.request.warm_start, measured);
  if (!ws.configs.empty()) t.out() << "[adaexplore] " << spec.name << ": warm start: " << ws.describe() << std::endl;
  return ws.configs;
}

// Near-ties decided by interleaved re-measurement (confirm.hpp), not by one sample each. The
// verdict is kept beside the results file (confirmation_path: <results>.confirmation.json, in the
// tuning database too) with the results' key: a later run of the same key that evaluates nothing
// new (a reconfigure), `tune --cached` and `header --database` crown the same winner with the same
// figure (crown), so the header stays byte-identical; a run with new evaluations confirms
// afresh (or, with confirm_rounds 0 or past the time limit, drops the old verdict).
void confirm_winner(const Tuning& t, const std::string& label, const std::filesystem::path& results,
                    const std::string& key, Backend& backend, TuneReport& report) {
  if (!report.best) return;
  const auto path = confirmation_path(results);
  if (report.new_evaluations == 0) {
    report.best = crown(report.outcomes, {results, key});
    return;
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (t.request.confirm_rounds == 0 || report.stop_reason == "time limit") return;
  ConfirmOptions confirm;
  confirm.rounds = t.request.confirm_rounds;
  confirm.margin = t.request.confirm_margin;
  const auto contenders = near_ties(report.outcomes, confirm);
  if (contenders.empty()) return;
  // Over MPI, on rank 0's own GPU: the contenders are compared on one GPU, not on as many as ranks.
  auto* cluster = dynamic_cast<ClusterBackend*>(&backend);
  const Confirmation c = confirm_near_ties(cluster ? cluster->local() : backend, contenders, confirm);
  t.out() << "[adaexplore] " << label << ": " << counted(contenders.size(), "configuration") << " within "
          << confirm.margin * 100 << " % of the best, re-measured interleaved in "
          << counted(confirm.rounds, "round") << ":" << std::endl;
  for (const auto& line : c.describe()) t.out() << "[adaexplore] " << label << ": " << line << "\n";
  nlohmann::json verdict = c.to_json();
  verdict["key"] = key;
  try {
    write_file_if_changed(path, verdict.dump(2) + "\n");
  } catch (const std::exception& e) {
    // What was measured stands: the header crowns this verdict; only later readings lack it.
    t.err() << "[adaexplore] " << label << ": warning: the near-tie verdict is not kept: " << e.what()
            << "; this tuning's header crowns it, but until a tuning writes it, `tune --cached`, `header` "
               "and a reconfigure with nothing new crown from the single measurements instead (the first in the space's "
               "order within 1 % of the fastest)\n";
    CrownEvidence evidence{results, key};
    evidence.verdict = &verdict;
    report.best = crown(report.outcomes, evidence);
    return;
  }
  report.best = crown(report.outcomes, {results, key});
}

// The key's results file made ready (moved aside as the request says or its contents demand),
// opened for appending, and what it already holds read (resumed, saying so).
std::unique_ptr<ResultsWriter> open_results(const Tuning& t, const Spec& spec, KeyPlace& place,
                                            const std::string& label, ResultsFile& existing) {
  ResultsHeader& header = place.header;
  const auto& results_path = place.results;
  const bool database = !t.request.database.empty();
  if (database && (t.request.retune || t.request.fresh)) {
    const auto aside = set_aside_for_retune(results_path);
    if (!aside.empty())
      t.err() << "[adaexplore] " << label << ": --retune: earlier results of this key kept in " << aside.string()
              << "\n";
  } else if (!database) {
    move_aside_if_other_key(t, results_path, spec, header.key);
  }
  set_aside_setup_failures(t, results_path, spec, header.key);
  auto writer = std::make_unique<ResultsWriter>(results_path, header, spec.space);
  existing = writer->read_existing();
  print_warnings(t, existing.warnings);
  if (!existing.header.started.empty()) header.started = existing.header.started;  // the file's tuning start
  if (!existing.outcomes.empty()) {
    t.err() << "[adaexplore] " << label << ": resuming from " << results_path.string() << " ("
            << counted(existing.outcomes.size(), "evaluation") << " already measured";
    if (existing.duplicates)
      t.err() << "; " << counted(existing.duplicates, "later record") << " of the same configurations ignored";
    t.err() << ")\n";
  }
  if (database)
    t.out() << "[adaexplore] " << label << ": tuning database " << t.request.database.string() << ", key "
            << header.key.substr(0, 16) << " (" << device_words(header.device) << ")" << std::endl;
  return writer;
}

// The behavioural features of the key's configurations (learn/features.hpp): the spec's launch
// shape and size names, with the SM count and limits of the device the key's results header
// records (a cuda backend's; the host backend records neither: no waves, no occupancy). Null when
// there is nothing to derive them from; also, with a warning, when the launch cannot be read over
// the space (the search then goes on without them).
std::shared_ptr<const FeatureMap> key_features(const Tuning& t, const Spec& spec, const ResultsHeader& header,
                                               const std::string& label) {
  const LaunchSpec& launch = spec.launch;
  if (!launch.threads_per_block && launch.grid.empty() && !launch.dynamic_shared_bytes && spec.sizes.names.empty())
    return nullptr;
  FeatureContext context;
  context.launch = launch;
  context.size_names = spec.sizes.names;
  const nlohmann::json& device = header.device;
  if (device.is_object() && device.contains("sm_count") && device["sm_count"].is_number_integer())
    context.sm_count = device["sm_count"].get<int>();
  if (device.is_object() && device.contains("limits")) context.limits = recorded_limits(device["limits"]);
  try {
    return std::make_shared<const FeatureMap>(spec.space, context);
  } catch (const std::invalid_argument& e) {
    t.err() << "[adaexplore] " << label << ": warning: no behavioural features for the search: " << e.what() << "\n";
    return nullptr;
  }
}

// The start of a size tuned after others (KeyExtras): with their evaluations (extras.transfer),
// the configurations the strategy's performance model predicts best at this size
// (Strategy::predicted_start, spec.sizes.warm_start of them) that are not measured here yet nor the
// defaults; else, or when the model predicts none, the other sizes' winners (extras.warm_start).
// Says which.
std::vector<Config> size_start(const Tuning& t, const Spec& spec, const KeyExtras& extras, const std::string& label,
                               Strategy& strategy, const std::vector<Outcome>& measured) {
  if (extras.transfer.empty()) return extras.warm_start;
  std::vector<Config> exclude{spec.defaults};  // the defaults go first anyway
  for (const Outcome& o : measured) exclude.push_back(o.config);
  const std::vector<Config> start = strategy.predicted_start(spec.sizes.warm_start, extras.warm_start, exclude);
  std::size_t winners = 0, successes = 0;
  for (const Config& c : start) winners += std::count(extras.warm_start.begin(), extras.warm_start.end(), c);
  for (const auto& r : extras.transfer) successes += is_success(r.outcome.status) && r.outcome.objective;
  if (start.empty()) {
    if (extras.warm_start.empty()) return {};
    t.out() << "[adaexplore] " << label << ": start: " << counted(extras.warm_start.size(), "configuration")
            << ", the other sizes' best (the strategy " << spec.strategy
            << " predicted none from their evaluations: it has no performance model, or too few successes)"
            << std::endl;
    return extras.warm_start;
  }
  t.out() << "[adaexplore] " << label << ": start: " << counted(start.size(), "configuration")
          << " predicted by the model from sizes " << extras.transfer_sizes << " ("
          << counted(successes, "successful evaluation") << " there); " << winners
          << " of them among the other sizes' best" << std::endl;
  return start;
}

// The loop's options of one key: budget, time limit, where its lines go, the warm start (`start`:
// the size's start, after the database's).
TuneOptions key_options(const Tuning& t, const Spec& spec, const KeyPlace& place, const KeyExtras& extras,
                        const std::string& label, const std::vector<Outcome>& existing,
                        const std::vector<Config>& start) {
  TuneOptions options;
  options.kernel = label;
  options.budget = spec.budget_evaluations;
  options.time_limit_s = spec.budget_seconds;
  options.progress = t.request.quiet ? nullptr : &t.out();
  options.warnings = &t.err();  // the same-timing gate, as it fires
  options.in_flight = t.request.in_flight ? t.request.in_flight : spec.in_flight;
  if (!t.request.database.empty() && extras.database_warm_start)
    options.warm_start = database_warm_start(t, spec, place.header, existing);
  options.warm_start.insert(options.warm_start.end(), start.begin(), start.end());
  return options;
}

// The lines that close a key's search: how it ended, the failures' alignment, the stages.
void say_done(const Tuning& t, const Spec& spec, const std::string& label, const TuneReport& report,
              const std::filesystem::path& results_path, std::ostream* progress, std::size_t parallelism) {
  t.out() << "[adaexplore] " << label << ": done (" << report.stop_reason;
  if (report.skipped)
    t.out() << ": " << *report.skipped
            << (*report.skipped == 1 ? " valid configuration predicted to fail was" : " valid configurations predicted to fail were")
            << " skipped, never evaluated";
  t.out() << "), " << counted(report.outcomes.size(), "evaluation") << " (" << report.new_evaluations << " new) in "
          << report.wall_s << " s; results in " << results_path.string() << std::endl;
  for (const auto& line : failure_alignment(spec.space, report.outcomes))
    t.out() << "[adaexplore] " << label << ": " << line << "\n";
  if (progress) {  // where the time went (stage_summary.hpp), with the progress lines
    for (const auto& line : stage_table(report.stages)) *progress << "[adaexplore] " << label << ": " << line << "\n";
    if (report.in_flight)
      *progress << "[adaexplore] " << label << ": " << pipeline_line(report, parallelism) << "\n";
  }
}

// A search that crowned nothing, said: every success distrusted, or no success at all. Returns the
// reason in one line.
std::string say_no_winner(const Tuning& t, const Spec& spec, const std::string& label, const TuneReport& report,
                          const std::filesystem::path& results_path) {
  const std::string who = t.request.command + ": " + label + ": ";
  if (const Outcome* flagged = first_suspicious(report.outcomes)) {
    // Successes there are, each flagged by the harness's sanity gates: nothing to crown.
    std::size_t n = 0;
    for (const auto& o : report.outcomes) n += is_success(o.status) && o.objective;
    t.err() << who << "not crowning any configuration: every one of the "
            << n << " that ran and verified has a timing the harness distrusts (extra.suspicious in "
            << results_path.string() << "); first, " << flagged->label << ": "
            << flagged->extra["suspicious"].front().get<std::string>() << "\n  " << spec.benchmark_path.string()
            << " may not time the kernel: make its launch do the kernel's whole work on every call (no work "
               "only on the first, no result the compiler can drop) and its bytes()/flops() figures true, "
               "then tune again with --retune (CMake: -DADAEXPLORE_RETUNE=" << spec.name
            << "). No header written.\n";
    return label + ": every configuration that ran and verified has a timing the harness distrusts";
  }
  t.err() << who << "no configuration compiled, ran and verified; no header written. Statuses:";
  for (const auto& [s, n] : report.counts) t.err() << " " << s << "=" << n;
  if (!report.outcomes.empty())
    t.err() << "\n  first failure (" << report.outcomes.front().label << "):\n"
            << truncate_middle(report.outcomes.front().message, 2000);
  t.err() << "\n";
  return label + ": no configuration compiled, ran and verified";
}

// One key tuned: resumed, evaluated up to the budget, near-ties confirmed. True with a winner in
// `report`; else false, having said why.
bool search_key(const Tuning& t, const Spec& spec, Backend& backend, KeyPlace& place, const KeyExtras& extras,
                const std::string& label, TuneReport& report, std::string& reason) {
  ResultsFile existing;
  const std::unique_ptr<ResultsWriter> writer = open_results(t, spec, place, label, existing);
  StrategyOptions so;
  so.seed = spec.seed;
  so.budget = spec.budget_evaluations;
  so.options = spec.strategy_options;
  so.static_check = [&backend](const Config& c) { return backend.check_statically(c); };
  so.prior = extras.prior;
  so.features = key_features(t, spec, place.header, label);
  if (spec.size) so.size = spec.size->values;
  so.transfer = extras.transfer;
  auto strategy = make_strategy(spec.strategy, spec.space, so);
  const std::vector<Config> start = size_start(t, spec, extras, label, *strategy, existing.outcomes);
  const TuneOptions options = key_options(t, spec, place, extras, label, existing.outcomes, start);
  try {
    report = run_tuning(spec.space, spec.defaults, backend, *strategy, options, writer.get(), existing.outcomes);
  } catch (const SetupError& e) {
    t.err() << t.request.command << ": " << label << ": stopped: " << e.what() << "\n";
    reason = label + ": stopped: " + e.what();
    return false;
  }
  print_warnings(t, writer->take_warnings());
  say_done(t, spec, label, report, place.results, options.progress, backend.parallelism());
  if (!report.best) {
    reason = say_no_winner(t, spec, label, report, place.results);
    return false;
  }
  confirm_winner(t, label, place.results, place.header.key, backend, report);
  return true;
}

}  // namespace

std::string to_string(SizeTransferMode mode) { return mode == SizeTransferMode::model ? "model" : "winners"; }

bool tune_key(const Tuning& t, const Spec& spec, Backend& backend, KeyPlace& place, const KeyExtras& extras,
              const std::string& label, TuneReport& report, std::string& reason, std::filesystem::path* report_file) {
  const bool ok = search_key(t, spec, backend, place, extras, label, report, reason);
  if (t.defer_finish) return ok;
  const auto written = finish_key(t, spec, ok ? &backend : nullptr, place, label, report.best, report.outcomes);
  if (report_file) *report_file = written;
  return ok;
}

}  // namespace adaexplore
