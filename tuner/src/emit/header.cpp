#include "emit/header.hpp"

#include "model/identifier.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <set>

namespace adaexplore {
namespace {

std::string format_ms(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g ms", ms);
  return buf;
}

// One comment line: line breaks in free text (a CUDA error, a CMake message, a text value in a
// label) become spaces, other control characters \xNN, a backslash ending it \x5c (util/text.hpp).
std::string one_line(const std::string& text) { return one_line_text(text); }

std::string describe_words(const Space& space, const std::optional<Outcome>& o);

std::string describe(const Space& space, const std::optional<Outcome>& o) { return one_line(describe_words(space, o)); }

std::string describe_words(const Space& space, const std::optional<Outcome>& o) {
  if (!o) return "not measured";
  std::string s = space.label(o->config) + "  ";
  if (o->objective) {
    s += format_ms(*o->objective);
    if (o->timing) s += " (median of " + std::to_string(o->timing->samples) + ")";
  } else {
    s += to_string(o->status);
  }
  return s;
}

std::string string_literal(const std::string& text) { return cpp_string_literal(text); }

std::string cpp_value(const Value& v) {
  if (!v.numeric) return "const char* %s = " + string_literal(v.text);
  if (std::floor(v.number) == v.number && std::fabs(v.number) < 2147483648.0) return "int %s = " + v.text;
  // "LL" only after the digits of an integer literal, never after 1e+20.
  const bool integer_text = v.text.find_first_not_of("-0123456789") == std::string::npos;
  if (std::floor(v.number) == v.number && integer_text && std::fabs(v.number) < 9.2e18)
    return "long long %s = " + v.text + "LL";
  return "double %s = " + v.text;
}

std::string device_words(const nlohmann::json& d);

std::string device_line(const nlohmann::json& d) {
  if (d.empty()) return "none";
  return one_line(device_words(d));
}

std::string device_words(const nlohmann::json& d) {
  std::string s = d.value("name", std::string("unknown device"));
  if (d.contains("compute_capability")) s += ", compute capability " + d["compute_capability"].get<std::string>();
  if (d.contains("sm_count")) s += ", " + std::to_string(d["sm_count"].get<int>()) + " SMs";
  if (d.contains("driver_version")) s += ", driver " + d["driver_version"].get<std::string>();
  if (d.contains("runtime_version")) s += ", CUDA runtime " + d["runtime_version"].get<std::string>();
  return s;
}

// The ptxas figures of one of the winner's kernels: "gemm_kernel: 128 registers, 16384 B shared,
// 0 B stack, spills 0 B stored, 0 B loaded (sm_90)"; the name without its template arguments and
// parameters (the Winner line has the configuration).
std::string resources_line(const KernelResources& k) {
  std::string name = k.demangled.empty() ? k.kernel : k.demangled;
  name = name.substr(0, name.find_first_of("<("));
  if (name.rfind("void ", 0) == 0) name = name.substr(5);
  std::string s = name + ": " + std::to_string(k.registers) + " registers, " + std::to_string(k.shared_bytes) +
                  " B shared, " + std::to_string(k.stack_bytes) + " B stack, spills " +
                  std::to_string(k.spill_store_bytes) + " B stored, " + std::to_string(k.spill_load_bytes) +
                  " B loaded";
  return one_line(k.arch.empty() ? s : s + " (" + k.arch + ")");
}

// The provenance lines of a tuned configuration: device, tuning, winner, defaults, speedup, evaluations.
void write_provenance(std::ostream& h, const Space& space, const HeaderInfo& info) {
  h << "// Device:      " << device_line(info.device) << "\n";
  h << "// Tuned:       " << one_line(info.date) << ", strategy " << one_line(info.strategy) << ", seed " << info.seed
    << ", budget " << info.budget << " evaluations\n";
  h << "// Winner:      " << describe(space, info.winner) << "\n";
  if (info.winner)
    for (const auto& k : info.winner->resources) h << "// Resources:   " << resources_line(k) << "\n";
  h << "// Defaults:    " << describe(space, info.baseline) << "\n";
  if (info.winner && info.winner->objective && info.baseline && info.baseline->objective) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3fx", *info.baseline->objective / *info.winner->objective);
    h << "// Speedup:     " << buf << " over the defaults\n";
  }
  h << "// Evaluations: " << info.evaluations;
  std::string sep = " (";
  for (Status s : kAllStatuses) {
    auto it = info.counts.find(to_string(s));
    if (it != info.counts.end() && it->second > 0) {
      h << sep << to_string(s) << " " << it->second;
      sep = ", ";
    }
  }
  h << (sep == ", " ? ")" : "") << "\n";
  if (info.skipped && *info.skipped > 0)
    h << "// Skipped:     " << counted(*info.skipped, "valid configuration")
      << " predicted to fail, never evaluated (the space was exhausted before the budget)\n";
}

// A value as the preprocessor reads it: a number as written; text as written when it is an
// identifier or a number, else a string literal.
std::string macro_value(const Value& v) {
  if (v.numeric) return v.text;
  const bool plain = !v.text.empty() && v.text.find_first_not_of(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-") == std::string::npos;
  return plain ? v.text : string_literal(v.text);
}

// The header's #define lines for `config` (HeaderInfo::macro_prefix), each indented by `indent`.
std::string macro_lines(const Space& space, const Config& config, const std::string& prefix, const std::string& indent = "") {
  std::string lines;
  for (std::size_t i = 0; i < space.dimension(); ++i)
    lines += indent + "#define " + prefix + space.parameters()[i].name + " " + macro_value(space.value(config, i)) + "\n";
  return lines;
}

// {"NAME": value} of `config`: numbers as numbers, text as strings.
nlohmann::json config_json(const Space& space, const Config& config) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < space.dimension(); ++i) {
    const Value& v = space.value(config, i);
    if (v.numeric && std::floor(v.number) == v.number && std::fabs(v.number) < 9.2e18)
      j[space.parameters()[i].name] = static_cast<long long>(v.number);
    else if (v.numeric)
      j[space.parameters()[i].name] = v.number;
    else
      j[space.parameters()[i].name] = v.text;
  }
  return j;
}

// The device a winner was tuned on, as the machine line's "tuned_on" says it: name and compute
// capability ("NVIDIA H100 80GB HBM3, compute capability 9.0"; the SMs, driver and runtime left
// out), else the whole "// Device:" text (a CPU); "" for none.
std::string tuned_on_words(const nlohmann::json& d) {
  if (d.empty()) return "";
  if (!d.contains("compute_capability")) return device_line(d);
  return one_line(d.value("name", std::string("unknown device")) + ", compute capability " +
                  d["compute_capability"].get<std::string>());
}

// Adds `info`'s tuned_on words to `devices` once each (declared order).
void add_tuned_on(std::vector<std::string>& devices, const HeaderInfo& info) {
  const std::string words = tuned_on_words(info.device);
  if (!words.empty() && std::find(devices.begin(), devices.end(), words) == devices.end()) devices.push_back(words);
}

// The machine-readable line every header carries (header.hpp, "The machine line").
std::string machine_line(const Space& space, const HeaderInfo& info, nlohmann::json j,
                         const std::vector<std::string>& tuned_on) {
  j["kernel"] = info.kernel;
  j["namespace"] = info.name_space;
  j["backend"] = info.backend;
  j["tuned"] = info.source == "tuned";
  nlohmann::json names = nlohmann::json::array();
  for (const auto& p : space.parameters()) names.push_back(p.name);
  j["parameters"] = names;
  if (!tuned_on.empty()) j["tuned_on"] = tuned_on;
  if (info.macro_prefix) j["macro_prefix"] = *info.macro_prefix;
  return "// adaexplore: " + j.dump() + "\n";
}

// The block of #define lines closing a header (HeaderInfo::macro_prefix), or nothing.
std::string macro_block(const Space& space, const Config& config, const HeaderInfo& info, const std::string& what) {
  if (!info.macro_prefix) return "";
  return "\n// The values for the preprocessor (" + what + "):\n" + macro_lines(space, config, *info.macro_prefix);
}

}  // namespace

std::string render_header(const Space& space, const Config& config, const HeaderInfo& info) {
  std::ostringstream h;
  h << "// Generated by AdaExplore (adaexplore-tuner) -- do not edit; retune or pin instead.\n";
  h << "// Kernel:      " << one_line(info.kernel) << " (backend " << one_line(info.backend) << ")\n";
  if (info.source == "tuned") {
    write_provenance(h, space, info);
  } else {
    h << "// NOT TUNED:   these are the defaults. " << one_line(info.reason) << "\n";
  }
  std::vector<std::string> tuned_on;
  if (info.source == "tuned") add_tuned_on(tuned_on, info);
  h << machine_line(space, info, {{"config", config_json(space, config)}}, tuned_on);
  h << "#pragma once\n\n";
  h << "namespace " << info.name_space << " {\n";
  h << "inline constexpr bool kTuned = " << (info.source == "tuned" ? "true" : "false") << ";\n";
  for (std::size_t i = 0; i < space.dimension(); ++i) {
    std::string decl = cpp_value(space.value(config, i));
    decl.replace(decl.find("%s"), 2, space.parameters()[i].name);
    h << "inline constexpr " << decl << ";\n";
  }
  h << "}  // namespace " << info.name_space << "\n";
  h << macro_block(space, config, info, info.source == "tuned" ? "the winner" : "the defaults");
  return h.str();
}

namespace {

// One C++ type for every value a parameter can take: text, double, long long or int.
std::string member_type(const Parameter& p) {
  bool text = false, number = false, floating = false, wide = false;
  for (const Value& v : p.values) {
    if (!v.numeric) {
      text = true;
      continue;
    }
    number = true;
    const std::string decl = cpp_value(v);
    if (decl.rfind("double", 0) == 0) floating = true;
    if (decl.rfind("long long", 0) == 0) wide = true;
  }
  if (text && number)
    throw std::invalid_argument("parameter " + p.name + " mixes numbers and text; a multi-device header needs one C++ "
                                "type per parameter (make every value text, or every value a number)");
  if (text) return "const char*";
  return floating ? "double" : wide ? "long long" : "int";
}

// The value as a literal of the member's type, inside braces (no narrowing): an int or long long
// member (member_type: every value of the parameter is integral) gets the canonical integer text,
// so a value written "64.0" or "6.4e1" becomes 64.
std::string member_literal(const Value& v, const std::string& type) {
  if (!v.numeric) return string_literal(v.text);
  if (type == "int") return std::to_string(static_cast<long long>(v.number));
  if (type == "long long") return std::to_string(static_cast<long long>(v.number)) + "LL";
  return v.text;
}

std::string params_initializer(const Space& space, const Config& config, bool tuned,
                               const std::vector<std::string>& types) {
  std::string s = std::string("Params{") + (tuned ? "true" : "false");
  for (std::size_t i = 0; i < space.dimension(); ++i) s += ", " + member_literal(space.value(config, i), types[i]);
  return s + "}";
}

std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

// The multi-GPU header's params_for(cc): each entry's values, else the defaults.
void write_params_for(std::ostream& h, const Space& space, const std::vector<DeviceHeaderEntry>& entries,
                      const Config& defaults, const std::vector<std::string>& types) {
  h << "/// The entry of compute capability `cc` (10 * major + minor: 80, 90), else the fallback.\n";
  h << "ADAEXPLORE_HOST_DEVICE constexpr Params params_for(int cc) {\n";
  for (const auto& e : entries) {
    h << "  if (cc == " << e.compute_capability << ") return " << params_initializer(space, e.config, true, types)
      << ";  // " << one_line(e.info.device.value("name", std::string("unknown device")));
    if (e.info.winner && e.info.winner->objective) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g ms", *e.info.winner->objective);
      h << ", " << buf;
    }
    h << "\n";
  }
  h << "  return " << params_initializer(space, defaults, false, types) << ";  // the defaults\n}\n\n";
}

// The multi-GPU header's current_params(): the entry of the current CUDA device (nvcc only).
void write_current_params(std::ostream& h) {
  h << "\n#if defined(__CUDACC__)\n";
  h << "/// Host code: the entry of the current CUDA device's compute capability (cudaGetDevice,\n"
    << "/// cudaDeviceGetAttribute), else the fallback; also when no device answers.\n";
  h << "inline Params current_params() {\n"
    << "  int device = 0, major = 0, minor = 0;\n"
    << "  if (cudaGetDevice(&device) != cudaSuccess ||\n"
    << "      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||\n"
    << "      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {\n"
    << "    (void)cudaGetLastError();  // not sticky: cleared for the caller\n"
    << "    return params_for(0);\n"
    << "  }\n"
    << "  return params_for(10 * major + minor);\n"
    << "}\n#endif\n";
}

// The multi-GPU header's preprocessor values: the entry of the architecture being compiled, else
// the defaults.
void write_arch_macros(std::ostream& h, const Space& space, const std::vector<DeviceHeaderEntry>& entries,
                       const Config& defaults, const std::string& macro_prefix) {
  h << "\n// The values for the preprocessor: the entry of the architecture being compiled (__CUDA_ARCH__),\n"
    << "// else (host code, other architectures) the fallback.\n";
  for (std::size_t i = 0; i < entries.size(); ++i)
    h << (i ? "#elif" : "#if") << " defined(__CUDA_ARCH__) && __CUDA_ARCH__ / 10 == " << entries[i].compute_capability
      << "\n" << macro_lines(space, entries[i].config, macro_prefix, "  ");
  h << (entries.empty() ? "#if 1\n" : "#else\n") << macro_lines(space, defaults, macro_prefix, "  ") << "#endif\n";
}

}  // namespace

std::string render_multi_device_header(const Space& space, const std::vector<DeviceHeaderEntry>& entries,
                                       const Config& defaults, const HeaderInfo& common) {
  std::vector<std::string> types;
  std::string names;
  for (const auto& p : space.parameters()) {
    // The spec refuses these names (identifier.hpp); a Space built otherwise is refused here.
    if (const std::string problem = reserved_name_problem(p.name, NameUse::parameter); !problem.empty())
      throw std::invalid_argument("parameter " + problem);
    types.push_back(member_type(p));
    names += (names.empty() ? "" : ", ") + p.name;
  }
  std::ostringstream h;
  h << "// Generated by AdaExplore (adaexplore-tuner) -- do not edit; retune or pin instead.\n";
  h << "// Kernel:      " << one_line(common.kernel) << " (backend " << one_line(common.backend) << "), tuned for "
    << counted(entries.size(), "compute capability", "compute capabilities") << ":";
  for (std::size_t i = 0; i < entries.size(); ++i) h << (i ? ", " : " ") << cc_text(entries[i].compute_capability);
  h << "\n";
  for (const auto& e : entries) {
    h << "//\n// sm_" << e.compute_capability << " (compute capability " << cc_text(e.compute_capability) << "):\n";
    write_provenance(h, space, e.info);
    if (!e.why.empty()) h << "// Chosen:      " << one_line(e.why) << "\n";
  }
  h << "//\n// Fallback:    the defaults " << one_line(space.label(defaults)) << " (kTuned = false) for any other compute\n"
    << "//              capability, and for the constants in host code.\n";
  h << "// Device code: the constants (" << names << ") are the entry of the architecture being\n"
    << "//   compiled (__CUDA_ARCH__), chosen at compile time.\n"
    << "// Host code: no architecture is known at compile time; the constants are the fallback. Choose at\n"
    << "//   run time with current_params() (the current CUDA device; nvcc only) or params_for(10 * major +\n"
    << "//   minor). Never make the constants template arguments of a kernel launched from host code (CUDA\n"
    << "//   needs the same arguments in the host and device passes); dispatch on params_for() or kSm<NN>.\n";
  {
    nlohmann::json devices = nlohmann::json::array();
    std::vector<std::string> tuned_on;
    for (const auto& e : entries) {
      devices.push_back({{"compute_capability", e.compute_capability}, {"config", config_json(space, e.config)}});
      add_tuned_on(tuned_on, e.info);
    }
    HeaderInfo fallback = common;
    fallback.source = "defaults";
    h << machine_line(space, fallback, {{"config", config_json(space, defaults)}, {"devices", devices}}, tuned_on);
  }
  h << "#pragma once\n\n";
  h << "#ifndef ADAEXPLORE_HOST_DEVICE\n#if defined(__CUDACC__)\n#define ADAEXPLORE_HOST_DEVICE __host__ __device__\n"
    << "#else\n#define ADAEXPLORE_HOST_DEVICE\n#endif\n#endif\n";
  h << "#if defined(__CUDACC__)\n#include <cuda_runtime_api.h>\n#endif\n\n";
  h << "namespace " << common.name_space << " {\n";
  h << "/// The values of one entry; tuned is false for the fallback (the defaults).\n";
  h << "struct Params {\n  bool tuned;\n";
  for (std::size_t i = 0; i < space.dimension(); ++i) h << "  " << types[i] << " " << space.parameters()[i].name << ";\n";
  h << "};\n\n";
  write_params_for(h, space, entries, defaults, types);
  for (const auto& e : entries)
    h << "inline constexpr Params kSm" << e.compute_capability << " = params_for(" << e.compute_capability << ");\n";
  h << "inline constexpr Params kDefaults = params_for(0);\n";
  h << "inline constexpr int kComputeCapabilities[] = {";
  for (std::size_t i = 0; i < entries.size(); ++i) h << (i ? ", " : "") << entries[i].compute_capability;
  h << "};\n\n";
  h << "#if defined(__CUDA_ARCH__)\ninline constexpr int kCompiledComputeCapability = __CUDA_ARCH__ / 10;  // device code\n"
    << "#else\ninline constexpr int kCompiledComputeCapability = 0;  // host code: the fallback\n#endif\n";
  h << "inline constexpr bool kTuned = params_for(kCompiledComputeCapability).tuned;\n";
  for (std::size_t i = 0; i < space.dimension(); ++i) {
    const std::string& name = space.parameters()[i].name;
    h << "inline constexpr " << types[i] << " " << name << " = params_for(kCompiledComputeCapability)." << name << ";\n";
  }
  write_current_params(h);
  h << "}  // namespace " << common.name_space << "\n";
  if (common.macro_prefix) write_arch_macros(h, space, entries, defaults, *common.macro_prefix);
  return h.str();
}

namespace {

// "64, 128, 16" for SizeParams{...}: the members' literals in the parameters' order.
std::string size_params_literal(const Space& space, const Config& config, const std::vector<std::string>& types) {
  std::string s;
  for (std::size_t i = 0; i < space.dimension(); ++i) s += (i ? ", " : "") + member_literal(space.value(config, i), types[i]);
  return s;
}

std::string joined(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

// The sized header's kSizes: one entry per size with its values and, tuned, its time.
void write_size_entries(std::ostream& h, const Space& space, const std::vector<SizeHeaderEntry>& entries,
                        const std::vector<std::string>& types, bool tuned) {
  h << "/// One entry per tuned size, in the declared order.\n";
  h << "inline constexpr SizeEntry kSizes[] = {\n";
  for (const auto& e : entries) {
    std::string values;
    for (std::size_t k = 0; k < e.values.size(); ++k) values += (k ? ", " : "") + std::to_string(e.values[k]);
    h << "    {{" << values << "}, {" << size_params_literal(space, e.config, types) << "}},  // " << one_line(e.size);
    if (tuned && e.info.winner && e.info.winner->objective) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ": %.6g ms", *e.info.winner->objective);
      h << buf;
      if (e.info.baseline && e.info.baseline->objective) {
        std::snprintf(buf, sizeof buf, ", %.3fx over the defaults", *e.info.baseline->objective / *e.info.winner->objective);
        h << buf;
      }
    } else if (!tuned) {
      h << ": the defaults";
    }
    h << "\n";
  }
  h << "};\ninline constexpr std::size_t kSizeCount = " << entries.size() << ";\n\n";
}

// The sized header's select_index() and select(): the tuned size nearest in log space.
void write_select(std::ostream& h, const std::vector<std::string>& size_names) {
  const std::string names = joined(size_names, ", ");
  h << "namespace sizes_detail {\n"
    << "constexpr double ratio(long long x, long long tuned) {\n"
    << "  const double a = x < 1 ? 1.0 : static_cast<double>(x), b = static_cast<double>(tuned);\n"
    << "  return a > b ? a / b : b / a;\n}\n}  // namespace sizes_detail\n\n";
  std::string args, ratio, volume, call;
  for (std::size_t k = 0; k < size_names.size(); ++k) {
    const std::string& n = size_names[k];
    args += (k ? ", " : "") + std::string("long long ") + n;
    call += (k ? ", " : "") + n;
    ratio += (k ? " *\n                    " : "") + std::string("sizes_detail::ratio(") + n + ", kSizes[i_].size." + n + ")";
    volume += (k ? " * " : "") + std::string("static_cast<double>(kSizes[i_].size.") + n + ")";
  }
  h << "/// The index in kSizes of the tuned size nearest to (" << names << ") (see Selection above).\n";
  h << "constexpr std::size_t select_index(" << args << ") {\n"
    << "  std::size_t best_ = 0;\n  double best_ratio_ = 0, best_volume_ = 0;\n"
    << "  for (std::size_t i_ = 0; i_ < kSizeCount; ++i_) {\n"
    << "    const double r_ = " << ratio << ";\n"
    << "    const double v_ = " << volume << ";\n"
    << "    if (i_ == 0 || r_ < best_ratio_ * (1 - 1e-12) || (r_ <= best_ratio_ * (1 + 1e-12) && v_ > best_volume_)) {\n"
    << "      best_ = i_;\n      best_ratio_ = r_;\n      best_volume_ = v_;\n    }\n  }\n  return best_;\n}\n\n";
  h << "/// The winning values for a problem of size (" << names << ").\n";
  h << "constexpr const SizeParams& select(" << args << ") { return kSizes[select_index(" << call << ")].params; }\n";
}

}  // namespace

std::string render_sized_header(const Space& space, const std::vector<std::string>& size_names,
                                const std::vector<SizeHeaderEntry>& entries, const HeaderInfo& common) {
  if (entries.empty()) throw std::invalid_argument("a header of problem sizes needs at least one size");
  std::vector<std::string> types;
  for (const auto& p : space.parameters()) {
    if (const std::string problem = reserved_name_problem(p.name, NameUse::parameter); !problem.empty())
      throw std::invalid_argument("parameter " + problem);
    types.push_back(member_type(p));
  }
  for (const auto& n : size_names)
    if (const std::string problem = reserved_name_problem(n, NameUse::size); !problem.empty())
      throw std::invalid_argument("size " + problem);
  const bool tuned = common.source == "tuned";
  const std::string names = joined(size_names, ", ");
  std::vector<std::string> labels;
  for (const auto& e : entries) labels.push_back(e.size);
  std::ostringstream h;
  h << "// Generated by AdaExplore (adaexplore-tuner) -- do not edit; retune or pin instead.\n";
  h << "// Kernel:      " << one_line(common.kernel) << " (backend " << one_line(common.backend) << "), "
    << counted(entries.size(), "problem size") << " (" << names << ")\n";
  h << "// Sizes:       " << one_line(joined(labels, "; ")) << "\n";
  if (!tuned) {
    h << "// NOT TUNED:   every size has the defaults. " << one_line(common.reason) << "\n";
  } else {
    for (const auto& e : entries) {
      h << "//\n// Size " << one_line(e.size) << ":\n";
      write_provenance(h, space, e.info);
      h << "// Verified at: " << (e.verified.empty() ? "none" : one_line(joined(e.verified, "; "))) << "\n";
      if (!e.not_verified.empty()) h << "// Not verified: " << one_line(joined(e.not_verified, "; ")) << "\n";
    }
  }
  h << "//\n// Selection:   select(" << names << ") returns the entry of the tuned size nearest in log space: the\n"
    << "//              smallest product over " << names << " of max(x / tuned, tuned / x), ties to the larger\n"
    << "//              size; a value below 1 counts as 1, so outside the tuned range the nearest end's entry.\n"
    << "//              The constants (kTuned, one per parameter) are the entry of the first size, "
    << one_line(entries.front().size) << ".\n";
  {
    nlohmann::json sizes = nlohmann::json::array();
    std::vector<std::string> tuned_on;
    for (const auto& e : entries) {
      nlohmann::json size = nlohmann::json::object();
      for (std::size_t k = 0; k < size_names.size() && k < e.values.size(); ++k) size[size_names[k]] = e.values[k];
      sizes.push_back({{"size", size}, {"label", e.size}, {"config", config_json(space, e.config)}});
      if (tuned) add_tuned_on(tuned_on, e.info);
    }
    h << machine_line(space, common, {{"config", config_json(space, entries.front().config)}, {"sizes", sizes}},
                      tuned_on);
  }
  h << "#pragma once\n\n#include <cstddef>\n\n";
  h << "namespace " << common.name_space << " {\n";
  h << "inline constexpr bool kTuned = " << (tuned ? "true" : "false") << ";\n";
  for (std::size_t i = 0; i < space.dimension(); ++i) {
    std::string decl = cpp_value(space.value(entries.front().config, i));
    decl.replace(decl.find("%s"), 2, space.parameters()[i].name);
    h << "inline constexpr " << decl << ";\n";
  }
  h << "\n/// A tuned problem size.\nstruct Size {\n";
  for (const auto& n : size_names) h << "  long long " << n << ";\n";
  h << "};\n\n/// The winning values at one size.\nstruct SizeParams {\n";
  for (std::size_t i = 0; i < space.dimension(); ++i) h << "  " << types[i] << " " << space.parameters()[i].name << ";\n";
  h << "};\n\nstruct SizeEntry {\n  Size size;\n  SizeParams params;\n};\n\n";
  write_size_entries(h, space, entries, types, tuned);
  write_select(h, size_names);
  h << "}  // namespace " << common.name_space << "\n";
  h << macro_block(space, entries.front().config, common, "the entry of the first size, " + entries.front().size);
  return h.str();
}

}  // namespace adaexplore
