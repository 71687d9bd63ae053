// Replay traces, `adaexplore-tuner replay --json` of one run, read back as outcomes of a space:
// for `replay --warm-start` (another GPU's trace) and `replay --transfer` (other sizes' traces).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "model/outcome.hpp"
#include "model/sizes.hpp"
#include "model/space.hpp"
#include "search/strategy.hpp"

namespace adaexplore {

/// The evaluations of the trace at `path` that are configurations of `space` (others counted in
/// `foreign`), as outcomes: config, status, objective (ms), message. `option` names the
/// command-line option in messages. Throws std::invalid_argument naming the file (and the
/// evaluation) when it cannot be read or is not such a trace.
std::vector<Outcome> trace_outcomes(const std::string& option, const std::string& path, const Space& space,
                                    std::size_t& foreign);
/// --warm-start: the `count` best successful configurations of the trace at `path` that are
/// configurations of `space`, lowest objective first; how many, and a warning when none, to `log`.
/// With `records` (--device-transfer model), the same reading of the trace also appends its
/// evaluations that are configurations of `space` to it, as records of another GPU
/// (StrategyOptions::SizedOutcome::device: the trace's path) with the size the trace records
/// (sized_records), for the strategy's model.
std::vector<Config> warm_start_configs(const std::string& path, std::size_t count, const Space& space,
                                       std::ostream& log,
                                       std::vector<StrategyOptions::SizedOutcome>* records = nullptr);
/// --transfer: what `tune` gives a problem size from the other sizes (sizes.hpp transfer_from),
/// from their traces at `paths`, nearest size first; described in one line to `log`. With
/// `records`, the traces' evaluations with the size each trace says (replay_backend.hpp
/// sized_records) are appended to it, for the strategy's model of how time moves with the size.
SizeTransfer size_transfer(const std::vector<std::string>& paths, std::size_t count, const Space& space,
                           std::ostream& log, std::vector<StrategyOptions::SizedOutcome>* records = nullptr);

}  // namespace adaexplore
