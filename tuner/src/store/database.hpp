// The tuning database: the results files of many build trees, kernels, devices and keys in one
// folder, shared by tunings running at the same time (`tune --database DIR`), merged from other
// machines (`merge`, merge.hpp) and read for multi-device headers (`header --database`,
// emit/header_selection.hpp) and warm starts (warm_start.hpp). This file: where files go.
//
//   DIR/<kernel>/<key first 16 hex>.jsonl           one results file per key (format: results.hpp;
//                                                   the key: key.hpp)
//   DIR/<kernel>/<key first 16 hex>.jsonl.lock      its lock (file_lock.hpp): taken per append, per read
//   DIR/<kernel>/<...>.jsonl.retune-<UTC>           results set aside by `tune --retune`, never deleted
//   DIR/<kernel>/<...>.jsonl.corrupt-<UTC>          where error messages propose to move a bad file
//
// No index: a kernel's keys are the *.jsonl files of its folder, each naming its key, device and
// date in its header line; anything else in the folders is ignored. A *.jsonl file that is not a
// results file of its folder's kernel and file name's key is an error (never overwritten).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "store/results.hpp"

namespace adaexplore {

/// DIR/<kernel>/<key first 16 hex>.jsonl
std::filesystem::path database_file(const std::filesystem::path& dir, const std::string& kernel,
                                    const std::string& key);

/// Throws ResultsError naming the file, its first line and the `mv` command that moves it aside
/// when the header's kernel does not name the file's folder or its key does not start with the
/// file's name (a foreign or misplaced file).
void check_placement(const std::filesystem::path& file, const ResultsHeader& header);

/// Moves `file` aside as "<file>.<tag>-<YYYYMMDDTHHMMSSZ>" (then "-2", "-3", ... when taken),
/// under its lock: never replaces an earlier set-aside file; its profiles (profiles.hpp
/// profiles_path) go along, as <new path>.profiles.ndjson. Returns the new path; empty when
/// there was no file.
std::filesystem::path set_aside(const std::filesystem::path& file, const std::string& tag);
/// set_aside(file, tag) with the tag `decide` returns for the file's content ("" keeps the file),
/// read and judged under the same lock as the rename, so that no record another process appends
/// in between is set aside unjudged. `decide` gets the file as read_raw_results(file, false) reads
/// it (a file that cannot be read throws, as there). Returns the new path; empty when there was no
/// file (or an empty one) or `decide` kept it.
std::filesystem::path set_aside_if(const std::filesystem::path& file,
                                   const std::function<std::string(const RawResults&)>& decide);

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

}  // namespace adaexplore
