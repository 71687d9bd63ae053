// `replay`: run a strategy against a recorded search space (a Kernel Tuner cache file, --cache, or
// a results file of `adaexplore-tuner tune` with the spec it was tuned with, --results and --spec)
// and report how close it came to the recorded optimum. The search-quality benchmark (bench/search_quality.py)
// is built on it; its option spellings and output lines are an interface: keep them.
//
// stdout: one JSON line per seed, {"seed", "strategy", "budget", "evaluated", "stop_reason",
// "best_ms", "optimum_ms", "ratio", "counts"}, then, as the LAST line,
//   best_ms=<best found> optimum_ms=<optimum of the file> ratio=<optimum/best>
// (with --repeat R > 1: best_ms and ratio are means over the seeds, and " seeds=R" follows; a run
// that found no success has best_ms null/"none" and ratio 0, and makes the mean best_ms "none").
// --json OUT: the run object of the JSON line plus the file ("cache" or "results", and "format":
// kernel_tuner_cache or adaexplore_results), constraints and an "evaluations" array
// (every evaluation in order: "config", "status", "objective" in ms or null, "message" for
// failures); with R > 1, {"runs": [one such object per seed]}.
// --warm-start TRACE: such a trace (one run) of the same kernel on another recorded space (another
// GPU); its --warm-start-count best successful configurations that are configurations of this
// space are evaluated first, as `tune --database --warm-start` does with a database's other keys.
// Each JSON line then carries "warm_start": {"configs": the number taken from the trace (the
// budget may evaluate fewer), "by": --device-transfer}, and the trace also "warm_start"."file".
// --device-transfer model: the trace's evaluations go to the strategy's performance model as
// another GPU's records, and the start is its predicted best alternating with the trace's best.
// --transfer TRACE... (nearest problem size first): a problem size started from other sizes'
// traces as `tune` starts one from the kernel's other sizes (sizes.hpp transfer_from); each JSON
// line then carries "transfer": {"configs", "prior" (size-independent failures), "traces"}.
// --in-flight N: proposals as a tuning with N configurations in flight makes them (one more as
// each is observed; TuneOptions::in_flight); each JSON line then carries "in_flight": N.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "replay/replay_backend.hpp"
#include "replay/replay_trace.hpp"
#include "model/sizes.hpp"
#include "search/strategy.hpp"
#include "loop/tuner.hpp"

namespace adaexplore {
namespace {

using nlohmann::json;

struct ReplayArgs {
  std::string cache, results, spec, json_out, strategy, strategy_options = "{}", warm_start,
      device_transfer = "winners";
  std::vector<std::string> constraints, transfer;
  std::size_t budget = 0, repeat = 1, warm_start_count = 4, in_flight = 0, transfer_count = 8;
  std::uint64_t seed = 1;
  json options = json::object();  // --strategy-options, parsed
};

json parse_strategy_options(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw std::invalid_argument("--strategy-options " + text + ": not valid JSON: " + e.what());
  }
  if (!j.is_object())
    throw std::invalid_argument("--strategy-options " + text + ": must be a JSON object");
  return j;
}

// --spec: {"constraints": [...]} or a T1 space definition
// (ConfigurationSpace.Conditions[].Expression).
std::vector<std::string> constraints_from_spec(const std::string& path) {
  std::ifstream in(path);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": --spec is not valid JSON: " + e.what());
  }
  std::vector<std::string> out;
  if (j.contains("constraints")) return j["constraints"].get<std::vector<std::string>>();
  if (j.contains("ConfigurationSpace")) {
    for (const auto& c : j["ConfigurationSpace"].value("Conditions", json::array()))
      out.push_back(c.at("Expression").get<std::string>());
    return out;
  }
  throw std::invalid_argument(path +
                              ": --spec has neither \"constraints\" (a list of expressions) nor "
                              "\"ConfigurationSpace\".\"Conditions\" (a T1 space definition)");
}

void check_strategy(const std::string& name) {
  std::string known;
  for (const auto& s : registered_strategies()) {
    if (s.name == name) return;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("--strategy " + name + ": unknown strategy (registered: " + known +
                              ")");
}

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json summary(const TuneReport& r, const ReplayArgs& a, std::uint64_t seed,
             const std::optional<Outcome>& optimum) {
  json out = {{"seed", seed},
          {"strategy", a.strategy},
          {"budget", a.budget},
          {"evaluated", r.outcomes.size()},
          {"stop_reason", r.stop_reason},
          {"best_ms", number_or_null(r.best ? r.best->objective : std::nullopt)},
          {"optimum_ms", number_or_null(optimum ? optimum->objective : std::nullopt)},
          {"ratio", optimum_ratio(optimum, r.best)},
          {"counts", r.counts}};
  if (a.in_flight) out["in_flight"] = a.in_flight;
  return out;
}

// The configuration with each value as the file wrote it (32, not 32.0; strings quoted).
json config_json(const Config& c, const Space& space) {
  json out = json::object();
  for (std::size_t i = 0; i < space.dimension(); ++i) {
    const Value& v = space.value(c, i);
    out[space.parameters()[i].name] =
        v.numeric ? json::parse(v.text, nullptr, false) : json(v.text);
    if (out[space.parameters()[i].name].is_discarded()) out[space.parameters()[i].name] = v.number;
  }
  return out;
}

json trace(const TuneReport& r, const RecordedSpace& cache, const ReplayArgs& a, json run) {
  run[cache.format == "adaexplore_results" ? "results" : "cache"] = cache.file.string();
  run["format"] = cache.format;
  run["kernel"] = cache.kernel_name;
  run["device"] = cache.device_name;
  run["constraints"] = a.constraints;
  if (!cache.size.empty()) run["size"] = cache.size;
  run["strategy_options"] = a.options;
  if (run.contains("warm_start")) run["warm_start"]["file"] = a.warm_start;
  json evaluations = json::array();
  for (const auto& o : r.outcomes) {
    json e = {{"config", config_json(o.config, cache.space)},
              {"status", to_string(o.status)},
              {"objective", number_or_null(o.objective)}};
    if (!o.message.empty()) e["message"] = o.message;
    evaluations.push_back(std::move(e));
  }
  run["evaluations"] = std::move(evaluations);
  return run;
}

std::string format_ms(const std::optional<double>& v) {
  if (!v) return "none";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", *v);
  return buf;
}

// Spaces up to this many configurations before constraints are enumerated to count the valid ones.
constexpr double kDescribeLimit = 4e6;

void describe_space(const RecordedSpace& cache, const ReplayBackend& backend) {
  for (const auto& w : cache.warnings) std::cerr << "[adaexplore] warning: " << w << "\n";
  std::size_t failures = 0;
  for (const auto& o : cache.records) failures += is_success(o.status) ? 0 : 1;
  std::cerr << "[adaexplore] replay " << cache.file.string() << ": " << cache.records.size()
            << " records (" << failures << " failures), optimum "
            << format_ms(backend.optimum() ? backend.optimum()->objective : std::nullopt) << " ms";
  if (cache.records_outside_constraints)
    std::cerr << "; " << cache.records_outside_constraints
              << " records violate the constraints given";
  if (cache.duplicates)
    std::cerr << "; " << cache.duplicates << " repeated records ignored (the first of each kept)";
  if (cache.space.cartesian_size() <= kDescribeLimit) {
    std::size_t valid = 0, absent = 0;
    for (const auto& c : cache.space.enumerate_valid(kDescribeLimit))
      ++valid, absent += backend.lookup(c) ? 0 : 1;
    std::cerr << "; " << valid << " valid configurations";
    if (absent)
      std::cerr << ", " << absent
                << " of them absent from the file (replayed as invalid: check the constraints)";
  }
  std::cerr << std::endl;
}

void write_json(const std::string& path, const json& j) {
  std::ofstream out(path);
  if (!out)
    throw std::invalid_argument("--json " + path + ": cannot be written (check the folder exists)");
  out << j.dump(1) << "\n";
}

// The last line: best_ms=B optimum_ms=O ratio=R[ seeds=N], means over the runs.
void print_last_line(const std::vector<TuneReport>& runs, const std::optional<Outcome>& optimum) {
  double best_sum = 0, ratio_sum = 0;
  bool all_found = true;
  for (const auto& r : runs) {
    if (r.best) best_sum += *r.best->objective;
    all_found = all_found && r.best.has_value();
    ratio_sum += optimum_ratio(optimum, r.best);
  }
  const double n = static_cast<double>(runs.size());
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.6f", ratio_sum / n);
  std::cout << "best_ms="
            << format_ms(all_found ? std::optional<double>(best_sum / n) : std::nullopt)
            << " optimum_ms=" << format_ms(optimum ? optimum->objective : std::nullopt)
            << " ratio=" << ratio
            << (runs.size() > 1 ? " seeds=" + std::to_string(runs.size()) : std::string())
            << std::endl;
}

int run_replay(ReplayArgs a) {
  check_strategy(a.strategy);
  if (a.budget == 0) throw std::invalid_argument("--budget must be at least 1 (evaluations)");
  if (a.repeat == 0) throw std::invalid_argument("--repeat must be at least 1 (seeds)");
  a.options = parse_strategy_options(a.strategy_options);
  if (a.cache.empty() == a.results.empty())
    throw std::invalid_argument("give exactly one recorded space: --cache FILE or --results FILE --spec SPEC");
  RecordedSpace cache;
  if (!a.results.empty()) {
    cache = read_results_space(a.results, a.spec, a.constraints);
    a.constraints.clear();  // the trace lists the space's constraints: the spec's and --constraint's
    for (const auto& c : cache.space.constraints()) a.constraints.push_back(c.text());
  } else {
    if (!a.spec.empty())
      for (auto& c : constraints_from_spec(a.spec)) a.constraints.push_back(c);
    cache = read_kernel_tuner_cache(a.cache, a.constraints);
  }
  ReplayBackend backend(cache);
  describe_space(cache, backend);
  const auto& optimum = backend.optimum();
  // With --device-transfer model the other GPU's evaluations are read with its best, in one pass.
  std::vector<StrategyOptions::SizedOutcome> device_records;
  std::vector<Config> warm =
      a.warm_start.empty()
          ? std::vector<Config>{}
          : warm_start_configs(a.warm_start, a.warm_start_count, cache.space, std::cerr,
                               a.device_transfer == "model" ? &device_records : nullptr);
  SizeTransfer transfer;
  ReplayTransfer later;  // the strategy's model picks the start from the records, else the winners
  if (!a.transfer.empty()) {
    transfer = size_transfer(a.transfer, a.transfer_count, cache.space, std::cerr, &later.records);
    later.winners = transfer.warm_start;
    later.prior = transfer.prior;
    later.count = transfer.warm_start.size();
  }
  const std::size_t warm_taken = warm.size();
  if (!a.warm_start.empty() && a.device_transfer == "model") {
    // The other GPU's evaluations go to the strategy's model, which picks the start (its best
    // configurations among them as the winners); without a model, the winners alone.
    later.records.insert(later.records.end(), device_records.begin(), device_records.end());
    later.winners.insert(later.winners.begin(), warm.begin(), warm.end());
    later.count += warm.size();
    warm.clear();
  }
  std::vector<TuneReport> reports;
  json traces = json::array();
  for (std::size_t i = 0; i < a.repeat; ++i) {
    const std::uint64_t seed = a.seed + i;
    reports.push_back(replay_tuning(backend, a.strategy, a.options, a.budget, seed, warm, a.in_flight, later));
    json line = summary(reports.back(), a, seed, optimum);
    if (!a.warm_start.empty())
      line["warm_start"] = {{"configs", warm_taken}, {"by", a.device_transfer}};
    if (!a.transfer.empty())
      line["transfer"] = {{"configs", transfer.warm_start.size()}, {"prior", transfer.prior.size()},
                          {"traces", a.transfer.size()}};
    std::cout << line.dump() << "\n";
    if (!a.json_out.empty()) traces.push_back(trace(reports.back(), cache, a, std::move(line)));
    reports.back().outcomes.clear();  // only best and counts are needed from here on
  }
  if (!a.json_out.empty())
    write_json(a.json_out, a.repeat == 1 ? traces[0] : json{{"runs", traces}});
  print_last_line(reports, optimum);
  return kExitOk;
}

}  // namespace

Command register_replay_command(CLI::App& app) {
  auto a = std::make_shared<ReplayArgs>();
  auto* sub = app.add_subcommand(
      "replay",
      "Run a strategy on a recorded search space (a Kernel Tuner cache file, gzip'd or plain, or a "
      "results file of `adaexplore-tuner tune` with its spec) without compiling or "
      "running anything: each evaluation returns the recorded outcome, failures with their recorded "
      "status; a configuration the file lacks is `invalid`. Budget counts distinct "
      "configurations, "
      "failures included (Kernel Tuner's max_fevals); no defaults are evaluated first. Same seed, "
      "same trace. "
      "Prints one JSON line per seed, then as the LAST line: best_ms=B optimum_ms=O ratio=O/B "
      "(means over seeds "
      "with --repeat, then seeds=R; best_ms=none and ratio 0 when nothing succeeded).");
  auto* cache = sub->add_option(
      "--cache", a->cache,
      "Kernel Tuner cache file (.json or .json.gz); format in tuner/src/replay/kernel_tuner_cache.hpp");
  auto* results = sub->add_option(
      "--results", a->results,
      "results file written by `adaexplore-tuner tune` (JSON Lines, format in tuner/src/store/results.hpp), "
      "replayed with the statuses it recorded (ok, slow, compile_error, resource_limit, launch_error, "
      "crash, wrong_result, timeout); needs --spec, the tuning spec it was recorded with (its header "
      "holds only hashes of the spec); a configuration recorded twice replays its first record");
  cache->excludes(results);
  results->excludes(cache);
  sub->add_option("--constraint", a->constraints,
                  "restriction of the recorded space, product or Python syntax (\"32 <= bx*by <= "
                  "1024\"); repeatable. "
                  "Configurations outside the file replay as invalid, so give the restrictions the "
                  "file was made with");
  sub->add_option("--spec", a->spec,
                  "with --cache: JSON file adding constraints: {\"constraints\": [...]} or a T1 space "
                  "definition (ConfigurationSpace.Conditions[].Expression); with --results: the tuning "
                  "spec (tuner/src/model/spec.hpp) the results were recorded with, giving the parameters and "
                  "constraints (a warning when its content hash differs from the file's key_parts.spec)")
      ->check(CLI::ExistingFile);
  sub->add_option("--strategy", a->strategy, "search strategy (see `adaexplore-tuner strategies`)")
      ->required();
  sub->add_option("--strategy-options", a->strategy_options,
                  "strategy options as a JSON object (default {})");
  sub->add_option("--budget", a->budget, "evaluations: distinct configurations, failures included")
      ->required();
  sub->add_option("--seed", a->seed, "random seed of the first run (default 1)");
  sub->add_option("--repeat", a->repeat,
                  "runs with seeds S, S+1, ..., S+R-1 on one parsed file (default 1)");
  auto* warm = sub->add_option("--warm-start", a->warm_start,
                  "a replay trace (--json of one run, without --repeat) of the same kernel on another "
                  "recorded space, e.g. another GPU: its best successful configurations that are "
                  "configurations of this space are evaluated first (budget included), as `tune "
                  "--database --warm-start` does with other keys")
      ->check(CLI::ExistingFile);
  sub->add_option("--transfer", a->transfer,
                  "a replay trace (--json of one replay) of the same kernel at another problem size, nearest size "
                  "first (repeatable): what `tune` gives a size from the kernel's other sizes (sizes.hpp): up to "
                  "--transfer-count of their best configurations evaluated first (round-robin over the traces), "
                  "and their size-independent failures (compile_error; resource_limit from ptxas or the static "
                  "check) given to adaexplore's knowledge base before its first proposal; each JSON line then "
                  "carries \"transfer\": {\"configs\", \"prior\" (those failures), \"traces\"}");
  sub->add_option("--transfer-count", a->transfer_count, "configurations --transfer evaluates first (default 8)");
  sub->add_option("--warm-start-count", a->warm_start_count,
                  "with --warm-start: how many of its best configurations (default 4, as tune's --warm-start)")
      ->needs(warm);
  sub->add_option("--device-transfer", a->device_transfer,
                  "with --warm-start: which configurations of the other GPU's trace start the search (budget "
                  "included). winners (default, what `tune --database --warm-start` does): its --warm-start-count "
                  "best; model: --warm-start-count configurations, those the strategy's performance model, fitted "
                  "on the trace's successes as another GPU's (one log-time offset per GPU, performance_model.hpp), "
                  "predicts best here alternating with the trace's best (adaexplore; its surrogate fits them too "
                  "only with option device_surrogate); a strategy without a model takes the winners. Measured "
                  "level with winners on 10 recorded GPU pairs (docs/warm-start-benchmark.md)")
      ->check(CLI::IsMember({"model", "winners"}))
      ->needs(warm);
  sub->add_option("--in-flight", a->in_flight,
                  "replay as a tuning that keeps N configurations in flight (compiling or measuring): the "
                  "strategy is asked for one more each time one is observed, so each proposal is made "
                  "without the outcomes of N-1 others, as on a machine with N-1 compile workers "
                  "(default: rounds of 8: each round is proposed with every earlier round's outcomes "
                  "known, so up to 7 of its own are not; `tune`'s automatic depth follows measured "
                  "times, which a replay does not have)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  sub->add_option("--json", a->json_out,
                  "write the full trace here (JSON: run summary + \"evaluations\"; "
                  "{\"runs\": [...]} with --repeat > 1)");
  return {sub, [a] { return run_replay(*a); }};
}

}  // namespace adaexplore
