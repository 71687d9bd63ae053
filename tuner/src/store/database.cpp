#include "store/database.hpp"

#include "loop/confirm.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "util/file_lock.hpp"
#include "loop/tuner.hpp"
#include "util/hash.hpp"
#include "util/files.hpp"
#include "store/profiles.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

std::string device_name(const nlohmann::json& device) {
  return device.is_object() ? device.value("name", std::string("unknown device"))
                            : std::string("unknown device");
}

bool successful(const nlohmann::json& record) {
  try {
    return is_success(status_from_string(record.value("status", ""))) &&
           record.contains("objective_ms") && record["objective_ms"].is_number();
  } catch (const std::invalid_argument&) {
    return false;
  }
}

// Which of the content parts differ ("template, benchmark"); empty when none.
std::string differing_content(const nlohmann::json& stored, const nlohmann::json& wanted) {
  std::string out;
  for (const char* part : {"spec", "template", "benchmark", "backend"})
    if (!stored.is_object() || stored.value(part, nlohmann::json()) != wanted[part])
      out += (out.empty() ? "" : ", ") + std::string(part);
  return out;
}

}  // namespace

nlohmann::json content_key_parts(const Spec& spec) {
  nlohmann::json raw = spec.raw;
  for (const char* k : {"budget", "strategy", "strategy_options", "seed", "jobs", "in_flight", "work_dir",
                        "$comment", "namespace", "template", "benchmark", "sizes"})
    raw.erase(k);
  if (raw.contains("compiler") && raw["compiler"].is_object()) {
    // include_dirs: paths (absolute when CMake writes them, so another checkout would get another
    // key), and the headers in them are not hashed anyway. timeout_s: a time limit. launcher
    // (ccache, ...): how the program is built, not what it measures.
    for (const char* k : {"path", "arch", "include_dirs", "timeout_s", "launcher", "unit"}) raw["compiler"].erase(k);
  }
  if (raw.contains("run") && raw["run"].is_object())  // time limits and the runner do not change a measurement
    for (const char* k : {"timeout_s", "timeout_factor", "timeout_floor_s", "runner"}) raw["run"].erase(k);
  return {{"spec", content_hash(raw.dump())},
          {"template", content_hash(read_file(spec.template_path))},
          {"benchmark", content_hash(read_file(spec.benchmark_path))},
          {"backend", spec.backend}};
}

nlohmann::json device_key_part(const nlohmann::json& device) {
  nlohmann::json d = device;
  if (d.is_object())
    for (const char* k : {"index", "uuid", "pci_bus_id"}) d.erase(k);
  return d;
}

nlohmann::json key_parts(const Spec& spec, const std::string& backend,
                         const nlohmann::json& device, const nlohmann::json& includes) {
  nlohmann::json parts = content_key_parts(spec);
  parts["backend"] = backend;
  parts["device"] = device_key_part(device);
  if (!includes.empty()) parts["includes"] = content_hash(includes.dump());
  if (spec.size) parts["size"] = spec.sizes.to_json(*spec.size);
  return parts;
}

fs::path database_file(const fs::path& dir, const std::string& kernel, const std::string& key) {
  return dir / kernel / (key.substr(0, 16) + ".jsonl");
}

void check_placement(const fs::path& file, const ResultsHeader& header) {
  const std::string folder = file.parent_path().filename().string();
  const std::string prefix = file.stem().string();
  if (header.kernel == folder && prefix.size() == 16 && header.key.compare(0, 16, prefix) == 0)
    return;
  throw ResultsError(
      file.string() + ":1: holds results of kernel '" + header.kernel + "', key " +
      (header.key.empty() ? std::string("(none)") : header.key) +
      "; in a tuning database this place is for kernel '" + folder + "', a key starting with " +
      prefix + ": a foreign or misplaced file. The tuner never overwrites it; move it aside (" +
      move_aside_command(file) +
      "), then `adaexplore-tuner merge --into <database> <moved file>` "
      "files its records where they belong");
}

fs::path set_aside_for_retune(const fs::path& file) { return set_aside(file, "retune"); }

fs::path set_aside(const fs::path& file, const std::string& tag) {
  FileLock lock(file);
  if (!fs::exists(file)) return {};
  std::string stamp = utc_now();  // 2024-05-01T12:00:00Z -> 20240501T120000Z
  stamp.erase(
      std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }),
      stamp.end());
  fs::path aside = file.string() + "." + tag + "-" + stamp;
  for (int n = 2; fs::exists(aside); ++n)
    aside = file.string() + "." + tag + "-" + stamp + "-" + std::to_string(n);
  fs::rename(file, aside);
  std::error_code ec;
  if (fs::exists(profiles_path(file), ec)) fs::rename(profiles_path(file), profiles_path(aside), ec);  // its profiles go along
  return aside;
}

std::vector<StoredKey> stored_keys(const fs::path& dir, const std::string& kernel,
                                   std::vector<std::string>* problems) {
  std::vector<StoredKey> keys;
  const fs::path folder = dir / kernel;
  if (!fs::is_directory(folder)) return keys;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    // An empty file (a tuning killed as it created it) holds nothing; its next writer starts it.
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl" && entry.file_size() > 0)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      StoredKey k{file, read_raw_results(file)};
      check_placement(file, k.raw.header);
      keys.push_back(std::move(k));
    } catch (const ResultsError& e) {
      if (!problems) throw;
      problems->push_back(e.what());
    }
  }
  return keys;
}

std::string WarmStart::describe() const {
  std::string s = std::to_string(configs.size()) +
                  (configs.size() == 1 ? " configuration" : " configurations") + " from " +
                  std::to_string(keys) + (keys == 1 ? " earlier key" : " earlier keys") +
                  (devices.size() == 1 ? " (device " : " (devices ");
  for (std::size_t i = 0; i < devices.size(); ++i) s += (i ? ", " : "") + devices[i];
  return s + ")";
}

WarmStart warm_start(const std::vector<StoredKey>& keys, const std::string& current_key,
                     const nlohmann::json& device, const Space& space, std::size_t limit,
                     const std::vector<Outcome>& measured) {
  struct Source {
    const StoredKey* key;
    bool same_device;
    std::vector<Config> configs;  // best first
    std::size_t next = 0;
    bool used = false;
  };
  std::vector<Source> sources;
  for (const auto& k : keys) {
    if (k.raw.header.key == current_key) continue;
    std::vector<std::pair<double, Config>> ranked;
    std::unordered_set<Config, ConfigHash> seen;
    for (const auto& r : k.raw.records) {
      if (!successful(r.json)) continue;
      try {
        const Outcome o = outcome_from_json(r.json, space);
        if (space.satisfies(o.config) && seen.insert(o.config).second)
          ranked.emplace_back(r.json["objective_ms"].get<double>(), o.config);
      } catch (const std::exception&) {
        // not a configuration of this search space (edited parameters): no use here
      }
    }
    if (ranked.empty()) continue;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Source s{&k, device_name(k.raw.header.device) == device_name(device), {}};
    for (auto& [ms, c] : ranked) s.configs.push_back(std::move(c));
    sources.push_back(std::move(s));
  }
  std::stable_sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) {
    if (a.same_device != b.same_device) return a.same_device;
    return a.key->raw.header.started > b.key->raw.header.started;
  });
  WarmStart w;
  std::unordered_set<Config, ConfigHash> taken;
  for (const auto& o : measured) taken.insert(o.config);
  for (bool progress = true; progress && w.configs.size() < limit;) {
    progress = false;
    for (auto& s : sources) {
      if (w.configs.size() >= limit) break;
      while (s.next < s.configs.size() && taken.count(s.configs[s.next])) ++s.next;
      if (s.next == s.configs.size()) continue;
      taken.insert(s.configs[s.next]);
      w.configs.push_back(s.configs[s.next++]);
      s.used = progress = true;
    }
  }
  for (const auto& s : sources) {
    if (!s.used) continue;
    ++w.keys;
    const std::string name = device_name(s.key->raw.header.device);
    if (std::find(w.devices.begin(), w.devices.end(), name) == w.devices.end())
      w.devices.push_back(name);
  }
  return w;
}

HeaderInfo stored_header_info(const Spec& spec, const ResultsFile& results,
                              const std::string& strategy, std::uint64_t seed, const fs::path& file) {
  HeaderInfo info;
  info.kernel = spec.name;
  info.name_space = spec.name_space;
  info.source = "tuned";
  info.backend = spec.backend;
  info.device = results.header.device;
  info.date = results.header.started;
  info.strategy = strategy;
  info.seed = seed;
  info.budget = spec.budget_evaluations;
  info.winner = file.empty() ? best_of(results.outcomes) : confirmed_best(file, results.header.key, results.outcomes);
  for (const auto& o : results.outcomes)
    if (o.config == spec.defaults) {
      info.baseline = o;
      break;
    }
  info.counts = count_statuses(results.outcomes);
  info.evaluations = results.outcomes.size();
  // No `skipped` (HeaderInfo): the stored results do not say how the tuning ended, and fewer
  // evaluations than the spec's budget need not mean "space exhausted" (tune --budget, a time limit).
  return info;
}

int compute_capability_number(const nlohmann::json& device) {
  if (!device.is_object() || !device.contains("compute_capability") ||
      !device["compute_capability"].is_string())
    return 0;
  const std::string cc = device["compute_capability"].get<std::string>();
  const auto dot = cc.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 2 != cc.size()) return 0;
  try {
    return std::stoi(cc.substr(0, dot)) * 10 + std::stoi(cc.substr(dot + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

HeaderSelection select_for_header(const std::vector<StoredKey>& keys, const Spec& spec,
                                  const std::vector<std::string>& prefer) {
  const nlohmann::json content = content_key_parts(spec);
  HeaderSelection selection;
  std::map<int, std::vector<DeviceChoice>> groups;
  for (const auto& k : keys) {
    const ResultsHeader& h = k.raw.header;
    const std::string differs = h.key_parts.contains("size") && !spec.size
                                    ? std::string("problem size (a key of one of the spec's sizes, sizes.hpp)")
                                    : differing_content(h.key_parts, content);
    if (!differs.empty()) {
      selection.notes.push_back(k.file.string() + ": not used: another " + differs +
                                " than the spec's (" + device_name(h.device) + ", tuned " +
                                h.started + ")");
      continue;
    }
    DeviceChoice c;
    c.file = k.file;
    c.results = results_from_raw(k.raw, k.file, spec.space);
    const auto best = confirmed_best(k.file, h.key, c.results.outcomes);  // the tuning's near-tie verdict too
    if (!best) {
      selection.notes.push_back(k.file.string() + ": not used: no successful result among its " +
                                std::to_string(c.results.outcomes.size()) + " evaluations (" +
                                device_name(h.device) + ")");
      continue;
    }
    c.best = *best;
    c.compute_capability = spec.backend == "cuda" ? compute_capability_number(h.device) : 0;
    if (spec.backend == "cuda" && c.compute_capability == 0) {
      selection.notes.push_back(k.file.string() +
                                ": not used: its device names no compute capability");
      continue;
    }
    ++selection.usable;
    groups[c.compute_capability].push_back(std::move(c));
  }
  for (auto& [cc, candidates] : groups) {
    std::size_t pick = 0;
    std::string how;
    for (const auto& name : prefer) {
      for (std::size_t i = 0; i < candidates.size() && how.empty(); ++i)
        if (device_name(candidates[i].results.header.device).find(name) != std::string::npos) {
          pick = i;
          how = "named by --prefer-device '" + name + "'";
        }
      if (!how.empty()) break;
    }
    if (how.empty()) {
      for (std::size_t i = 1; i < candidates.size(); ++i)
        if (candidates[i].results.header.started > candidates[pick].results.header.started)
          pick = i;
      how = "the most recent tuning";
    }
    DeviceChoice chosen = std::move(candidates[pick]);
    if (candidates.size() > 1) {
      chosen.why =
          how + " of " + std::to_string(candidates.size()) + " for " +
          (cc ? "compute capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10)
              : std::string("this backend")) +
          "; not used:";
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (i != pick)
          chosen.why += " " + device_name(candidates[i].results.header.device) + " (tuned " +
                        candidates[i].results.header.started + ")";
    }
    selection.chosen.push_back(std::move(chosen));
  }
  return selection;
}

}  // namespace adaexplore
