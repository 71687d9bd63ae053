// `merge`: the records of results files from other machines (databases, build trees, single
// files) copied into one tuning database (database.hpp), with their provenance.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace adaexplore {

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
/// The destination file's lock is held while it is read and appended to. Every source is read and
/// checked before anything is written: throws ResultsError for a source that is not a results file
/// (naming it, the line, and the `mv` command), with nothing merged. Throws EnvironmentError
/// (util/files.hpp) when `into` is a file, or a destination file cannot be created, locked or
/// written; an error while merging ends with what was merged before it stopped ("; merged before
/// it stopped (kept): <kernel> <key>: N records into <file>, ..." or "; nothing was merged").
MergeReport merge_into(const std::filesystem::path& into,
                       const std::vector<std::filesystem::path>& sources);

}  // namespace adaexplore
