#include "emit/header_selection.hpp"
#include "model/backend_kind.hpp"

#include <map>

#include "loop/crown.hpp"
#include "store/key.hpp"

namespace adaexplore {

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
    const auto best = crown(c.results.outcomes, {k.file, h.key});  // the tuning's near-tie verdict too
    if (!best) {
      selection.notes.push_back(k.file.string() + ": not used: no successful result among its " +
                                std::to_string(c.results.outcomes.size()) + " evaluations (" +
                                device_name(h.device) + ")");
      continue;
    }
    c.best = *best;
    const bool gpu = backend_kind(spec.backend).needs_gpu;
    c.compute_capability = gpu ? compute_capability_number(h.device) : 0;
    if (gpu && c.compute_capability == 0) {
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
