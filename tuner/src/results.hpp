// The results file: JSON Lines, one evaluation per line, appended and flushed as each finishes.
//
//   line 1:  {"format": "adaexplore-results", "version": 1, "kernel": "...", "key": "<hash>",
//             "key_parts": {...}, "device": {...}, "strategy": "...", "seed": N, "started": "<UTC ISO 8601>"}
//   line n:  {"index": n-2, <outcome record: label, config, status, objective_ms, timing, ...>}
//
// The key hashes everything that makes earlier results valid for this tuning (spec, template and
// benchmark content, compiler, device). A reader given another key refuses the file (both keys
// quoted) unless asked to start over; a half-written last line (a killed tuning) is dropped with
// a warning; any other malformed line is an error naming the file and line.
#pragma once

#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "outcome.hpp"

namespace adaexplore {

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
};

struct ResultsFile {
  ResultsHeader header;
  std::vector<Outcome> outcomes;
  std::vector<std::string> warnings;  // e.g. a dropped half-written last line
};

/// Reads a results file. Throws ResultsError naming the file and line for malformed content.
ResultsFile read_results(const std::filesystem::path& path, const Space& space);

/// Appends records; writes the header line when the file is new. Thread-safe.
class ResultsWriter {
 public:
  ResultsWriter(const std::filesystem::path& path, const ResultsHeader& header, const Space& space,
                std::size_t first_index);
  void append(const Outcome& outcome);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  const Space& space_;
  std::ofstream out_;
  std::size_t next_index_;
  std::mutex mutex_;
};

/// SHA-1 based (RFC 4122 name-based UUID, Boost.UUID) digest of `data`, as 32 hex digits.
std::string content_hash(const std::string& data);
/// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

}  // namespace adaexplore
