// The generated header: `inline constexpr` values of one configuration in a namespace, with a
// provenance comment. Deterministic: the same inputs give the same bytes (no current time; the
// date is the tuning's start as recorded in the results file).
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "outcome.hpp"
#include "space.hpp"

namespace adaexplore {

struct HeaderInfo {
  std::string kernel;       // the tuning's name
  std::string name_space;   // e.g. adaexplore::gemm
  std::string source;       // "tuned" | "defaults"; why these values
  std::string reason;       // for "defaults": why no tuning happened (e.g. no CUDA GPU)
  std::string backend;
  nlohmann::json device = nlohmann::json::object();  // as Backend::device()
  std::string date;         // tuning start, UTC ISO 8601
  std::string strategy;
  std::uint64_t seed = 0;
  std::size_t budget = 0;
  std::optional<Outcome> winner;
  std::optional<Outcome> baseline;       // the defaults' outcome
  std::map<std::string, std::size_t> counts;  // evaluations per status
  std::size_t evaluations = 0;
};

/// Renders the header text for `config`.
std::string render_header(const Space& space, const Config& config, const HeaderInfo& info);

}  // namespace adaexplore
