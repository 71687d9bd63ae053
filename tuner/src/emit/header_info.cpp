#include "emit/header_info.hpp"

#include "loop/crown.hpp"

namespace adaexplore {

HeaderInfo header_info(const Spec& spec, const std::string& source, const std::string& reason) {
  HeaderInfo info;
  info.kernel = spec.name;
  info.name_space = spec.name_space;
  info.source = source;
  info.reason = reason;
  info.backend = spec.backend;
  info.macro_prefix = spec.macro_prefix;
  return info;
}

HeaderInfo tuned_header_info(const Spec& spec, const ResultsHeader& header, const std::vector<Outcome>& outcomes,
                             std::optional<Outcome> winner, const std::string& strategy, std::uint64_t seed) {
  HeaderInfo info = header_info(spec, "tuned");
  info.device = header.device;
  info.date = header.started;
  info.strategy = strategy;
  info.seed = seed;
  info.budget = spec.budget_evaluations;
  info.winner = std::move(winner);
  for (const auto& o : outcomes)
    if (o.config == spec.defaults) {
      info.baseline = o;
      break;
    }
  info.counts = count_statuses(outcomes);
  info.evaluations = outcomes.size();
  return info;
}

HeaderInfo stored_header_info(const Spec& spec, const ResultsFile& results, const std::string& strategy,
                              std::uint64_t seed, const std::filesystem::path& file) {
  const CrownEvidence evidence{file, results.header.key};
  HeaderInfo info =
      tuned_header_info(spec, results.header, results.outcomes, crown(results.outcomes, evidence), strategy, seed);
  if (results.budget) info.budget = *results.budget;  // the tuning's, as its own header states it
  return info;
}

}  // namespace adaexplore
