// Format and failure mapping: see kernel_tuner_cache.hpp.
#include "replay/kernel_tuner_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "util/process.hpp"
#include "util/text.hpp"

namespace adaexplore {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw CacheFileError(file.string() + ": " + what);
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot be opened for reading; check the path given to --cache");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_gzip(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::filesystem::path temp_output_path() {
  static std::atomic<unsigned> counter{0};
  return std::filesystem::temp_directory_path() /
         ("adaexplore-cache-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) +
          ".json");
}

// Decompresses with the system's gzip (no zlib dependency): `gzip -dc FILE > temp`.
std::string gunzip(const std::filesystem::path& file) {
  ProcessOptions options;
  options.stdout_file = temp_output_path();
  const ProcessResult r = run_process({"gzip", "-dc", file.string()}, options);
  std::string text;
  if (r.ok()) text = slurp(options.stdout_file);
  std::error_code ignore;
  std::filesystem::remove(options.stdout_file, ignore);
  if (!r.ok())
    fail(file, "could not be decompressed: `" + r.command_line() + "` ended with " + r.describe() +
                   ": " + truncate_middle(r.err, 2000) +
                   "; check that gzip is installed and the file is complete");
  return text;
}

// An interrupted Kernel Tuner run leaves the cache open: "...}," after the last record, or
// "\"cache\": {" when no record was written. Close the cache and the file, as Kernel Tuner does.
void close_truncated(std::string& text) {
  std::size_t end = text.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  if (end == 0 || (text[end - 1] != ',' && text[end - 1] != '{')) return;
  text.resize(text[end - 1] == ',' ? end - 1 : end);
  text += "}}";
}

// Python's json writes NaN, Infinity and -Infinity, which JSON lacks: quote them outside strings
// so that they read as failure names.
void quote_non_finite(std::string& text) {
  static const char* const tokens[] = {"-Infinity", "Infinity", "NaN"};
  if (text.find("NaN") == std::string::npos && text.find("Infinity") == std::string::npos) return;
  std::string out;
  out.reserve(text.size() + 64);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    const char* hit = nullptr;
    for (const char* t : tokens)
      if (text.compare(i, std::char_traits<char>::length(t), t) == 0) hit = t;
    if (!hit) {
      out += c;
      continue;
    }
    out += std::string("\"") + hit + "\"";
    i += std::char_traits<char>::length(hit) - 1;
  }
  text = std::move(out);
}

// Python's str() of a value, as it appears in cache keys (and as the product's value text).
std::string python_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

Value value_of(const json& v, const std::filesystem::path& file, const std::string& name) {
  if (v.is_boolean()) {
    Value r;
    r.text = python_text(v);
    r.number = v.get<bool>() ? 1.0 : 0.0;
    return r;
  }
  if (v.is_number() || v.is_string()) return Value::from_text(python_text(v));
  fail(file, "tune_params." + name + ": value " + v.dump() +
                 " is neither a number, a string nor a boolean");
}

const json& field(const json& j, const char* name, json::value_t type,
                  const std::filesystem::path& file) {
  auto it = j.find(name);
  if (it == j.end() || it->type() != type)
    fail(file, std::string("top-level field \"") + name + "\" is missing or has the wrong type; " +
                   "this does not look like a Kernel Tuner cache file");
  return *it;
}

std::vector<Parameter> parameters_of(const json& root, const std::filesystem::path& file) {
  const json& keys = field(root, "tune_params_keys", json::value_t::array, file);
  const json& params = field(root, "tune_params", json::value_t::object, file);
  std::vector<Parameter> out;
  for (const auto& k : keys) {
    if (!k.is_string()) fail(file, "tune_params_keys holds " + k.dump() + ", not a parameter name");
    Parameter p{k.get<std::string>(), {}};
    auto it = params.find(p.name);
    if (it == params.end() || !it->is_array() || it->empty())
      fail(file, "tune_params." + p.name + " is missing or not a non-empty list of values");
    for (const auto& v : *it) p.values.push_back(value_of(v, file, p.name));
    out.push_back(std::move(p));
  }
  return out;
}

// Maps records to configurations: per parameter, value text -> index.
class ConfigReader {
 public:
  ConfigReader(const Space& space, const std::filesystem::path& file) : space_(space), file_(file) {
    for (const auto& p : space.parameters()) {
      index_.emplace_back();
      for (std::size_t i = 0; i < p.values.size(); ++i) index_.back().emplace(p.values[i].text, i);
    }
  }

  Config read(const std::string& key, const json& record) const {
    std::vector<std::string> texts;
    for (const auto& p : space_.parameters()) {
      auto it = record.find(p.name);
      if (it == record.end()) return from_texts(key, split(key));
      texts.push_back(python_text(*it));
    }
    return from_texts(key, texts);
  }

 private:
  static std::vector<std::string> split(const std::string& key) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t comma; (comma = key.find(',', start)) != std::string::npos; start = comma + 1)
      parts.push_back(key.substr(start, comma - start));
    parts.push_back(key.substr(start));
    return parts;
  }

  Config from_texts(const std::string& key, const std::vector<std::string>& texts) const {
    if (texts.size() != space_.dimension())
      fail(file_, "record \"" + key + "\" lacks parameter fields and its key does not have " +
                      std::to_string(space_.dimension()) + " values; the file is damaged");
    Config c(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
      auto it = index_[i].find(texts[i]);
      if (it == index_[i].end())
        fail(file_,
             "record \"" + key + "\": " + space_.parameters()[i].name + " = " + texts[i] +
                 " is not among its tune_params values; the record does not belong to this space");
      c[i] = static_cast<std::uint16_t>(it->second);
    }
    return c;
  }

  const Space& space_;
  const std::filesystem::path& file_;
  std::vector<std::unordered_map<std::string, std::size_t>> index_;
};

// The failure name a record carries, if any (the three encodings of the header).
std::optional<std::string> error_name(const json& record, const std::string& objective) {
  if (auto it = record.find("__error__"); it != record.end() && !it->is_null())
    return it->is_string() ? it->get<std::string>() : it->dump();
  for (const std::string& name : {objective, std::string("time")}) {
    auto it = record.find(name);
    if (it == record.end()) continue;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_null()) return std::string("null objective");
    if (it->is_number()) {
      const double v = it->get<double>();
      if (!std::isfinite(v) || v >= 1e19) return "objective " + it->dump() + " (failure marker)";
    }
  }
  return std::nullopt;
}

bool mentions_resources(const json& record) {
  static const char* const words[] = {"shared memory", "shared data",     "local memory", "lmem",
                                      "registers",     "too much shared", "smem"};
  for (const auto& [key, value] : record.items()) {
    if (!value.is_string() || key == "timestamp") continue;
    std::string text = value.get<std::string>();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const char* w : words)
      if (text.find(w) != std::string::npos) return true;
  }
  return false;
}

std::optional<Timing> timing_of(const json& record) {
  auto it = record.find("times");
  if (it == record.end() || !it->is_array()) return std::nullopt;
  std::vector<double> t;
  for (const auto& v : *it)
    if (v.is_number()) t.push_back(v.get<double>());
  if (t.empty()) return std::nullopt;
  std::sort(t.begin(), t.end());
  Timing s;
  s.samples = static_cast<int>(t.size());
  s.min_ms = t.front();
  s.max_ms = t.back();
  const std::size_t n = t.size();
  s.median_ms = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  for (double v : t) s.mean_ms += v / static_cast<double>(n);
  double ss = 0;
  for (double v : t) ss += (v - s.mean_ms) * (v - s.mean_ms);
  s.stdev_ms = n > 1 ? std::sqrt(ss / static_cast<double>(n - 1)) : 0.0;
  return s;
}

void add_stages(const json& record, Outcome& o) {
  static const std::pair<const char*, const char*> stages[] = {{"compile_time", "compile"},
                                                               {"verification_time", "verify"},
                                                               {"benchmark_time", "run"},
                                                               {"framework_time", "framework"},
                                                               {"strategy_time", "strategy"}};
  for (const auto& [field_name, stage] : stages) {
    auto it = record.find(field_name);
    if (it != record.end() && it->is_number()) o.stage_ms[stage] = it->get<double>();
  }
}

Outcome outcome_of(const std::string& key, const json& record, const std::string& objective,
                   const std::filesystem::path& file) {
  Outcome o;
  add_stages(record, o);
  if (auto error = error_name(record, objective)) {
    o.status = status_of_kernel_tuner_error(*error, record);
    o.message = "recorded by Kernel Tuner as " + *error;
    return o;
  }
  auto t = record.find("time");
  if (t == record.end() || !t->is_number())
    fail(file, "record \"" + key +
                   "\" has no numeric \"time\" and no failure marker; the file is damaged");
  o.objective = t->get<double>();
  o.timing = timing_of(record);
  if (objective != "time" && record.contains(objective)) o.extra[objective] = record[objective];
  return o;
}

json parse_json(std::string& text, const std::filesystem::path& file) {
  close_truncated(text);
  quote_non_finite(text);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail(file, std::string("is not valid JSON (") + e.what() +
                   "); a file cut inside a record cannot be read: rerun the tuning or remove the "
                   "partial record");
  }
}

Space space_of(const json& root, const std::filesystem::path& file,
               const std::vector<std::string>& constraints) {
  std::vector<Parameter> parameters = parameters_of(root, file);
  try {
    return Space(std::move(parameters), constraints);
  } catch (const ExprError& e) {
    fail(file, std::string("constraint: ") + e.what());
  } catch (const std::invalid_argument& e) {
    fail(file, std::string("tune_params: ") + e.what());
  }
}

void read_records(const json& cache, KernelTunerCache& out) {
  ConfigReader reader(out.space, out.file);
  std::unordered_map<Config, std::string, ConfigHash> keys;
  out.records.reserve(cache.size());
  for (const auto& [key, record] : cache.items()) {
    if (!record.is_object()) fail(out.file, "record \"" + key + "\" is not an object");
    Outcome o = outcome_of(key, record, out.objective, out.file);
    o.config = reader.read(key, record);
    auto [it, fresh] = keys.emplace(o.config, key);
    if (!fresh)
      fail(out.file, "records \"" + it->second + "\" and \"" + key +
                         "\" are the same configuration; remove one");
    o.label = out.space.label(o.config);
    if (!out.space.satisfies(o.config)) ++out.records_outside_constraints;
    out.records.push_back(std::move(o));
  }
}

std::string string_field(const json& root, const char* name) {
  auto it = root.find(name);
  return it != root.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Status status_of_kernel_tuner_error(const std::string& name, const json& record) {
  if (name == "CompilationFailedConfig")
    return mentions_resources(record) ? Status::resource_limit : Status::compile_error;
  if (name == "RuntimeFailedConfig") return Status::launch_error;
  if (name == "InvalidConfig") return Status::invalid;
  return Status::crash;
}

KernelTunerCache parse_kernel_tuner_cache(std::string text, const std::filesystem::path& file,
                                          const std::vector<std::string>& constraints) {
  const json root = parse_json(text, file);
  text.clear();
  text.shrink_to_fit();
  if (!root.is_object())
    fail(file, "the top level is not a JSON object; this is not a Kernel Tuner cache file");
  KernelTunerCache out;
  out.file = file;
  out.kernel_name = string_field(root, "kernel_name");
  out.device_name = string_field(root, "device_name");
  out.problem_size = root.value("problem_size", json());
  if (root.contains("objective"))
    out.objective = field(root, "objective", json::value_t::string, file).get<std::string>();
  out.space = space_of(root, file, constraints);
  read_records(field(root, "cache", json::value_t::object, file), out);
  return out;
}

KernelTunerCache read_kernel_tuner_cache(const std::filesystem::path& file,
                                         const std::vector<std::string>& constraints) {
  if (!std::filesystem::is_regular_file(file))
    fail(file, "no such file; check the path given to --cache");
  std::string text = is_gzip(file) ? gunzip(file) : slurp(file);
  return parse_kernel_tuner_cache(std::move(text), file, constraints);
}

}  // namespace adaexplore
