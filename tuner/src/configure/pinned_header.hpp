// A pinned header read back: its machine line (emit/header.hpp, "The machine line") and the check
// of its values against a kernel's spec. Only the machine line is read; the header's C++ layout is
// no interface.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// The JSON of `header`'s machine line ("// adaexplore: {...}", the first such line); nullopt
/// when the file has none or the line is not a JSON object. Throws std::runtime_error naming the
/// file when it cannot be read.
std::optional<nlohmann::json> read_machine_line(const std::filesystem::path& header);

/// What no machine line means, naming `header`, `kernel` and the ways to get one (regenerate with
/// `adaexplore-tuner header`, pin again, or tools/add-machine-line.py).
std::string missing_machine_line_problem(const std::filesystem::path& header, const std::string& kernel);

struct PinnedCheck {
  /// What does not fit, naming the header and the parameter ("the pinned header <file> sets TILE =
  /// 48, which is not among the values PARAMS gives TILE (16 32)"); empty when it fits.
  std::string problem;
  /// Its values as NAME=VALUE,... for `adaexplore-tuner check --config` (the constraints and launch
  /// limits): a multi-device header's entry of the first target architecture ("" when it has none),
  /// a header of sizes its first size's.
  std::string config;
};

/// Checks the machine line `line` of the pinned header `file` (nullopt: it has none) against the
/// kernel `kernel` of `spec` (the spec.json object): its namespace and kernel, the parameter set,
/// the problem sizes (the spec's "sizes", in their order; none without), and each value among the
/// parameter's values or range (every size's and every device's entry too). `archs`: the target
/// architectures ("sm_90", ...), the first one choosing a multi-device header's entry for `config`.
PinnedCheck check_pinned(const std::optional<nlohmann::json>& line, const std::filesystem::path& file,
                         const std::string& kernel, const nlohmann::json& spec, const std::vector<std::string>& archs);

/// The devices the machine line says the values were tuned on ("tuned_on"), once each.
std::vector<std::string> pinned_tuned_on(const nlohmann::json& line);

}  // namespace adaexplore
