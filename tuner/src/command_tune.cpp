// `tune`: run a tuning from a spec, append to the results file, write the header.
// `defaults`: write the header of the spec's defaults (no GPU, no tuning), saying why.
#include <iostream>
#include <memory>

#include "backends.hpp"
#include "commands.hpp"
#include "failure_summary.hpp"
#include "header.hpp"
#include "render.hpp"
#include "spec.hpp"
#include "tuner.hpp"

namespace adaexplore {
namespace {

struct TuneArgs {
  std::string spec, header, results, strategy, arch;
  std::size_t budget = 0, jobs = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
  double time_limit_s = -1;
  int device = 0;
  bool fresh = false, quiet = false;
};

// Everything that makes stored results valid for this tuning. Budget, strategy, seed, jobs and
// the work folder are left out: results stay valid when only those change.
nlohmann::json key_parts(const Spec& spec, const Backend& backend) {
  nlohmann::json raw = spec.raw;
  for (const char* k : {"budget", "strategy", "strategy_options", "seed", "jobs", "work_dir", "$comment"}) raw.erase(k);
  return {{"spec", content_hash(raw.dump())},
          {"template", content_hash(read_file(spec.template_path))},
          {"benchmark", content_hash(read_file(spec.benchmark_path))},
          {"backend", backend.name()},
          {"device", backend.device()}};
}

std::filesystem::path default_path(const Spec& spec, const std::string& given, const std::string& leaf) {
  return given.empty() ? spec.work_dir / leaf : std::filesystem::path(given);
}

// Loads earlier outcomes with the same key; moves a results file with another key aside.
std::vector<Outcome> load_previous(const std::filesystem::path& path, const Spec& spec, const std::string& key,
                                   bool fresh, ResultsHeader& header) {
  if (!std::filesystem::exists(path)) return {};
  ResultsFile file = read_results(path, spec.space);
  for (const auto& w : file.warnings) std::cerr << "[adaexplore] warning: " << w << "\n";
  if (!fresh && file.header.key == key) {
    header.started = file.header.started;
    std::cerr << "[adaexplore] " << spec.name << ": resuming from " << path.string() << " ("
              << file.outcomes.size() << " evaluations already measured)\n";
    return file.outcomes;
  }
  const auto aside = path.string() + "." + (file.header.key.empty() ? "old" : file.header.key.substr(0, 12));
  std::filesystem::rename(path, aside);
  std::cerr << "[adaexplore] " << spec.name << ": " << (fresh ? "--fresh given" : "spec, sources or device changed (key " +
                                                                  file.header.key + " -> " + key + ")")
            << "; earlier results kept in " << aside << "\n";
  return {};
}

int run_tune(const TuneArgs& a) {
  Spec spec = load_spec(a.spec);
  if (a.budget) spec.budget_evaluations = a.budget;
  if (a.seed_given) spec.seed = a.seed;
  if (!a.strategy.empty()) spec.strategy = a.strategy;
  if (a.jobs) spec.jobs = a.jobs;
  if (a.time_limit_s >= 0) spec.budget_seconds = a.time_limit_s;
  if (!a.arch.empty()) spec.compiler.arch = a.arch;
  check_template(read_file(spec.template_path), spec.template_path, spec.space);

  std::unique_ptr<Backend> backend;
  if (spec.backend == "cuda") {
    const DeviceInfo device = query_device(a.device);
    if (!device.present) {
      std::cerr << "adaexplore-tuner tune: no CUDA GPU to tune on: " << device.reason
                << "\n  (use `adaexplore-tuner defaults` or a pinned header on machines without a GPU)\n";
      return kExitNoGpu;
    }
    backend = make_cuda_backend(spec, device);
  } else {
    backend = make_host_backend(spec);
  }

  ResultsHeader header;
  header.kernel = spec.name;
  header.key_parts = key_parts(spec, *backend);
  header.key = content_hash(header.key_parts.dump());
  header.device = backend->device();
  header.strategy = spec.strategy;
  header.seed = spec.seed;
  header.started = utc_now();
  const auto results_path = default_path(spec, a.results, "results.jsonl");
  const auto previous = load_previous(results_path, spec, header.key, a.fresh, header);
  ResultsWriter writer(results_path, header, spec.space, previous.size());

  StrategyOptions so;
  so.seed = spec.seed;
  so.budget = spec.budget_evaluations;
  so.options = spec.strategy_options;
  auto strategy = make_strategy(spec.strategy, spec.space, so);

  TuneOptions options;
  options.kernel = spec.name;
  options.budget = spec.budget_evaluations;
  options.time_limit_s = spec.budget_seconds;
  options.progress = a.quiet ? nullptr : &std::cout;
  TuneReport report;
  try {
    report = run_tuning(spec.space, spec.defaults, *backend, *strategy, options, &writer, previous);
  } catch (const SetupError& e) {
    std::cerr << "adaexplore-tuner tune: " << spec.name << ": stopped: " << e.what() << "\n";
    return kExitTuningFailed;
  }
  std::cout << "[adaexplore] " << spec.name << ": done (" << report.stop_reason << "), " << report.outcomes.size()
            << " evaluations (" << report.new_evaluations << " new) in " << report.wall_s << " s; results in "
            << results_path.string() << std::endl;
  for (const auto& line : failure_alignment(spec.space, report.outcomes))
    std::cout << "[adaexplore] " << spec.name << ": " << line << "\n";
  if (!report.best) {
    std::cerr << "adaexplore-tuner tune: " << spec.name << ": no configuration compiled, ran and verified; "
              << "no header written. Statuses:";
    for (const auto& [s, n] : report.counts) std::cerr << " " << s << "=" << n;
    if (!report.outcomes.empty())
      std::cerr << "\n  first failure (" << report.outcomes.front().label << "):\n"
                << truncate_middle(report.outcomes.front().message, 2000);
    std::cerr << "\n";
    return kExitTuningFailed;
  }
  HeaderInfo info;
  info.kernel = spec.name;
  info.name_space = spec.name_space;
  info.source = "tuned";
  info.backend = backend->name();
  info.device = header.device;
  info.date = header.started;
  info.strategy = spec.strategy;
  info.seed = spec.seed;
  info.budget = spec.budget_evaluations;
  info.winner = report.best;
  info.baseline = report.baseline;
  info.counts = report.counts;
  info.evaluations = report.outcomes.size();
  const auto header_path = default_path(spec, a.header, spec.name + ".hpp");
  const bool wrote = write_file_if_changed(header_path, render_header(spec.space, report.best->config, info));
  std::cout << "[adaexplore] " << spec.name << ": best " << report.best->label << " " << *report.best->objective
            << " ms";
  if (report.baseline && report.baseline->objective)
    std::cout << " vs defaults " << *report.baseline->objective << " ms";
  std::cout << "; header " << header_path.string() << (wrote ? " written" : " unchanged") << std::endl;
  return kExitOk;
}

}  // namespace

Command register_tune_command(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto* sub = app.add_subcommand("tune", "Tune the kernel a spec describes; write the results file and the header.");
  sub->add_option("--spec", a->spec, "tuning spec (JSON; format in tuner/src/spec.hpp and docs/)")->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--header", a->header, "header to write (default <work_dir>/<name>.hpp); rewritten only when its content changes");
  sub->add_option("--results", a->results, "results file, JSON Lines, appended per evaluation (default <work_dir>/results.jsonl); "
                                           "an existing file with the same key is resumed");
  sub->add_option("--budget", a->budget, "evaluations, the defaults' included (overrides the spec)");
  sub->add_option("--time-limit", a->time_limit_s, "seconds of tuning after which no new evaluation starts (0 = none)");
  sub->add_option("--strategy", a->strategy, "search strategy (see `adaexplore-tuner strategies`)");
  sub->add_option("--arch", a->arch, "cuda: target architecture, e.g. sm_90 (default: the detected GPU's)");
  sub->add_option("--jobs", a->jobs, "parallel compiles (default: number of cores)");
  sub->add_option("--device", a->device, "cuda: CUDA device index to tune on (default 0)");
  sub->add_flag("--fresh", a->fresh, "move an existing results file aside and start over");
  sub->add_flag("--quiet", a->quiet, "no progress lines");
  auto* seed = sub->add_option("--seed", a->seed, "random seed (overrides the spec); same seed and outcomes, same proposals");
  return {sub, [a, seed] {
            a->seed_given = seed->count() > 0;
            return run_tune(*a);
          }};
}

Command register_defaults_command(CLI::App& app) {
  auto spec_file = std::make_shared<std::string>();
  auto header = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>("no tuning was run");
  auto* sub = app.add_subcommand("defaults", "Write the header of the spec's defaults, marked NOT TUNED (kTuned = false).");
  sub->add_option("--spec", *spec_file, "tuning spec (JSON)")->required()->check(CLI::ExistingFile);
  sub->add_option("--header", *header, "header to write (default <work_dir>/<name>.hpp)");
  sub->add_option("--reason", *reason, "why no tuning happened; written into the header's comment");
  return {sub, [spec_file, header, reason] {
            Spec spec = load_spec(*spec_file);
            HeaderInfo info;
            info.kernel = spec.name;
            info.name_space = spec.name_space;
            info.source = "defaults";
            info.reason = *reason;
            info.backend = spec.backend;
            const auto path = default_path(spec, *header, spec.name + ".hpp");
            const bool wrote = write_file_if_changed(path, render_header(spec.space, spec.defaults, info));
            std::cout << "[adaexplore] " << spec.name << ": defaults header " << path.string()
                      << (wrote ? " written" : " unchanged") << std::endl;
            return kExitOk;
          }};
}

}  // namespace adaexplore
