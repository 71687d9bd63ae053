// A header's provenance (HeaderInfo, header.hpp), built here for every header `tune`, `tune
// --cached`, `header` and `defaults` write, so that a header written from stored results has the
// same bytes as the one the tuning wrote.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "emit/header.hpp"
#include "model/spec.hpp"
#include "store/results.hpp"

namespace adaexplore {

/// What every header of `spec` states: kernel, namespace, backend (spec.backend) and `source`
/// ("tuned", or "defaults" with the `reason` no tuning happened; "" for the common part of a
/// header of several GPUs, whose entries each say theirs).
HeaderInfo header_info(const Spec& spec, const std::string& source, const std::string& reason = "");

/// A tuned header's provenance from one key's outcomes: header_info(spec, "tuned"), device and
/// date (the tuning's start) from the results' header line, `strategy` and `seed` as given, the
/// spec's budget, `winner`, the defaults' outcome (the first of spec.defaults among `outcomes`),
/// counts and evaluations over `outcomes`. No `skipped`: only the tuning that ended "space
/// exhausted" knows it (HeaderInfo::skipped); fewer evaluations than the budget need not mean it.
HeaderInfo tuned_header_info(const Spec& spec, const ResultsHeader& header, const std::vector<Outcome>& outcomes,
                             std::optional<Outcome> winner, const std::string& strategy, std::uint64_t seed);

/// tuned_header_info() of a key's stored results (`tune --cached`, `header`), the winner crowned
/// from them (crown.hpp), with the near-tie verdict beside `file` when it is given, and the budget
/// the tuning recorded (ResultsFile::budget: `tune --budget 12` stated 12), the spec's for files
/// that do not say.
HeaderInfo stored_header_info(const Spec& spec, const ResultsFile& results, const std::string& strategy,
                              std::uint64_t seed, const std::filesystem::path& file = {});

}  // namespace adaexplore
