// `tune`: run a tuning from a spec, append to the results file (or the tuning database), write
// the header; `tune --cached`: the header from the database's stored winner, evaluating nothing.
// `defaults`: write the header of the spec's defaults (no GPU, no tuning), saying why.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "evaluate/backends.hpp"
#include "cluster/cluster.hpp"
#include "cluster/mpi_transport.hpp"
#include "cluster/worker.hpp"
#include "cli/commands.hpp"
#include "emit/header_info.hpp"
#include "loop/confirm.hpp"
#include "loop/crown.hpp"
#include "store/database.hpp"
#include "store/key.hpp"
#include "store/warm_start.hpp"
#include "learn/failure_summary.hpp"
#include "emit/header.hpp"
#include "evaluate/profile.hpp"
#include "evaluate/render.hpp"
#include "emit/report.hpp"
#include "model/sizes.hpp"
#include "model/spec.hpp"
#include "loop/tuner.hpp"
#include "util/text.hpp"
#include "util/cpus.hpp"
#include "util/files.hpp"
#include "store/profiles.hpp"

namespace adaexplore {
namespace {

// One line on the pipeline depth (TuneReport::in_flight): the limit on configurations in flight
// at the end of the tuning, and why.
std::string pipeline_line(const TuneReport& r, std::size_t jobs) {
  char rates[200];
  std::snprintf(rates, sizeof rates,
                "a compile of %.2f s and a measurement of %.2f s per configuration (means over the last %zu new "
                "evaluations measured after the defaults)",
                r.mean_prepare_ms / 1000, r.mean_measure_ms / 1000, r.rate_samples);
  std::string line = "pipeline: at most " + std::to_string(r.in_flight) +
                     (r.in_flight == 1 ? " configuration" : " configurations") +
                     " in flight (queued, compiling, waiting or measuring; " + std::to_string(jobs) +
                     " compile workers)";
  if (!r.in_flight_automatic) return line + ", as asked (--in-flight, or the spec's in_flight); " + rates;
  line += " at the end of the tuning, a limit that follows the measured times";
  const std::string pin = "; --in-flight N (CMake: IN_FLIGHT N) pins it";
  if (r.mean_measure_ms <= 0)
    return line + ": every compile worker busy, since none of the last " + std::to_string(r.rate_samples) +
           " new evaluations reached the measurement" + pin;
  if (r.in_flight_every_worker)
    return line + ": every compile worker busy, since the compiles are the bottleneck at " + rates + pin;
  return line + ": enough to keep the measurements busy at " + rates + pin;
}

struct TuneArgs {
  std::string spec, header, results, database, strategy, arch;
  std::vector<std::string> generated;  // --generated: tuned headers' folders, outputs left out of the key
  std::size_t budget = 0, jobs = 0, warm_start = 4, confirm_rounds = 3, in_flight = 0;
  double confirm_margin = 0.03;
  std::uint64_t seed = 0;
  bool seed_given = false;
  double time_limit_s = -1;
  std::vector<int> devices = {0};
  bool fresh = false, retune = false, cached = false, quiet = false;
  // The report (report.hpp): written beside each results file unless no_report; --report PATH
  // names it (a spec with sizes: PATH.<size>.html).
  std::string report, chartjs;
  bool no_report = false;
  // Staged profiling (profile.hpp): after the search, ncu on the winner, the defaults and up to 3
  // finalists, within profile_time_limit_s.
  bool profile = false;
  double profile_time_limit_s = 180;
  // A kernel with sizes: its keys' tunings leave the profile and the report to the end
  // (run_sized_tune), when every size's crowned winner is known.
  bool defer_finish = false;
  // --mpi: one tuning over the ranks of an MPI job (cluster/cluster.hpp, docs/cluster.md).
  bool mpi = false;
  double mpi_timeout_s = 60;
  bool devices_given = false;  // --device given (else, with --mpi, the rank's local rank: run_tune_mpi)
  Coordinator* cluster = nullptr;  // rank 0 of an --mpi tuning: its workers
};

std::filesystem::path default_path(const Spec& spec, const std::string& given, const std::string& leaf) {
  return given.empty() ? spec.work_dir / leaf : std::filesystem::path(given);
}

// Without --database: a results file with another key (or any, with --fresh) is moved aside as
// "<file>.<its key's first 12 hex>-<UTC time>" (set_aside: never replaces an earlier one).
// Read and renamed under one lock (set_aside_if).
void move_aside_if_other_key(const std::filesystem::path& path, const Spec& spec, const std::string& key, bool fresh) {
  std::string theirs;
  const auto aside = set_aside_if(path, [&](const RawResults& file) -> std::string {
    theirs = file.header.key;
    if (!fresh && file.header.key == key) return "";
    return file.header.key.empty() ? "old" : file.header.key.substr(0, 12);
  });
  if (aside.empty()) return;  // none, this key's, or moved meanwhile
  std::cerr << "[adaexplore] " << spec.name << ": " << (fresh ? "--fresh given" : "spec, sources or device changed (key " +
                                                                  theirs + " -> " + key + ")")
            << "; earlier results kept in " << aside.string() << "\n";
}

// A results file of this key holding nothing but the failures of a broken setup (tuner.hpp
// setup_failures_only; written by a tuner that kept them): they are not configuration outcomes,
// and resumed they would be the defaults' outcome and every one's. Moved aside (kept) as
// "<file>.setup-error-<UTC time>"; the tuning starts the key afresh.
// The check and the rename hold the file's lock throughout (set_aside_if): another tuning of the
// key appending a success in between is never set aside with them.
void set_aside_setup_failures(const std::filesystem::path& path, const Spec& spec, const std::string& key) {
  ResultsFile file;
  const auto aside = set_aside_if(path, [&](const RawResults& raw) -> std::string {
    if (raw.header.key != key) return "";
    file = results_from_raw(raw, path, spec.space);
    return setup_failures_only(file.outcomes, TuneOptions().setup_failure_window) ? "setup-error" : "";
  });
  if (aside.empty()) return;
  std::cerr << "[adaexplore] " << spec.name << ": " << path.string() << " holds only the " << file.outcomes.size()
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

std::string device_words(const nlohmann::json& d) {
  std::string s = d.value("name", std::string("unknown device"));
  if (d.contains("compute_capability") && d["compute_capability"].is_string())
    s += ", compute capability " + d["compute_capability"].get<std::string>();
  return s;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::cerr << "[adaexplore] warning: " << w << "\n";
}

// --cached: the header from the key's stored winner; nothing is evaluated.
int run_cached(const TuneArgs& a, const Spec& spec, const ResultsHeader& header, const std::filesystem::path& path) {
  const std::string where = "adaexplore-tuner tune --cached: " + spec.name + ": the tuning database " + a.database;
  const std::string key_words = "key " + header.key.substr(0, 16) + " (" + device_words(header.device) + ")";
  if (!std::filesystem::exists(path) || std::filesystem::file_size(path) == 0) {
    std::cerr << where << " holds no results for " << key_words << "; nothing evaluated, no header written\n";
    return kExitNoResult;
  }
  const ResultsFile stored = read_results(path, spec.space);
  if (stored.header.key != header.key)
    throw ResultsError(path.string() + ":1: holds key " + stored.header.key + ", this tuning has key " + header.key +
                       "; move it aside (" + move_aside_command(path) + ")");
  print_warnings(stored.warnings);
  const auto best = crown(stored.outcomes, {path, header.key});  // the tuning's near-tie verdict too
  if (!best) {
    std::cerr << where << " holds " << stored.outcomes.size() << " evaluations for " << key_words
              << ", none successful; no header written\n";
    return kExitNoResult;
  }
  const HeaderInfo info = stored_header_info(spec, stored, spec.strategy, spec.seed, path);
  const auto header_path = default_path(spec, a.header, spec.name + ".hpp");
  const bool wrote = write_file_if_changed(header_path, render_header(spec.space, best->config, info));
  std::cout << "[adaexplore] " << spec.name << ": cached: best " << best->label << " " << *best->objective << " ms ("
            << stored.outcomes.size() << " evaluations stored in " << path.string() << "); header "
            << header_path.string() << (wrote ? " written" : " unchanged") << std::endl;
  return kExitOk;
}

// --database: the best configurations of the kernel's other keys (of the same problem size),
// evaluated after the defaults.
std::vector<Config> database_warm_start(const TuneArgs& a, const Spec& spec, const ResultsHeader& header,
                                        const std::vector<Outcome>& measured) {
  if (a.warm_start == 0) return {};
  std::vector<std::string> problems;
  std::vector<StoredKey> keys = stored_keys(a.database, spec.name, &problems);
  for (const auto& p : problems) std::cerr << "[adaexplore] warning: warm start skips " << p << "\n";
  // A kernel with sizes: only keys of the same size (another GPU); the other sizes' keys of this
  // GPU are the sizes' transfer (run_sized_tune), in their nearest-first order.
  const nlohmann::json size = header.key_parts.value("size", nlohmann::json());
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const StoredKey& k) { return k.raw.header.key_parts.value("size", nlohmann::json()) != size; }),
             keys.end());
  const WarmStart ws = warm_start(keys, header.key, header.device, spec.space, a.warm_start, measured);
  if (!ws.configs.empty()) std::cout << "[adaexplore] " << spec.name << ": warm start: " << ws.describe() << std::endl;
  return ws.configs;
}

// Near-ties decided by interleaved re-measurement (confirm.hpp), not by one sample each. The
// verdict is kept beside the results file (confirmation_path: <results>.confirmation.json, in the
// tuning database too) with the results' key: a later run of the same key that evaluates nothing
// new (a reconfigure), `tune --cached` and `header --database` crown the same winner with the same
// figure (crown), so the header stays byte-identical; a run with new evaluations confirms
// afresh (or, with --confirm-rounds 0 or past the time limit, drops the old verdict).
void confirm_winner(const TuneArgs& a, const std::string& label, const std::filesystem::path& results,
                    const std::string& key, Backend& backend, TuneReport& report) {
  if (!report.best) return;
  const auto path = confirmation_path(results);
  if (report.new_evaluations == 0) {
    report.best = crown(report.outcomes, {results, key});
    return;
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (a.confirm_rounds == 0 || report.stop_reason == "time limit") return;
  ConfirmOptions confirm;
  confirm.rounds = a.confirm_rounds;
  confirm.margin = a.confirm_margin;
  const auto contenders = near_ties(report.outcomes, confirm);
  if (contenders.empty()) return;
  // Over MPI, on rank 0's own GPU: the contenders are compared on one GPU, not on as many as ranks.
  auto* cluster = dynamic_cast<ClusterBackend*>(&backend);
  const Confirmation c = confirm_near_ties(cluster ? cluster->local() : backend, contenders, confirm);
  std::cout << "[adaexplore] " << label << ": " << contenders.size() << " configurations within "
            << confirm.margin * 100 << " % of the best, re-measured interleaved in " << confirm.rounds
            << " rounds:" << std::endl;
  for (const auto& line : c.describe()) std::cout << "[adaexplore] " << label << ": " << line << "\n";
  nlohmann::json verdict = c.to_json();
  verdict["key"] = key;
  try {
    write_file_if_changed(path, verdict.dump(2) + "\n");
  } catch (const std::exception& e) {
    // What was measured stands: the header crowns this verdict; only later readings lack it.
    std::cerr << "[adaexplore] " << label << ": warning: the near-tie verdict is not kept: " << e.what()
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

// The spec of `tune`: the file's, with the command line's overrides.
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

// The GPUs of --device (cuda) into `devices`; "" or, when one is missing, why ("no CUDA GPU 1 to
// tune on: ...").
std::string find_tuning_devices(const TuneArgs& a, const Spec& spec, std::vector<DeviceInfo>& devices) {
  if (spec.backend != "cuda") return "";
  for (int index : a.devices) {
    const DeviceInfo device = query_device(index);
    if (!device.present) return "no CUDA GPU " + std::to_string(index) + " to tune on: " + device.reason;
    for (const auto& other : devices)
      if (other.index == device.index)
        throw std::runtime_error("--device " + std::to_string(index) + " is given twice; give each GPU once");
    devices.push_back(device);
  }
  return "";
}

// The GPUs of --device (cuda); false, having said why, when one is missing.
bool tuning_devices(const TuneArgs& a, const Spec& spec, std::vector<DeviceInfo>& devices) {
  const std::string missing = find_tuning_devices(a, spec, devices);
  if (missing.empty()) return true;
  std::cerr << "adaexplore-tuner tune: " << missing;
  if (!a.cached) std::cerr << "\n  (use `adaexplore-tuner defaults` or a pinned header on machines without a GPU)";
  std::cerr << "\n";
  return false;
}

std::unique_ptr<Backend> local_backend(const Spec& spec, const std::vector<DeviceInfo>& devices) {
  if (spec.backend == "cuda") return make_cuda_backend(spec, devices);
  return make_host_backend(spec);
}

// The results file's header line of this tuning (its key, device, strategy, start) and where the
// results go; `includes`: included_headers().
struct KeyPlace {
  ResultsHeader header;
  std::filesystem::path results;
  std::string leaf;  // the size's slug for a spec with sizes ("M512_N512_K512"), else empty
};

// The headers the template and the benchmark include, for the key (Backend::included_headers).
// The tuned headers are outputs, never inputs: this tuning's, and (--generated) the folders of
// the build tree's tuned headers, other kernels' included, stay out of the key even when the
// template or the benchmark includes one (a library header that includes its own tuned header:
// else every tuning that changes it would set its own results aside).
nlohmann::json included_headers(const TuneArgs& a, Backend& backend, const std::filesystem::path& header_path) {
  std::vector<std::filesystem::path> outputs = {std::filesystem::absolute(header_path)};
  for (const auto& g : a.generated) outputs.push_back(std::filesystem::absolute(g));
  return backend.included_headers(outputs);
}

// What a rank of an --mpi tuning says of its backend for a setup of `spec` (the key's parts, as
// key_place computes them, but with the headers of the size's default header path on every rank).
nlohmann::json cluster_hello(const TuneArgs& a, const Spec& spec, Backend& backend, const std::vector<DeviceInfo>& devices) {
  const auto header_path = default_path(spec, a.header, spec.name + ".hpp");
  const nlohmann::json includes = included_headers(a, backend, header_path);
  std::vector<std::string> gpus;
  for (const auto& d : devices) gpus.push_back(d.uuid);
  return {{"key_parts", key_parts(spec, backend.name(), backend.device(), includes)},
          {"device", backend.device()},
          {"gpus", gpus}};
}

// Two ranks measuring on one GPU would disturb each other's timings: refused, naming them.
void check_cluster_gpus(const nlohmann::json& mine, const std::string& host0, const std::vector<WorkerHello>& workers) {
  std::vector<std::tuple<int, std::string, std::vector<std::string>>> ranks;
  ranks.emplace_back(0, host0, mine.value("gpus", std::vector<std::string>{}));
  for (const auto& w : workers) ranks.emplace_back(w.rank, w.host, w.body.value("gpus", std::vector<std::string>{}));
  const std::vector<std::string> shared = shared_gpus(ranks);
  if (shared.empty()) return;
  std::string what;
  for (const auto& line : shared) what += "\n  " + line;
  throw std::runtime_error("--mpi: ranks would measure on the same GPU, and disturb each other's timings:" + what +
                           "\n  Give each rank its own GPUs: one rank per GPU without --device (each takes the GPU "
                           "of its local rank), Slurm's --gpus-per-task=1 with --device 0, or one rank per node with "
                           "--device 0,1,... (docs/cluster.md). Nothing was evaluated.");
}

// The ranks whose hellos differ from rank 0's key: refused with an error naming them, their
// hosts and devices, and what to do.
void check_cluster_keys(const nlohmann::json& mine, const std::string& host0, const std::vector<WorkerHello>& workers) {
  std::string differ;
  for (const auto& w : workers) {
    const nlohmann::json theirs = w.body.value("key_parts", nlohmann::json::object());
    if (theirs == mine["key_parts"]) continue;
    const nlohmann::json their_device = w.body.value("device", nlohmann::json::object());
    std::string what;
    if (device_key_part(their_device) != device_key_part(mine["device"])) {
      std::vector<std::string> fields;
      const nlohmann::json ours = device_key_part(mine["device"]), others = device_key_part(their_device);
      for (auto it = ours.begin(); it != ours.end(); ++it) {
        const auto other = others.find(it.key());
        if (other == others.end() || *other != it.value()) fields.push_back(it.key());
      }
      for (auto it = others.begin(); it != others.end(); ++it)
        if (ours.find(it.key()) == ours.end()) fields.push_back(it.key());
      what = "device " + their_device.dump() + " (differs in";
      for (const auto& f : fields) what += " " + f;
      what += ")";
    } else {
      const std::string content = differing_content(theirs, mine["key_parts"]);
      what = "the same device, but other " + (content.empty() ? std::string("key parts (headers, size or backend)") : content + " files");
    }
    differ += "\n  MPI rank " + std::to_string(w.rank) + " (" + w.host + "): " + what;
  }
  if (differ.empty()) return;
  throw std::runtime_error(
      "--mpi: these ranks would measure for another tuning key than rank 0 (" + host0 + ", device " +
      mine["device"].dump() + "):" + differ +
      "\n  Only GPUs of one model (a host kernel: one CPU model and compiler version), with the same spec, "
      "template, benchmark, headers and toolchain (the spec's compiler.path, by its --version), are combined in "
      "one tuning. Run one job per GPU model (Slurm: --constraint or a partition of one model) into one --database "
      "folder; `adaexplore-tuner header --database` then writes a header that selects each model's winner "
      "(docs/cluster.md). Nothing was evaluated.");
}

// The backend of a tuning of `spec`: this process's, or (rank 0 of --mpi) one over the ranks of
// the job, each with a backend of its own for this spec (the worker's run_worker), checked to
// share this key.
std::unique_ptr<Backend> tuning_backend(const TuneArgs& a, const Spec& spec, const std::vector<DeviceInfo>& devices) {
  std::unique_ptr<Backend> local = local_backend(spec, devices);
  if (!a.cluster) return local;
  nlohmann::json setup = {{"size", spec.size ? spec.sizes.to_json(*spec.size) : nlohmann::json()}};
  std::vector<WorkerHello> workers = open_session(*a.cluster, setup);
  const nlohmann::json mine = cluster_hello(a, spec, *local, devices);
  check_cluster_keys(mine, a.cluster->host(), workers);
  check_cluster_gpus(mine, a.cluster->host(), workers);
  if (spec.backend != "cuda") {  // a CPU kernel: ranks on one host measure on the same cores
    std::map<std::string, std::vector<int>> by_host = {{a.cluster->host(), {0}}};
    for (const auto& w : workers) by_host[w.host].push_back(w.rank);
    for (const auto& [host, ranks] : by_host) {
      if (ranks.size() < 2) continue;
      std::string list;
      for (int r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
      std::cerr << "[adaexplore] warning: --mpi: ranks " << list << " share the CPU of " << host
                << ": a " << spec.backend << " kernel's measurements there run beside the other ranks' compiles and "
                << "measurements and are slowed by them; for figures to trust, one rank per node (docs/cluster.md)"
                << std::endl;
    }
  }
  return std::make_unique<ClusterBackend>(std::move(local), *a.cluster, std::move(workers), spec.space);
}

KeyPlace key_place(const TuneArgs& a, const Spec& spec, Backend& backend, const nlohmann::json& includes,
                   const std::string& results_leaf) {
  KeyPlace place;
  place.leaf = results_leaf;
  place.header = tuning_header(spec, backend.name(), backend.device(), includes);
  const ResultsHeader& header = place.header;
  place.results = !a.database.empty() ? database_file(a.database, spec.name, header.key)
                                      : default_path(spec, a.results, "results.jsonl");
  if (a.database.empty() && !a.results.empty() && !results_leaf.empty())  // --results R, sizes: R.<size>.jsonl
    place.results = place.results.parent_path() / (place.results.stem().string() + "." + results_leaf +
                                                   place.results.extension().string());
  return place;
}

// What a tuning of one key takes besides the spec: the other sizes' transfer (sizes.hpp).
struct KeyExtras {
  std::vector<Config> warm_start;  // evaluated right after the defaults (after the database's)
  std::vector<Outcome> prior;      // StrategyOptions::prior
  bool database_warm_start = true; // also the database's other keys (--warm-start)
};

// The outcome of `config` among `outcomes`, or none.
const Outcome* outcome_of(const std::vector<Outcome>& outcomes, const Config& config) {
  const auto it = std::find_if(outcomes.begin(), outcomes.end(), [&](const Outcome& o) { return o.config == config; });
  return it == outcomes.end() ? nullptr : &*it;
}

// Where the report of `results` goes: --report (with the size's leaf for a spec with sizes), else
// beside the results (report_path_for).
std::filesystem::path report_path(const TuneArgs& a, const std::filesystem::path& results, const std::string& leaf) {
  if (a.report.empty()) return report_path_for(results);
  std::filesystem::path p = a.report;
  if (leaf.empty()) return p;
  return p.parent_path() / (p.stem().string() + "." + leaf + p.extension().string());
}

// The report of one key's results (report.hpp), written after its tuning, with `winner` (the
// crowned one) when given; a report that cannot be written is a warning (the tuning and its
// results stand).
void write_tuning_report(const TuneArgs& a, const Spec& spec, const KeyPlace& place, const std::string& label,
                         const std::string& profile_note, const std::optional<Outcome>& winner) {
  if (a.no_report) return;
  const auto out = report_path(a, place.results, place.leaf);
  try {
    ReportInput input = report_input_from_results(spec, place.results);
    if (winner) input.winner = winner;
    if (input.profiles.empty()) input.profile_note = profile_note;
    const std::string note = write_report(input, out, find_chart_library(a.chartjs));
    if (!note.empty()) std::cerr << "[adaexplore] " << label << ": warning: " << note << "\n";
    std::cout << "[adaexplore] " << label << ": report " << out.string() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "[adaexplore] " << label << ": warning: no report written to " << out.string() << ": " << e.what()
              << "\n";
  }
}

// The configurations to profile: the winner, the defaults (when they succeeded) and up to 3
// finalists, the next fastest successes that could be crowned (not suspicious, not `excluded`).
std::vector<ProfileTarget> profile_targets_of(const Spec& spec, const Outcome& winner, const std::vector<Outcome>& outcomes,
                                              const std::set<Config>& excluded) {
  std::vector<ProfileTarget> targets = {{"winner", winner.config}};
  const Outcome* defaults = outcome_of(outcomes, spec.defaults);
  if (defaults && is_success(defaults->status) && defaults->config != winner.config)
    targets.push_back({"defaults", defaults->config});
  std::vector<const Outcome*> rest;
  for (const auto& o : outcomes)  // a success with a time the harness trusts (crown.hpp)
    if (o.config != winner.config && o.config != spec.defaults && !excluded.count(o.config) && crownable(o))
      rest.push_back(&o);
  std::stable_sort(rest.begin(), rest.end(), [](const Outcome* x, const Outcome* y) { return *x->objective < *y->objective; });
  for (std::size_t i = 0; i < rest.size() && i < 3; ++i)
    targets.push_back({"finalist " + std::to_string(i + 2), rest[i]->config});
  return targets;
}

// Staged profiling (--profile): after the search, ncu on the winner, the defaults and up to 3
// finalists, appended as one batch beside the results (store/profiles.hpp profiles_path). Only when the
// newest batch of the key has no successful profile of this winner (a reconfigure with nothing
// new profiles nothing; a failed one is tried again). `backend`: null when the tuning failed.
// Returns why there are no profiles, for the report, or "".
std::string profile_key(const TuneArgs& a, const Spec& spec, Backend* backend, const KeyPlace& place,
                        const std::string& label, const std::optional<Outcome>& winner, const std::vector<Outcome>& outcomes,
                        const std::set<Config>& excluded) {
  if (!a.profile) return "not asked for";
  if (!winner || !backend) return "no winner to profile";
  if (auto* cluster = dynamic_cast<ClusterBackend*>(backend)) backend = &cluster->local();  // profiled on rank 0
  auto* program = dynamic_cast<ProgramBackend*>(backend);
  if (!program) return "the " + backend->name() + " backend runs no program to profile";
  const std::string name = spec.space.label(winner->config);
  const nlohmann::json stored = latest_profile_batch(place.results, place.header.key);
  if (stored.is_object())
    for (const auto& p : stored["results"])
      if (p.value("role", "") == "winner" && p.value("label", "") == name && p.value("error", "").empty()) return "";
  std::optional<std::filesystem::path> ncu;
  try {
    ncu = find_ncu(spec.compiler.path);
  } catch (const std::exception& e) {
    std::cerr << "[adaexplore] " << label << ": warning: --profile: " << e.what() << "\n";
    return e.what();
  }
  if (!ncu) {
    const std::string why = "Nsight Compute (ncu) was not found on PATH, beside " + spec.compiler.path +
                            " or in $ADAEXPLORE_NCU";
    std::cerr << "[adaexplore] " << label << ": warning: --profile: " << why << "; not profiled\n";
    return why;
  }
  ProfileOptions options;
  options.ncu = *ncu;
  options.time_cap_s = a.profile_time_limit_s;
  const auto targets = profile_targets_of(spec, *winner, outcomes, excluded);
  std::cout << "[adaexplore] " << label << ": profiling " << targets.size() << " configurations with " << ncu->string()
            << " (none started after " << a.profile_time_limit_s << " s)" << std::endl;
  const auto results = profile_targets(*program, targets, options);
  nlohmann::json batch = nlohmann::json::array();
  for (const auto& r : results) {
    batch.push_back(to_json(r, spec.space));
    std::cout << "[adaexplore] " << label << ": profile of the " << r.role << " (" << r.label << "): "
              << (r.error.empty() ? "done in " + std::to_string(r.wall_s) + " s" : r.error) << std::endl;
  }
  append_profile_batch(place.results, place.header.key, batch);
  return "";
}

// After a key's tuning: its finalists profiled (--profile), then its report written, also when
// nothing succeeded (the report shows the failures). `winner`: the configuration the header
// crowns. Neither can fail the tuning: a problem is a warning.
void finish_key(const TuneArgs& a, const Spec& spec, Backend* backend, const KeyPlace& place, const std::string& label,
                const std::optional<Outcome>& winner, const std::vector<Outcome>& outcomes,
                const std::set<Config>& excluded = {}) {
  std::error_code ec;
  if (!std::filesystem::exists(place.results, ec)) return;  // stopped before anything was recorded
  std::string note;
  try {
    note = profile_key(a, spec, backend, place, label, winner, outcomes, excluded);
  } catch (const std::exception& e) {  // the tuning and its results stand
    note = std::string("profiling failed: ") + e.what();
    std::cerr << "[adaexplore] " << label << ": warning: " << note << "\n";
  }
  write_tuning_report(a, spec, place, label, note, winner);
}

// One key tuned: resumed, evaluated up to the budget, near-ties confirmed. kExitOk with a
// winner in `report`, else the exit code, having said why.
int search_key(const TuneArgs& a, const Spec& spec, Backend& backend, KeyPlace& place, const KeyExtras& extras,
               const std::string& label, TuneReport& report) {
  ResultsHeader& header = place.header;
  const auto& results_path = place.results;
  const bool database = !a.database.empty();
  if (database && (a.retune || a.fresh)) {
    const auto aside = set_aside_for_retune(results_path);
    if (!aside.empty())
      std::cerr << "[adaexplore] " << label << ": --retune: earlier results of this key kept in " << aside.string()
                << "\n";
  } else if (!database) {
    move_aside_if_other_key(results_path, spec, header.key, a.fresh);
  }
  set_aside_setup_failures(results_path, spec, header.key);
  ResultsWriter writer(results_path, header, spec.space);
  const ResultsFile existing = writer.read_existing();
  print_warnings(existing.warnings);
  if (!existing.header.started.empty()) header.started = existing.header.started;  // the file's tuning start
  if (!existing.outcomes.empty()) {
    std::cerr << "[adaexplore] " << label << ": resuming from " << results_path.string() << " ("
              << existing.outcomes.size() << " evaluations already measured";
    if (existing.duplicates) std::cerr << "; " << existing.duplicates << " later records of the same configurations ignored";
    std::cerr << ")\n";
  }
  if (database)
    std::cout << "[adaexplore] " << label << ": tuning database " << a.database << ", key "
              << header.key.substr(0, 16) << " (" << device_words(header.device) << ")" << std::endl;

  StrategyOptions so;
  so.seed = spec.seed;
  so.budget = spec.budget_evaluations;
  so.options = spec.strategy_options;
  so.static_check = [&backend](const Config& c) { return backend.check_statically(c); };
  so.prior = extras.prior;
  auto strategy = make_strategy(spec.strategy, spec.space, so);

  TuneOptions options;
  options.kernel = label;
  options.budget = spec.budget_evaluations;
  options.time_limit_s = spec.budget_seconds;
  options.progress = a.quiet ? nullptr : &std::cout;
  options.warnings = &std::cerr;  // the same-timing gate, as it fires
  options.in_flight = a.in_flight ? a.in_flight : spec.in_flight;
  if (database && extras.database_warm_start)
    options.warm_start = database_warm_start(a, spec, header, existing.outcomes);
  options.warm_start.insert(options.warm_start.end(), extras.warm_start.begin(), extras.warm_start.end());
  try {
    report = run_tuning(spec.space, spec.defaults, backend, *strategy, options, &writer, existing.outcomes);
  } catch (const SetupError& e) {
    std::cerr << "adaexplore-tuner tune: " << label << ": stopped: " << e.what() << "\n";
    return kExitTuningFailed;
  }
  print_warnings(writer.take_warnings());
  std::cout << "[adaexplore] " << label << ": done (" << report.stop_reason;
  if (report.skipped)
    std::cout << ": " << *report.skipped
              << (*report.skipped == 1 ? " valid configuration predicted to fail was" : " valid configurations predicted to fail were")
              << " skipped, never evaluated";
  std::cout << "), " << report.outcomes.size() << " evaluations (" << report.new_evaluations << " new) in "
            << report.wall_s << " s; results in " << results_path.string() << std::endl;
  for (const auto& line : failure_alignment(spec.space, report.outcomes))
    std::cout << "[adaexplore] " << label << ": " << line << "\n";
  if (options.progress) {  // where the time went (stage_summary.hpp), with the progress lines
    for (const auto& line : stage_table(report.stages))
      *options.progress << "[adaexplore] " << label << ": " << line << "\n";
    if (report.in_flight)
      *options.progress << "[adaexplore] " << label << ": " << pipeline_line(report, backend.parallelism()) << "\n";
  }
  if (!report.best) {
    if (const Outcome* flagged = first_suspicious(report.outcomes)) {
      // Successes there are, each flagged by the harness's sanity gates: nothing to crown.
      std::size_t n = 0;
      for (const auto& o : report.outcomes) n += is_success(o.status) && o.objective;
      std::cerr << "adaexplore-tuner tune: " << label << ": not crowning any configuration: every one of the "
                << n << " that ran and verified has a timing the harness distrusts (extra.suspicious in "
                << results_path.string() << "); first, " << flagged->label << ": "
                << flagged->extra["suspicious"].front().get<std::string>() << "\n  " << spec.benchmark_path.string()
                << " may not time the kernel: make its launch do the kernel's whole work on every call (no work "
                   "only on the first, no result the compiler can drop) and its bytes()/flops() figures true, "
                   "then tune again with --retune (CMake: -DADAEXPLORE_RETUNE=" << spec.name
                << "). No header written.\n";
      return kExitTuningFailed;
    }
    std::cerr << "adaexplore-tuner tune: " << label << ": no configuration compiled, ran and verified; "
              << "no header written. Statuses:";
    for (const auto& [s, n] : report.counts) std::cerr << " " << s << "=" << n;
    if (!report.outcomes.empty())
      std::cerr << "\n  first failure (" << report.outcomes.front().label << "):\n"
                << truncate_middle(report.outcomes.front().message, 2000);
    std::cerr << "\n";
    return kExitTuningFailed;
  }
  confirm_winner(a, label, results_path, header.key, backend, report);
  return kExitOk;
}

// One key tuned (search_key), then finished (finish_key) unless the caller finishes it later
// (a kernel with sizes: after the verification rounds, with the winner the header crowns).
int tune_key(const TuneArgs& a, const Spec& spec, Backend& backend, KeyPlace& place, const KeyExtras& extras,
             const std::string& label, TuneReport& report) {
  const int code = search_key(a, spec, backend, place, extras, label, report);
  if (!a.defer_finish) finish_key(a, spec, code == kExitOk ? &backend : nullptr, place, label, report.best, report.outcomes);
  return code;
}

// One problem size of a kernel with "sizes" (sizes.hpp): its spec, key and outcomes; its backend
// made only when the size has something to evaluate, and released after.
struct SizeState {
  std::size_t index = 0;  // in spec.sizes.sizes
  Spec spec;
  KeyPlace place;
  std::vector<Outcome> outcomes;  // stored or tuned
  std::string label;  // "gemm [M=512 N=512 K=512]"
};

// The spec of one size: the size set (benchmark arguments, key) and its own work folder; the
// budget is set by run_sized_tune.
Spec size_spec(const Spec& spec, std::size_t index) {
  Spec s = spec;
  s.size = spec.sizes.sizes[index];
  s.work_dir = spec.work_dir / ("size-" + spec.sizes.slug(*s.size));
  return s;
}

// A failure that makes a configuration unusable at a size (its result or its launch): one that
// failed so at any tuned size where some configuration succeeds is crowned at none, since select()
// may hand it sizes near that one. (At a size where none succeeds the failures say nothing about
// the configurations: the benchmark fails there.)
bool unusable(Status s) { return s == Status::wrong_result || s == Status::crash || s == Status::launch_error; }

// The configurations unusable at a tuned size where some configuration succeeds.
std::set<Config> unusable_configs(const std::vector<SizeState>& states) {
  std::set<Config> excluded;
  for (const auto& z : states)
    if (crown(z.outcomes))
      for (const auto& o : z.outcomes)
        if (unusable(o.status)) excluded.insert(o.config);
  return excluded;
}

// The winner of size `z` as the header crowns it (crown.hpp): the near-tie verdict's, else the
// best of the successful configurations, none of them `excluded` (unusable_configs).
std::optional<Outcome> crowned(const SizeState& z, const std::set<Config>& excluded) {
  return crown(z.outcomes, {z.place.results, z.place.header.key, &excluded});
}

// The header entry of size `index`: its label and values, `config` its values until crowned.
SizeHeaderEntry size_entry(const SizesSpec& sizes, std::size_t index, const Config& config) {
  SizeHeaderEntry e;
  e.size = sizes.label(sizes.sizes[index]);
  e.values = sizes.sizes[index].values;
  e.config = config;
  return e;
}

// The tuned header of a kernel with sizes, from every size's stored results (the same bytes
// after a tuning and from --cached). kExitNoResult, having said why, when a size has no winner.
int write_sized_header(const Spec& spec, const std::vector<SizeState>& states, const std::filesystem::path& header_path) {
  const std::set<Config> excluded = unusable_configs(states);
  std::vector<SizeHeaderEntry> entries;
  for (const auto& z : states) {
    SizeHeaderEntry e = size_entry(spec.sizes, z.index, spec.defaults);
    const ResultsFile stored = read_results(z.place.results, spec.space);  // as --cached reads it
    e.info = stored_header_info(z.spec, stored, spec.strategy, spec.seed, z.place.results);
    e.info.winner = crowned(z, excluded);
    if (!e.info.winner) {
      std::cerr << "adaexplore-tuner tune: " << z.label << ": no configuration ran and verified at this size and is "
                << "usable at every other (" << stored.outcomes.size() << " evaluations in " << z.place.results.string()
                << "); no header written\n";
      return kExitNoResult;
    }
    e.config = e.info.winner->config;
    for (const auto& other : states) {  // where the winner ran and verified
      const std::string at = spec.sizes.label(spec.sizes.sizes[other.index]);
      const Outcome* o = outcome_of(other.outcomes, e.config);
      if (!o) e.not_verified.push_back(at + " (not evaluated)");
      else if (is_success(o->status)) e.verified.push_back(at);
      else e.not_verified.push_back(at + " (" + to_string(o->status) + ")");
    }
    entries.push_back(std::move(e));
  }
  const bool wrote = write_file_if_changed(
      header_path, render_sized_header(spec.space, spec.sizes.names, entries, header_info(spec, "tuned")));
  for (const auto& e : entries)
    std::cout << "[adaexplore] " << spec.name << ": " << e.size << ": best " << e.info.winner->label << " "
              << *e.info.winner->objective << " ms" << std::endl;
  std::cout << "[adaexplore] " << spec.name << ": " << entries.size() << " sizes; header " << header_path.string()
            << (wrote ? " written" : " unchanged") << std::endl;
  return kExitOk;
}

// `tune` of a kernel with sizes: every size's key and stored outcomes first (one backend answers
// for the key's backend, device and headers, which no size changes); then the sizes with budget
// left, in tuning order, each from the others' evidence; then every size's winner evaluated at
// every size; the header from the stored results. A size whose tuning fails does not stop the
// others (their results are kept); the command then fails naming it, with no header written.
int run_sized_tune(const TuneArgs& a, const Spec& spec, const std::vector<DeviceInfo>& devices) {
  const auto header_path = default_path(spec, a.header, spec.name + ".hpp");
  const std::vector<std::size_t> order = tuning_order(spec.sizes.sizes);
  const std::size_t later = spec.sizes.later_budget(spec.budget_evaluations);
  std::vector<SizeState> states;  // in declared order
  {
    Spec first = size_spec(spec, 0);
    const std::unique_ptr<Backend> backend = local_backend(first, devices);  // the key's parts: no session
    const nlohmann::json includes = included_headers(a, *backend, header_path);
    for (std::size_t i = 0; i < spec.sizes.sizes.size(); ++i) {
      SizeState z;
      z.index = i;
      z.spec = size_spec(spec, i);
      z.label = spec.name + " [" + spec.sizes.label(*z.spec.size) + "]";
      z.place = key_place(a, z.spec, *backend, includes, spec.sizes.slug(*z.spec.size));
      if (std::filesystem::exists(z.place.results) && std::filesystem::file_size(z.place.results) > 0 &&
          !(a.database.empty() ? a.fresh : (a.retune || a.fresh))) {
        const ResultsFile stored = read_results(z.place.results, spec.space);
        if (stored.header.key == z.place.header.key) {
          z.outcomes = stored.outcomes;
          z.place.header.started = stored.header.started;
          z.place.header.size_start = stored.header.size_start;  // how its tuning started
        }
      }
      // The budget of a size with results follows how it started (the results' header line,
      // "size_start"), so a resumed size goes on to its budget, a raised BUDGET or SIZE_BUDGET
      // resumes the sizes it applies to, and the header states it.
      if (z.place.header.size_start == "transfer") z.spec.budget_evaluations = later;
      z.place.header.budget = z.spec.budget_evaluations;
      states.push_back(std::move(z));
    }
  }
  if (a.cached) {
    for (const auto& z : states)
      if (!crown(z.outcomes)) {
        std::cerr << "adaexplore-tuner tune --cached: " << z.label << ": the tuning database " << a.database
                  << " holds no successful result for key " << z.place.header.key.substr(0, 16)
                  << "; nothing evaluated, no header written\n";
        return kExitNoResult;
      }
    return write_sized_header(spec, states, header_path);
  }
  std::cout << "[adaexplore] " << spec.name << ": " << states.size() << " problem sizes, in this order:";
  for (std::size_t k = 0; k < order.size(); ++k) std::cout << (k ? "; " : " ") << spec.sizes.label(spec.sizes.sizes[order[k]]);
  std::cout << " (budget " << spec.budget_evaluations << " for a size tuned while no other size has a successful result, "
            << later << " for each other, from the others' evidence)" << std::endl;
  auto succeeded = [](const SizeState& z) { return crown(z.outcomes).has_value(); };
  auto others_of = [&](std::size_t i) {
    std::vector<std::size_t> others;
    for (std::size_t k = 0; k < states.size(); ++k)
      if (k != i && !states[k].outcomes.empty()) others.push_back(k);
    std::vector<const std::vector<Outcome>*> out;
    for (std::size_t k : nearest_first(spec.sizes.sizes, i, others)) out.push_back(&states[k].outcomes);
    return out;
  };
  // One size's tuning (a backend of its own, released after). A size whose budget is spent and
  // that has nothing to verify is answered from its results, without a backend.
  std::vector<std::string> failed;
  TuneArgs deferred = a;  // each size's profile and report once, at the end
  deferred.defer_finish = true;
  auto tune_size = [&](SizeState& z, const Spec& s, const KeyExtras& extras, const TuneArgs& pass) {
    if (z.outcomes.size() >= s.budget_evaluations && extras.warm_start.empty() && !pass.fresh && !pass.retune) {
      std::cout << "[adaexplore] " << z.label << ": done (budget), " << z.outcomes.size()
                << " evaluations (0 new); results in " << z.place.results.string() << std::endl;
      if (!crown(z.outcomes)) {
        std::cerr << "adaexplore-tuner tune: " << z.label << ": no configuration compiled, ran and verified among the "
                  << z.outcomes.size() << " evaluations of its spent budget in " << z.place.results.string()
                  << " (first failure, " << z.outcomes.front().label << ": "
                  << truncate_middle(z.outcomes.front().message, 400) << ")\n";
        if (std::find(failed.begin(), failed.end(), z.label) == failed.end()) failed.push_back(z.label);
      }
      return;
    }
    const std::unique_ptr<Backend> backend = tuning_backend(a, s, devices);
    TuneReport report;
    if (tune_key(pass, s, *backend, z.place, extras, z.label, report) != kExitOk) {
      if (std::find(failed.begin(), failed.end(), z.label) == failed.end()) failed.push_back(z.label);
      const ResultsFile stored = read_results(z.place.results, spec.space);  // what it recorded
      z.outcomes = stored.header.key == z.place.header.key ? stored.outcomes : std::vector<Outcome>{};
      return;
    }
    z.outcomes = report.outcomes;
  };
  for (std::size_t i : order) {
    SizeState& z = states[i];
    if (z.outcomes.empty() || z.place.header.size_start.empty()) {
      const bool others = std::any_of(states.begin(), states.end(),
                                      [&](const SizeState& o) { return o.index != i && succeeded(o); });
      z.place.header.size_start = others ? "transfer" : "cold";
      z.spec.budget_evaluations = others ? later : spec.budget_evaluations;
      z.place.header.budget = z.spec.budget_evaluations;
    }
    KeyExtras extras;
    const SizeTransfer t = transfer_from(others_of(i), spec.sizes.warm_start, z.outcomes);
    if (z.outcomes.size() < z.spec.budget_evaluations && t.sources > 0) {
      std::cout << "[adaexplore] " << z.label << ": transfer: " << t.describe() << std::endl;
      extras.warm_start = t.warm_start;
      extras.prior = t.prior;
    }
    tune_size(z, z.spec, extras, deferred);  // --fresh and --retune apply here, once per size
  }
  // Every size's winner at every size: a winner unusable at another size (a tail bug: wrong
  // there) is crowned nowhere and the next best is verified in the next round; one faster at a
  // size than that size's own winner takes its place there. Each round evaluates only
  // configurations not evaluated at that size before, so the rounds end; the cap guards against
  // a round whose evaluations are cut short (a time limit).
  TuneArgs pass = deferred;
  pass.fresh = pass.retune = false;
  for (std::size_t round = 0; round < 2 * states.size() + 2; ++round) {
    bool evaluated = false;
    std::vector<Config> winners;
    const std::set<Config> excluded = unusable_configs(states);
    for (const auto& z : states)
      if (auto best = crowned(z, excluded)) winners.push_back(best->config);
    for (auto& z : states) {
      KeyExtras extras;
      extras.database_warm_start = false;
      for (const auto& w : winners)
        if (!outcome_of(z.outcomes, w) && std::find(extras.warm_start.begin(), extras.warm_start.end(), w) == extras.warm_start.end())
          extras.warm_start.push_back(w);
      if (extras.warm_start.empty()) continue;
      std::cout << "[adaexplore] " << z.label << ": verifying " << extras.warm_start.size()
                << (extras.warm_start.size() == 1 ? " winner" : " winners") << " of other sizes at this size" << std::endl;
      Spec verify = z.spec;
      verify.budget_evaluations = z.outcomes.size() + extras.warm_start.size();
      const std::size_t before = z.outcomes.size();
      tune_size(z, verify, extras, pass);
      evaluated = evaluated || z.outcomes.size() > before;
    }
    if (!evaluated) break;
  }
  // Each size's profile (--profile: a backend of its own, released after) and report, with the
  // winner the header crowns there.
  const std::set<Config> excluded = unusable_configs(states);
  for (auto& z : states) {
    const std::optional<Outcome> winner = crowned(z, excluded);
    std::unique_ptr<Backend> backend;
    if (a.profile && winner) backend = local_backend(z.spec, devices);  // profiled on this process's GPU
    finish_key(a, z.spec, backend.get(), z.place, z.label, winner, z.outcomes, excluded);
  }
  if (!failed.empty()) {
    std::cerr << "adaexplore-tuner tune: " << spec.name << ": no header written: the tuning of";
    for (const auto& f : failed) std::cerr << " " << f;
    std::cerr << " failed (above); the other sizes' results are kept and answer the next tuning\n";
    return kExitTuningFailed;
  }
  return write_sized_header(spec, states, header_path);
}

// After a tuning that ran and wrote no header (no configuration verified, a broken setup, only
// distrusted timings; a size without a winner): a header an earlier tuning wrote at `path` no
// longer matches the sources this tuning failed on, and a build against it would not say so
// (kTuned = true). It is removed, saying so; its tuning's results stay where they were (the
// results file, the database, or what --retune set aside). A file AdaExplore did not write is left,
// with a warning. docs/outcomes.md.
void remove_stale_header(const std::filesystem::path& path, const Spec& spec) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  std::string first;
  try {
    const std::string text = read_file(path);
    first = text.substr(0, text.find('\n'));
  } catch (const std::exception&) {
  }
  if (first.rfind("// Generated by AdaExplore", 0) != 0) {
    std::cerr << "[adaexplore] " << spec.name << ": warning: " << path.string()
              << " was not written by AdaExplore and is left as it is, though this tuning wrote no header\n";
    return;
  }
  std::filesystem::remove(path, ec);
  if (ec) {
    std::cerr << "[adaexplore] " << spec.name << ": warning: cannot remove the earlier tuning's header "
              << path.string() << " (" << ec.message() << "): it does not match the sources this tuning failed on\n";
    return;
  }
  std::cerr << "adaexplore-tuner tune: " << spec.name << ": removed the header " << path.string()
            << " of an earlier tuning: it does not match the sources this tuning failed on. `adaexplore-tuner "
               "defaults --spec " << spec.file.string() << " --header " << path.string()
            << "` writes the defaults (kTuned = false) to build with meanwhile\n";
}

// A tuning's exit code, a header an earlier tuning wrote removed when this one ran and wrote none
// (remove_stale_header).
int without_stale_header(int code, const TuneArgs& a, const Spec& spec, const std::filesystem::path& header_path) {
  if (!a.cached && (code == kExitTuningFailed || code == kExitNoResult)) remove_stale_header(header_path, spec);
  return code;
}

int run_tune_here(const TuneArgs& a) {
  const Spec spec = tuning_spec(a);
  std::vector<DeviceInfo> devices;
  if (!tuning_devices(a, spec, devices)) return kExitNoGpu;
  const auto header_path = default_path(spec, a.header, spec.name + ".hpp");
  if (!spec.sizes.empty()) return without_stale_header(run_sized_tune(a, spec, devices), a, spec, header_path);
  std::unique_ptr<Backend> backend = tuning_backend(a, spec, devices);
  KeyPlace place = key_place(a, spec, *backend, included_headers(a, *backend, header_path), "");
  const ResultsHeader& header = place.header;
  if (a.cached) return run_cached(a, spec, header, place.results);
  TuneReport report;
  if (const int code = tune_key(a, spec, *backend, place, {}, spec.name, report))
    return without_stale_header(code, a, spec, header_path);
  HeaderInfo info = tuned_header_info(spec, header, report.outcomes, report.best, spec.strategy, spec.seed);
  if (report.new_evaluations == 0)  // nothing recorded now: the budget of the tuning that recorded them
    if (const auto recorded = recorded_budget(read_raw_results(place.results))) info.budget = *recorded;
  info.skipped = report.skipped;  // only a tuning knows it ended "space exhausted" (not stored_header_info())
  bool wrote = false;
  try {
    wrote = write_file_if_changed(header_path, render_header(spec.space, report.best->config, info));
  } catch (const std::exception& e) {
    const bool environment = dynamic_cast<const EnvironmentError*>(&e) != nullptr;
    std::cerr << "adaexplore-tuner tune: " << spec.name << ": no header written"
              << (environment ? " (the environment, not the input)" : "") << ": " << e.what() << "; the "
              << report.outcomes.size() << " evaluations are kept in " << place.results.string()
              << ": once it can be written, `adaexplore-tuner tune --cached` (with --database) or the same command "
                 "writes it without measuring again\n";
    return environment ? kExitEnvironment : kExitBadInput;
  }
  std::cout << "[adaexplore] " << spec.name << ": best " << report.best->label << " " << *report.best->objective
            << " ms";
  if (report.baseline && report.baseline->objective)
    std::cout << " vs defaults " << *report.baseline->objective << " ms";
  std::cout << "; header " << header_path.string() << (wrote ? " written" : " unchanged") << std::endl;
  return kExitOk;
}

// A worker rank of an --mpi tuning (cluster/worker.hpp): the same spec as rank 0, a backend of
// its own for each session (its GPUs, its own work folder <work_dir>/mpi-rank-<N>).
int run_worker(const TuneArgs& a, Transport& transport) {
  const Spec spec = tuning_spec(a);
  const SessionFactory open = [&](const nlohmann::json& setup, nlohmann::json& hello) {
    Spec s = spec;
    const nlohmann::json size = setup.value("size", nlohmann::json());
    if (!size.is_null()) {
      std::size_t i = 0;
      while (i < spec.sizes.sizes.size() && spec.sizes.to_json(spec.sizes.sizes[i]) != size) ++i;
      if (i == spec.sizes.sizes.size())
        throw std::runtime_error("problem size " + size.dump() + " is not among " + spec.file.string() + "'s sizes");
      s = size_spec(spec, i);
    }
    std::vector<DeviceInfo> devices;
    if (const std::string missing = find_tuning_devices(a, s, devices); !missing.empty())
      throw std::runtime_error(missing + " (on " + transport.host() + ")");
    const Spec keyed = s;  // the key as rank 0 computes it (cluster_hello: its default header path)
    s.work_dir = s.work_dir / ("mpi-rank-" + std::to_string(transport.rank()));
    std::unique_ptr<Backend> backend = local_backend(s, devices);
    hello = cluster_hello(a, keyed, *backend, devices);
    return backend;
  };
  if (serve_worker(transport, spec.space, open, a.mpi_timeout_s, std::cerr) == kWorkerStoppedAfterLoss) {
    std::cerr << std::flush;
    std::_Exit(0);  // rank 0 lost a rank: MPI_Finalize would wait for it
  }
  return kExitOk;
}

// tune --mpi's transport, made before the arguments are parsed (start_mpi_if_asked) so that a rank
// whose arguments fail still joins the start check.
std::unique_ptr<Transport>& early_transport() {
  static std::unique_ptr<Transport> transport;
  return transport;
}

// The start check of an --mpi tuning, a collective every rank joins once MPI is initialised and
// before anything else can fail or any message flows: each rank's error ("" when its arguments,
// spec, template and benchmark are fine) gathered on every rank. Any error: rank 0 says which
// ranks failed and why, nothing is evaluated, and every rank returns kExitBadInput (MPI_Finalize
// then ends the job cleanly: every rank is alive). Else kExitOk. Before 2026-12-05 a rank failing
// before MPI_Init (a --spec missing on its node) hung the job under --enable-recovery, and one
// failing after it was dropped as "not heard from" after --mpi-timeout while the tuning went on.
int mpi_start_check(Transport& transport, const std::string& error) {
  const std::vector<std::string> all = mpi_allgather(transport.host() + '\n' + error);
  std::string refused;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const std::size_t cut = all[r].find('\n');
    const std::string why = all[r].substr(cut + 1);
    if (!why.empty()) refused += "\n  MPI rank " + std::to_string(r) + " (" + all[r].substr(0, cut) + "): " + why;
  }
  if (refused.empty()) return kExitOk;
  if (transport.rank() == 0)
    std::cerr << "adaexplore-tuner tune: error: --mpi: refused at the start, nothing evaluated: these ranks cannot "
                 "tune:" << refused
              << "\n  Every rank needs the same arguments and its own readable copy of the spec, the template and "
                 "the benchmark (docs/cluster.md)."
              << std::endl;
  return kExitBadInput;
}

// --mpi: the start check, the device of each rank without --device (its local rank: one rank per
// GPU), then the tuning on rank 0 and the workers on the others.
int run_tune_mpi(TuneArgs a) {
  const std::unique_ptr<Transport> transport =
      early_transport() ? std::move(early_transport()) : make_mpi_transport();
  std::string error;
  try {
    (void)tuning_spec(a);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const int code = mpi_start_check(*transport, error)) return code;
  if (!a.devices_given) a.devices = {transport->local_rank()};
  if (transport->rank() != 0) return run_worker(a, *transport);
  Coordinator coordinator(*transport, a.mpi_timeout_s, &std::cerr);
  a.cluster = &coordinator;
  std::cout << "[adaexplore] MPI: " << transport->size() << (transport->size() == 1 ? " rank" : " ranks")
            << "; rank 0 (" << transport->host() << ") runs the search and records, every rank compiles and measures"
            << std::endl;
  int code = kExitOk;
  try {
    code = run_tune_here(a);
  } catch (const std::exception& e) {
    if (!coordinator.stop()) throw;  // MPI_Finalize as the program ends
    // A rank was lost: MPI_Finalize would wait for it (the workers end without it too).
    std::cerr << "adaexplore-tuner tune: error: " << e.what() << std::endl;
    std::cout << std::flush;
    std::_Exit(kExitBadInput);
  }
  if (coordinator.stop()) {
    const std::vector<int> lost = coordinator.lost_ranks();
    // MPI_Finalize would wait for the lost ranks (OpenMPI's waits for every process): everything
    // is written, so this process ends without it, as the workers were told to.
    std::cerr << "[adaexplore] MPI: " << lost.size() << (lost.size() == 1 ? " rank was" : " ranks were")
              << " lost during the tuning; the others end without MPI_Finalize. A lost rank that still runs "
                 "(hung) stops by itself once it runs again and no longer hears rank 0; until then mpirun waits for it"
              << std::endl;
    std::cout << std::flush;
    std::_Exit(code);
  }
  return code;
}

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

}  // namespace

bool start_mpi_if_asked(int argc, char** argv) {
  bool tune = false, mpi = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    tune = tune || arg == "tune";
    mpi = mpi || arg == "--mpi";
  }
  if (!tune || !mpi || !mpi_available()) return false;
  early_transport() = make_mpi_transport();
  return true;
}

int mpi_start_failed(const std::string& error, int code) {
  if (!early_transport()) return code;
  const std::unique_ptr<Transport> transport = std::move(early_transport());
  if (code == kExitOk) return code;  // --help, --version: every rank prints it and ends
  mpi_start_check(*transport, error);
  return code;
}

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
                  "jobs + the GPUs measuring; jobs + 1 on one GPU keeps every compile worker busy (most "
                  "throughput, least informed proposals); fewer than the GPUs + 1 leaves GPUs idle")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  auto* device = sub->add_option("--device", a->devices,
                  "cuda: CUDA device index to tune on (default 0), recorded in the results with the GPU's UUID and "
                  "PCI bus id; not part of the key: GPUs of one model share results, other models never. Several "
                  "(--device 0,1): one measuring worker per GPU, configurations measured on them at once after the "
                  "defaults, each benchmark seeing only its GPU (CUDA_VISIBLE_DEVICES), each outcome naming it "
                  "(extra.device); the GPUs must be of one model. With --mpi: each rank's GPUs (default: the rank's "
                  "local rank on its node, one rank per GPU)")
      ->delimiter(',');
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
            Spec spec = load_spec(*spec_file);
            const HeaderInfo info = header_info(spec, "defaults", *reason);
            const auto path = default_path(spec, *header, spec.name + ".hpp");
            std::string text;
            if (spec.sizes.empty()) {
              text = render_header(spec.space, spec.defaults, info);
            } else {  // the same declarations as a tuned header of these sizes, every entry the defaults
              std::vector<SizeHeaderEntry> entries;
              for (std::size_t i = 0; i < spec.sizes.sizes.size(); ++i)
                entries.push_back(size_entry(spec.sizes, i, spec.defaults));
              text = render_sized_header(spec.space, spec.sizes.names, entries, info);
            }
            const bool wrote = write_file_if_changed(path, text);
            std::cout << "[adaexplore] " << spec.name << ": defaults header " << path.string()
                      << (wrote ? " written" : " unchanged") << std::endl;
            return kExitOk;
          }};
}

}  // namespace adaexplore
