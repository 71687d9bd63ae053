#include "store/merge.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <unordered_map>
#include <unordered_set>

#include "store/database.hpp"
#include "util/file_lock.hpp"
#include "util/files.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

// The files a source stands for: itself, or the *.jsonl below a folder (sorted).
std::vector<fs::path> source_files(const fs::path& source) {
  if (fs::is_regular_file(source)) return {source};
  if (!fs::is_directory(source))
    throw ResultsError(source.string() +
                       ": no such results file or folder (merge takes database folders, build "
                       "trees and results files)");
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(source))
    if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// A record's identity for "already there": everything but its position and how it got there.
std::string fingerprint(nlohmann::json record) {
  record.erase("index");
  record.erase("merged_from");
  return record.dump();
}

std::string label_of(const nlohmann::json& record) {
  return record.contains("label") && record["label"].is_string()
             ? record["label"].get<std::string>()
             : record["config"].dump();
}

void check_source_header(const fs::path& file, const ResultsHeader& h) {
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
  static const std::regex key("[0-9a-f]{16,}");
  if (!std::regex_match(h.kernel, identifier))
    throw ResultsError(
        file.string() + ":1: kernel name '" + h.kernel +
        "' is not an identifier, so it cannot name a database folder; move the file aside (" +
        move_aside_command(file) + ") or leave it out of the merge");
  if (!std::regex_match(h.key, key))
    throw ResultsError(file.string() + ":1: key '" + h.key +
                       "' is not a key of this tuner (hex digits); move the file aside (" +
                       move_aside_command(file) + ") or leave it out of the merge");
}

std::string device_summary(const nlohmann::json& d) {
  std::string s = d.is_object() ? d.value("name", std::string("unknown device")) : "unknown device";
  if (d.is_object() && d.contains("compute_capability") && d["compute_capability"].is_string())
    s += ", compute capability " + d["compute_capability"].get<std::string>();
  return s;
}

void merge_files(const fs::path& into, const std::vector<std::pair<fs::path, RawResults>>& read,
                 std::map<std::pair<std::string, std::string>, MergeKeyReport>& keys, MergeReport& report);

// "; merged before it stopped: gemm 0123456789abcdef: 12 records into <file>, ..." or "; nothing was
// merged" (the keys' reports so far).
std::string merged_so_far(const std::map<std::pair<std::string, std::string>, MergeKeyReport>& keys) {
  std::string done;
  for (const auto& [id, r] : keys)
    if (r.added > 0 || r.created)
      done += (done.empty() ? "" : ", ") + r.kernel + " " + r.key.substr(0, 16) + ": " + std::to_string(r.added) +
              " records into " + r.file.string();
  return done.empty() ? "; nothing was merged" : "; merged before it stopped (kept): " + done;
}

}  // namespace

MergeReport merge_into(const fs::path& into, const std::vector<fs::path>& sources) {
  MergeReport report;
  std::error_code ec;
  if (fs::exists(into, ec) && !fs::is_directory(into, ec))
    throw EnvironmentError(into.string() + ": is a file, not a tuning database folder; give --into a folder (it is "
                           "created when missing); nothing was merged");
  // Every source read and checked first: a bad one stops the merge before anything is written.
  std::vector<std::pair<fs::path, RawResults>> read;
  try {
    for (const auto& source : sources)
      for (const auto& file : source_files(source)) {
        RawResults src = read_raw_results(file);
        check_source_header(file, src.header);
        read.emplace_back(file, std::move(src));
      }
  } catch (const ResultsError& e) {
    throw ResultsError(std::string(e.what()) + "; nothing was merged (every source is read before anything is written)");
  }
  std::map<std::pair<std::string, std::string>, MergeKeyReport> keys;
  try {
    merge_files(into, read, keys, report);
  } catch (const ResultsError& e) {
    throw ResultsError(std::string(e.what()) + merged_so_far(keys));
  } catch (const EnvironmentError& e) {
    throw EnvironmentError(std::string(e.what()) + merged_so_far(keys));
  } catch (const fs::filesystem_error& e) {
    throw EnvironmentError(std::string(e.what()) + merged_so_far(keys));
  }
  for (auto& [id, r] : keys) report.keys.push_back(std::move(r));
  return report;
}

namespace {

void merge_files(const fs::path& into, const std::vector<std::pair<fs::path, RawResults>>& read,
                 std::map<std::pair<std::string, std::string>, MergeKeyReport>& keys, MergeReport& report) {
  {
    for (const auto& [file, src] : read) {
      for (const auto& w : src.warnings) report.warnings.push_back(w);
      const ResultsHeader& h = src.header;
      const fs::path dest = database_file(into, h.kernel, h.key);
      std::error_code ec;
      if (fs::exists(dest) && fs::equivalent(dest, file, ec)) {
        report.warnings.push_back(file.string() + ": is the destination itself; skipped");
        continue;
      }
      MergeKeyReport& r = keys[{h.kernel, h.key}];
      r.kernel = h.kernel;
      r.key = h.key;
      r.device = device_summary(h.device);
      r.file = dest;
      r.sources.push_back(file.string());

      FileLock lock(dest);  // held while the destination is read and appended to
      RawResults there;
      const bool had_file = fs::exists(dest) && fs::file_size(dest) > 0;
      if (had_file) {
        there = read_raw_results(dest, /*take_lock=*/false);
        check_placement(dest, there.header);
        if (there.header.key != h.key)
          throw ResultsError(dest.string() + ":1: holds key " + there.header.key + ", and " +
                             file.string() + " has key " + h.key +
                             " with the same first 16 digits; merge it into another database");
        for (const auto& w : there.warnings) report.warnings.push_back(w);
      } else {
        r.created = true;
      }
      std::unordered_set<std::string> present;
      std::unordered_map<std::string, std::pair<std::string, std::string>>
          status_of;  // config -> (status, where)
      for (const auto& rec : there.records) {
        present.insert(fingerprint(rec.json));
        status_of.emplace(rec.json["config"].dump(),
                          std::make_pair(rec.json["status"].get<std::string>(),
                                         dest.string() + ":" + std::to_string(rec.line)));
      }
      nlohmann::json provenance = {{"path", fs::absolute(file).lexically_normal().string()},
                                   {"merged", utc_now()}};
      if (!h.host.empty()) provenance["host"] = h.host;
      std::vector<nlohmann::json> added;
      for (const auto& rec : src.records) {
        if (!present.insert(fingerprint(rec.json)).second) {
          ++r.present;
          continue;
        }
        const std::string config = rec.json["config"].dump();
        const std::string status = rec.json["status"].get<std::string>();
        const auto earlier = status_of.find(config);
        if (earlier == status_of.end()) {
          status_of.emplace(config,
                            std::make_pair(status, file.string() + ":" + std::to_string(rec.line)));
        } else if (earlier->second.first == status) {
          ++r.remeasured;
        } else {
          r.conflicts.push_back(label_of(rec.json) + ": " + earlier->second.first + " (" +
                                earlier->second.second + ", kept first) and " + status + " (" +
                                file.string() + ":" + std::to_string(rec.line) + ")");
        }
        nlohmann::json copy = rec.json;
        if (!copy.contains("merged_from"))
          copy["merged_from"] = provenance;  // a record keeps its first provenance
        added.push_back(std::move(copy));
      }
      ResultsHeader header = h;
      header.merged_from.push_back(provenance);
      const std::size_t count = added.size();
      if (!added.empty() || !had_file)
        append_records_locked(dest, header, std::move(added), there.records.size());
      r.added += count;  // once written
    }
  }
}

}  // namespace
}  // namespace adaexplore
