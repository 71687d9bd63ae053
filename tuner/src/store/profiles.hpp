// The Nsight Compute profiles of a tuning (evaluate/profile.hpp measures them), kept beside its
// results file.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace adaexplore {

/// Where the Nsight Compute profiles of a results file's tunings are kept (evaluate/profile.hpp):
/// <results>.profiles.ndjson, beside it (not *.jsonl: a tuning database's folder holds only
/// results files under that extension).
std::filesystem::path profiles_path(const std::filesystem::path& results);

// Where the profiles are kept: beside the results file (as its near-tie verdict is, confirm.hpp),
// in <results>.profiles.ndjson (profiles_path), one line per profiling stage ("batch"):
//   {"key": the results' key, "profiled": "<UTC ISO 8601 with ms>", "results": [to_json, ...]}
// Not in the results file itself: a tuner that predates profiles reads a shared database's
// results files, and every line there must stay a record. A batch of another key (the results
// were set aside and tuned again) is ignored; the newest batch of the key is the profile. Results
// set aside (--fresh, --retune, another key) take their profiles along (database.hpp set_aside).
/// Appends one batch (under the file's lock, file_lock.hpp). Throws std::runtime_error naming the
/// file when it cannot be written.
void append_profile_batch(const std::filesystem::path& results, const std::string& key, const nlohmann::json& results_json);
/// The newest batch of `key` beside `results` ({"key", "profiled", "results"}), or null when there
/// is none. A line that is not JSON is skipped with a warning on stderr naming the file and line
/// (the profiles are a cache: the tuning can profile again).
nlohmann::json latest_profile_batch(const std::filesystem::path& results, const std::string& key);

}  // namespace adaexplore
