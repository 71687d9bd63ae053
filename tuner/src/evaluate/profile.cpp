// Staged profiling with Nsight Compute (profile.hpp).
//
// The CSV is read by the small RFC 4180 reader below rather than a library: Debian's libcsv-dev
// would add a shared library to every build of the tuner (the CMake module builds it at configure
// time in each user's project) for forty lines, and its fast-cpp-csv-parser (libfccp-dev) needs
// the column count at compile time, while the raw page has a few hundred columns that change with
// ncu's version.
#include "evaluate/profile.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "model/outcome.hpp"
#include "util/process.hpp"
#include "evaluate/program_outcome.hpp"
#include "evaluate/render.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

bool executable_file(const fs::path& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::string seconds_text(double s) {
  std::ostringstream text;
  text << s;
  return text.str();
}

// One CSV record: its fields and the line (1-based) it starts on.
struct Record {
  std::vector<std::string> fields;
  std::size_t line = 0;
};

// RFC 4180: fields separated by commas, records by LF or CRLF; a quoted field may hold commas,
// line breaks and doubled quotes. Records that start with "==" (ncu's ==PROF==, ==WARNING== lines)
// and empty lines are skipped.
std::vector<Record> read_csv(const std::string& text) {
  std::vector<Record> records;
  std::size_t i = 0, line = 1;
  const std::size_t n = text.size();
  while (i < n) {
    const std::size_t start_line = line;
    if (text[i] == '\n' || (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {  // empty line
      i += text[i] == '\r' ? 2 : 1;
      ++line;
      continue;
    }
    if (text.compare(i, 2, "==") == 0) {  // ncu's own message
      while (i < n && text[i] != '\n') ++i;
      if (i < n) ++i;
      ++line;
      continue;
    }
    Record record;
    record.line = start_line;
    std::string field;
    bool end_of_record = false;
    while (!end_of_record) {
      field.clear();
      if (i < n && text[i] == '"') {  // quoted
        ++i;
        bool closed = false;
        while (i < n) {
          if (text[i] == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (text[i] == '\n') ++line;
          field += text[i++];
        }
        if (!closed)
          throw std::runtime_error("ncu CSV line " + std::to_string(start_line) + ": a quoted field is not closed");
        if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          throw std::runtime_error("ncu CSV line " + std::to_string(line) + ": '" + std::string(1, text[i]) +
                                   "' after a quoted field (expected a comma or the line's end)");
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"')
            throw std::runtime_error("ncu CSV line " + std::to_string(line) + ": a quote inside an unquoted field");
          field += text[i++];
        }
      }
      record.fields.push_back(field);
      if (i >= n) {
        end_of_record = true;
      } else if (text[i] == ',') {
        ++i;
      } else {  // \n or \r\n (a lone \r ends the record too)
        if (text[i] == '\r') ++i;
        if (i < n && text[i] == '\n') ++i;
        ++line;
        end_of_record = true;
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

// "2,293,550" -> 2293550, "49.61" -> 49.61, "-1.5e3" -> -1500: an optional sign, digits (thousands
// separators only in groups of three), an optional fraction and exponent. nullopt for anything
// else ("(256, 1, 1)", "NVIDIA H200", "1,50", "0x1f", "nan").
std::optional<double> parse_number(const std::string& text) {
  const auto digit = [&](std::size_t at) { return at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); };
  std::string plain;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) plain += text[i++];
  std::size_t group = 0, integer_digits = 0;
  bool separated = false;
  for (; i < text.size() && (digit(i) || text[i] == ','); ++i) {
    if (text[i] == ',') {
      if (group == 0 || (separated ? group != 3 : group > 3)) return std::nullopt;
      separated = true;
      group = 0;
      continue;
    }
    plain += text[i];
    ++group;
    ++integer_digits;
  }
  if (separated && group != 3) return std::nullopt;
  std::size_t fraction_digits = 0;
  if (i < text.size() && text[i] == '.') {
    plain += text[i++];
    for (; digit(i); ++i, ++fraction_digits) plain += text[i];
  }
  if (integer_digits + fraction_digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    plain += text[i++];
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) plain += text[i++];
    if (!digit(i)) return std::nullopt;
    for (; digit(i); ++i) plain += text[i];
  }
  if (i != text.size()) return std::nullopt;
  return std::strtod(plain.c_str(), nullptr);
}

constexpr std::size_t kIdentityColumns = 11;  // ID ... CC
const char* const kIdentity[kIdentityColumns] = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                                 "Stream", "Block Size", "Grid Size",    "Device",    "CC"};

const std::string kStallPrefix = "smsp__average_warps_issue_stalled_";
const std::string kStallSuffix = "_per_issue_active.ratio";

double duration_of(const nlohmann::json& launch) {
  const auto& metrics = launch.at("metrics");
  const auto it = metrics.find("gpu__time_duration.sum");
  if (it == metrics.end() || !it->at("value").is_number()) return -1;
  return it->at("value").get<double>();
}

// The launch with what the report needs: the metrics asked for and ncu's launch__* ones.
nlohmann::json kept_metrics(const nlohmann::json& launch) {
  nlohmann::json kept = launch;
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& m : profile_metrics())
    if (const auto it = launch.at("metrics").find(m.name); it != launch.at("metrics").end()) metrics[m.name] = *it;
  for (const auto& [name, value] : launch.at("metrics").items())
    if (name.rfind("launch__", 0) == 0) metrics[name] = value;
  kept["metrics"] = metrics;
  return kept;
}

// What went wrong, as ": <line>": the first ==ERROR== line of ncu's log or of `output` (its
// stdout and stderr), else the first error-looking line of `output` that is not one of ncu's
// ==PROF==/==WARNING== lines; "" when there is none (a benchmark that failed under ncu, whose exit
// code ncu passes on, says more: the caller adds it).
std::string ncu_error_line(const fs::path& log, const std::string& output) {
  const std::string text = log.empty() ? std::string() : read_captured(log);
  for (const std::string& source : {text, output}) {
    std::istringstream lines(source);
    for (std::string line; std::getline(lines, line);)
      if (line.find("==ERROR==") != std::string::npos) return ": " + line;
  }
  std::istringstream lines(output);
  std::string rest;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("==", 0) != 0) rest += line + "\n";
  const std::string line = first_error_line(rest);
  return line.empty() ? std::string() : ": " + line;
}

std::string regex_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string ncu_version(const fs::path& ncu) {
  ProcessOptions options;
  options.timeout_s = 30;
  const ProcessResult version = run_process({ncu.string(), "--version"}, options);
  std::istringstream lines(version.out + version.err);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.find("Version") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

std::optional<fs::path> find_ncu(const fs::path& compiler) {
  if (const char* env = std::getenv("ADAEXPLORE_NCU"); env && *env) {
    const fs::path found = find_program(env);
    if (!executable_file(found))
      throw std::runtime_error(std::string("ADAEXPLORE_NCU=") + env +
                               " names no executable file (a path to Nsight Compute's ncu, or a name in PATH)");
    return found;
  }
  if (const fs::path on_path = find_program("ncu"); executable_file(on_path)) return on_path;
  if (!compiler.empty()) {
    const fs::path program = find_program(compiler.string());
    if (!program.empty()) {
      std::error_code ec;
      std::vector<fs::path> folders = {fs::absolute(program, ec).parent_path()};
      const fs::path real = fs::canonical(program, ec);
      if (!ec && real.parent_path() != folders.front()) folders.push_back(real.parent_path());
      for (const auto& folder : folders)
        if (executable_file(folder / "ncu")) return folder / "ncu";
    }
  }
  return std::nullopt;
}

const std::vector<ProfileMetric>& profile_metrics() {
  static const std::vector<ProfileMetric> metrics = [] {
    std::vector<ProfileMetric> m = {
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput (% of peak)", "memory"},
        {"dram__bytes.sum.per_second", "DRAM throughput (bytes/s)", "memory"},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput (% of peak)", "compute"},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (%)", "occupancy"},
        {"launch__registers_per_thread", "registers per thread", "occupancy"},
        {"gpu__time_duration.sum", "duration (ns)", "time"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared memory bank conflicts, loads", "memory"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared memory bank conflicts, stores", "memory"},
        {"lts__t_sector_hit_rate.pct", "L2 hit rate (%)", "memory"},
    };
    for (const char* reason : {"long_scoreboard", "short_scoreboard", "barrier", "mio_throttle", "math_pipe_throttle", "wait",
                               "not_selected", "lg_throttle", "membar", "dispatch_stall", "no_instruction",
                               "branch_resolving", "tex_throttle", "drain", "imc_miss", "sleeping", "selected"}) {
      std::string words = reason;
      std::replace(words.begin(), words.end(), '_', ' ');
      m.push_back({kStallPrefix + reason + kStallSuffix, "stall: " + words + " (warps per issued instruction)", "stall"});
    }
    return m;
  }();
  return metrics;
}

std::string stall_reason(const std::string& metric) {
  if (metric.size() <= kStallPrefix.size() + kStallSuffix.size() || metric.rfind(kStallPrefix, 0) != 0 ||
      metric.compare(metric.size() - kStallSuffix.size(), kStallSuffix.size(), kStallSuffix) != 0)
    return {};
  return metric.substr(kStallPrefix.size(), metric.size() - kStallPrefix.size() - kStallSuffix.size());
}

nlohmann::json parse_ncu_raw_csv(const std::string& csv) {
  const std::vector<Record> records = read_csv(csv);
  if (records.empty()) throw std::runtime_error("ncu CSV line 1: no header row (the output is empty)");
  const Record& header = records.front();
  const auto& names = header.fields;
  const auto kernel_column = std::find(names.begin(), names.end(), "Kernel Name");
  if (kernel_column == names.end())
    throw std::runtime_error("ncu CSV line " + std::to_string(header.line) +
                             ": no \"Kernel Name\" column (not the raw page of ncu --csv?)");
  if (records.size() < 2)
    throw std::runtime_error("ncu CSV line " + std::to_string(header.line + 1) + ": no units row after the header");
  // The identity columns wherever they are; every other column is a metric.
  std::map<std::string, std::size_t> identity;
  for (std::size_t c = 0; c < names.size(); ++c)
    for (const char* name : kIdentity)
      if (names[c] == name && !identity.count(name)) identity[name] = c;
  for (std::size_t r = 1; r < records.size(); ++r)
    if (records[r].fields.size() != names.size())
      throw std::runtime_error("ncu CSV line " + std::to_string(records[r].line) + ": " +
                               std::to_string(records[r].fields.size()) + " fields, the header has " +
                               std::to_string(names.size()));
  const auto& units = records[1].fields;
  nlohmann::json launches = nlohmann::json::array();
  for (std::size_t r = 2; r < records.size(); ++r) {
    const auto& row = records[r].fields;
    const auto column = [&](const char* name) -> std::string {
      const auto it = identity.find(name);
      return it == identity.end() ? std::string() : row[it->second];
    };
    nlohmann::json launch = {{"id", column("ID")},          {"kernel", column("Kernel Name")},
                             {"block", column("Block Size")}, {"grid", column("Grid Size")},
                             {"device", column("Device")},  {"cc", column("CC")}};
    nlohmann::json metrics = nlohmann::json::object();
    for (std::size_t c = 0; c < names.size(); ++c) {
      if (std::any_of(identity.begin(), identity.end(), [&](const auto& i) { return i.second == c; })) continue;
      if (names[c].empty()) continue;
      const std::string& text = row[c];
      nlohmann::json value;
      if (text.empty() || text == "n/a") value = nullptr;
      else if (const auto number = parse_number(text)) value = *number;
      else value = text;
      metrics[names[c]] = {{"value", value}, {"unit", units[c]}};
    }
    launch["metrics"] = metrics;
    launches.push_back(launch);
  }
  return launches;
}

nlohmann::json top_stalls(const nlohmann::json& launch, std::size_t n) {
  std::vector<std::pair<std::string, double>> stalls;
  if (launch.is_object() && launch.contains("metrics"))
    for (const auto& [name, metric] : launch.at("metrics").items()) {
      const std::string reason = stall_reason(name);
      if (reason.empty() || reason == "selected" || !metric.contains("value") || !metric.at("value").is_number())
        continue;
      stalls.emplace_back(reason, metric.at("value").get<double>());
    }
  std::sort(stalls.begin(), stalls.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < stalls.size() && i < n; ++i) out.push_back({{"reason", stalls[i].first}, {"value", stalls[i].second}});
  return out;
}

std::vector<std::string> ncu_profile_command(const fs::path& ncu, const std::vector<std::string>& kernels,
                                             const fs::path& report, const fs::path& log) {
  std::string metrics;
  for (const auto& m : profile_metrics()) metrics += (metrics.empty() ? "" : ",") + m.name;
  std::vector<std::string> argv = {ncu.string(), "--target-processes", "all", "--clock-control", "none", "--metrics", metrics};
  std::string launches = "1";
  if (kernels.size() == 1) {
    argv.insert(argv.end(), {"--kernel-name-base", "mangled", "--kernel-name", kernels.front()});
  } else if (kernels.size() > 1) {
    std::string alternatives;
    for (const auto& k : kernels) alternatives += (alternatives.empty() ? "" : "|") + regex_escaped(k);
    argv.insert(argv.end(), {"--kernel-name-base", "mangled", "--kernel-name", "regex:^(" + alternatives + ")$"});
    launches = std::to_string(kernels.size());
  }
  argv.insert(argv.end(), {"--launch-skip", launches, "--launch-count", launches, "--log-file", log.string(), "--export",
                           report.string(), "--force-overwrite"});
  return argv;
}

std::vector<std::string> ncu_import_command(const fs::path& ncu, const fs::path& report) {
  return {ncu.string(), "--import", report.string(), "--csv", "--page", "raw", "--print-units", "base"};
}

namespace {

// The report ncu wrote, imported (ncu --import --csv) into r.launches and r.launch (the longest);
// r.error says why not.
void import_launches(const ProfileOptions& options, const Prepared& prepared, ProfileResult& r,
                     const std::string& benchmark_note) {
  ProcessOptions import_options;
  import_options.timeout_s = options.per_config_timeout_s;
  import_options.working_directory = prepared.directory;
  import_options.stdout_file = prepared.directory / "profile.csv";
  import_options.stderr_file = prepared.directory / "profile.import.err";
  import_options.capture_limit = std::size_t(64) << 20;  // the whole CSV
  const ProcessResult imported = run_process(ncu_import_command(options.ncu, r.report), import_options);
  if (!imported.ok()) {
    r.error = "ncu --import failed (" + imported.describe() + ")" + ncu_error_line({}, imported.err + imported.out) +
              "; log: " + import_options.stderr_file.string();
    return;
  }
  try {
    for (const auto& launch : parse_ncu_raw_csv(imported.out)) r.launches.push_back(kept_metrics(launch));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) + " (" + import_options.stdout_file.string() + ")");
  }
  if (r.launches.empty()) {
    r.error = "ncu profiled no launch" +
              (r.kernels.empty() ? std::string() : " of " + r.kernels.front() + (r.kernels.size() > 1 ? ", ..." : "")) +
              "; log: " + r.log.string() + benchmark_note;
    return;
  }
  r.launch = r.launches.front();
  for (const auto& l : r.launches)
    if (duration_of(l) > duration_of(r.launch)) r.launch = l;
}

// One configuration compiled again and run once under ncu, its report imported into `r`; throws
// when it cannot be (no ncu, a compile that fails now).
void profile_one(ProgramBackend& backend, const ProfileTarget& target, const ProfileOptions& options, ProfileResult& r) {
  if (options.ncu.empty())
    throw std::runtime_error("ncu not found (set ADAEXPLORE_NCU to Nsight Compute's ncu, or put ncu on PATH)");
  Prepared prepared = backend.prepare(target.config);
  if (prepared.failure)
    throw std::runtime_error("the configuration did not compile again (" + std::string(to_string(prepared.failure->status)) +
                             "): " + prepared.failure->message.substr(0, prepared.failure->message.find('\n')));
  for (const auto& k : prepared.resources)
    if (std::find(r.kernels.begin(), r.kernels.end(), k.kernel) == r.kernels.end()) r.kernels.push_back(k.kernel);
  r.report = prepared.directory / "profile.ncu-rep";
  r.log = prepared.directory / "profile.log";
  std::error_code ec;
  fs::remove(r.report, ec);
  fs::remove(r.log, ec);
  const auto prefix = ncu_profile_command(options.ncu, r.kernels, r.report, r.log);
  const ProgramBackend::WrappedRun run = backend.run_wrapped(prepared, prefix, options.per_config_timeout_s);
  r.command = run.process.command_line();
  const std::string log = r.log.string();
  const std::string benchmark_note =
      is_success(run.outcome.status)
          ? std::string()
          : "; the benchmark under ncu: " + std::string(to_string(run.outcome.status)) + ", " +
                run.outcome.message.substr(0, run.outcome.message.find('\n'));
  if (run.process.failed_to_start) {
    r.error = "ncu could not be started: " + run.process.error;
  } else if (run.process.timed_out) {
    r.error = "ncu timed out after " + seconds_text(options.per_config_timeout_s) + " s (killed); log: " + log;
  } else if (!run.process.ok()) {
    r.error = "ncu failed (" + run.process.describe() + ")" + ncu_error_line(r.log, run.process.err + run.process.out) +
              "; log: " + log + benchmark_note;
  } else if (!fs::exists(r.report, ec)) {
    r.error = "ncu wrote no report (" + r.report.string() + ")" + ncu_error_line(r.log, run.process.err) +
              "; log: " + log + benchmark_note;
  } else {
    import_launches(options, prepared, r, benchmark_note);
  }
}

}  // namespace

std::vector<ProfileResult> profile_targets(ProgramBackend& backend, const std::vector<ProfileTarget>& targets,
                                           const ProfileOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto stage_start = Clock::now();
  const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  std::string version;
  if (!options.ncu.empty()) try {
      version = ncu_version(options.ncu);
    } catch (const std::exception&) {
    }
  std::vector<ProfileResult> results;
  for (const ProfileTarget& target : targets) {
    ProfileResult r;
    r.role = target.role;
    r.config = target.config;
    r.label = backend.space().label(target.config);
    r.launches = nlohmann::json::array();
    r.ncu_version = version;
    const auto same = std::find_if(results.begin(), results.end(), [&](const ProfileResult& earlier) {
      return earlier.config == target.config && earlier.error.rfind("not profiled: the time cap", 0) != 0;
    });
    if (same != results.end()) {  // profiled already in this call: once is enough
      ProfileResult copy = *same;
      copy.role = target.role;
      copy.wall_s = 0;
      results.push_back(copy);
      continue;
    }
    if (options.time_cap_s > 0 && since(stage_start) >= options.time_cap_s) {
      r.error = "not profiled: the time cap " + seconds_text(options.time_cap_s) + " s was spent";
      results.push_back(r);
      continue;
    }
    const auto start = Clock::now();
    try {
      profile_one(backend, target, options, r);
    } catch (const std::exception& e) {
      r.error = "not profiled: " + std::string(e.what());
    }
    r.wall_s = since(start);
    results.push_back(r);
  }
  return results;
}

nlohmann::json to_json(const ProfileResult& r, const Space& space) {
  nlohmann::json j = {{"role", r.role},
                      {"config", record_config(r.config, space)},
                      {"label", r.label},
                      {"launch", r.launch},
                      {"kernels", r.kernels},
                      {"error", r.error},
                      {"wall_s", r.wall_s},
                      {"ncu_version", r.ncu_version},
                      {"command", r.command},
                      {"report", r.report.string()},
                      {"log", r.log.string()}};
  if (r.launches.is_array() && r.launches.size() > 1) j["launches"] = r.launches;
  j["stalls"] = r.launch.is_object() ? top_stalls(r.launch, 6) : nlohmann::json::array();
  return j;
}

}  // namespace adaexplore
