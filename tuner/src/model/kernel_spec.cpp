#include "model/kernel_spec.hpp"
#include "model/backend_kind.hpp"

#include <cctype>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

#include "model/identifier.hpp"
#include "model/spec.hpp"

namespace adaexplore {
namespace {

[[noreturn]] void fail(const Spec& s, const std::string& where, const std::string& what) {
  throw SpecError(s.file.string() + ": " + where + ": " + what);
}

// The sizes an expression is checked at for the defaults: every declared one, or none.
std::vector<const std::vector<long long>*> sizes_to_check(const Spec& s) {
  std::vector<const std::vector<long long>*> out;
  for (const auto& size : s.sizes.sizes) out.push_back(&size.values);
  if (out.empty()) out.push_back(nullptr);
  return out;
}

std::string at_size(const Spec& s, const std::vector<long long>* size) {
  if (!size) return "";
  return " at the size " + s.sizes.label(ProblemSize{*size});
}

// `text` parsed over the parameters and the size names; `what` says what it must be.
Expr parse_expression(const Spec& s, const std::string& where, const nlohmann::json& v, const std::string& what) {
  if (!v.is_string() && !v.is_number())
    fail(s, where, "must be " + what + " (a string such as \"ceil(N / BLOCK)\", or a number), not " + v.dump());
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  try {
    return Expr::parse(text, launch_variable_names(s.space, s.sizes.names));
  } catch (const ExprError& error) {
    fail(s, where, std::string(error.what()) + "; write " + what + " over the parameters and the size names");
  }
}

// An expression that must give a whole number >= minimum for the defaults at every size.
Expr whole_expression(const Spec& s, const std::string& where, const nlohmann::json& v, double minimum,
                      const std::string& unit) {
  Expr e = parse_expression(s, where, v, "an expression giving " + unit);
  for (const auto* size : sizes_to_check(s)) {
    if (whole_value(e, s.space, s.defaults, size, minimum)) continue;
    const ExprValue got = e.evaluate([&](std::size_t i) { return launch_variable(s.space, s.defaults, size, i); });
    fail(s, where, "\"" + e.text() + "\" gives " + (got.is_string ? "'" + got.text + "'" : Value::from_number(got.number).text) +
                       " for the defaults " + s.space.label(s.defaults) + at_size(s, size) +
                       "; it must give a whole number >= " + Value::from_number(minimum).text + " (" + unit + ")");
  }
  return e;
}

// "block" or "grid": 1 to 3 expressions.
std::vector<Expr> dimensions(const Spec& s, const nlohmann::json& launch, const char* key) {
  std::vector<Expr> out;
  if (!launch.contains(key)) return out;
  const std::string where = std::string("launch.") + key;
  const auto& list = launch[key];
  if (!list.is_array() || list.empty() || list.size() > 3)
    fail(s, where, "must be a list of 1 to 3 expressions (x, y, z), e.g. [\"BLOCK_X\", \"BLOCK_Y\"], not " + list.dump());
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(whole_expression(s, where + "[" + std::to_string(i) + "]", list[i], 1,
                                   std::string(key) == "block" ? "threads" : "blocks"));
  return out;
}

LaunchSpec parse_launch(const nlohmann::json& j, const Spec& s) {
  LaunchSpec launch;
  if (!j.contains("launch")) return launch;
  const auto& l = j["launch"];
  if (!l.is_object()) fail(s, "launch", "must be an object, not " + l.dump());
  static const std::set<std::string> keys = {"threads_per_block", "dynamic_shared_bytes", "dynamic_shared_opt_in",
                                             "block", "grid"};
  for (const auto& [k, v] : l.items())
    if (!keys.count(k))
      fail(s, "launch." + k, "unknown key (check its spelling; known: block, dynamic_shared_bytes, "
                             "dynamic_shared_opt_in, grid, threads_per_block)");
  if (!backend_kind(s.backend).launches_kernels)
    fail(s, "launch", "only the cuda backend launches kernels; remove \"launch\" for backend " + s.backend);
  if (l.contains("threads_per_block"))
    launch.threads_per_block = whole_expression(s, "launch.threads_per_block", l["threads_per_block"], 1, "threads");
  if (l.contains("dynamic_shared_bytes"))
    launch.dynamic_shared_bytes = whole_expression(s, "launch.dynamic_shared_bytes", l["dynamic_shared_bytes"], 0, "bytes");
  if (l.contains("dynamic_shared_opt_in")) {
    if (!l["dynamic_shared_opt_in"].is_boolean())
      fail(s, "launch.dynamic_shared_opt_in", "must be true or false, not " + l["dynamic_shared_opt_in"].dump());
    launch.dynamic_shared_opt_in = l["dynamic_shared_opt_in"].get<bool>();
  }
  launch.block = dimensions(s, l, "block");
  launch.grid = dimensions(s, l, "grid");
  if (!launch.block.empty() && !launch.threads_per_block) {
    std::string product;
    for (const auto& e : launch.block) product += (product.empty() ? "(" : " * (") + e.text() + ")";
    launch.threads_per_block = Expr::parse(product, launch_variable_names(s.space, s.sizes.names));
  }
  return launch;
}

std::string json_text(const nlohmann::json& j, const char* key, const Spec& s, const std::string& where) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string() || j[key].get<std::string>().empty())
    fail(s, where, std::string("\"") + key + "\" must be a non-empty string, not " + j[key].dump());
  return j[key].get<std::string>();
}

std::string trimmed(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// The string form of an argument (ARGS of the CMake call) as its object form:
//   "<kind> <type> <name>[<length>] [= <init>]"   e.g. "inout float sums[M] = zero"
//   "scalar <type> <name> = <value>"              e.g. "scalar int n = N"
// The type may be several words ("unsigned char"). Nothing when `text` is not of that form.
std::optional<nlohmann::json> argument_object(const std::string& text) {
  const std::string t = trimmed(text);
  const std::size_t space = t.find_first_of(" \t");
  if (space == std::string::npos) return std::nullopt;
  nlohmann::json a = {{"kind", t.substr(0, space)}};
  std::string declarator = trimmed(t.substr(space)), tail;
  if (a["kind"] == "scalar") {
    const std::size_t eq = declarator.find('=');
    if (eq == std::string::npos) return std::nullopt;
    a["value"] = trimmed(declarator.substr(eq + 1));
    declarator = trimmed(declarator.substr(0, eq));
  } else {
    const std::size_t open = declarator.find('['), close = declarator.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
    a["length"] = trimmed(declarator.substr(open + 1, close - open - 1));
    tail = trimmed(declarator.substr(close + 1));
    declarator = trimmed(declarator.substr(0, open));
    if (!tail.empty()) {
      if (tail[0] != '=') return std::nullopt;
      a["init"] = trimmed(tail.substr(1));
    }
  }
  const std::size_t last = declarator.find_last_of(" \t");
  if (last == std::string::npos) return std::nullopt;
  a["name"] = declarator.substr(last + 1);
  std::string type;
  std::istringstream words(declarator.substr(0, last));
  for (std::string w; words >> w;) type += (type.empty() ? "" : " ") + w;
  a["type"] = type;
  return a;
}

ArgumentSpec parse_argument(const Spec& s, const nlohmann::json& given, std::size_t index, std::set<std::string>& names) {
  std::string where = "arguments[" + std::to_string(index) + "]";
  nlohmann::json a = given;
  if (given.is_string()) {
    const auto object = argument_object(given.get<std::string>());
    if (!object)
      fail(s, where, "\"" + given.get<std::string>() + "\" is not \"<input|output|inout|global> <type> "
                     "<name>[<length>] [= <init>]\" nor \"scalar <type> <name> = <value>\" (e.g. \"output float "
                     "c[N]\", \"scalar int n = N\")");
    a = *object;
    where += " \"" + given.get<std::string>() + "\"";
  }
  if (!a.is_object()) fail(s, where, "must be an object {\"name\", \"kind\", \"type\", ...}, not " + a.dump());
  static const std::set<std::string> keys = {"name", "kind", "type", "length", "value", "init"};
  for (const auto& [k, v] : a.items())
    if (!keys.count(k)) fail(s, where + "." + k, "unknown key (known: init, kind, length, name, type, value)");
  ArgumentSpec arg;
  arg.name = json_text(a, "name", s, where);
  arg.kind = json_text(a, "kind", s, where);
  arg.type = json_text(a, "type", s, where);
  if (arg.name.empty() || arg.kind.empty() || arg.type.empty())
    fail(s, where, "needs \"name\", \"kind\" and \"type\"");
  where += " (" + arg.name + ")";
  if (!(arg.kind == "global" ? is_qualified_identifier(arg.name) : is_identifier(arg.name)))
    fail(s, where, "the name '" + arg.name + "' is not a C++ identifier" +
                       (arg.kind == "global" ? " (a global may be qualified: ns::name)" : ""));
  if (!names.insert(arg.name).second) fail(s, where, "the name '" + arg.name + "' is given twice");
  static const std::set<std::string> kinds = {"input", "output", "inout", "scalar", "global"};
  if (!kinds.count(arg.kind))
    fail(s, where, "kind '" + arg.kind + "' is not one of input, output, inout, scalar, global");
  std::string types;
  bool known = false;
  for (const auto& t : argument_types()) {
    types += (types.empty() ? "" : ", ") + t;
    known = known || t == arg.type;
  }
  if (!known) fail(s, where, "type '" + arg.type + "' is not one of " + types);
  if (arg.kind == "scalar") {
    if (!a.contains("value")) fail(s, where, "a scalar needs \"value\" (an expression over the sizes and parameters)");
    if (a.contains("length") || a.contains("init")) fail(s, where, "a scalar has a \"value\", no \"length\" or \"init\"");
    arg.value = parse_expression(s, where + ".value", a["value"], "the scalar's value");
    return arg;
  }
  if (!a.contains("length")) fail(s, where, "needs \"length\": its elements, an expression over the sizes and parameters");
  if (a.contains("value")) fail(s, where, "only a scalar has a \"value\"; a buffer or global has \"length\" and \"init\"");
  arg.length = whole_expression(s, where + ".length", a["length"], 0, "elements");
  if (a.contains("init")) {
    arg.init = json_text(a, "init", s, where);
    static const std::set<std::string> inits = {"random", "zero", "one", "sequence"};
    if (!inits.count(arg.init)) fail(s, where + ".init", "'" + arg.init + "' is not one of random, zero, one, sequence");
    if (arg.kind == "output")
      fail(s, where + ".init", "an output is poisoned before the checked run, never initialised; use inout for a "
                               "buffer the kernel reads and writes");
  }
  return arg;
}

std::vector<ArgumentSpec> parse_arguments(const nlohmann::json& j, const Spec& s) {
  std::vector<ArgumentSpec> out;
  if (!j.contains("arguments")) return out;
  const auto& list = j["arguments"];
  if (!list.is_array() || list.empty())
    fail(s, "arguments", "must be a non-empty list of {\"name\", \"kind\", \"type\", \"length\"|\"value\"}");
  if (!backend_kind(s.backend).launches_kernels)
    fail(s, "arguments", "a generated benchmark launches a CUDA kernel; write a benchmark for backend " + s.backend);
  std::set<std::string> names;
  bool compared = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.push_back(parse_argument(s, list[i], i, names));
    compared = compared || out.back().kind == "output" || out.back().kind == "inout";
  }
  if (!compared)
    fail(s, "arguments", "no output or inout argument: nothing the kernel writes could be verified or timed honestly");
  return out;
}

ReferenceSpec parse_reference(const nlohmann::json& j, const Spec& s) {
  ReferenceSpec r;
  if (!j.contains("reference")) return r;
  const auto& v = j["reference"];
  r.given = true;
  if (v.is_string() && v.get<std::string>() == "defaults") {
    r.config = s.defaults;
    r.source = "the defaults";
    return r;
  }
  if (!v.is_object() || v.size() != 1 || !v.contains("config") || !v["config"].is_object())
    fail(s, "reference", "must be \"defaults\" or {\"config\": {\"PARAM\": value, ...}}, not " + v.dump());
  std::vector<std::pair<std::string, std::string>> assignment;
  for (const auto& [name, value] : v["config"].items())
    assignment.emplace_back(name, value.is_string() ? value.get<std::string>() : Value::from_number(value.get<double>()).text);
  try {
    r.config = s.space.config_from_texts(assignment);
  } catch (const std::exception& e) {
    fail(s, "reference.config", e.what());
  }
  if (const Expr* violated = s.space.first_violated(r.config))
    fail(s, "reference.config", s.space.label(r.config) + " violates the constraint \"" + violated->text() + "\"");
  r.source = "the configuration " + s.space.label(r.config) + " (reference.config)";
  return r;
}

ToleranceSpec parse_tolerance(const nlohmann::json& j, const Spec& s) {
  ToleranceSpec t;
  if (!j.contains("tolerance")) return t;
  const auto& v = j["tolerance"];
  if (!v.is_object() || v.empty()) fail(s, "tolerance", "must be {\"rel\": expression, \"abs\": expression}");
  for (const auto& [k, e] : v.items()) {
    if (k != "rel" && k != "abs") fail(s, "tolerance." + k, "unknown key (known: abs, rel)");
    Expr parsed = parse_expression(s, "tolerance." + k, e, "a tolerance");
    for (const auto* size : sizes_to_check(s)) {
      const double x = parsed.evaluate([&](std::size_t i) { return launch_variable(s.space, s.defaults, size, i); }).number;
      if (!std::isfinite(x) || x < 0)
        fail(s, "tolerance." + k, "\"" + parsed.text() + "\" gives " + Value::from_number(x).text + at_size(s, size) +
                                      "; a tolerance is a number >= 0");
    }
    (k == "rel" ? t.rel : t.abs) = parsed;
  }
  return t;
}

std::string default_macro_prefix(const std::string& name) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "ADAEXPLORE_" + upper + "_";
}

}  // namespace

const std::vector<std::string>& argument_types() {
  static const std::vector<std::string> types = {
      "float",         "double",  "int",       "unsigned", "long long", "unsigned long long", "size_t", "short",
      "unsigned short", "char",   "signed char", "unsigned char", "int8_t", "uint8_t", "int16_t", "uint16_t",
      "int32_t",       "uint32_t", "int64_t",  "uint64_t"};
  return types;
}

std::vector<std::string> launch_variable_names(const Space& space, const std::vector<std::string>& size_names) {
  std::vector<std::string> names = space.names();
  names.insert(names.end(), size_names.begin(), size_names.end());
  return names;
}

ExprValue launch_variable(const Space& space, const Config& config, const std::vector<long long>* size_values,
                          std::size_t i) {
  if (i < space.dimension()) return space.value(config, i).as_expr();
  ExprValue v;
  const std::size_t k = i - space.dimension();
  v.number = size_values && k < size_values->size() ? static_cast<double>((*size_values)[k]) : std::nan("");
  return v;
}

std::optional<long long> whole_value(const Expr& e, const Space& space, const Config& config,
                                     const std::vector<long long>* size_values, double minimum) {
  const ExprValue v = e.evaluate([&](std::size_t i) { return launch_variable(space, config, size_values, i); });
  if (v.is_string || !std::isfinite(v.number) || v.number < minimum || v.number != std::floor(v.number) ||
      v.number > 9007199254740992.0)
    return std::nullopt;
  return static_cast<long long>(v.number);
}

void parse_kernel_parts(const nlohmann::json& j, Spec& s) {
  s.kernel = json_text(j, "kernel", s, "kernel");
  if (!s.kernel.empty() && !is_qualified_identifier(s.kernel))
    fail(s, "kernel", "'" + s.kernel + "' is not a kernel's name (an identifier, possibly qualified: ns::kernel)");
  if (s.macro_kernel && !backend_kind(s.backend).launches_kernels)
    fail(s, "kernel_source", "a macro-configured kernel is a CUDA kernel; use \"template\" for backend " + s.backend);
  s.launch = parse_launch(j, s);
  s.arguments = parse_arguments(j, s);
  if (!s.arguments.empty()) {
    if (s.kernel.empty()) fail(s, "kernel", "a generated benchmark (\"arguments\") needs the kernel's name");
    if (s.launch.block.empty() || s.launch.grid.empty())
      fail(s, "launch", "a generated benchmark (\"arguments\") needs the launch shape: \"block\" and \"grid\"");
    s.benchmark_path = s.work_dir / "generated" / (s.name + "_bench.cu");
  }
  s.reference = parse_reference(j, s);
  if (s.reference.given && !backend_kind(s.backend).launches_kernels)
    fail(s, "reference", "a reference configuration is run on the GPU; compute the reference in the benchmark for "
                         "backend " + s.backend);
  if (s.reference.given)
    for (const auto& a : s.arguments)
      if (a.length && !a.length->parameters().empty() && a.length->parameters().front() < s.space.dimension())
        fail(s, "arguments (" + a.name + ").length",
             "\"" + a.length->text() + "\" reads a parameter; with a reference configuration every configuration "
             "fills the same buffers, so a length may read the sizes only");
  if (!s.arguments.empty() && !s.reference.given)
    fail(s, "reference", "a generated benchmark (\"arguments\") compares the outputs with a reference configuration's: "
                         "give \"reference\": \"defaults\" (or {\"config\": {...}})");
  s.tolerance = parse_tolerance(j, s);
  if (j.contains("macro_prefix") && !j["macro_prefix"].is_string())
    fail(s, "macro_prefix", "must be a string (the header's #define lines start with it), not " + j["macro_prefix"].dump());
  s.macro_prefix = j.value("macro_prefix", default_macro_prefix(s.name));
  if (!s.macro_prefix.empty() && !is_identifier(s.macro_prefix))
    fail(s, "macro_prefix", "'" + s.macro_prefix + "' does not start an identifier (letters, digits, _; not a digit "
                            "first); the header defines <prefix><PARAM> for every parameter");
}

}  // namespace adaexplore
