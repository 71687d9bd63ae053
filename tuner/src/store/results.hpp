// The results file: JSON Lines, one evaluation per line, appended and flushed as each finishes.
//
//   line 1:  {"format": "adaexplore-results", "version": 1, "kernel": "...", "key": "<hash>",
//             "key_parts": {...}, "device": {...}, "strategy": "...", "seed": N, "started": "<UTC
//             ISO 8601>", "host": "<host name of the tuning>", "budget": N (the tuning's evaluations
//             budget; since 2026-12-05), "merged_from": [{"path", "host", "merged"}]  (only in a
//             file created by `merge`)}
//   line n:  {"index": n-2, <outcome record: label, config, status, objective_ms, timing, ...>,
//             "origin": {"host", "pid", "budget"},          (who measured it, under which budget)
//             "finished": "<UTC ISO 8601 with milliseconds>"  (when it was recorded; absent in
//                                                            files written before 2026-12-02)
//             "merged_from": {"path", "host", "merged"}     (only in a record copied by `merge`)}
//
// The outcome record's "extra" (outcome.cpp to_json) holds what the backend and the benchmark
// add (the benchmark's figures: program_outcome.hpp benchmark_outcome); among them
//   "ptxas_warnings": ["ptxas info    : (C7511) Potential Performance Loss: ...", ...]   cuda: the
//       compile's ptxas warnings and C75xx performance advisories, verbatim (ptxas.hpp
//       find_ptxas_warnings), whatever the status; absent when there were none
//   "timeout_stage": "compile" | "run"   a timeout's: the compile (or link) over compiler.timeout_s,
//       or the benchmark run over its run time limit
//
// The key hashes everything that makes earlier results valid for this tuning (spec, template and
// benchmark content, compiler, device). A reader given another key refuses the file (both keys
// quoted) unless asked to start over; a half-written last line (a killed tuning) is dropped with
// a warning; any other malformed line is an error naming the file and line, saying what is wrong
// and the `mv` command that moves the file aside. Unknown fields are kept by readers (ignored).
//
// Several writers (threads, processes, `merge`) may append to one file at once: every append takes
// the file's lock (`<file>.lock`, file_lock.hpp, created by the writer); a pure read takes it only
// when a writer already made it, and creates nothing. "index" is the record's position
// among the file's records. A writer hands the records other writers appended since its last look
// to its tuning (`ResultsWriter::take_foreign`), so a process never measures what it already has.
// A configuration recorded twice (two processes measured it at the same time, or a merge kept two
// measurements): readers keep the first record and count the others as duplicates.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/outcome.hpp"

namespace adaexplore {

/// A results file that cannot be used as it is. what(): "<file>:<line>: <problem>; <what to do>".
class ResultsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ResultsHeader {
  std::string kernel;
  std::string key;
  nlohmann::json key_parts = nlohmann::json::object();
  nlohmann::json device = nlohmann::json::object();
  std::string strategy;
  std::uint64_t seed = 0;
  std::string started;  // UTC, ISO 8601
  std::string host;     // host name of the machine that started the file; empty when unknown
  /// How a problem size of a kernel with sizes (sizes.hpp) started: "cold" (no other size had
  /// results: the spec's budget) or "transfer" (from the other sizes' evidence: sizes.budget), so
  /// that a resumed tuning and the header keep its budget. Empty for a kernel without sizes (the
  /// field "size_start" is then left out).
  std::string size_start;
  /// The evaluations budget of the tuning that started the file (after --budget; a size's own
  /// budget), "budget" in the header line; each record of a tuning also names its tuning's budget
  /// in "origin". Unset in files written before 2026-12-05.
  std::optional<std::size_t> budget;
  nlohmann::json merged_from = nlohmann::json::array();  // [{"path", "host", "merged"}], by `merge`
  nlohmann::json other = nlohmann::json::object();  // fields this tuner does not know, kept as read
};

nlohmann::json header_to_json(const ResultsHeader& header);
/// The header line's fields; throws ResultsError "<file>:<line>: ..." for a line that is not an
/// AdaExplore results header of this version.
ResultsHeader header_from_json(const nlohmann::json& j, const std::filesystem::path& file,
                               std::size_t line);

struct ResultsFile {
  ResultsHeader header;
  std::vector<Outcome> outcomes;  // one per configuration: the first record of each
  std::size_t duplicates = 0;  // later records of a configuration already read (kept in the file)
  /// Per outcome, the position of its record among RawResults::records (results_from_raw); empty
  /// from a ResultsWriter.
  std::vector<std::size_t> record_index;
  std::vector<std::string> warnings;  // e.g. a dropped half-written last line
  /// The budget of the latest tuning that recorded into the file (recorded_budget): what a header
  /// written from the file states, as the tuning's own header did.
  std::optional<std::size_t> budget;
};

/// One record line as read, without a search space.
struct RawRecord {
  std::size_t line = 0;  // 1-based line number in the file
  nlohmann::json json;
};

struct RawResults {
  ResultsHeader header;
  std::size_t header_line = 0;
  std::vector<RawRecord> records;  // every record, duplicates included, in file order
  std::vector<std::string> warnings;
};

/// Reads a results file without a search space (merge, database listings): the header line is
/// checked (format, version), every other non-empty line must be a JSON object with a "config"
/// object and a known "status". With `take_lock`, takes the file's lock when its lock file already
/// exists (FileLock::lock_if_present); a reader never creates a lock file or a folder. Throws
/// ResultsError naming the file when it does not exist (checked first) and the file and line for
/// malformed content.
RawResults read_raw_results(const std::filesystem::path& path, bool take_lock = true);

/// The evaluations budget of the latest tuning that recorded into the file: the last record's
/// "origin": {"budget"}, else the header line's "budget"; unset when neither says (older files).
std::optional<std::size_t> recorded_budget(const RawResults& raw);

/// Reads a results file (under its lock): outcomes rebuilt in `space`, the first record of each
/// configuration kept. Throws ResultsError naming the file and line for malformed content.
ResultsFile read_results(const std::filesystem::path& path, const Space& space);
/// The same from lines already read (`path` for messages): records outside `space` are an error.
ResultsFile results_from_raw(const RawResults& raw, const std::filesystem::path& path,
                             const Space& space);

/// Appends records; writes the header line when the file is new or empty. Each append takes the
/// file's lock, first reads what other writers appended since (see take_foreign), ends a line cut
/// by a killed writer (a complete record is kept, a half-written one cut off), writes the record
/// and its '\n' and flushes. Thread-safe; several writers may share one file.
class ResultsWriter {
 public:
  /// `space` rebuilds other writers' records as outcomes. Throws EnvironmentError (files.hpp) when
  /// the file or its folder cannot be created (a file in the folder's place, permissions, disk),
  /// ResultsError when it holds another key or kernel than `header` (both quoted).
  ResultsWriter(const std::filesystem::path& path, const ResultsHeader& header, const Space& space);
  /// As above; `first_index` is ignored (the index is the record's position in the file). Kept
  /// for callers written before several writers could share a file.
  ResultsWriter(const std::filesystem::path& path, const ResultsHeader& header, const Space& space,
                std::size_t first_index);
  ~ResultsWriter();

  /// The file's header line and records as they are now (the first record of each configuration;
  /// see ResultsFile), read under the lock; what it returns is not handed out again by
  /// take_foreign.
  ResultsFile read_existing();
  /// Appends one outcome (with "origin": this host and process, and the header's budget).
  void append(const Outcome& outcome);
  /// Appends one record as it is (merge); its "index" is set to its position.
  void append_json(nlohmann::json record);
  /// Records that other writers appended, seen by the appends since the last call (oldest
  /// first); empty when read_existing/append/refresh found none. Does not read the file itself.
  std::vector<Outcome> take_foreign();
  /// Reads what other writers appended since the last look (under the file's lock), for
  /// take_foreign: a tuning asks before it measures a configuration, so that one another process
  /// measured meanwhile is not measured again.
  void refresh();
  /// Warnings met while reading other writers' records (a dropped half-written line).
  std::vector<std::string> take_warnings();
  const std::filesystem::path& path() const { return path_; }

 private:
  void sync_locked();  // reads what was appended since known_size_ (the lock is held)
  void write_header_if_empty_locked();

  std::filesystem::path path_;
  ResultsHeader header_;
  std::optional<ResultsHeader> stored_header_;  // the file's header line, once read
  const Space& space_;
  std::uintmax_t known_size_ = 0;  // bytes of the file accounted for
  std::uint64_t known_inode_ =
      0;                     // the file they belong to (a file replaced or moved aside starts over)
  std::size_t records_ = 0;  // records in the file up to known_size_
  std::size_t lines_ = 0;    // lines in the file up to known_size_ (for messages)
  std::vector<Outcome> foreign_;
  std::vector<std::string> warnings_;
  std::mutex mutex_;
};

/// For a caller that holds the file's FileLock across a read and its appends (merge): ends a
/// line cut by a killed writer, writes `header` first when the file is missing or empty, then
/// appends `records` with "index" set from `first_index` on (the records already in the file).
void append_records_locked(const std::filesystem::path& path, const ResultsHeader& header,
                           std::vector<nlohmann::json> records, std::size_t first_index);

/// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();
/// The current UTC time with milliseconds: "YYYY-MM-DDTHH:MM:SS.mmmZ" (a record's "finished").
std::string utc_now_ms();
/// Seconds since the Unix epoch of "YYYY-MM-DDTHH:MM:SS[.fff]Z" (utc_now, utc_now_ms); nullopt for
/// any other text.
std::optional<double> parse_utc(const std::string& text);
/// This machine's host name (gethostname); empty when unknown.
std::string host_name();
/// The shell command that moves `path` aside so that the tuner no longer reads it:
/// mv '<path>' '<path>.corrupt' (single quotes escaped).
std::string move_aside_command(const std::filesystem::path& path);

}  // namespace adaexplore
