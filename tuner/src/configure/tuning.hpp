// The parts configure_kernel (configure_kernel.hpp) is made of, shared by the folder's files: where a
// key's results go (place.cpp), the backend of a tuning (backend_setup.cpp), one key tuned
// (key_tuning.cpp) and finished with its profile and report (finish.cpp), a kernel with sizes
// (sized.cpp). Not for callers outside tuner/src/configure/ and cli/command_tune*.cpp.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "configure/configure_kernel.hpp"
#include "evaluate/backend.hpp"
#include "evaluate/device.hpp"
#include "loop/tuner.hpp"
#include "search/strategy.hpp"
#include "store/results.hpp"

namespace adaexplore {

struct SizeHeaderEntry;  // emit/header.hpp
struct SizesSpec;        // model/sizes.hpp

/// One configure_kernel call: the request, where its words go and the GPUs it measures on.
/// `defer_finish`: the keys' profiles and reports are left to the caller (a kernel with sizes:
/// after the verification rounds, with the winner the header crowns).
struct Tuning {
  Request request;
  Messages* messages = nullptr;
  std::vector<DeviceInfo> devices;
  bool defer_finish = false;
  std::ostream& out() const { return messages->out; }
  std::ostream& err() const { return messages->err; }
};

/// `given`, or <spec.work_dir>/<leaf> when empty.
std::filesystem::path default_path(const Spec& spec, const std::filesystem::path& given, const std::string& leaf);
/// The header a configuration of `spec` writes: request.header, else <work_dir>/<name>.hpp.
std::filesystem::path header_path_of(const Spec& spec, const Request& request);

/// The results file's header line of a key's tuning (its key, device, strategy, start) and where
/// the results go.
struct KeyPlace {
  ResultsHeader header;
  std::filesystem::path results;
  std::string leaf;  ///< the size's slug for a spec with sizes ("M512_N512_K512"), else empty
};

/// The headers the template and the benchmark include, for the key (Backend::included_headers),
/// without the outputs: the header at `header_path` and the folders of request.generated.
nlohmann::json included_headers(const Request& request, Backend& backend, const std::filesystem::path& header_path);
/// The key's header line and results path: the database's file of the key, else request.results
/// (with sizes: R.<leaf>.jsonl), else <work_dir>/results.jsonl.
KeyPlace key_place(const Request& request, const Spec& spec, Backend& backend, const nlohmann::json& includes,
                   const std::string& results_leaf);
/// Where the report of `results` goes: request.report (with the size's leaf), else beside them.
std::filesystem::path report_path(const Request& request, const std::filesystem::path& results, const std::string& leaf);

/// The GPUs of request.devices (cuda) into `devices`; "" or, when one is missing, why ("no CUDA
/// GPU 1 to tune on: ..."). Throws std::runtime_error for a device given twice.
std::string find_tuning_devices(const Request& request, const Spec& spec, std::vector<DeviceInfo>& devices);
/// This process's backend of `spec` on `devices`.
std::unique_ptr<Backend> local_backend(const Spec& spec, const std::vector<DeviceInfo>& devices);
/// The backend of a tuning: this process's, or (request.cluster) one over the ranks of the MPI
/// job, checked to share this key and not to share GPUs (throws std::runtime_error naming them).
std::unique_ptr<Backend> tuning_backend(const Tuning& t, const Spec& spec);
/// What a rank of an --mpi tuning says of its backend: key parts, device, GPU UUIDs.
nlohmann::json cluster_hello(const Request& request, const Spec& spec, Backend& backend,
                             const std::vector<DeviceInfo>& devices);

/// What a tuning of one key takes besides the spec: the other sizes' transfer (sizes.hpp).
struct KeyExtras {
  std::vector<Config> warm_start;  ///< evaluated right after the defaults (after the database's)
  std::vector<Outcome> prior;      ///< StrategyOptions::prior
  bool database_warm_start = true; ///< also the database's other keys (Request::warm_start)
  /// A size tuned after others with Request::size_transfer model: the other sizes' evaluations,
  /// each with its size (StrategyOptions::transfer). When the strategy's performance model
  /// predicts a start from them (Strategy::predicted_start, spec.sizes.warm_start
  /// configurations), that start replaces `warm_start`; empty, or a model that predicts nothing:
  /// `warm_start` (the other sizes' winners).
  std::vector<StrategyOptions::SizedOutcome> transfer;
  /// The sizes `transfer` holds, for the tuning's lines: "N=256; N=1000".
  std::string transfer_sizes;
};

/// One key tuned: resumed, evaluated up to the budget, near-ties confirmed; then, unless
/// t.defer_finish, profiled and reported (finish_key; `report_file`, when given, gets the report's
/// path). True with a winner in `report`; else false, having said why (and `reason` says it in one
/// line).
bool tune_key(const Tuning& t, const Spec& spec, Backend& backend, KeyPlace& place, const KeyExtras& extras,
              const std::string& label, TuneReport& report, std::string& reason,
              std::filesystem::path* report_file = nullptr);

/// After a key's tuning: its finalists profiled (request.profile), then its report written, also
/// when nothing succeeded. `backend`: null when the tuning failed. Neither can fail the tuning: a
/// problem is a warning. Returns the report's path, or empty when none was written.
std::filesystem::path finish_key(const Tuning& t, const Spec& spec, Backend* backend, const KeyPlace& place,
                                 const std::string& label, const std::optional<Outcome>& winner,
                                 const std::vector<Outcome>& outcomes, const std::set<Config>& excluded = {});

/// The outcome of `config` among `outcomes`, or none.
const Outcome* outcome_of(const std::vector<Outcome>& outcomes, const Config& config);
/// "<name>, compute capability X.Y" of a results header's device.
std::string device_words(const nlohmann::json& device);
/// Each warning as "[adaexplore] warning: <w>" to t.err().
void print_warnings(const Tuning& t, const std::vector<std::string>& warnings);

/// The header entry of size `index`: its label and values, `config` its values until crowned.
SizeHeaderEntry size_entry(const SizesSpec& sizes, std::size_t index, const Config& config);
/// The spec of size `index`: the size set and its own work folder <work_dir>/size-<slug>.
Spec size_spec(const Spec& spec, std::size_t index);
/// `tune` of a kernel with sizes (sized.cpp).
KernelResult configure_sizes(const Tuning& t, const Spec& spec);
/// After a tuning whose header could not be rendered or written (`e`): says so on t.err() (the
/// header's path, `e`, the system's reason within it) and that the evaluations are kept (`kept`:
/// "12 evaluations are kept in <results>", the tuning database named after it), and sets `result`:
/// Ending::environment for an EnvironmentError, else bad_input, with the reason.
void header_not_written(const Tuning& t, const Spec& spec, const std::exception& e, const std::string& kept,
                        KernelResult& result);

}  // namespace adaexplore
