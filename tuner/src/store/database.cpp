#include "store/database.hpp"

#include <algorithm>

#include "store/profiles.hpp"
#include "util/file_lock.hpp"

namespace adaexplore {

namespace fs = std::filesystem;

fs::path database_file(const fs::path& dir, const std::string& kernel, const std::string& key) {
  return dir / kernel / (key.substr(0, 16) + ".jsonl");
}

void check_placement(const fs::path& file, const ResultsHeader& header) {
  const std::string folder = file.parent_path().filename().string();
  const std::string prefix = file.stem().string();
  if (header.kernel == folder && prefix.size() == 16 && header.key.compare(0, 16, prefix) == 0)
    return;
  throw ResultsError(
      file.string() + ":1: holds results of kernel '" + header.kernel + "', key " +
      (header.key.empty() ? std::string("(none)") : header.key) +
      "; in a tuning database this place is for kernel '" + folder + "', a key starting with " +
      prefix + ": a foreign or misplaced file. The tuner never overwrites it; move it aside (" +
      move_aside_command(file) +
      "), then `adaexplore-tuner merge --into <database> <moved file>` "
      "files its records where they belong");
}

fs::path set_aside_for_retune(const fs::path& file) { return set_aside(file, "retune"); }

namespace {
// set_aside's rename, the lock held by the caller.
fs::path set_aside_locked(const fs::path& file, const std::string& tag) {
  std::string stamp = utc_now();  // 2024-05-01T12:00:00Z -> 20240501T120000Z
  stamp.erase(
      std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }),
      stamp.end());
  fs::path aside = file.string() + "." + tag + "-" + stamp;
  for (int n = 2; fs::exists(aside); ++n)
    aside = file.string() + "." + tag + "-" + stamp + "-" + std::to_string(n);
  fs::rename(file, aside);
  std::error_code ec;
  if (fs::exists(profiles_path(file), ec)) fs::rename(profiles_path(file), profiles_path(aside), ec);  // its profiles go along
  return aside;
}
}  // namespace

fs::path set_aside(const fs::path& file, const std::string& tag) {
  FileLock lock(file);
  if (!fs::exists(file)) return {};
  return set_aside_locked(file, tag);
}

fs::path set_aside_if(const fs::path& file, const std::function<std::string(const RawResults&)>& decide) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};  // creates no lock file for a file that is not there
  FileLock lock(file);
  if (!fs::exists(file, ec) || fs::file_size(file, ec) == 0) return {};
  const std::string tag = decide(read_raw_results(file, /*take_lock=*/false));
  if (tag.empty()) return {};
  return set_aside_locked(file, tag);
}

std::vector<StoredKey> stored_keys(const fs::path& dir, const std::string& kernel,
                                   std::vector<std::string>* problems) {
  std::vector<StoredKey> keys;
  const fs::path folder = dir / kernel;
  if (!fs::is_directory(folder)) return keys;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    // An empty file (a tuning killed as it created it) holds nothing; its next writer starts it.
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl" && entry.file_size() > 0)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      StoredKey k{file, read_raw_results(file)};
      check_placement(file, k.raw.header);
      keys.push_back(std::move(k));
    } catch (const ResultsError& e) {
      if (!problems) throw;
      problems->push_back(e.what());
    }
  }
  return keys;
}

}  // namespace adaexplore
