// A pinned header read back: its machine line (emit/header.hpp, "The machine line") and the check
// of its values against a kernel's spec. Only the machine line is read; the header's C++ layout is
// no interface.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// A machine line that is there but is not JSON. what(): "the pinned header <file>'s machine line
/// is not JSON (line <n>): <the parser's reason>"; `reason`: the part after "is ".
class MachineLineError : public std::runtime_error {
 public:
  MachineLineError(const std::string& what, std::string reason) : std::runtime_error(what), reason(std::move(reason)) {}
  std::string reason;  ///< "not JSON (line 3): <the parser's reason>"
};

/// The JSON of `header`'s machine line ("// adaexplore: {...}", the first such line), whatever its
/// type (check_pinned says when it is not an object); nullopt when the file has none. Throws
/// MachineLineError when the line is not JSON, std::runtime_error naming the file when the file
/// cannot be read.
std::optional<nlohmann::json> read_machine_line(const std::filesystem::path& header);

/// What no machine line means, naming `header`, `kernel` and the ways to get one (regenerate with
/// `adaexplore-tuner header`, pin again, or tools/add-machine-line.py).
std::string missing_machine_line_problem(const std::filesystem::path& header, const std::string& kernel);

/// What a machine line that is there but malformed means: "the pinned header <header>'s machine line
/// ('// adaexplore: {...}') is <what>: it is not a line AdaExplore wrote; " and the ways to get a
/// good one (as missing_machine_line_problem). `what`: `not JSON (line 3): ...`, `malformed: the
/// line's "config" is a number, not an object {name: value}`, ...
std::string malformed_machine_line_problem(const std::filesystem::path& header, const std::string& kernel,
                                           const std::string& what);

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
/// kernel `kernel` of `spec` (the spec.json object): its shape (an object whose members have the
/// types emit/header.hpp gives them; a malformed line is a problem, never an exception), its
/// namespace and kernel, the parameter set,
/// the problem sizes (the spec's "sizes", in their order; none without), and each value among the
/// parameter's values or range (every size's and every device's entry too). `archs`: the target
/// architectures ("sm_90", ...), the first one choosing a multi-device header's entry for `config`.
PinnedCheck check_pinned(const std::optional<nlohmann::json>& line, const std::filesystem::path& file,
                         const std::string& kernel, const nlohmann::json& spec, const std::vector<std::string>& archs);

/// The devices the machine line says the values were tuned on ("tuned_on"), once each; none when
/// it says none, or not as a list of text.
std::vector<std::string> pinned_tuned_on(const nlohmann::json& line);

}  // namespace adaexplore
