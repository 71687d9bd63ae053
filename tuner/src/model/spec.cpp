#include "model/spec.hpp"
#include "model/backend_kind.hpp"

#include "model/identifier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <set>

namespace adaexplore {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& where, const std::string& what) {
  throw SpecError(file.string() + ": " + where + ": " + what);
}

std::filesystem::path resolve(const std::filesystem::path& file, const std::string& p) {
  std::filesystem::path path(p);
  if (path.is_relative()) path = file.parent_path() / path;
  return path.lexically_normal();
}

Value value_from_json(const nlohmann::json& v, const std::filesystem::path& file, const std::string& where) {
  if (v.is_number()) return Value::from_number(v.get<double>());
  if (v.is_boolean()) return Value::from_number(v.get<bool>() ? 1 : 0);
  if (v.is_string()) {
    // A text value goes into the template, the compile's -D flags, the header's literal and its
    // provenance comment, the progress lines: one line of printable text.
    const std::string text = v.get<std::string>();
    for (unsigned char c : text)
      if (c < 0x20 || c == 0x7f) {
        char code[16];
        std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(c));
        fail(file, where, "the value " + v.dump() + " holds a control character (" + code +
                              "); a text value is rendered into the template and written into the header and the "
                              "progress lines: write it without line breaks, tabs or other control characters");
      }
    return Value::from_text(text);
  }
  fail(file, where, "a value must be a number or a string, not " + v.dump());
}

std::vector<std::string> string_list(const nlohmann::json& j, const char* key, const std::filesystem::path& file,
                                     const std::string& where) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) fail(file, where + "." + key, "must be an array of strings");
  for (const auto& s : j[key]) {
    if (!s.is_string()) fail(file, where + "." + key, "must be an array of strings, found " + s.dump());
    out.push_back(s.get<std::string>());
  }
  return out;
}

// j[key] as an object (an empty one when absent) whose keys are all in `keys`.
nlohmann::json section(const nlohmann::json& j, const std::string& key, const std::set<std::string>& keys,
                       const std::filesystem::path& file) {
  if (!j.contains(key)) return nlohmann::json::object();
  const nlohmann::json& s = j[key];
  if (!s.is_object()) fail(file, key, "must be an object, not " + s.dump());
  std::string known;
  for (const auto& k : keys) known += (known.empty() ? "" : ", ") + k;
  for (const auto& [k, v] : s.items())
    if (!keys.count(k)) fail(file, key + "." + k, "unknown key (check its spelling; known: " + known + ")");
  return s;
}

std::string optional_string(const nlohmann::json& j, const char* key, const std::string& fallback,
                            const std::filesystem::path& file, const std::string& where) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) fail(file, where, "must be a string, not " + j[key].dump());
  return j[key].get<std::string>();
}

double optional_seconds(const nlohmann::json& j, const char* key, double fallback, const std::filesystem::path& file,
                        const std::string& where) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_number() || j[key].get<double>() < 0)
    fail(file, where, "must be a number of seconds >= 0 (0: no limit), not " + j[key].dump());
  return j[key].get<double>();
}

// j[key] as a non-negative integer, `fallback` when absent; `meaning` ends the error message.
std::size_t optional_count(const nlohmann::json& j, const char* key, std::size_t fallback,
                           const std::filesystem::path& file, const std::string& meaning) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_number_integer() || j[key].get<long long>() < 0)
    fail(file, key, "must be a non-negative integer (" + meaning + ")");
  return j[key].get<std::size_t>();
}

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {"name", "namespace", "backend", "template", "benchmark", "parameters",
                                             "constraints", "defaults", "budget", "strategy", "strategy_options",
                                             "seed", "compiler", "run", "work_dir", "jobs", "in_flight", "launch", "sizes", "$comment",
                                             "kernel_source", "kernel", "arguments", "reference", "tolerance",
                                             "macro_prefix"};
  return keys;
}

// run.timeout_factor: 0 (the cap alone) or a number >= 1.
double timeout_factor(const nlohmann::json& run, const std::filesystem::path& file) {
  if (!run.contains("timeout_factor")) return 10.0;
  const auto& f = run["timeout_factor"];
  if (!f.is_number() || !(f.get<double>() == 0 || f.get<double>() >= 1))
    fail(file, "run.timeout_factor",
         "must be a number >= 1 (the run time limit is this many times the defaults' run time) or 0 (the "
         "cap run.timeout_s alone), not " + f.dump());
  return f.get<double>();
}

}  // namespace

std::vector<Parameter> parse_parameters(const nlohmann::json& j, const std::filesystem::path& file) {
  if (!j.is_array() || j.empty()) fail(file, "parameters", "must be a non-empty array of {\"name\", \"values\"|\"range\"}");
  std::vector<Parameter> params;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& p = j[i];
    const std::string where = "parameters[" + std::to_string(i) + "]";
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
      fail(file, where, "needs a \"name\" (string)");
    Parameter param;
    param.name = p["name"].get<std::string>();
    if (!is_identifier(param.name))
      fail(file, where, "name '" + param.name + "' is not an identifier (letters, digits, _; not starting with a digit)");
    if (const std::string problem = reserved_name_problem(param.name, NameUse::parameter); !problem.empty())
      fail(file, where, "name " + problem);
    if (p.contains("values")) {
      if (!p["values"].is_array() || p["values"].empty())
        fail(file, where + " (" + param.name + ")", "\"values\" must be a non-empty array");
      for (const auto& v : p["values"]) param.values.push_back(value_from_json(v, file, where + " (" + param.name + ")"));
    } else if (p.contains("range")) {
      const auto& r = p["range"];
      if (!r.is_object() || !r.contains("from") || !r.contains("to") || !r["from"].is_number_integer() ||
          !r["to"].is_number_integer() || (r.contains("step") && !r["step"].is_number_integer()))
        fail(file, where + " (" + param.name + ")", "\"range\" needs integer \"from\" and \"to\" (inclusive) and optional \"step\"");
      const long long from = r["from"], to = r["to"], step = r.value("step", 1LL);
      if (step <= 0 || to < from)
        fail(file, where + " (" + param.name + ")", "\"range\" needs from <= to and step > 0");
      if ((to - from) / step >= 65535) fail(file, where + " (" + param.name + ")", "\"range\" has too many values");
      for (long long v = from; v <= to; v += step) param.values.push_back(Value::from_number(static_cast<double>(v)));
    } else {
      fail(file, where + " (" + param.name + ")", "needs \"values\" (array) or \"range\" ({from, to, step})");
    }
    params.push_back(std::move(param));
  }
  return params;
}

namespace {

// j[key], a required non-empty string.
std::string need_string(const nlohmann::json& j, const std::filesystem::path& file, const char* key) {
  if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
    fail(file, key, "required, a non-empty string");
  return j[key].get<std::string>();
}

// "name" and "namespace": identifiers, each part of the namespace not a reserved name.
void parse_names(const nlohmann::json& j, const std::filesystem::path& file, Spec& s) {
  s.name = need_string(j, file, "name");
  if (!is_identifier(s.name))
    fail(file, "name", "'" + s.name + "' is not an identifier (it names the header and the namespace)");
  s.name_space = optional_string(j, "namespace", "adaexplore::" + s.name, file, "namespace");
  if (!is_qualified_identifier(s.name_space))
    fail(file, "namespace", "'" + s.name_space + "' is not a C++ namespace name (e.g. adaexplore::" + s.name + ")");
  // Each part of the namespace, checked where it came from: the kernel's name makes the default one.
  if (!j.contains("namespace")) {
    if (const std::string problem = reserved_name_problem(s.name, NameUse::kernel); !problem.empty())
      fail(file, "name", problem + " (it makes the namespace " + s.name_space + "), or give a \"namespace\"");
  } else {
    for (std::size_t at = 0; at <= s.name_space.size();) {
      const std::size_t end = std::min(s.name_space.find("::", at), s.name_space.size());
      const std::string part = s.name_space.substr(at, end - at);
      if (const std::string problem = reserved_name_problem(part, NameUse::name_space); !problem.empty())
        fail(file, "namespace", "'" + s.name_space + "': " + problem);
      at = end + 2;
    }
  }
}

// "backend", and the sources: "template" or "kernel_source", "benchmark" (or "arguments").
void parse_sources(const nlohmann::json& j, const std::filesystem::path& file, Spec& s) {
  s.backend = need_string(j, file, "backend");
  if (!find_backend_kind(s.backend)) fail(file, "backend", "'" + s.backend + "' is not one of " + backend_names());
  if (!j.contains("template") && !j.contains("kernel_source"))
    fail(file, "template",
         "required: a source with ${NAME} placeholders, or instead \"kernel_source\", a source whose parameters "
         "are preprocessor macros");
  if (j.contains("template") && j.contains("kernel_source"))
    fail(file, "kernel_source",
         "give either \"template\" (a source with ${NAME} placeholders) or \"kernel_source\" (a source whose "
         "parameters are preprocessor macros), not both");
  s.macro_kernel = j.contains("kernel_source");
  s.template_path = resolve(file, need_string(j, file, s.macro_kernel ? "kernel_source" : "template"));
  if (!j.contains("benchmark") && !j.contains("arguments"))
    fail(file, "benchmark",
         "required: a benchmark program, or instead \"arguments\", the kernel's arguments (the tuner writes the "
         "benchmark)");
  if (j.contains("benchmark") && j.contains("arguments"))
    fail(file, "arguments",
         "give either \"benchmark\" (a benchmark program) or \"arguments\" (the kernel's arguments: the tuner "
         "writes the benchmark), not both");
  if (j.contains("benchmark")) s.benchmark_path = resolve(file, need_string(j, file, "benchmark"));
}

// "defaults" (within the space and its constraints), else the first valid configuration.
void parse_defaults(const nlohmann::json& j, const std::filesystem::path& file, Spec& s) {
  if (j.contains("defaults")) {
    if (!j["defaults"].is_object()) fail(file, "defaults", "must be an object {\"NAME\": value}");
    std::vector<std::pair<std::string, std::string>> assignment;
    for (const auto& [name, v] : j["defaults"].items())
      assignment.emplace_back(name, value_from_json(v, file, "defaults." + name).text);
    try {
      s.defaults = s.space.config_from_texts(assignment);
    } catch (const std::exception& e) {
      fail(file, "defaults", e.what());
    }
    if (const Expr* violated = s.space.first_violated(s.defaults))
      fail(file, "defaults", "the defaults " + s.space.label(s.defaults) + " violate the constraint \"" +
                                 violated->text() + "\"; choose defaults that satisfy every constraint");
    s.defaults_given = true;
  } else {
    // The first valid configuration (walked, not stored: this runs at every configure), or a
    // random valid one when the space is too large to walk.
    std::mt19937_64 rng(0);
    const auto first = s.space.cartesian_size() <= 2e7 ? s.space.first_valid() : s.space.sample_valid(rng, 100000);
    if (!first) fail(file, "constraints", "no configuration satisfies every constraint");
    s.defaults = *first;
  }
}

// "budget", "strategy", "strategy_options", "seed".
void parse_search(const nlohmann::json& j, const std::filesystem::path& file, Spec& s) {
  if (j.contains("budget")) {
    if (!j["budget"].is_object()) fail(file, "budget", "must be {\"evaluations\": N, \"seconds\": S}");
    const nlohmann::json b = section(j, "budget", {"evaluations", "seconds"}, file);
    if (b.contains("evaluations")) {
      if (!b["evaluations"].is_number_integer() || b["evaluations"].get<long long>() < 1)
        fail(file, "budget.evaluations", "must be a positive integer");
      s.budget_evaluations = b["evaluations"].get<std::size_t>();
    }
    if (b.contains("seconds")) {
      if (!b["seconds"].is_number() || b["seconds"].get<double>() < 0) fail(file, "budget.seconds", "must be >= 0");
      s.budget_seconds = b["seconds"].get<double>();
    }
  }
  s.strategy = optional_string(j, "strategy", "adaexplore", file, "strategy");
  if (j.contains("strategy_options") && !j["strategy_options"].is_object())
    fail(file, "strategy_options", "must be an object {\"option\": value}");
  s.strategy_options = j.value("strategy_options", nlohmann::json::object());
  if (j.contains("seed")) {
    const auto& seed = j["seed"];
    if (!seed.is_number_integer() || (!seed.is_number_unsigned() && seed.get<long long>() < 0))
      fail(file, "seed", "must be a non-negative integer");
    s.seed = j["seed"].get<std::uint64_t>();
  }
}

// "compiler": path, flags, arch, include folders, definitions, time limit, launcher, unit.
void parse_compiler(const nlohmann::json& j, const std::filesystem::path& file, Spec& s) {
  const nlohmann::json compiler =
      section(j, "compiler", {"path", "flags", "arch", "include_dirs", "definitions", "timeout_s", "launcher", "unit"}, file);
  s.compiler.path = optional_string(compiler, "path", backend_kind(s.backend).default_compiler, file, "compiler.path");
  s.compiler.flags = string_list(compiler, "flags", file, "compiler");
  s.compiler.arch = optional_string(compiler, "arch", "", file, "compiler.arch");
  for (const auto& d : string_list(compiler, "include_dirs", file, "compiler"))
    s.compiler.include_dirs.push_back(resolve(file, d).string());
  s.compiler.definitions = string_list(compiler, "definitions", file, "compiler");
  s.compiler.timeout_s = optional_seconds(compiler, "timeout_s", 120.0, file, "compiler.timeout_s");
  s.compiler.launcher = string_list(compiler, "launcher", file, "compiler");
  s.compiler.unit = optional_string(compiler, "unit", "auto", file, "compiler.unit");
  if (s.compiler.unit != "auto" && s.compiler.unit != "kernel" && s.compiler.unit != "program")
    fail(file, "compiler.unit",
         "is \"" + s.compiler.unit + "\"; use \"kernel\" (each configuration's device code alone), \"program\" "
         "(the whole benchmark per configuration) or \"auto\" (the default)");
  for (std::size_t i = 0; i < s.compiler.launcher.size(); ++i)
    if (s.compiler.launcher[i].empty())
      fail(file, "compiler.launcher[" + std::to_string(i) + "]",
           "is an empty string; give the launcher program and its arguments, e.g. [\"ccache\"], or leave "
           "compiler.launcher out");
}

// "run": the benchmark's time limits, arguments and runner.
void parse_run(const nlohmann::json& j, const std::filesystem::path& file, Spec& s) {
  const nlohmann::json run = section(j, "run", {"timeout_s", "timeout_factor", "timeout_floor_s", "args", "runner"}, file);
  s.run_timeout_s = optional_seconds(run, "timeout_s", 30.0, file, "run.timeout_s");
  s.run_timeout_factor = timeout_factor(run, file);
  if (run.contains("timeout_floor_s") && (!run["timeout_floor_s"].is_number() || run["timeout_floor_s"].get<double>() < 0))
    fail(file, "run.timeout_floor_s",
         "must be a number of seconds >= 0 (the least run time limit derived from the defaults' run), not " +
             run["timeout_floor_s"].dump());
  s.run_timeout_floor_s = run.value("timeout_floor_s", 5.0);
  s.run_args = string_list(run, "args", file, "run");
  if (run.contains("runner") && !run["runner"].is_boolean())
    fail(file, "run.runner",
         "must be true (measure every configuration in one long-lived runner process, runner.hpp) or false "
         "(one benchmark process per evaluation), not " + run["runner"].dump());
  s.run_runner = run.value("runner", true);
}

}  // namespace

Spec parse_spec(const nlohmann::json& j, const std::filesystem::path& file) {
  if (!j.is_object()) fail(file, "top level", "must be a JSON object");
  for (const auto& [key, value] : j.items())
    if (!known_keys().count(key)) fail(file, key, "unknown key (check its spelling; see `adaexplore-tuner tune --help`)");
  Spec s;
  s.file = file;
  s.raw = j;
  parse_names(j, file, s);
  parse_sources(j, file, s);
  if (!j.contains("parameters")) fail(file, "parameters", "required");
  std::vector<Parameter> params = parse_parameters(j["parameters"], file);
  const auto constraints = string_list(j, "constraints", file, "constraints");
  try {
    s.space = Space(std::move(params), constraints);
  } catch (const std::exception& e) {
    fail(file, "parameters/constraints", e.what());
  }
  parse_defaults(j, file, s);
  parse_search(j, file, s);
  parse_compiler(j, file, s);
  parse_run(j, file, s);
  s.work_dir = resolve(file, optional_string(j, "work_dir", s.name + ".work", file, "work_dir"));
  s.jobs = optional_count(j, "jobs", 0, file, "0: one per core");
  s.in_flight = optional_count(j, "in_flight", 0, file, "configurations in flight at most; 0: automatic");
  if (j.contains("sizes"))
    s.sizes = parse_sizes(j["sizes"], s.space.names(),
                          [&file](const std::string& where, const std::string& what) { fail(file, where, what); });
  parse_kernel_parts(j, s);
  return s;
}

std::vector<std::string> compiler_prefix(const CompilerSpec& compiler) {
  std::vector<std::string> argv = compiler.launcher;
  argv.push_back(compiler.path);
  return argv;
}

Spec load_spec(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw SpecError(file.string() + ": cannot be read (does it exist?)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(file.string() + ": not valid JSON: " + e.what());
  }
  return parse_spec(j, std::filesystem::absolute(file));
}

}  // namespace adaexplore
