#include "store/results.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <unordered_set>

#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "util/file_lock.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace adaexplore {

namespace {
namespace fs = std::filesystem;

constexpr const char* kFormat = "adaexplore-results";
constexpr int kVersion = 1;
const char* const kKnownHeaderFields[] = {"format",    "version", "kernel",     "key",
                                          "key_parts", "device",  "strategy",   "seed",
                                          "started",   "host",    "merged_from", "size_start",
                                          "budget"};

std::string at_line(const fs::path& path, std::size_t line) {
  return path.string() + ":" + std::to_string(line) + ": ";
}

// What to do about a file the tuner cannot use: it never repairs, rewrites or deletes one.
std::string move_aside_advice(const fs::path& path) {
  return "the tuner never repairs or overwrites results; move the file aside (" +
         move_aside_command(path) + ") and tune again, or use another path";
}

std::string utc_compact() {
  std::string t = utc_now();  // 2024-05-01T12:00:00Z
  t.erase(std::remove(t.begin(), t.end(), '-'), t.end());
  t.erase(std::remove(t.begin(), t.end(), ':'), t.end());
  return t;  // 20240501T120000Z
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A record line: a JSON object with a "config" object and a known "status".
void check_record_shape(const nlohmann::json& j, const fs::path& path, std::size_t line) {
  std::string problem;
  if (!j.is_object())
    problem = "a record must be a JSON object";
  else if (!j.contains("config") || !j["config"].is_object())
    problem = "a record needs a \"config\" object";
  else if (!j.contains("status") || !j["status"].is_string())
    problem = "a record needs a \"status\" string";
  else {
    try {
      status_from_string(j["status"].get<std::string>());
    } catch (const std::invalid_argument& e) {
      problem = e.what();
    }
  }
  if (!problem.empty())
    throw ResultsError(at_line(path, line) + "bad record (" + problem + "); " +
                       move_aside_advice(path));
}

// Appends `text` to `path` (created when missing) under the caller's lock. A write that fails (a
// full disk) is undone: the file is cut back to its size before, so no half-written line stays;
// the EnvironmentError (exit 5) names the file and the system's reason.
void append_text(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw EnvironmentError("cannot write " + path.string() + ": " + std::strerror(errno));
  struct stat before {};
  ::fstat(fd, &before);
  try {
    write_fully(fd, text, path);
  } catch (const std::exception& e) {
    (void)!::ftruncate(fd, before.st_size);
    ::close(fd);
    throw EnvironmentError(std::string(e.what()) + " (what was recorded before is kept)");
  }
  if (::close(fd) != 0)
    throw EnvironmentError("cannot write " + path.string() + ": " + std::strerror(errno) +
                           " (what was recorded before is kept)");
}

std::uint64_t inode_of(const fs::path& path, std::uintmax_t* size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  *size = static_cast<std::uintmax_t>(st.st_size);
  return static_cast<std::uint64_t>(st.st_ino);
}
}  // namespace

nlohmann::json header_to_json(const ResultsHeader& h) {
  nlohmann::json j = h.other.is_object() ? h.other : nlohmann::json::object();
  j.update(nlohmann::json{{"format", kFormat},
                          {"version", kVersion},
                          {"kernel", h.kernel},
                          {"key", h.key},
                          {"key_parts", h.key_parts},
                          {"device", h.device},
                          {"strategy", h.strategy},
                          {"seed", h.seed},
                          {"started", h.started}});
  if (!h.host.empty()) j["host"] = h.host;
  if (!h.merged_from.empty()) j["merged_from"] = h.merged_from;
  if (!h.size_start.empty()) j["size_start"] = h.size_start;
  if (h.budget) j["budget"] = *h.budget;
  return j;
}

ResultsHeader header_from_json(const nlohmann::json& j, const fs::path& path, std::size_t line) {
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw ResultsError(at_line(path, line) +
                       "not an AdaExplore results file (its first line has no \"format\": \"" +
                       kFormat + "\"); " + move_aside_advice(path));
  const int version =
      j.contains("version") && j["version"].is_number_integer() ? j["version"].get<int>() : 0;
  if (version != kVersion)
    throw ResultsError(at_line(path, line) + "results format version " + std::to_string(version) +
                       ", this tuner reads version " + std::to_string(kVersion) +
                       "; use the tuner that wrote it, or " + move_aside_advice(path));
  ResultsHeader h;
  try {
    h.kernel = j.value("kernel", "");
    h.key = j.value("key", "");
    h.key_parts = j.value("key_parts", nlohmann::json::object());
    h.device = j.value("device", nlohmann::json::object());
    h.strategy = j.value("strategy", "");
    h.seed = j.value("seed", std::uint64_t{0});
    h.started = j.value("started", "");
    h.host = j.value("host", "");
    h.merged_from = j.value("merged_from", nlohmann::json::array());
    h.size_start = j.value("size_start", "");
    if (j.contains("budget") && j["budget"].is_number_unsigned()) h.budget = j["budget"].get<std::size_t>();
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(at_line(path, line) + "bad header line (" + e.what() + "); " +
                       move_aside_advice(path));
  }
  for (const auto& [name, value] : j.items())
    if (std::find(std::begin(kKnownHeaderFields), std::end(kKnownHeaderFields), name) ==
        std::end(kKnownHeaderFields))
      h.other[name] = value;
  return h;
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string utc_now_ms() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

std::optional<double> parse_utc(const std::string& text) {
  std::tm tm{};
  double seconds = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &seconds, &consumed) != 6 ||
      text.substr(static_cast<std::size_t>(consumed)) != "Z" || seconds < 0 || seconds >= 61)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_sec = 0;
  const std::time_t base = timegm(&tm);
  if (base == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(base) + seconds;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string move_aside_command(const fs::path& path) {
  return "mv " + shell_quote(path.string()) + " " +
         shell_quote(path.string() + ".corrupt-" + utc_compact());
}

RawResults read_raw_results(const fs::path& path, bool take_lock) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw ResultsError(path.string() + ": no such results file; check the path (nothing was created)");
  std::unique_ptr<FileLock> lock;
  if (take_lock) lock = FileLock::lock_if_present(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultsError(path.string() + ": cannot be read");
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < content.size();) {
    const std::size_t end = content.find('\n', start);
    lines.push_back(
        content.substr(start, end == std::string::npos ? std::string::npos : end - start));
    start = end == std::string::npos ? content.size() : end + 1;
  }
  // A file ending without '\n' has a last line that may have been cut by a kill.
  const bool ends_with_newline = content.empty() || content.back() == '\n';
  RawResults raw;
  bool header_read = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t number = i + 1;
    const std::string& text = lines[i];
    if (text.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      if (i + 1 == lines.size() && !ends_with_newline && header_read) {
        raw.warnings.push_back(at_line(path, number) +
                               "dropped a half-written last record (an interrupted tuning)");
        break;
      }
      throw ResultsError(at_line(path, number) + "not valid JSON (" + e.what() + "); " +
                         move_aside_advice(path));
    }
    if (!header_read) {
      header_read = true;
      raw.header = header_from_json(j, path, number);
      raw.header_line = number;
      continue;
    }
    check_record_shape(j, path, number);
    raw.records.push_back({number, std::move(j)});
  }
  if (!header_read)
    throw ResultsError(path.string() +
                       ": empty results file (no header line: a tuning killed as it created it); "
                       "delete it, or " +
                       move_aside_advice(path));
  return raw;
}

std::optional<std::size_t> recorded_budget(const RawResults& raw) {
  for (auto r = raw.records.rbegin(); r != raw.records.rend(); ++r) {
    const nlohmann::json& origin = r->json.value("origin", nlohmann::json());
    if (origin.is_object() && origin.contains("budget") && origin["budget"].is_number_unsigned())
      return origin["budget"].get<std::size_t>();
  }
  return raw.header.budget;
}

ResultsFile results_from_raw(const RawResults& raw, const fs::path& path, const Space& space) {
  ResultsFile file;
  file.header = raw.header;
  file.warnings = raw.warnings;
  file.budget = recorded_budget(raw);
  std::unordered_set<Config, ConfigHash> seen;
  for (std::size_t i = 0; i < raw.records.size(); ++i) {
    const RawRecord& r = raw.records[i];
    Outcome o;
    try {
      o = outcome_from_json(r.json, space);
    } catch (const std::exception& e) {
      // Most often the spec, not the file: edited since, or another kernel's.
      throw ResultsError(at_line(path, r.line) + "bad record (" + e.what() +
                         "): not a configuration of this spec's search space. If the spec was edited since these "
                         "results were tuned (kernel '" + raw.header.kernel + "', key " + raw.header.key.substr(0, 16) +
                         "), or is another kernel's, give the spec they were tuned with: the file is fine. Only if it "
                         "is that spec is the file damaged: " + move_aside_advice(path));
    }
    if (seen.insert(o.config).second) {
      file.outcomes.push_back(std::move(o));
      file.record_index.push_back(i);
    } else {
      ++file.duplicates;
    }
  }
  return file;
}

ResultsFile read_results(const fs::path& path, const Space& space) {
  return results_from_raw(read_raw_results(path), path, space);
}

ResultsWriter::ResultsWriter(const fs::path& path, const ResultsHeader& header, const Space& space)
    : path_(path), header_(header), space_(space) {
  if (path.has_parent_path()) ensure_folder(path.parent_path());
  std::lock_guard<std::mutex> guard(mutex_);
  FileLock lock(path_);
  sync_locked();  // checks an existing file's key and kernel
  write_header_if_empty_locked();
}

ResultsWriter::ResultsWriter(const fs::path& path, const ResultsHeader& header, const Space& space,
                             std::size_t)
    : ResultsWriter(path, header, space) {}

ResultsWriter::~ResultsWriter() = default;

void ResultsWriter::write_header_if_empty_locked() {
  std::uintmax_t size = 0;
  if (inode_of(path_, &size) != 0 && size > 0) return;
  {
    const std::string line = valid_utf8_json(header_to_json(header_)).dump() + "\n";  // before the file is created
    append_text(path_, line);
  }
  sync_locked();
}

// Reads the bytes other writers appended since known_size_ (the lock is held, so nobody is
// writing now: a line without its '\n' at the end was cut by a killed writer).
void ResultsWriter::sync_locked() {
  std::uintmax_t size = 0;
  const std::uint64_t inode = inode_of(path_, &size);
  if (inode == 0 || inode != known_inode_ || size < known_size_) {  // new, replaced or moved aside
    known_size_ = 0;
    records_ = 0;
    lines_ = 0;
    known_inode_ = inode;
  }
  if (inode == 0 || size == known_size_) return;
  std::string chunk(static_cast<std::size_t>(size - known_size_), '\0');
  {
    std::ifstream in(path_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(known_size_));
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<std::size_t>(in.gcount()));
  }
  std::size_t line_number = lines_;
  auto where = [&](std::size_t n) { return at_line(path_, n); };
  std::size_t start = 0;
  bool saw_header = known_size_ > 0;
  auto take_line = [&](const std::string& text, std::size_t number) {
    if (text.empty()) return;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw ResultsError(where(number) + "not valid JSON (" + e.what() + "); " +
                         move_aside_advice(path_));
    }
    if (!saw_header) {
      saw_header = true;
      const ResultsHeader h = header_from_json(j, path_, number);
      stored_header_ = h;
      if (!header_.key.empty() && !h.key.empty() && h.key != header_.key)
        throw ResultsError(at_line(path_, number) + "holds results of key " + h.key + " (kernel " +
                           h.kernel + "), this tuning has key " + header_.key + " (kernel " +
                           header_.kernel + "); " + move_aside_advice(path_));
      if (!header_.kernel.empty() && !h.kernel.empty() && h.kernel != header_.kernel)
        throw ResultsError(at_line(path_, number) + "holds results of kernel " + h.kernel +
                           ", not " + header_.kernel + "; " + move_aside_advice(path_));
      return;
    }
    check_record_shape(j, path_, number);
    try {
      foreign_.push_back(outcome_from_json(j, space_));
    } catch (const std::exception& e) {
      throw ResultsError(where(number) + "bad record (" + e.what() + "); " +
                         move_aside_advice(path_));
    }
    ++records_;
  };
  while (start < chunk.size()) {
    const std::size_t end = chunk.find('\n', start);
    ++line_number;
    if (end == std::string::npos) {  // the last line, without its '\n'
      const std::string text = chunk.substr(start);
      if (nlohmann::json::accept(text)) {
        take_line(text, line_number);  // validated first: a bad record leaves the file as it was
        std::ofstream(path_, std::ios::binary | std::ios::app) << '\n';
        size += 1;
      } else {
        warnings_.push_back(where(line_number) +
                            "dropped a half-written last record (an interrupted tuning)");
        fs::resize_file(path_, known_size_ + start);
        size = known_size_ + start;
        --line_number;
      }
      break;
    }
    take_line(chunk.substr(start, end - start), line_number);
    start = end + 1;
  }
  known_size_ = size;
  lines_ = line_number;
}

ResultsFile ResultsWriter::read_existing() {
  std::lock_guard<std::mutex> guard(mutex_);
  {
    FileLock lock(path_);
    sync_locked();
  }
  ResultsFile file;
  file.header = stored_header_ ? *stored_header_ : header_;
  file.warnings.swap(warnings_);
  std::unordered_set<Config, ConfigHash> seen;
  for (auto& o : foreign_) {
    if (seen.insert(o.config).second)
      file.outcomes.push_back(std::move(o));
    else
      ++file.duplicates;
  }
  foreign_.clear();
  return file;
}

void ResultsWriter::append(const Outcome& outcome) {
  nlohmann::json j = to_json(outcome, space_);
  j["origin"] = {{"host", host_name()}, {"pid", static_cast<long>(::getpid())}};
  if (header_.budget) j["origin"]["budget"] = *header_.budget;  // this tuning's (recorded_budget)
  j["finished"] = utc_now_ms();
  append_json(std::move(j));
}

void ResultsWriter::append_json(nlohmann::json record) {
  std::lock_guard<std::mutex> guard(mutex_);
  FileLock lock(path_);
  sync_locked();
  write_header_if_empty_locked();  // the file was moved aside (--retune elsewhere) or cut to
                                   // nothing
  record["index"] = records_;
  const std::string line = valid_utf8_json(std::move(record)).dump() + "\n";
  append_text(path_, line);
  known_size_ += line.size();
  ++records_;
  ++lines_;
}

void append_records_locked(const fs::path& path, const ResultsHeader& header,
                           std::vector<nlohmann::json> records, std::size_t first_index) {
  if (path.has_parent_path()) ensure_folder(path.parent_path());
  std::uintmax_t size = 0;
  if (inode_of(path, &size) != 0 && size > 0) {
    // A line cut by a killed writer: a complete record gets its '\n', a half-written one is cut
    // off.
    std::ifstream in(path, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    if (!content.empty() && content.back() != '\n') {  // (emptied since its size was read)
      const std::size_t keep = content.rfind('\n');
      const std::size_t start = keep == std::string::npos ? 0 : keep + 1;
      if (nlohmann::json::accept(content.substr(start)))
        std::ofstream(path, std::ios::binary | std::ios::app) << '\n';
      else
        fs::resize_file(path, start);
      inode_of(path, &size);
    }
  }
  std::string text;
  if (size == 0) text += valid_utf8_json(header_to_json(header)).dump() + '\n';
  for (auto& r : records) {
    r["index"] = first_index++;
    text += valid_utf8_json(std::move(r)).dump() + '\n';
  }
  append_text(path, text);  // all of them or none
}

void ResultsWriter::refresh() {
  std::lock_guard<std::mutex> guard(mutex_);
  FileLock lock(path_);
  sync_locked();
}

std::vector<Outcome> ResultsWriter::take_foreign() {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<Outcome> out;
  out.swap(foreign_);
  return out;
}

std::vector<std::string> ResultsWriter::take_warnings() {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<std::string> out;
  out.swap(warnings_);
  return out;
}

}  // namespace adaexplore
