#include "store/warm_start.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "store/key.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

bool successful(const nlohmann::json& record) {
  try {
    return is_success(status_from_string(record.value("status", ""))) &&
           record.contains("objective_ms") && record["objective_ms"].is_number();
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

std::string WarmStart::describe() const {
  std::string s = counted(configs.size(), "configuration") + " from " + counted(keys, "earlier key") +
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

}  // namespace adaexplore
