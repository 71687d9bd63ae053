// Where a kernel's header values come from at configure time: a tuning (TUNED), the tuning
// database's stored winner (CACHED, which becomes TUNED when there is one), the pinned header
// (PINNED) or the defaults (DEFAULTS); with cross-compiling, the pinned-header check against the
// spec, the no-GPU warning and what a failure says. `adaexplore-tuner configure` (the CMake
// module's one call per kernel, cli/command_configure.cpp) is an adapter over configure_origin();
// the module prints the messages it returns. Nothing here prints or exits.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// What the module knows of the call and the configure (`configure --request`, JSON; the keys in
/// parentheses), and the tuner that runs the steps. Paths are absolute.
struct OriginRequest {
  std::string kernel;                 // (kernel) the adaexplore_tune_kernel() name
  std::string backend = "cuda";       // (backend) "cuda" | "host"
  std::filesystem::path spec;         // (spec) the spec.json the module wrote
  std::filesystem::path kernel_dir;   // (kernel_dir) <build>/_adaexplore/kernels/<name>
  std::filesystem::path header;       // (header) the header to write
  std::filesystem::path generated;    // (generated) the tuned headers' folder (tune --generated)
  std::filesystem::path database;     // (database) the tuning database, resolved
  std::string database_setting;       // (database_setting) ADAEXPLORE_DATABASE as given, for messages
  std::string mode = "AUTO";          // (mode) AUTO, TUNE, CACHED, PINNED or DEFAULTS (OFF -> DEFAULTS)
  std::string mode_setting;           // (mode_setting) ADAEXPLORE_MODE as given, for messages
  int device_index = 0;               // (device_index) ADAEXPLORE_DEVICE
  bool retune = false;                // (retune) ADAEXPLORE_RETUNE names the kernel
  bool profile = false;               // (profile) ADAEXPLORE_PROFILE names the kernel
  std::filesystem::path pinned;       // (pinned) the pin location (the file need not exist)
  std::string pinned_dir_setting;     // (pinned_dir_setting) ADAEXPLORE_PINNED_DIR as given
  std::vector<std::string> archs;     // (archs) target architectures, "sm_90"; cuda only
  bool cross_compiling = false;       // (cross_compiling) CMAKE_CROSSCOMPILING
  std::string system_name, system_processor, host_processor;  // (system_name, ...) for its messages
  std::vector<std::string> said;      // (said) the "once" messages this configure has shown already
  /// Not in the JSON: the tuner that runs the steps (`configure --tool`, else the running one),
  /// absolute and canonical; part of check.stamp's key, so another tuner checks again. Empty in tests.
  std::filesystem::path tuner;
};

/// The GPU `adaexplore-tuner device --index <i>` answered (asked once per configure).
struct DeviceFacts {
  bool present = false;
  std::string about;  // "GPU 0: NVIDIA H100, compute capability 9.0", or why there is none
  std::string name, compute_capability;  // "NVIDIA H100", "9.0"; empty without a GPU
};

/// A message for the module to print with message(<level>): "STATUS", "NOTICE", "WARNING" or
/// "FATAL" (the module prefixes a FATAL text with the call site and "adaexplore_tune_kernel(<name>): ").
/// `once`: shown once per configure ("no_gpu", "cross_compiling"); `shown`: already printed on
/// stdout (a STATUS line printed as it happened, so that it precedes a tuning's progress lines).
struct ConfigureMessage {
  std::string level, text, once;
  bool shown = false;
};

enum class Origin { tuned, cached, pinned, defaults };
std::string to_string(Origin origin);  // "TUNED", "CACHED", "PINNED", "DEFAULTS"

/// The decision before anything runs: choose_origin().
struct OriginDecision {
  Origin origin = Origin::defaults;
  std::string reason;                    // why not tuned, for the defaults header's comment
  std::vector<ConfigureMessage> messages;
  bool fatal() const;                    // a FATAL message is among them
};

/// What a backend means to the origin decision, from the backend registry's row (backend_traits()).
struct BackendTraits {
  bool needs_gpu = true;      // tunes only where a GPU is (cuda); else on the CPU it is configured on
  bool compiles_in_check = true;  // `check` compiles the defaults (cuda); host: --no-compile
};
BackendTraits backend_traits(const std::string& backend);

/// Whether choose_origin() needs the device (DeviceFacts) for `request`: a backend that needs a GPU
/// in AUTO or TUNE mode, or cross-compiling with a target architecture.
bool origin_needs_device(const OriginRequest& request);

/// Where the values come from, and what to say (the wording of the CMake module's messages):
/// DEFAULTS mode -> DEFAULTS; PINNED mode -> PINNED (FATAL without a pinned header); cross-compiling
/// -> FATAL in TUNE mode, else CACHED where this machine's GPU has the first target architecture,
/// else PINNED (a pinned header exists) or DEFAULTS; CACHED mode -> CACHED; a backend without a GPU
/// -> TUNED; a GPU -> TUNED; none -> FATAL in TUNE mode, else the no-GPU warning (once) and PINNED
/// or DEFAULTS. `device`: required when origin_needs_device(request). `pinned_exists`: the pin
/// location holds a file.
OriginDecision choose_origin(const OriginRequest& request, const std::optional<DeviceFacts>& device, bool pinned_exists);

/// One step the flow runs (a tuner subcommand): its arguments after the executable, e.g. {"tune",
/// "--spec", ...}; `live`: its stdout goes straight to the configure's stdout (a tuning's progress
/// lines), else it is captured.
struct StepResult {
  int exit_code = 0;     // the step's exit code; 128 + N when killed by signal N; 127: it did not start
  std::string out, err;  // captured stdout (not live), stderr
  std::string command;   // the command line, for messages
  double timed_out_after_s = 0;  // > 0: it did not end within this many seconds and was killed
};
using RunStep = std::function<StepResult(const std::vector<std::string>& args, bool live)>;

/// One step run as a child process: `tool` (an adaexplore-tuner) with `args`; `live`: its stdout
/// goes to this process's stdout, else it is captured (the last 256 KiB). `timeout_s` > 0: the step
/// (its process group) is killed after that many seconds and timed_out_after_s says so. Never
/// throws: a step that cannot start has exit code 127 and the reason in `err`.
StepResult run_tool_step(const std::filesystem::path& tool, const std::vector<std::string>& args, bool live,
                         double timeout_s = 0);

/// The answer of configure_origin().
struct OriginAnswer {
  std::string origin;  // "TUNED", "PINNED" or "DEFAULTS" (CACHED ends as TUNED or falls back); "" after FATAL
  std::vector<ConfigureMessage> messages;
  std::optional<DeviceFacts> device;  // the device, when this call asked it
  bool retuned = false;               // tuned with --retune
};

/// Decides and produces the header: runs `tune` (TUNED), `tune --cached` (CACHED), `check` (a
/// pinned header or the defaults, skipped while check.stamp says nothing changed), copies the pinned
/// header, runs `defaults`, through `run`. `device`: the answer of an earlier kernel of this
/// configure, if any (else asked with `device --index` when needed). `status`: called with each
/// STATUS text as it is said (the command prints it at once; the message is then `shown`).
/// Stops at the first FATAL message. Never throws: anything that throws on the way (a file that
/// cannot be read or written, a path whose type cannot be told) ends it with a FATAL message
/// (stopped_text()) after the messages said so far.
OriginAnswer configure_origin(const OriginRequest& request, std::optional<DeviceFacts> device, const RunStep& run,
                              const std::function<void(const std::string&)>& status);

/// The FATAL text of a configure that stopped on an exception: `what` (which names the file), the
/// kernel, and what to do (make the named file or folder readable or writable, then configure again).
std::string stopped_text(const OriginRequest& request, const std::string& what);

/// The request from its JSON (keys as above). Throws std::invalid_argument naming a key that is
/// missing or of the wrong type.
OriginRequest origin_request_from_json(const nlohmann::json& j);
nlohmann::json to_json(const OriginAnswer& answer);
nlohmann::json to_json(const DeviceFacts& device);
DeviceFacts device_facts_from_json(const nlohmann::json& j);

/// The last `max` characters of `text` ("..." before them when cut), stripped, each line indented
/// by two spaces: the end of a step's messages inside an error.
std::string message_tail(std::string text, std::size_t max);

}  // namespace adaexplore
