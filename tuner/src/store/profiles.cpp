#include "store/profiles.hpp"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "store/results.hpp"  // utc_now_ms
#include "util/file_lock.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace fs = std::filesystem;

fs::path profiles_path(const fs::path& results) {
  fs::path p = results;
  p += ".profiles.ndjson";
  return p;
}

void append_profile_batch(const fs::path& results, const std::string& key, const nlohmann::json& results_json) {
  const fs::path path = profiles_path(results);
  FileLock lock(path);
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << valid_utf8_json({{"key", key}, {"profiled", utc_now_ms()}, {"results", results_json}}).dump() << '\n';
  out.flush();
  if (!out) throw std::runtime_error(path.string() + ": cannot be written (folder read-only, disk full?)");
}

nlohmann::json latest_profile_batch(const fs::path& results, const std::string& key) {
  const fs::path path = profiles_path(results);
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  auto lock = FileLock::lock_if_present(path);
  std::ifstream in(path, std::ios::binary);
  nlohmann::json latest = nullptr;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      std::cerr << "[adaexplore] warning: " << path.string() << ":" << number
                << ": not a profile batch (not a JSON object); skipped\n";
      continue;
    }
    if (j.value("key", "") == key && j.contains("results") && j["results"].is_array()) latest = std::move(j);
  }
  return latest;
}

}  // namespace adaexplore
