// Crowning: which outcome a header names as a key's winner, decided here and nowhere else (the
// tuning's progress lines, `tune`, `tune --cached`, `header --database`, the report, the sizes'
// header and their verification rounds all ask crown()).
//
//  1. Only a crownable outcome can win: a success (ok or slow) with an objective whose timing the
//     harness trusts: its extra has no non-empty "suspicious" (the harness's sanity gates: a
//     median under the launch-overhead floor, a bandwidth above the device's peak, clock
//     slowdowns; harness_common.hpp). A suspicious outcome keeps its status and stays in the
//     results, but never wins.
//  2. Among the crownable outcomes whose objective is within kTieMargin (1 %) of the fastest one's
//     (statistically indistinguishable: the harness measures a median to within 1 %), the first
//     in the space's order wins: the configuration whose values come first in the order PARAMS
//     lists them (Config's order: the first parameter's value index, then the second's, ...),
//     which no evaluation order, seed or measurement noise changes, so that fresh tunings of one
//     space crown the same constants when their best configurations are within noise of each
//     other (issue 37: 0.03 % apart, they flipped). Outside the margin the fastest wins ...
//  3. ... unless a near-tie verdict (confirm.hpp) lies beside the results file, was made for this
//     key and has the fastest outcome among its contenders: then the verdict's winner (decided by
//     the same rule over the medians of its rounds), with that median as objective and the
//     verdict as extra.confirmation. A verdict that cannot be read is ignored; one whose
//     contenders lack the fastest is outdated (the tuning went on).
//  4. Configurations `excluded` (a kernel with sizes: unusable at another size, command_tune.cpp)
//     cannot win: when the outcome of 2-3 is one, rule 2 over the others.
// Why not the defaults first when they are in the tie: every reader that crowns (the list above)
// would have to know the defaults, and one that did not would crown another configuration from the
// same file; the space's order needs nothing but the outcomes.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/outcome.hpp"

namespace adaexplore {

/// Rule 1: a success with an objective and no extra.suspicious.
bool crownable(const Outcome& o);

/// Rule 2's margin: objectives within this fraction of the fastest are a tie (1 %).
inline constexpr double kTieMargin = 0.01;

/// Rule 2 over `candidates` by `ms` (their objective, or a verdict's round median): the first in
/// the space's order among those within kTieMargin of the lowest; none when `candidates` is empty.
std::optional<std::size_t> first_of_ties(const std::vector<Config>& candidates, const std::vector<double>& ms);

/// Where the evidence beyond the outcomes lies (rules 3 and 4); the default: none.
struct CrownEvidence {
  std::filesystem::path results_file;  // the verdict is confirmation_path(results_file); empty: none
  std::string key;                     // the results' key the verdict must name
  const std::set<Config>* excluded = nullptr;  // rule 4; null: none
  /// Rule 3's verdict itself, instead of the file (a verdict this tuning could not write, its disk
  /// full: the header it writes still crowns what it confirmed); null: the file's.
  const nlohmann::json* verdict = nullptr;
};

/// The winner of `outcomes` (rules 1-4); none when no outcome is crownable (and not excluded).
std::optional<Outcome> crown(const std::vector<Outcome>& outcomes, const CrownEvidence& evidence = {});

/// Where a tuning keeps its near-tie verdict: beside its results file (or tuning database file),
/// as <results>.confirmation.json: {"key", "rounds", "contenders": [...], "changed"}
/// (Confirmation::to_json and the results' key).
std::filesystem::path confirmation_path(const std::filesystem::path& results_file);

}  // namespace adaexplore
