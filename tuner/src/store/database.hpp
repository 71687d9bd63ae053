// The tuning database: the results files of many build trees, kernels, devices and keys in one
// folder, shared by tunings running at the same time (`tune --database DIR`), merged from other
// machines (`merge`) and read for multi-device headers (`header --database`).
//
//   DIR/<kernel>/<key first 16 hex>.jsonl           one results file per key (format: results.hpp)
//   DIR/<kernel>/<key first 16 hex>.jsonl.lock      its lock (file_lock.hpp): taken per append, per
//   read DIR/<kernel>/<...>.jsonl.retune-<UTC>           results set aside by `tune --retune`,
//   never deleted DIR/<kernel>/<...>.jsonl.corrupt-<UTC>          where error messages propose to
//   move a bad file
//
// No index: a kernel's keys are the *.jsonl files of its folder, each naming its key, device and
// date in its header line; anything else in the folders is ignored. A *.jsonl file that is not a
// results file of its folder's kernel and file name's key is an error (never overwritten).
//
// The key (results.hpp) hashes key_parts(): the spec's content without paths, the template's and
// the benchmark's content, the content of the headers they include (not the toolkit's, the
// system's or the harness's; found by the compiler, ProgramBackend::included_headers), the
// backend, and the device without what tells two GPUs of one model
// apart (index, UUID, PCI bus id). Identical GPUs share results; another model, SM count, memory,
// driver, CUDA runtime, compiler version or architecture never does.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "emit/header.hpp"
#include "store/results.hpp"
#include "model/spec.hpp"
#include "util/hash.hpp"

namespace adaexplore {

/// The key's parts that come from the spec and its files, as content hashes:
/// {"spec", "template", "benchmark", "backend"}. Left out of "spec": what does not change a
/// measurement (budget, strategy, strategy_options, seed, jobs, work_dir, namespace, $comment),
/// the list of problem sizes (sizes: each size is a key of its own, key_parts's "size")
/// and what is a path (template, benchmark: their content is hashed; compiler.path and
/// compiler.arch: the compiler's version and the effective architecture are in the device part;
/// compiler.include_dirs: paths, absolute when CMake writes them, whose headers are not hashed),
/// and the time limits (compiler.timeout_s, run.timeout_s, run.timeout_factor,
/// run.timeout_floor_s).
nlohmann::json content_key_parts(const Spec& spec);
/// The device as it enters the key: Backend::device() without "index", "uuid" and "pci_bus_id".
nlohmann::json device_key_part(const nlohmann::json& device);
/// content_key_parts(spec) + {"device": device_key_part(device)}, + {"size": {"M": 512, ...}} when
/// spec.size is set (the problem size tuned, sizes.hpp), + {"includes": content hash of
/// `includes`} when that is not empty (Backend::included_headers(): the headers the template and
/// the benchmark include, by file name and content, so that an edited header is another key;
/// not their paths, so that another checkout of the same sources shares the key); the key is
/// content_hash(dump()).
nlohmann::json key_parts(const Spec& spec, const std::string& backend,
                         const nlohmann::json& device, const nlohmann::json& includes = nlohmann::json::array());

/// DIR/<kernel>/<key first 16 hex>.jsonl
std::filesystem::path database_file(const std::filesystem::path& dir, const std::string& kernel,
                                    const std::string& key);

/// Throws ResultsError naming the file, its first line and the `mv` command that moves it aside
/// when the header's kernel does not name the file's folder or its key does not start with the
/// file's name (a foreign or misplaced file).
void check_placement(const std::filesystem::path& file, const ResultsHeader& header);

/// Moves `file` aside as "<file>.<tag>-<YYYYMMDDTHHMMSSZ>" (then "-2", "-3", ... when taken),
/// under its lock: never replaces an earlier set-aside file; its profiles (results.hpp
/// profiles_path) go along, as <new path>.profiles.ndjson. Returns the new path; empty when
/// there was no file.
std::filesystem::path set_aside(const std::filesystem::path& file, const std::string& tag);

/// set_aside(file, "retune").
std::filesystem::path set_aside_for_retune(const std::filesystem::path& file);

struct StoredKey {
  std::filesystem::path file;
  RawResults raw;
};

/// Every results file of `kernel` in the database `dir`, sorted by file name, each read under its
/// lock and checked (check_placement). A file that cannot be used throws ResultsError; with
/// `problems` given, it is skipped instead and the error's text appended there.
std::vector<StoredKey> stored_keys(const std::filesystem::path& dir, const std::string& kernel,
                                   std::vector<std::string>* problems = nullptr);

/// Warm start: the best configurations of a kernel's other keys (another GPU, an edited template).
struct WarmStart {
  std::vector<Config> configs;       // in the order they are to be evaluated
  std::size_t keys = 0;              // keys they come from
  std::vector<std::string> devices;  // those keys' device names, distinct, in order
  /// "4 configurations from 2 earlier keys (device NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3)"
  std::string describe() const;
};

/// Up to `limit` configurations from the keys other than `current_key`: taken round-robin over
/// those keys (keys of a device with the same name first, then the most recently started), from
/// each key its successful records, lowest objective first. Records whose configuration is not in
/// `space` (an edited search space) or violates one of its constraints are skipped, and so are
/// the configurations of `measured` (the current key's outcomes).
WarmStart warm_start(const std::vector<StoredKey>& keys, const std::string& current_key,
                     const nlohmann::json& device, const Space& space, std::size_t limit,
                     const std::vector<Outcome>& measured = {});

/// "9.0" -> 90, "10.0" -> 100, "12.1" -> 121 (10 * major + minor); 0 when absent or malformed.
int compute_capability_number(const nlohmann::json& device);

/// One device's entry of a header written from the database.
struct DeviceChoice {
  int compute_capability = 0;  // 10 * major + minor; 0 for the host backend
  std::filesystem::path file;
  ResultsFile results;  // the key's records, rebuilt in the spec's space
  Outcome best;         // its winner
  std::string why;      // how it was chosen among several of its compute capability; empty if alone
};

struct HeaderSelection {
  std::vector<DeviceChoice> chosen;  // one per compute capability, ascending
  std::size_t usable = 0;            // keys of the spec's content with a successful result
  std::vector<std::string> notes;    // keys left out and why
};

/// The keys whose content parts equal the spec's (same spec, template, benchmark, backend: any
/// device), with a successful result; one per compute capability (host backend: one in all):
/// among several, the first whose device name contains one of `prefer` (in the order given),
/// else the most recently started. Records outside the spec's space are an error (ResultsError).
HeaderSelection select_for_header(const std::vector<StoredKey>& keys, const Spec& spec,
                                  const std::vector<std::string>& prefer);

/// The HeaderInfo of a tuned header written from a key's stored results (`tune --cached`,
/// `header`): winner best_of(results.outcomes), or, given the results' `file`, the winner of the
/// near-tie verdict kept beside it (confirm.hpp confirmed_best); baseline the outcome of
/// spec.defaults, counts and evaluations over the outcomes, device and date from the file's header
/// line, budget from the spec; `strategy` and `seed` as given. Byte-identical to what `tune`
/// writes from the same file.
HeaderInfo stored_header_info(const Spec& spec, const ResultsFile& results, const std::string& strategy,
                              std::uint64_t seed, const std::filesystem::path& file = {});

/// What `merge` did to one key of the destination.
struct MergeKeyReport {
  std::string kernel, key;
  std::string device;          // device name and compute capability
  std::filesystem::path file;  // in the destination
  bool created = false;        // the destination had no file of this key
  std::size_t added = 0;       // records copied
  std::size_t present = 0;     // records already there (identical but for index and merged_from)
  std::size_t remeasured =
      0;  // added records of a configuration already there with the same status
  std::vector<std::string>
      conflicts;  // added records of a configuration already there with another status
  std::vector<std::string> sources;  // source files
};

struct MergeReport {
  std::vector<MergeKeyReport> keys;  // sorted by kernel, key
  std::vector<std::string>
      warnings;  // half-written lines dropped, sources that were the destination itself
};

/// Copies the records of `sources` into the database `into` (created when missing). A source is a
/// results file or a folder searched recursively for *.jsonl (a database, a build tree). Each
/// record goes to into/<kernel>/<key first 16 hex>.jsonl as read from the source's header line; a
/// file created there starts with the source's header line plus "merged_from": [{"path", "host",
/// "merged"}]; each copied record gets "merged_from": {"path", "host", "merged"} ("host": where it
/// was tuned, from the source's header, when known). A record identical to one already there
/// (ignoring "index" and "merged_from") is not copied again; a different measurement of a
/// configuration already there is copied too (measurements are never dropped; readers keep the
/// first, the destination's) and counted: `remeasured`, or `conflicts` when the status differs.
/// The destination file's lock is held while it is read and appended to. Throws ResultsError for
/// a source that is not a results file (naming it, the line, and the `mv` command).
MergeReport merge_into(const std::filesystem::path& into,
                       const std::vector<std::filesystem::path>& sources);

}  // namespace adaexplore
