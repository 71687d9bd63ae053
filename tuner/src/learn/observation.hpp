// What the knowledge base keeps of one evaluation: the configuration, its status and objective,
// and the resource figures the evaluation reported (with the limits they were held against).
//
// Figures, by name (all optional; an outcome reports what its backend measured):
//   shared_bytes   static shared memory per block   resources[] (largest kernel), or a ptxas
//                                                   "uses too much shared data" message
//   registers      registers per thread             resources[] (largest kernel), or ptxas
//   stack_bytes    local memory (stack) per thread  resources[] (largest kernel), or ptxas
// and any figure a backend puts in `extra.figures` ({"threads": 2048}). Limits come from the same
// messages ("(0xe2e0 bytes, 0xc000 max)": figure 58080, limit 49152) or from `extra.limits`
// ({"shared_bytes": 49152}), which a backend's static resource check may fill in.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/outcome.hpp"
#include "model/space.hpp"

namespace adaexplore {

struct Observation {
  Config config;
  Status status = Status::ok;
  std::optional<double> objective;        // ms, successes only
  std::map<std::string, double> figures;  // see the file comment
  std::map<std::string, double> limits;   // a figure's limit, when the evaluation reported one
};

/// Extracts what the knowledge base needs from an outcome (figures as listed above).
Observation observation_of(const Outcome& outcome);

/// {"config": [indices], "status": "...", "objective": ms, "figures": {...}, "limits": {...}};
/// empty members are left out.
nlohmann::json to_json(const Observation& o);
/// Reads what to_json wrote. Throws std::invalid_argument when the configuration does not fit
/// `space` (wrong length, an index out of range) or the status is unknown.
Observation observation_from_json(const nlohmann::json& j, const Space& space);

}  // namespace adaexplore
