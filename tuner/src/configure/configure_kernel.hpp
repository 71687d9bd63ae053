// Configure one kernel: the product's one use case as a library call. From a spec and a request
// (where the header, the results, the database and the report go; how to resume, confirm and
// profile), tune each key (the spec's, or one per problem size) with resume and near-tie
// confirmation, verify each size's winner at every size, profile, write the report and the header,
// and answer with values: the header's path and text, each key's results, and why when there is
// no header. It never exits and never prints: every line goes to the caller's Messages.
// `tune`, `tune --cached`, `tune --mpi` and `defaults` (tuner/src/cli/) are adapters over it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/outcome.hpp"
#include "model/spec.hpp"

namespace adaexplore {

class Coordinator;

/// Where the words of a configuration go, line by line as they happen: `out` the progress and
/// results lines (`adaexplore-tuner tune` gives its stdout), `err` the warnings and the reasons a
/// step failed (its stderr). A test or another front end gives string streams.
struct Messages {
  std::ostream& out;
  std::ostream& err;
};

/// How a problem size tuned after others starts (a spec with "sizes"; docs/sizes.md).
enum class SizeTransferMode {
  /// The configurations the strategy's performance model, fitted on the other sizes' evaluations
  /// with their sizes, predicts best at this size (adaexplore: the model's picks alternating with
  /// the other sizes' winners); the winners alone when the strategy has no such model (random,
  /// ga) or too little to fit it on (fewer than 2 successes at other sizes).
  model,
  /// The other sizes' best configurations, nearest size first (the tuning before 2026-12-06); the
  /// strategy's model does not see the other sizes' evaluations either.
  winners,
};
/// "model" | "winners"
std::string to_string(SizeTransferMode mode);

/// What the caller asks of a configuration besides the spec (`adaexplore-tuner tune --help` says
/// each option at length; the spec's own overrides, such as --budget, are applied to the Spec).
struct Request {
  std::filesystem::path header;    ///< the header to write; empty: <work_dir>/<name>.hpp
  std::filesystem::path results;   ///< results file (JSON Lines); empty: <work_dir>/results.jsonl
  std::filesystem::path database;  ///< tuning database folder; empty: none (then `results`)
  /// Folders of tuned headers (the build tree's): outputs, left out of the results' key.
  std::vector<std::filesystem::path> generated;
  std::vector<int> devices = {0};  ///< cuda: the CUDA device indices to measure on
  std::size_t warm_start = 4;      ///< with a database: the other keys' best configurations first
  std::size_t confirm_rounds = 3;  ///< near-tie rounds (loop/confirm.hpp); 0: off
  double confirm_margin = 0.03;    ///< near-tie margin, a fraction of the best median
  std::size_t in_flight = 0;       ///< configurations in flight; 0: the spec's, else automatic
  /// How a size tuned after others starts (SizeTransferMode); `tune --size-transfer`.
  SizeTransferMode size_transfer = SizeTransferMode::model;
  bool fresh = false;   ///< set the key's earlier results aside and start over
  bool retune = false;  ///< with a database: set the key's stored results aside and tune again
  bool cached = false;  ///< with a database: evaluate nothing, the header from the stored winner
  bool quiet = false;   ///< no progress lines
  std::filesystem::path report;  ///< the report; empty: beside the results (sizes: PATH.<size>.html)
  std::string chartjs;           ///< Chart.js to inline into the report; empty: found (report.hpp)
  bool no_report = false;
  bool profile = false;                ///< Nsight Compute on the finalists after the search
  double profile_time_limit_s = 180;   ///< no profile starts after this many seconds (0: none)
  Coordinator* cluster = nullptr;      ///< rank 0 of `tune --mpi`: its worker ranks (cluster.hpp)
  /// The words that open a failure's message ("adaexplore-tuner tune: ...").
  std::string command = "adaexplore-tuner tune";
};

/// How a configuration ended. The CLI maps each to its exit code (cli/commands.hpp).
enum class Ending {
  header_written,  ///< the header is written or unchanged
  no_device,       ///< a cuda tuning without its GPU (`reason` says which and why)
  tuning_failed,   ///< no configuration compiled, ran and verified, or the setup is broken
  no_result,       ///< nothing usable stored (cached), or a size without a winner usable at every size
  bad_input,       ///< the header could not be written for a reason of the input
  environment,     ///< the header could not be written: permissions, a full disk, ...
};

/// One key's part of the answer (a spec without sizes has one, with `size` empty).
struct KeyResult {
  std::string size;                   ///< the size's label ("M=512 N=512 K=512"), or empty
  std::string key;                    ///< the results' key (store/key.hpp)
  std::filesystem::path results;      ///< its results file
  std::size_t resumed = 0;            ///< evaluations stored before this run and resumed
  std::size_t evaluations = 0;        ///< evaluations in its results after this run
  std::size_t new_evaluations = 0;    ///< evaluated by this run (verification rounds included)
  std::optional<Outcome> winner;      ///< the configuration the header crowns at this key
  std::vector<std::string> verified;  ///< sizes where `winner` ran and verified (with sizes)
  std::vector<std::string> not_verified;  ///< sizes where it did not, with why
  std::filesystem::path report;       ///< the report written, or empty
  bool failed = false;                ///< its tuning failed (the others' results stand)
};

/// The answer of configure_kernel.
struct KernelResult {
  Ending ending = Ending::header_written;
  std::string reason;                 ///< why, when `ending` is not header_written
  std::filesystem::path header;       ///< the header's path (written or not)
  std::string header_text;            ///< what it holds, when written or unchanged
  bool header_changed = false;        ///< it was (re)written, not left unchanged
  bool stale_header_removed = false;  ///< an earlier tuning's header at `header` was removed
  std::vector<KeyResult> keys;        ///< in the spec's order of sizes
};

/// Tune `spec` (its overrides applied) into the header request.header names, resuming and
/// confirming as `request` says; every line to `messages`. With request.cached: the header from
/// the database's stored winners, evaluating nothing. When a tuning that ran writes no header, a
/// header an earlier tuning wrote there is removed (it no longer matches the sources).
/// Throws, naming the file, on bad input (a foreign results file: ResultsError; a template or
/// spec problem: std::runtime_error) and EnvironmentError (util/files.hpp) for the environment.
KernelResult configure_kernel(const Spec& spec, const Request& request, Messages& messages);

/// The header of the spec's defaults (kTuned = false), with `reason` in its comment: the same
/// declarations as a tuned header, every size's entry the defaults. `header` empty:
/// <work_dir>/<name>.hpp. No GPU, no tuning. Throws EnvironmentError when it cannot be written.
KernelResult write_defaults_header(const Spec& spec, const std::filesystem::path& header, const std::string& reason,
                                   Messages& messages);

}  // namespace adaexplore
