#include "configure/pinned_header.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <stdexcept>

namespace adaexplore {
namespace {

const std::string kPrefix = "// adaexplore: ";

// A value as the messages show it: a number as JSON writes it (48, 0.5), text quoted ("col").
std::string shown(const nlohmann::json& v) { return v.dump(); }

// A value as `check --config` and the spec's value lists show it: text without quotes.
std::string plain(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::optional<double> number_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string text = v.get<std::string>();
  try {
    std::size_t used = 0;
    const double d = std::stod(text, &used);
    if (used == text.size()) return d;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

bool is_integer(const nlohmann::json& v) {
  const auto d = number_of(v);
  return d && std::floor(*d) == *d;
}

// Whether `value` is among the values of the spec's parameter `param` ({"name", "values"} or
// {"name", "range"}); `listed`: the values as the messages say them ("16 32", "RANGE 1 8 1").
bool value_in_param(const nlohmann::json& param, const nlohmann::json& value, std::string& listed) {
  if (param.contains("range")) {
    const auto& r = param["range"];
    const long long from = r.at("from").get<long long>(), to = r.at("to").get<long long>();
    const long long step = r.value("step", 1LL);
    listed = "RANGE " + std::to_string(from) + " " + std::to_string(to) + " " + std::to_string(step);
    if (!is_integer(value)) return false;
    const auto v = static_cast<long long>(*number_of(value));
    return v >= from && v <= to && step != 0 && (v - from) % step == 0;
  }
  listed.clear();
  bool found = false;
  for (const auto& v : param.at("values")) {
    listed += (listed.empty() ? "" : " ") + plain(v);
    const auto a = number_of(v), b = number_of(value);
    if ((a && b && *a == *b) || (!a && !b && plain(v) == plain(value))) found = true;
  }
  return found;
}

// "M=512 N=256" per size of the spec's "sizes" (names and values), in their order.
std::vector<std::string> spec_size_labels(const nlohmann::json& spec) {
  std::vector<std::string> labels;
  if (!spec.contains("sizes")) return labels;
  const auto& names = spec["sizes"].at("names");
  for (const auto& row : spec["sizes"].at("values")) {
    std::string label;
    for (std::size_t k = 0; k < names.size() && k < row.size(); ++k)
      label += (k ? " " : "") + names[k].get<std::string>() + "=" + plain(row[k]);
    labels.push_back(label);
  }
  return labels;
}

std::string joined(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

// One entry of values to check: where it is said ("" for the header's top level, " for the size
// M=512", " for compute capability 80") and its config; `is_config` when it is the one `check
// --config` gets.
struct Entry {
  std::string where;
  nlohmann::json config;
  bool is_config = false;
};

std::vector<Entry> entries_of(const nlohmann::json& line, const std::vector<std::string>& archs) {
  std::vector<Entry> entries;
  std::string first_cc;
  std::smatch m;
  if (!archs.empty() && std::regex_search(archs.front(), m, std::regex("^sm_([0-9]+)"))) first_cc = m[1];
  if (line.contains("devices")) {
    for (const auto& d : line["devices"]) {
      const std::string cc = std::to_string(d.at("compute_capability").get<int>());
      entries.push_back({" for compute capability " + cc, d.at("config"), cc == first_cc});
    }
    return entries;
  }
  entries.push_back({"", line.value("config", nlohmann::json::object()), true});
  for (const auto& s : line.value("sizes", nlohmann::json::array()))
    entries.push_back({" for the size " + s.value("label", std::string()), s.value("config", nlohmann::json::object()),
                       false});
  return entries;
}

// Whether the machine line's sizes (its // Sizes: line) are the spec's, in their order: "" or the
// problem, `header` its opening words ("the pinned header <file>").
std::string sizes_problem(const nlohmann::json& line, const nlohmann::json& spec, const std::string& header) {
  const std::vector<std::string> expected = spec_size_labels(spec);
  std::vector<std::string> pinned_sizes;
  for (const auto& s : line.value("sizes", nlohmann::json::array())) pinned_sizes.push_back(s.value("label", std::string()));
  const std::string expected_text = joined(expected, "; "), pinned_text = joined(pinned_sizes, "; ");
  if (!expected.empty() && pinned_sizes.empty())
    return header + " has no // Sizes: line: it was pinned without SIZES, and this call tunes the sizes " +
           expected_text + ": re-pin it after tuning these sizes";
  if (!expected.empty() && pinned_sizes != expected)
    return header + " was tuned for the sizes " + pinned_text + " (its // Sizes: line), not " + expected_text +
           ": re-pin it after tuning these sizes";
  if (expected.empty() && !pinned_sizes.empty()) {
    std::string quoted;
    for (const auto& s : pinned_sizes) quoted += " \"" + s + "\"";
    return header + " was tuned for the sizes " + pinned_text + " (its // Sizes: line), but this call has no SIZES: " +
           "add SIZES" + quoted + " to the call, or re-pin it after tuning without SIZES";
  }
  return "";
}

// What is malformed in the machine line `line` ("" when nothing): each member check_pinned and
// pinned_tuned_on read has the type emit/header.hpp gives it ("config" always there), so that
// reading them cannot throw.
std::string malformed(const nlohmann::json& line) {
  const auto type = [](const nlohmann::json& v) -> std::string {  // as the messages say it
    if (v.is_null()) return "null";
    if (v.is_string()) return "text";
    if (v.is_boolean()) return "true/false";
    if (v.is_array()) return "a list";
    if (v.is_object()) return "an object";
    return "a number";
  };
  const auto is_texts = [](const nlohmann::json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) { return x.is_string(); });
  };
  const auto has_config = [&](const nlohmann::json& item, const std::string& where) -> std::string {
    if (!item.is_object()) return where + " is " + type(item) + ", not an object";
    if (!item.contains("config")) return where + " has no \"config\" (its values, {name: value})";
    if (!item["config"].is_object()) return where + "'s \"config\" is " + type(item["config"]) + ", not an object {name: value}";
    return "";
  };
  if (!line.is_object()) return type(line) + ", not an object {...}";
  for (const char* key : {"namespace", "kernel", "backend", "macro_prefix"})
    if (line.contains(key) && !line[key].is_string()) return std::string("\"") + key + "\" is " + type(line[key]) + ", not text";
  for (const char* key : {"parameters", "tuned_on"})
    if (line.contains(key) && !is_texts(line[key])) return std::string("\"") + key + "\" is not a list of text";
  if (std::string e = has_config(line, "the line"); !e.empty()) return e;
  if (line.contains("sizes")) {
    if (!line["sizes"].is_array()) return "\"sizes\" is " + type(line["sizes"]) + ", not a list";
    for (const auto& s : line["sizes"]) {
      if (std::string e = has_config(s, "an entry of \"sizes\""); !e.empty()) return e;
      if (!s.contains("label") || !s["label"].is_string()) return "an entry of \"sizes\" has no \"label\" text";
    }
  }
  if (line.contains("devices")) {
    if (!line["devices"].is_array()) return "\"devices\" is " + type(line["devices"]) + ", not a list";
    for (const auto& d : line["devices"]) {
      if (std::string e = has_config(d, "an entry of \"devices\""); !e.empty()) return e;
      if (!d.contains("compute_capability") || !d["compute_capability"].is_number_integer())
        return "an entry of \"devices\" has no integer \"compute_capability\" (90 for 9.0)";
    }
  }
  return "";
}

}  // namespace

std::optional<nlohmann::json> read_machine_line(const std::filesystem::path& header) {
  std::ifstream in(header);
  if (!in) throw std::runtime_error(header.string() + ": cannot be read; check that it is a readable file");
  std::string text;
  for (std::size_t number = 1; std::getline(in, text); ++number) {
    if (text.rfind(kPrefix, 0) != 0) continue;
    try {
      return nlohmann::json::parse(text.substr(kPrefix.size()));
    } catch (const nlohmann::json::exception& e) {
      const std::string reason = "not JSON (line " + std::to_string(number) + "): " + e.what();
      throw MachineLineError("the pinned header " + header.string() + "'s machine line is " + reason, reason);
    }
  }
  if (in.bad()) throw std::runtime_error(header.string() + ": cannot be read; check that it is a readable file");
  return std::nullopt;
}

namespace {

// The ways to a machine line that the check can read.
std::string machine_line_fixes(const std::filesystem::path& header, const std::string& kernel) {
  return "regenerate it with `adaexplore-tuner header --database <its database> --spec <build>/_adaexplore/kernels/" +
         kernel + "/spec.json --out " + header.string() + "`, pin a new tuning (`cmake --build <build> --target " +
         "adaexplore-pin`), or add the line from its own values with tools/add-machine-line.py " + header.string();
}

}  // namespace

std::string missing_machine_line_problem(const std::filesystem::path& header, const std::string& kernel) {
  return "the pinned header " + header.string() + " has no machine line ('// adaexplore: {...}', which every header " +
         "written since 2026-12-06 carries and which is all that is read of a pinned header): " +
         machine_line_fixes(header, kernel);
}

std::string malformed_machine_line_problem(const std::filesystem::path& header, const std::string& kernel,
                                           const std::string& what) {
  return "the pinned header " + header.string() + "'s machine line ('// adaexplore: {...}') is " + what +
         ": it is not a line AdaExplore wrote; " + machine_line_fixes(header, kernel);
}

PinnedCheck check_pinned(const std::optional<nlohmann::json>& line, const std::filesystem::path& file,
                         const std::string& kernel, const nlohmann::json& spec, const std::vector<std::string>& archs) {
  if (!line) return {missing_machine_line_problem(file, kernel), ""};
  if (const std::string what = malformed(*line); !what.empty())
    return {malformed_machine_line_problem(file, kernel, "malformed: " + what), ""};
  const std::string header = "the pinned header " + file.string();
  const std::string expected_space = spec.value("namespace", "adaexplore::" + kernel);
  const std::string space = line->value("namespace", std::string());
  const std::string pinned_kernel = line->value("kernel", std::string());
  if (space.empty()) return {header + "'s machine line names no namespace: it is not a header AdaExplore wrote", ""};
  if (space != expected_space) {
    const std::string of = pinned_kernel.empty() ? "" : " (its // Kernel: line: " + pinned_kernel + ")";
    return {header + " is of namespace " + space + of + ", not " + expected_space + ": it is another kernel's header", ""};
  }
  if (!pinned_kernel.empty() && pinned_kernel != kernel)
    return {header + " was written for the kernel " + pinned_kernel + " (its // Kernel: line), not " + kernel, ""};

  std::vector<std::string> names;
  for (const auto& p : spec.at("parameters")) names.push_back(p.at("name").get<std::string>());
  const std::string known = joined(names, ", ");
  std::vector<std::string> pinned_names;
  for (const auto& n : line->value("parameters", nlohmann::json::array())) pinned_names.push_back(n.get<std::string>());
  const nlohmann::json config = line->value("config", nlohmann::json::object());
  if (pinned_names.empty())  // a header made by hand: its config's names
    for (const auto& item : config.items()) pinned_names.push_back(item.key());
  for (const auto& n : names)
    if (std::find(pinned_names.begin(), pinned_names.end(), n) == pinned_names.end())
      return {header + " has no value for the parameter " + n + " (PARAMS: " + known +
                  "): it was pinned from another parameter set",
              ""};
  for (const auto& n : pinned_names)
    if (std::find(names.begin(), names.end(), n) == names.end())
      return {header + " sets " + n + ", which is not a parameter of PARAMS (" + known +
                  "): it was pinned from another parameter set",
              ""};

  if (std::string problem = sizes_problem(*line, spec, header); !problem.empty()) return {problem, ""};

  PinnedCheck result;
  for (const Entry& e : entries_of(*line, archs)) {
    if (!e.config.is_object() || e.config.size() != names.size())
      return {"the entry" + e.where + " of " + header + " has " + std::to_string(e.config.is_object() ? e.config.size() : 0) +
                  " values for its " + std::to_string(names.size()) + " parameters: it is not a header AdaExplore wrote",
              ""};
    std::string assignment;
    for (const auto& p : spec.at("parameters")) {
      const std::string n = p.at("name").get<std::string>();
      if (!e.config.contains(n))
        return {header + " has no value for the parameter " + n + e.where + " (PARAMS: " + known +
                    "): it was pinned from another parameter set",
                ""};
      const nlohmann::json& value = e.config[n];
      std::string listed;
      if (!value_in_param(p, value, listed))
        return {header + " sets " + n + " = " + shown(value) + e.where + ", which is not among the values PARAMS gives " + n +
                    " (" + listed + ")",
                ""};
      assignment += (assignment.empty() ? "" : ",") + n + "=" + plain(value);
    }
    if (e.is_config) result.config = assignment;
  }
  return result;
}

std::vector<std::string> pinned_tuned_on(const nlohmann::json& line) {
  std::vector<std::string> devices;
  if (!line.is_object() || !line.contains("tuned_on") || !line["tuned_on"].is_array()) return devices;
  for (const auto& d : line["tuned_on"])
    if (d.is_string() && std::find(devices.begin(), devices.end(), d.get<std::string>()) == devices.end())
      devices.push_back(d.get<std::string>());
  return devices;
}

}  // namespace adaexplore
