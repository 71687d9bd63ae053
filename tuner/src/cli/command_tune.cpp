// `tune`: run a tuning from a spec, append to the results file (or the tuning database), write
// the header; `tune --cached`: the header from the database's stored winner, evaluating nothing.
// `defaults`: write the header of the spec's defaults (no GPU, no tuning), saying why.
// Both are adapters over configure_kernel (configure/configure_kernel.hpp); `tune --mpi` is in
// command_tune_mpi.cpp.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/tune_args.hpp"
#include "evaluate/render.hpp"
#include "util/cpus.hpp"

namespace adaexplore {

Spec tuning_spec(const TuneArgs& a) {
  Spec spec = load_spec(a.spec);
  if (a.budget) spec.budget_evaluations = a.budget;
  if (a.seed_given) spec.seed = a.seed;
  if (!a.strategy.empty()) spec.strategy = a.strategy;
  if (a.jobs) spec.jobs = a.jobs;
  if (a.time_limit_s >= 0) spec.budget_seconds = a.time_limit_s;
  if (!a.arch.empty()) spec.compiler.arch = a.arch;
  check_template(template_text(spec), spec.template_path, spec.space);
  return spec;
}

Request tuning_request(const TuneArgs& a) {
  Request r;
  r.header = a.header;
  r.results = a.results;
  r.database = a.database;
  r.generated.assign(a.generated.begin(), a.generated.end());
  r.devices = a.devices;
  r.warm_start = a.warm_start;
  r.confirm_rounds = a.confirm_rounds;
  r.confirm_margin = a.confirm_margin;
  r.in_flight = a.in_flight;
  r.size_transfer = a.size_transfer == "winners" ? SizeTransferMode::winners : SizeTransferMode::model;
  r.fresh = a.fresh;
  r.retune = a.retune;
  r.cached = a.cached;
  r.quiet = a.quiet;
  r.report = a.report;
  r.chartjs = a.chartjs;
  r.no_report = a.no_report;
  r.profile = a.profile;
  r.profile_time_limit_s = a.profile_time_limit_s;
  r.cluster = a.cluster;
  return r;
}

int exit_code_of(Ending ending) {
  switch (ending) {
    case Ending::header_written: return kExitOk;
    case Ending::no_device: return kExitNoGpu;
    case Ending::tuning_failed: return kExitTuningFailed;
    case Ending::no_result: return kExitNoResult;
    case Ending::bad_input: return kExitBadInput;
    case Ending::environment: return kExitEnvironment;
  }
  return kExitBadInput;
}

int run_tune_here(const TuneArgs& a) {
  const Spec spec = tuning_spec(a);
  Messages messages{std::cout, std::cerr};
  return exit_code_of(configure_kernel(spec, tuning_request(a), messages).ending);
}

namespace {

// A process an MPI launcher (mpirun, mpiexec, srun) started as one of several ranks: "rank R of N
// (VARIABLE=N)", or "" when it is not one of several. The launchers' own variables: OpenMPI's
// OMPI_COMM_WORLD_*, MPICH's and Intel MPI's PMI_*, Slurm's SLURM_PROCID with the step's task count
// (not SLURM_NTASKS: a batch script's own step has it too).
std::string launched_rank() {
  static const char* const kVariables[][2] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}};
  for (const auto& v : kVariables) {
    const char* rank = std::getenv(v[0]);
    const char* size = std::getenv(v[1]);
    if (!rank || !size || std::atol(size) < 2) continue;
    return "rank " + std::string(rank) + " of " + size + " (" + v[1] + "=" + size + ")";
  }
  return "";
}

int run_tune(const TuneArgs& a) {
  if (const std::string narrow = narrow_cpu_mask_warning(); !narrow.empty() && !a.cached)
    std::cerr << "[adaexplore] warning: " + narrow + "\n" << std::flush;  // one write: ranks share stderr
  if (a.mpi) return run_tune_mpi(a);
  if (const std::string rank = launched_rank(); !rank.empty())  // one write: the ranks share the terminal
    std::cerr << "[adaexplore] warning: this tuner is " + rank +
                     " of a job an MPI launcher started, without --mpi: every rank tunes the whole space on its own, "
                     "in a work folder of its own, measuring beside the others (their timings disturb each other) "
                     "and appending to the same results; for one tuning spread over the ranks, add --mpi "
                     "(docs/cluster.md)\n"
              << std::flush;
  return run_tune_here(a);
}

// --spec and where the results, the database and the header go; resume and warm start.
void add_place_options(CLI::App* sub, TuneArgs* a) {
  sub->add_option("--spec", a->spec, "tuning spec (JSON; format in tuner/src/model/spec.hpp and docs/)")->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--header", a->header, "header to write (default <work_dir>/<name>.hpp); rewritten only when its content changes");
  sub->add_option("--generated", a->generated,
                  "a folder of tuned headers (repeatable; the CMake module gives its build tree's): headers under it, "
                  "like the --header file itself, are outputs and left out of the results' key when the template or "
                  "the benchmark includes them");
  auto* results = sub->add_option(
      "--results", a->results,
      "results file, JSON Lines, appended per evaluation (default <work_dir>/results.jsonl); an existing file with "
      "the same key is resumed, one with another key moved aside as <file>.<key first 12 hex>-<UTC time>. A spec "
      "with \"sizes\": one file per size, R.<size>.jsonl (R=results.jsonl: results.M512_N512_K512.jsonl; default "
      "<work_dir>/size-<size>/results.jsonl)");
  auto* database = sub->add_option(
      "--database", a->database,
      "tuning database folder shared by build trees, created when missing: DIR/<name>/<key first 16 hex>.jsonl, "
      "one results file per key (format of --results), each with a lock file beside it (<file>.lock, made by writers) taken per "
      "append and per read, so tunings may run into one DIR at once. Resumes the key's file; warm-starts from the "
      "kernel's other keys (see --warm-start). Not with --results");
  database->excludes(results);
  auto* fresh = sub->add_flag("--fresh", a->fresh,
                              "move an existing results file aside (as <file>.<key first 12 hex>-<UTC time>) and start over; "
                              "with --database the same as --retune");
  auto* retune = sub->add_flag("--retune", a->retune,
                               "with --database: move the key's stored results aside as <file>.retune-<UTC "
                               "YYYYMMDDTHHMMSSZ> (kept, never deleted) and tune again");
  retune->needs(database);
  auto* cached = sub->add_flag(
      "--cached", a->cached,
      "with --database: evaluate nothing; write the header from the key's stored winner. Exit 3 with a one-line "
      "reason on stderr when the database holds no successful result for the key (or, cuda, there is no GPU to "
      "compute the key with)");
  cached->needs(database)->excludes(retune)->excludes(fresh);
  sub->add_option("--warm-start", a->warm_start,
                  "with --database: evaluate up to N configurations right after the defaults, the best of the "
                  "kernel's other keys (another GPU, an edited template or space), round-robin over those keys; "
                  "the log says how many and from which devices. 0 = off")
      ->default_val(4);
}

// The search: budget, time limit, strategy, architecture, parallelism, GPUs. Returns --device.
CLI::Option* add_search_options(CLI::App* sub, TuneArgs* a) {
  sub->add_option("--budget", a->budget,
                  "evaluations: distinct configurations in the key's results, the defaults', failed and resumed ones "
                  "included (overrides the spec); a tuning can end earlier, space exhausted (docs/outcomes.md). With "
                  "\"sizes\": the budget of a size tuned while no other has a successful result; the others get "
                  "sizes.budget (default ceil(budget / 3)), and each winner verified at another size is one more "
                  "evaluation there (docs/sizes.md)");
  sub->add_option("--time-limit", a->time_limit_s,
                  "seconds of tuning after which no compile or measurement starts; running measurements still count, "
                  "near-ties are not re-measured (0 = none)");
  sub->add_option("--strategy", a->strategy, "search strategy (see `adaexplore-tuner strategies`)");
  sub->add_option("--arch", a->arch, "cuda: target architecture, e.g. sm_90 (default: the detected GPU's)");
  sub->add_option("--jobs", a->jobs, "parallel compiles (default: the CPUs this process may run on, its affinity mask: mpirun --bind-to core leaves one, and a warning says so)");
  sub->add_option("--in-flight", a->in_flight,
                  "configurations in flight at most (queued, compiling, compiled and waiting, measuring; "
                  "overrides the spec's in_flight); each of the strategy's proposals is made without the "
                  "outcomes of those (the defaults and a warm start are queued at once regardless). Default: "
                  "as many as keep the GPUs busy, ceil(1.5 x compile time / measurement time) + 1 per GPU "
                  "from the mean wall times of the last 32 evaluations, 8 until the first outcome, at most "
                  "jobs + the GPUs measuring and, once the first outcome is in, at most "
                  "ceil(budget / 8) + the GPUs - 1 (the budget of the size being tuned; one GPU at a budget "
                  "of 25: 4), so that a small tuning's proposals know most outcomes; jobs + 1 on one GPU "
                  "keeps every compile worker busy (most throughput, least informed proposals); fewer than "
                  "the GPUs + 1 leaves GPUs idle")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  sub->add_option("--size-transfer", a->size_transfer,
                  "a spec with \"sizes\": how a size tuned after others starts, right after the defaults. model "
                  "(default): the strategy's performance model is fitted on the other sizes' evaluations with their "
                  "sizes (and, with --database, on the kernel's other sizes stored there for this device) and the "
                  "sizes.warm_start configurations it predicts fastest at this size are evaluated first (adaexplore "
                  "alternates its picks with the other sizes' best); its surrogate keeps fitting the other sizes too. "
                  "winners: the other sizes' best configurations, nearest size first, and a model of this size's "
                  "evaluations alone (the tuning before 2026-12-06). A strategy without a performance model (random, "
                  "ga) starts from the winners either way. The log's \"start:\" line says which start was used; "
                  "each configuration of the model's start records its prediction in extra.model (docs/sizes.md)")
      ->check(CLI::IsMember({"model", "winners"}));
  return sub->add_option("--device", a->devices,
                  "cuda: CUDA device index to tune on (default 0), recorded in the results with the GPU's UUID and "
                  "PCI bus id; not part of the key: GPUs of one model share results, other models never. Several "
                  "(--device 0,1): one measuring worker per GPU, configurations measured on them at once after the "
                  "defaults, each benchmark seeing only its GPU (CUDA_VISIBLE_DEVICES), each outcome naming it "
                  "(extra.device); the GPUs must be of one model. With --mpi: each rank's GPUs (default: the rank's "
                  "local rank on its node, one rank per GPU)")
      ->delimiter(',');
}

// --mpi and its heartbeat timeout.
void add_mpi_options(CLI::App* sub, TuneArgs* a) {
  sub->add_flag("--mpi", a->mpi,
                "one tuning over the ranks of an MPI job: start this command with mpirun or srun; rank 0 runs the "
                "search and writes the results (or the database), the report and the header, every rank (rank 0 "
                "too) compiles and measures configurations on its own GPUs (--device) and its own work folder "
                "<work_dir>/mpi-rank-<N>; each outcome names its rank (extra.mpi). Every rank must compute the same "
                "key (GPU model, spec, sources, toolchain), else the tuning stops naming the ranks that differ. A "
                "rank not heard from for --mpi-timeout seconds is dropped and its configurations are compiled and "
                "measured elsewhere; OpenMPI's mpirun needs --enable-recovery for the job to outlive a dead rank. "
                "docs/cluster.md");
  sub->add_option("--mpi-timeout", a->mpi_timeout_s,
                  "--mpi: seconds without a heartbeat (each rank sends one every second, or every quarter of this below 4 s) after which rank 0 drops a "
                  "worker rank, and a worker rank stops for want of rank 0 (default 60)")
      ->check(CLI::Range(0.5, 86400.0));
}

// Progress, the report and the profile.
void add_report_options(CLI::App* sub, TuneArgs* a) {
  sub->add_flag("--quiet", a->quiet, "no progress lines");
  auto* report = sub->add_option(
      "--report", a->report,
      "the tuning report (one self-contained HTML file; `adaexplore-tuner report --help` says what it shows) to "
      "write after the tuning, also when nothing succeeded. Default: beside the results, <results without "
      ".jsonl>.report.html; a spec with \"sizes\": PATH.<size>.html per size");
  sub->add_flag("--no-report", a->no_report, "write no report")->excludes(report);
  sub->add_option("--chartjs", a->chartjs,
                  "Chart.js to inline into the report (default: $ADAEXPLORE_CHARTJS, else Debian's libjs-chart.js, "
                  "/usr/share/javascript/chart.js/chart.min.js, else the Chart.js 3.9.1 compiled into the tuner, "
                  "third_party/chartjs/)")
      ->check(CLI::ExistingFile);
  sub->add_flag("--profile", a->profile,
                "after the search (never during it), profile the winner, the defaults and up to 3 finalists once "
                "each with Nsight Compute (ncu: $ADAEXPLORE_NCU, PATH, or beside the compiler), one launch of the "
                "tuned kernel each with --clock-control none; the counters (DRAM throughput, achieved occupancy, "
                "warp stall reasons, shared-memory bank conflicts, ...) go beside the results, as one batch in "
                "<results>.profiles.ndjson, and into the report. Skipped when the newest batch holds a successful "
                "profile of this winner; without ncu a warning, and the report says so. A spec with \"sizes\": "
                "each size's crowned winner, after the verification rounds");
  sub->add_option("--profile-time-limit", a->profile_time_limit_s,
                  "seconds after which no further configuration starts profiling (default 180; 0: no limit); one "
                  "started finishes, each of its ncu runs within 120 s. A configuration costs a compile and one "
                  "ncu run: 3.1 to 3.9 s each for the gemm example on an H200")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

Command register_tune_command(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto* sub = app.add_subcommand(
      "tune",
      "Tune the kernel a spec describes; write the results file (or the tuning database) and the header.\n"
      "Exit codes: 0 header written or unchanged; 1 bad input (spec, template, a corrupt or foreign results\n"
      "file: the message names the file, the line and the `mv` command that moves it aside); 2 no\n"
      "configuration compiled, ran and verified, or the setup is broken (a header an earlier tuning wrote at\n"
      "--header is then removed: it no longer matches the sources); 3 no CUDA GPU for a cuda tuning, or\n"
      "(--cached) no successful result stored for the key; 5 the environment, not the input: a file or folder\n"
      "could not be created, written or locked (permissions, a full disk, a --database that is a file; the\n"
      "evaluations already measured are kept).\n"
      "Every evaluation ends in one status: ok, slow, compile_error, resource_limit, launch_error, crash,\n"
      "wrong_result or timeout (a compile over compiler.timeout_s: extra.timeout_stage \"compile\"; a run over\n"
      "its time limit: \"run\"). What produces each status, the results record's fields, how a tuning ends\n"
      "(budget, time limit, space exhausted) and the header's comment: docs/outcomes.md.");
  add_place_options(sub, a.get());
  CLI::Option* device = add_search_options(sub, a.get());
  add_mpi_options(sub, a.get());
  add_report_options(sub, a.get());
  sub->add_option("--confirm-rounds", a->confirm_rounds,
                  "near-ties: after a tuning with new evaluations, the configurations whose median is within "
                  "--confirm-margin of the best one's (at most 4) are measured again, interleaved, this many "
                  "rounds; the lowest median of round medians wins (written beside the results file as "
                  "<results>.confirmation.json, also read by --cached and `header`; the results file keeps the "
                  "tuning's measurements). 0 = off")
      ->default_val(3);
  sub->add_option("--confirm-margin", a->confirm_margin,
                  "near-tie margin as a fraction of the best median (0.03 = 3 %; 1 = within 2x)")
      ->default_val(0.03)
      ->check(CLI::Range(0.0, 100.0));
  auto* seed = sub->add_option("--seed", a->seed, "random seed (overrides the spec); same seed and outcomes, same proposals");
  return {sub, [a, seed, device] {
            a->seed_given = seed->count() > 0;
            a->devices_given = device->count() > 0;
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
            Messages messages{std::cout, std::cerr};
            write_defaults_header(load_spec(*spec_file), *header, *reason, messages);
            return kExitOk;
          }};
}

}  // namespace adaexplore
