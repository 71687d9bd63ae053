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

}  // namespace

std::optional<nlohmann::json> read_machine_line(const std::filesystem::path& header) {
  std::ifstream in(header);
  if (!in) throw std::runtime_error(header.string() + ": cannot be read; check that it is a readable file");
  std::string text;
  while (std::getline(in, text)) {
    if (text.rfind(kPrefix, 0) != 0) continue;
    try {
      auto j = nlohmann::json::parse(text.substr(kPrefix.size()));
      if (j.is_object()) return j;
    } catch (const nlohmann::json::exception&) {
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::string missing_machine_line_problem(const std::filesystem::path& header, const std::string& kernel) {
  return "the pinned header " + header.string() + " has no machine line ('// adaexplore: {...}', which every header " +
         "written since 2026-12-06 carries and which is all that is read of a pinned header): regenerate it with " +
         "`adaexplore-tuner header --database <its database> --spec <build>/_adaexplore/kernels/" + kernel +
         "/spec.json --out " + header.string() + "`, pin a new tuning (`cmake --build <build> --target " +
         "adaexplore-pin`), or add the line from its own values with tools/add-machine-line.py " + header.string();
}

PinnedCheck check_pinned(const std::optional<nlohmann::json>& line, const std::filesystem::path& file,
                         const std::string& kernel, const nlohmann::json& spec, const std::vector<std::string>& archs) {
  if (!line) return {missing_machine_line_problem(file, kernel), ""};
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

  const std::vector<std::string> expected = spec_size_labels(spec);
  std::vector<std::string> pinned_sizes;
  for (const auto& s : line->value("sizes", nlohmann::json::array())) pinned_sizes.push_back(s.value("label", std::string()));
  const std::string expected_text = joined(expected, "; "), pinned_text = joined(pinned_sizes, "; ");
  if (!expected.empty() && pinned_sizes.empty())
    return {header + " has no // Sizes: line: it was pinned without SIZES, and this call tunes the sizes " + expected_text +
                ": re-pin it after tuning these sizes",
            ""};
  if (!expected.empty() && pinned_sizes != expected)
    return {header + " was tuned for the sizes " + pinned_text + " (its // Sizes: line), not " + expected_text +
                ": re-pin it after tuning these sizes",
            ""};
  if (expected.empty() && !pinned_sizes.empty()) {
    std::string quoted;
    for (const auto& s : pinned_sizes) quoted += " \"" + s + "\"";
    return {header + " was tuned for the sizes " + pinned_text + " (its // Sizes: line), but this call has no SIZES: add SIZES" +
                quoted + " to the call, or re-pin it after tuning without SIZES",
            ""};
  }

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
  for (const auto& d : line.value("tuned_on", nlohmann::json::array()))
    if (d.is_string() && std::find(devices.begin(), devices.end(), d.get<std::string>()) == devices.end())
      devices.push_back(d.get<std::string>());
  return devices;
}

}  // namespace adaexplore
