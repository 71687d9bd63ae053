#include "results.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_io.hpp>

namespace adaexplore {

namespace {
constexpr const char* kFormat = "adaexplore-results";
constexpr int kVersion = 1;

nlohmann::json header_to_json(const ResultsHeader& h) {
  return {{"format", kFormat}, {"version", kVersion}, {"kernel", h.kernel},     {"key", h.key},
          {"key_parts", h.key_parts}, {"device", h.device}, {"strategy", h.strategy}, {"seed", h.seed},
          {"started", h.started}};
}
// Makes appends start on a new line when the last line has no '\n': a record cut by a kill is
// cut off (read_results dropped it too); a complete one (killed just before its '\n') is kept,
// as read_results kept it.
void end_last_line(const std::filesystem::path& path) {
  std::string content;
  {
    std::ifstream in(path, std::ios::binary);
    content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (content.empty() || content.back() == '\n') return;
  const std::size_t keep = content.rfind('\n');
  const std::size_t start = keep == std::string::npos ? 0 : keep + 1;
  if (nlohmann::json::accept(content.substr(start))) {
    std::ofstream(path, std::ios::binary | std::ios::app) << '\n';
    return;
  }
  std::filesystem::resize_file(path, start);
}
}  // namespace

std::string content_hash(const std::string& data) {
  static const boost::uuids::uuid ns = boost::uuids::name_generator_sha1(boost::uuids::uuid{})("adaexplore");
  boost::uuids::name_generator_sha1 gen(ns);
  std::string s = boost::uuids::to_string(gen(data.data(), data.size()));
  s.erase(std::remove(s.begin(), s.end(), '-'), s.end());
  return s;
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ResultsFile read_results(const std::filesystem::path& path, const Space& space) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultsError(path.string() + ": cannot be read");
  ResultsFile file;
  std::string line;
  std::size_t number = 0;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  // A file ending without '\n' has a last line that may have been cut by a kill.
  in.clear();
  in.seekg(0, std::ios::end);
  bool ends_with_newline = true;
  if (in.tellg() > 0) {
    in.seekg(-1, std::ios::end);
    ends_with_newline = in.get() == '\n';
  }
  bool header_read = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    number = i + 1;
    const std::string& text = lines[i];
    if (text.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      if (i + 1 == lines.size() && !ends_with_newline && header_read) {
        file.warnings.push_back(path.string() + ":" + std::to_string(number) +
                                ": dropped a half-written last record (an interrupted tuning)");
        break;
      }
      throw ResultsError(path.string() + ":" + std::to_string(number) + ": not valid JSON (" + e.what() +
                         "); move the file aside to start over");
    }
    if (!header_read) {
      header_read = true;
      if (!j.is_object() || j.value("format", "") != kFormat)
        throw ResultsError(path.string() + ":" + std::to_string(number) + ": not an AdaExplore results file (no \"format\": \"" +
                           std::string(kFormat) + "\"); move it aside or choose another path");
      if (j.value("version", 0) != kVersion)
        throw ResultsError(path.string() + ":" + std::to_string(number) + ": results format version " + std::to_string(j.value("version", 0)) +
                           ", this tuner reads version " + std::to_string(kVersion));
      file.header.kernel = j.value("kernel", "");
      file.header.key = j.value("key", "");
      file.header.key_parts = j.value("key_parts", nlohmann::json::object());
      file.header.device = j.value("device", nlohmann::json::object());
      file.header.strategy = j.value("strategy", "");
      file.header.seed = j.value("seed", std::uint64_t{0});
      file.header.started = j.value("started", "");
      continue;
    }
    try {
      file.outcomes.push_back(outcome_from_json(j, space));
    } catch (const std::exception& e) {
      throw ResultsError(path.string() + ":" + std::to_string(number) + ": bad record (" + e.what() +
                         "); move the file aside to start over");
    }
  }
  if (!header_read) throw ResultsError(path.string() + ": empty results file; delete it to start over");
  return file;
}

ResultsWriter::ResultsWriter(const std::filesystem::path& path, const ResultsHeader& header, const Space& space,
                             std::size_t first_index)
    : path_(path), space_(space), next_index_(first_index) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  if (std::filesystem::exists(path)) end_last_line(path);
  const bool fresh = !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0;
  out_.open(path, std::ios::binary | std::ios::app);
  if (!out_) throw ResultsError(path.string() + ": cannot be opened for writing");
  if (fresh) {
    out_ << header_to_json(header).dump() << '\n';
    out_.flush();
  }
}

void ResultsWriter::append(const Outcome& outcome) {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json j = {{"index", next_index_++}};
  j.update(to_json(outcome, space_));
  out_ << j.dump() << '\n';
  out_.flush();
  if (!out_) throw ResultsError(path_.string() + ": write failed (disk full?)");
}

}  // namespace adaexplore
