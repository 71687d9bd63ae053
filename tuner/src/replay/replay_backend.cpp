#include "replay/replay_backend.hpp"
#include "model/backend_kind.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <type_traits>

#include "store/key.hpp"
#include "evaluate/resource_check.hpp"
#include "store/results.hpp"
#include "model/spec.hpp"
#include "search/strategy.hpp"
#include "util/text.hpp"

namespace adaexplore {

ReplayBackend::ReplayBackend(const RecordedSpace& cache) : cache_(cache) {
  index_.reserve(cache.records.size());
  for (std::size_t i = 0; i < cache.records.size(); ++i) {
    const Outcome& o = cache.records[i];
    index_.emplace(o.config, i);
    if (is_success(o.status) && o.objective && (!optimum_ || *o.objective < *optimum_->objective))
      optimum_ = o;
  }
}

nlohmann::json ReplayBackend::device() const {
  return {{"name", cache_.device_name},
          {"kernel", cache_.kernel_name},
          {"recorded", cache_.file.string()},
          {"problem_size", cache_.problem_size}};
}

Prepared ReplayBackend::prepare(const Config& config) {
  Prepared p;
  p.config = config;
  return p;
}

const Outcome* ReplayBackend::lookup(const Config& config) const {
  auto it = index_.find(config);
  return it == index_.end() ? nullptr : &cache_.records[it->second];
}

Outcome ReplayBackend::measure(Prepared& prepared) {
  if (const Outcome* recorded = lookup(prepared.config)) return *recorded;
  Outcome o;
  o.config = prepared.config;
  o.label = cache_.space.label(prepared.config);
  o.status = Status::invalid;
  o.message =
      "not in the recorded space: " + cache_.file.string() + " holds no record of " + o.label;
  return o;
}

namespace {

std::string at_line(const std::filesystem::path& file, std::size_t line) {
  return file.string() + ":" + std::to_string(line) + ": ";
}

// The spec's parameters and constraints, plus the caller's.
Space space_of(const Spec& spec, const std::vector<std::string>& constraints) {
  std::vector<std::string> all;
  for (const auto& c : spec.space.constraints()) all.push_back(c.text());
  all.insert(all.end(), constraints.begin(), constraints.end());
  try {
    return Space(spec.space.parameters(), all);
  } catch (const std::exception& e) {
    throw CacheFileError(spec.file.string() + ": constraint: " + e.what());
  }
}

// A success must carry its objective: the replay ranks by it.
void check_objectives(const RawResults& raw, const std::filesystem::path& file) {
  for (const auto& r : raw.records) {
    const Status status = status_from_string(r.json.at("status").get<std::string>());
    const auto it = r.json.find("objective_ms");
    if (is_success(status) && (it == r.json.end() || !it->is_number()))
      throw ResultsError(at_line(file, r.line) + "status " + to_string(status) +
                         " without a numeric \"objective_ms\": a success must carry its objective (ms); "
                         "the file is damaged");
  }
}

// key_parts.spec against the spec given: a warning when they differ (an edited spec).
void compare_spec_hash(const RawResults& raw, const Spec& spec, const std::filesystem::path& file,
                       std::vector<std::string>& warnings) {
  const auto recorded = raw.header.key_parts.find("spec");
  if (recorded == raw.header.key_parts.end()) return;
  std::string given;
  try {
    given = content_key_parts(spec).at("spec").get<std::string>();
  } catch (const std::exception&) {
    return;  // the spec's template or benchmark is not there to hash: no comparison
  }
  if (*recorded != given)
    warnings.push_back(file.string() + ": recorded with another spec than " + spec.file.string() +
                       " (key_parts.spec " + recorded->dump() + ", the given spec hashes to \"" + given +
                       "\"); records are matched by parameter name and value, configurations the file "
                       "lacks replay as invalid");
}

// What the strategy's features and model need from the file (learn/features.hpp): the spec's launch
// shape and size names, the recorded device's SM count and limits, and the size the header's key
// records (empty when it records none, or not one whole number per size name).
void recorded_features(const Spec& spec, const RawResults& raw, RecordedSpace& out) {
  const nlohmann::json& device = raw.header.device;
  out.features.launch = spec.launch;
  out.features.size_names = spec.sizes.names;
  if (device.is_object() && device.contains("sm_count") && device["sm_count"].is_number_integer())
    out.features.sm_count = device["sm_count"].get<int>();
  if (device.is_object() && device.contains("limits")) out.features.limits = recorded_limits(device["limits"]);
  const auto size = raw.header.key_parts.find("size");
  if (size != raw.header.key_parts.end() && size->is_object()) {
    for (const std::string& name : spec.sizes.names) {
      if (!size->contains(name) || !(*size)[name].is_number_integer()) {
        out.size.clear();
        break;
      }
      out.size.push_back((*size)[name].get<long long>());
    }
  }
}

}  // namespace

RecordedSpace read_results_space(const std::filesystem::path& results, const std::filesystem::path& spec_file,
                                 const std::vector<std::string>& constraints) {
  if (!std::filesystem::is_regular_file(results))
    throw ResultsError(results.string() + ": no such file; check the path given to --results");
  const RawResults raw = read_raw_results(results);
  if (spec_file.empty()) {
    std::string parts;
    for (const auto& [k, v] : raw.header.key_parts.items()) parts += (parts.empty() ? "" : ", ") + k;
    throw ResultsError(at_line(results, raw.header_line) +
                       "the search space cannot be rebuilt from this results file: its header's key_parts (" +
                       (parts.empty() ? std::string("none") : parts) +
                       ") hold content hashes, not the spec's parameters and constraints; give the tuning spec "
                       "the results were recorded with: --spec SPEC.json");
  }
  const Spec spec = load_spec(spec_file);
  RecordedSpace out;
  out.file = results;
  out.format = "adaexplore_results";
  out.kernel_name = raw.header.kernel;
  if (raw.header.device.is_object()) out.device_name = raw.header.device.value("name", std::string());
  out.problem_size = nullptr;
  out.space = space_of(spec, constraints);
  out.warnings = raw.warnings;
  if (!raw.header.kernel.empty() && raw.header.kernel != spec.name)
    out.warnings.push_back(results.string() + ": results of kernel '" + raw.header.kernel + "', spec " +
                           spec_file.string() + " names '" + spec.name + "'");
  compare_spec_hash(raw, spec, results, out.warnings);
  check_objectives(raw, results);
  ResultsFile file = results_from_raw(raw, results, out.space);
  out.duplicates = file.duplicates;
  out.records = std::move(file.outcomes);
  for (const auto& o : out.records) out.records_outside_constraints += out.space.satisfies(o.config) ? 0 : 1;
  const nlohmann::json& device = raw.header.device;
  recorded_features(spec, raw, out);
  if (backend_kind(spec.backend).launches_kernels && (spec.launch.threads_per_block || spec.launch.dynamic_shared_bytes) &&
      device.is_object() && device.value("limits", nlohmann::json()).is_object()) {
    // A limit the header lacks is not checked (taken as unbounded); one that is not a whole
    // number is an error naming the file and the key.
    const nlohmann::json& l = device["limits"];
    auto limit = [&](const char* key) -> long {
      if (!l.contains(key)) return std::numeric_limits<int>::max();
      if (!l[key].is_number_integer())
        throw ResultsError(at_line(results, raw.header_line) + "the header's device.limits." + key + " is " +
                           l[key].dump() + ", not a whole number; the file was not written by adaexplore-tuner tune, "
                           "or was edited");
      return l[key].get<long>();
    };
    DeviceLimits limits;
    limits.max_threads_per_block = static_cast<int>(limit("max_threads_per_block"));
    limits.shared_per_block = limit("shared_per_block");
    limits.shared_per_block_optin = limit("shared_per_block_optin");
    const std::string arch = device.contains("arch") && device["arch"].is_string() ? device["arch"].get<std::string>() : "recorded device";
    out.static_check = [launch = spec.launch, limits, arch](const Space& space, const Config& c) {
      return launch_verdict(launch, space, c, limits, arch);
    };
  }
  return out;
}

std::optional<Outcome> ReplayBackend::check_statically(const Config& config) const {
  if (!cache_.static_check) return std::nullopt;
  return cache_.static_check(cache_.space, config);
}

TuneReport replay_tuning(ReplayBackend& backend, const std::string& strategy,
                         const nlohmann::json& options, std::size_t budget, std::uint64_t seed,
                         const std::vector<Config>& warm_start, std::size_t in_flight,
                         const std::vector<Outcome>& prior) {
  ReplayTransfer transfer;
  transfer.prior = prior;
  return replay_tuning(backend, strategy, options, budget, seed, warm_start, in_flight, transfer);
}

TuneReport replay_tuning(ReplayBackend& backend, const std::string& strategy,
                         const nlohmann::json& options, std::size_t budget, std::uint64_t seed,
                         const std::vector<Config>& warm_start, std::size_t in_flight,
                         const ReplayTransfer& transfer) {
  const Space& space = backend.cache().space;
  const std::vector<Outcome>& prior = transfer.prior;
  StrategyOptions so;
  so.seed = seed;
  so.budget = budget;
  so.options = options;
  so.static_check = [&backend](const Config& c) { return backend.check_statically(c); };
  so.prior = prior;
  const RecordedSpace& recorded = backend.cache();
  if (recorded.features.launch.threads_per_block || !recorded.features.launch.grid.empty() ||
      recorded.features.launch.dynamic_shared_bytes || !recorded.features.size_names.empty())
    so.features = std::make_shared<const FeatureMap>(space, recorded.features);
  so.size = recorded.size;
  so.transfer = transfer.records;
  auto search = make_strategy(strategy, space, so);
  // A later size starts from the configurations the strategy's model predicts best here; a
  // strategy without one starts from the other sizes' winners.
  std::vector<Config> start = warm_start;
  if (transfer.count) {
    std::vector<Config> predicted = search->predicted_start(transfer.count, transfer.winners, warm_start);
    const std::vector<Config>& chosen = predicted.empty() ? transfer.winners : predicted;
    for (const Config& c : chosen)
      if (std::find(start.begin(), start.end(), c) == start.end()) start.push_back(c);
  }
  TuneOptions to;
  to.kernel = backend.cache().kernel_name;
  to.budget = budget;
  to.evaluate_baseline = false;  // replay has no baseline: every evaluation is the strategy's
  to.setup_failure_window = std::numeric_limits<std::size_t>::max();  // recorded failures are data
  to.batch = 8;  // proposals per round, as the tuning loop asked for before 2026-11-30 (failure-driven pipeline) (benchmarks comparable)
  to.in_flight = in_flight;  // 0: rounds of `batch`
  to.warm_start = start;
  return run_tuning(space, Config{}, backend, *search, to, nullptr);
}

std::vector<StrategyOptions::SizedOutcome> sized_records(const std::string& trace_path,
                                                         const std::vector<Outcome>& outcomes) {
  std::vector<long long> size;
  std::ifstream in(trace_path);
  const nlohmann::json trace = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (trace.is_object() && trace.contains("size") && trace["size"].is_array())
    for (const auto& v : trace["size"]) {
      if (!v.is_number_integer()) {
        size.clear();
        break;
      }
      size.push_back(v.get<long long>());
    }
  std::vector<StrategyOptions::SizedOutcome> out;
  for (const auto& o : outcomes) out.push_back({o, size, {}});
  return out;
}

double optimum_ratio(const std::optional<Outcome>& optimum, const std::optional<Outcome>& best) {
  return optimum && best ? *optimum->objective / *best->objective : 0.0;
}

}  // namespace adaexplore
