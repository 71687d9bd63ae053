#include "evaluate/program_outcome.hpp"
#include "util/text.hpp"

#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace adaexplore {
namespace {

// The record is there but unusable: the benchmark broke the protocol.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string seconds_text(double ms) {
  std::ostringstream s;
  s.precision(3);
  s << ms / 1000.0 << " s";
  return s.str();
}

std::string output_of(const ProcessResult& run) {
  std::string text;
  if (!run.err.empty()) text += "  stderr:\n" + run.err + (run.err.back() == '\n' ? "" : "\n");
  if (!run.out.empty()) text += "  stdout:\n" + run.out;
  return truncate_middle(text);
}

nlohmann::json read_record(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ProtocolError("its result record " + file.string() + " cannot be read");
  // The harness copies the benchmark's messages (fail(), check()) byte for byte: text that is not
  // UTF-8 (Latin-1) is made valid before parsing, which would refuse it.
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(valid_utf8_json_text(text));
  } catch (const nlohmann::json::parse_error& e) {
    throw ProtocolError("its result record " + file.string() + " is not valid JSON (" + e.what() +
                        ")");
  }
  if (!j.is_object() || !j.contains("adaexplore_harness"))
    throw ProtocolError("its result record " + file.string() +
                        " has no \"adaexplore_harness\" field");
  std::string statuses;  // those a record may carry (statuses.hpp: from_benchmark)
  bool known = false;
  for (Status s : kAllStatuses) {
    if (!from_benchmark(s)) continue;
    statuses += (statuses.empty() ? "" : ", ") + std::string(to_string(s));
    known = known || (j.contains("status") && j["status"] == to_string(s));
  }
  if (!known)
    throw ProtocolError("its result record has status " + (j.contains("status") ? j["status"].dump() : "(none)") +
                        "; expected one of " + statuses);
  return j;
}

double finite_number(const nlohmann::json& t, const char* key) {
  if (!t.contains(key) || !t[key].is_number() || !std::isfinite(t[key].get<double>()) ||
      t[key].get<double>() < 0)
    throw ProtocolError(std::string("its result record's time_ms.") + key +
                        " is missing or not a number >= 0");
  return t[key].get<double>();
}

Timing timing_of(const nlohmann::json& record) {
  if (!record.contains("time_ms") || !record["time_ms"].is_object())
    throw ProtocolError("its result record has status ok but no \"time_ms\" object");
  const auto& t = record["time_ms"];
  Timing timing{finite_number(t, "median"), finite_number(t, "mean"),  finite_number(t, "min"),
                finite_number(t, "max"),    finite_number(t, "stdev"), t.value("samples", 0), {}};
  if (timing.samples <= 0)
    throw ProtocolError("its result record's time_ms.samples is not a positive count");
  // The per-run times (optional: a harness before they were recorded writes none).
  if (t.contains("values")) {
    if (!t["values"].is_array())
      throw ProtocolError("its result record's time_ms.values is not an array of ms");
    for (const auto& v : t["values"]) {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        throw ProtocolError("its result record's time_ms.values has " + v.dump() +
                            ", not a number of ms >= 0");
      timing.values_ms.push_back(v.get<double>());
    }
  }
  return timing;
}

// The sanity gates that fired ("suspicious": an array of strings; absent in records of older
// harnesses and when none fired).
void check_suspicious(const nlohmann::json& record) {
  if (!record.contains("suspicious")) return;
  const auto& s = record["suspicious"];
  if (!s.is_array())
    throw ProtocolError("its result record's \"suspicious\" is not an array of strings");
  for (const auto& reason : s)
    if (!reason.is_string())
      throw ProtocolError("its result record's \"suspicious\" has " + reason.dump() +
                          ", not a string");
}

// Figures (GB/s, GFLOP/s, ...), verification, the driver's view of the kernels, CUDA error name,
// the sanity gates that fired and the GPU's clocks: everything the record adds.
nlohmann::json extra_of(const nlohmann::json& record) {
  nlohmann::json extra = nlohmann::json::object();
  if (record.contains("figures") && record["figures"].is_object()) extra = record["figures"];
  if (record.contains("kernels") && !record["kernels"].is_array())
    throw ProtocolError("its result record's \"kernels\" is not an array");
  check_suspicious(record);
  for (const char* key : {"verification", "warmup_runs", "kernels", "suspicious", "clocks", "device_memory", "peak"})
    if (record.contains(key)) extra[key] = record[key];
  const std::string error_name = record.value("error_name", std::string());
  if (!error_name.empty()) extra["error_name"] = error_name;
  return extra;
}

// The benchmark's own stages ("stages_ms": {"setup", "verify", "warmup", "measure"}, wall-clock
// ms), added to the outcome's stage_ms under the same names; absent in records of older harnesses.
void add_stages(const nlohmann::json& record, Outcome& o) {
  if (!record.contains("stages_ms")) return;
  const auto& stages = record["stages_ms"];
  if (!stages.is_object())
    throw ProtocolError("its result record's \"stages_ms\" is not an object of ms");
  for (const auto& [name, ms] : stages.items()) {
    if (!ms.is_number() || !std::isfinite(ms.get<double>()) || ms.get<double>() < 0)
      throw ProtocolError("its result record's stages_ms." + name + " is " + ms.dump() +
                          ", not a number of ms >= 0");
    o.stage_ms[name] = ms.get<double>();
  }
}

// Whether the driver refused a kernel before its launch (Benchmark::check_launch: a "kernels" entry
// with "launchable": false). A backend measures only what its static check let through, so a
// resource_limit that says so is one the static rules missed.
bool driver_refused_a_kernel(const nlohmann::json& record) {
  if (!record.contains("kernels") || !record["kernels"].is_array()) return false;
  for (const auto& k : record["kernels"])
    if (k.is_object() && k.value("launchable", true) == false) return true;
  return false;
}

Outcome failed_record_outcome(const nlohmann::json& record, const ProcessResult& run) {
  const Status status = status_from_string(record["status"].get<std::string>());
  const std::string error_name = record.value("error_name", std::string());
  std::string summary = record.value("message", std::string());
  if (!error_name.empty() && summary.find(error_name) == std::string::npos)
    summary = error_name + ": " + summary;
  if (summary.empty())
    summary = "the benchmark reported " + std::string(to_string(status)) + " without a message";
  const bool missed = status == Status::resource_limit && driver_refused_a_kernel(record);
  if (missed)
    summary += "; the tuner's static check (ptxas report against the device's limits) let this "
               "configuration through: the static rules missed it";
  Outcome o = process_failure(status, summary, run);
  o.extra = extra_of(record);
  add_stages(record, o);
  if (missed) o.extra["static_check_missed"] = true;
  return o;
}

Outcome record_outcome(const nlohmann::json& record, const ProcessResult& run) {
  if (record["status"] != "ok") return failed_record_outcome(record, run);
  if (!run.ok())
    return process_failure(Status::crash,
                           "the benchmark wrote status ok, then ended with " + run.describe(), run);
  Outcome o;
  o.timing = timing_of(record);
  o.objective = o.timing->median_ms;
  o.exit_code = run.exit_code;
  o.extra = extra_of(record);
  add_stages(record, o);
  return o;
}

Outcome missing_record_outcome(const ProcessResult& run, const std::filesystem::path& record_file) {
  if (run.failed_to_start)
    return process_failure(Status::crash, "the benchmark could not be started: " + run.error, run);
  if (run.signal)
    return process_failure(Status::crash, "the benchmark was killed by " + signal_name(*run.signal),
                           run);
  if (!run.ok()) {
    const std::string why = run.err.empty() ? std::string() : ": " + first_error_line(run.err);
    return process_failure(
        Status::crash,
        "the benchmark " + run.describe() + " without writing its result record" + why, run);
  }
  return process_failure(
      Status::crash,
      "the benchmark broke the protocol: it exited with code 0 without writing its result record "
      "to " +
          record_file.string(),
      run);
}

}  // namespace

Outcome process_failure(Status status, const std::string& summary, const ProcessResult& run) {
  Outcome o;
  o.status = status;
  o.exit_code = run.exit_code;
  o.signal = run.signal;
  o.message = summary + "\n  command: " + run.command_line() + "\n  ended: " + run.describe() +
              " after " + seconds_text(run.wall_ms) + "\n" + output_of(run);
  return o;
}

std::string first_error_line(const std::string& compiler_output) {
  // "error:" (gcc, clang, nvcc), "error   :" (ptxas), "Error:"; not "error" inside a path.
  static const std::regex diagnostic("\\b[Ee]rror\\s*:");
  std::istringstream in(compiler_output);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && line.find_first_not_of(" \t\r") != std::string::npos) first = line;
    if (std::regex_search(line, diagnostic)) return line;
  }
  return first;
}

std::string signal_name(int signal) {
  static const std::pair<int, const char*> names[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
      {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
      {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}, {SIGSYS, "SIGSYS"}};
  std::string name = "signal " + std::to_string(signal);
  for (const auto& [number, text] : names)
    if (number == signal) name = text;
  return name + " (" + strsignal(signal) + ")";
}

Outcome benchmark_outcome(const ProcessResult& run, const std::filesystem::path& record_file,
                          double time_limit_s) {
  if (run.timed_out) {
    Outcome o = process_failure(Status::timeout,
                                "the benchmark exceeded its run time limit of " + seconds_text(time_limit_s * 1000) +
                                    " and was killed with its process group",
                                run);
    o.extra["timeout_stage"] = "run";
    return o;
  }
  std::error_code ec;
  if (!std::filesystem::exists(record_file, ec)) return missing_record_outcome(run, record_file);
  try {
    return record_outcome(read_record(record_file), run);
  } catch (const ProtocolError& e) {
    return process_failure(Status::crash,
                           std::string("the benchmark broke the protocol: ") + e.what(), run);
  }
}

}  // namespace adaexplore
