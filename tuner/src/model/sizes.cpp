#include "model/sizes.hpp"

#include "model/identifier.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <regex>
#include <set>
#include <unordered_set>

namespace adaexplore {

std::string SizesSpec::label(const ProblemSize& s) const {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? " " : "") + names[i] + "=" + std::to_string(s.values[i]);
  return out;
}

std::string SizesSpec::slug(const ProblemSize& s) const {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? "_" : "") + names[i] + std::to_string(s.values[i]);
  return out;
}

nlohmann::json SizesSpec::to_json(const ProblemSize& s) const {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < names.size(); ++i) j[names[i]] = s.values[i];
  return j;
}

std::vector<std::string> SizesSpec::arguments(const ProblemSize& s) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out.push_back("--adaexplore-size");
    out.push_back(names[i] + "=" + std::to_string(s.values[i]));
  }
  return out;
}

std::size_t SizesSpec::later_budget(std::size_t full) const {
  if (budget) return std::max<std::size_t>(1, *budget);
  return std::max<std::size_t>(1, (full + 2) / 3);
}

SizesSpec parse_sizes(const nlohmann::json& j, const std::vector<std::string>& reserved,
                      const std::function<void(const std::string&, const std::string&)>& fail) {
  SizesSpec s;
  if (!j.is_object())
    fail("sizes", "must be an object {\"names\": [\"M\", ...], \"values\": [[512, ...], ...]}, not " + j.dump());
  for (const auto& [key, value] : j.items())
    if (key != "names" && key != "values" && key != "budget" && key != "warm_start")
      fail("sizes." + key, "unknown key (check its spelling; known: budget, names, values, warm_start)");
  if (!j.contains("names") || !j["names"].is_array() || j["names"].empty())
    fail("sizes.names", "required, a non-empty array of the size's names (e.g. [\"M\", \"N\", \"K\"])");
  for (const auto& n : j["names"]) {
    if (!n.is_string() || !is_identifier(n.get<std::string>()))
      fail("sizes.names", n.dump() + " is not an identifier (letters, digits, _; not starting with a digit)");
    const std::string name = n.get<std::string>();
    if (std::find(s.names.begin(), s.names.end(), name) != s.names.end())
      fail("sizes.names", "'" + name + "' is given twice; name each dimension of the size once");
    if (std::find(reserved.begin(), reserved.end(), name) != reserved.end())
      fail("sizes.names", "'" + name + "' is also a parameter's name; the header declares both, rename the size");
    if (const std::string problem = reserved_name_problem(name, NameUse::size); !problem.empty())
      fail("sizes.names", problem);
    s.names.push_back(name);
  }
  if (!j.contains("values") || !j["values"].is_array() || j["values"].empty())
    fail("sizes.values", "required, a non-empty array of sizes, each an array of one positive integer per name");
  for (std::size_t i = 0; i < j["values"].size(); ++i) {
    const auto& row = j["values"][i];
    const std::string where = "sizes.values[" + std::to_string(i) + "]";
    if (!row.is_array() || row.size() != s.names.size())
      fail(where, row.dump() + " must be an array of " + std::to_string(s.names.size()) + " integers, one per name (" +
                      nlohmann::json(s.names).dump() + ")");
    ProblemSize size;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (!row[k].is_number_integer() || row[k].get<long long>() < 1)
        fail(where, s.names[k] + " = " + row[k].dump() + " must be a positive integer");
      size.values.push_back(row[k].get<long long>());
    }
    if (std::find(s.sizes.begin(), s.sizes.end(), size) != s.sizes.end())
      fail(where, s.label(size) + " is listed twice; give each size once");
    s.sizes.push_back(size);
  }
  if (j.contains("budget")) {
    if (!j["budget"].is_number_integer() || j["budget"].get<long long>() < 1)
      fail("sizes.budget", "must be a positive integer (evaluations of a size tuned after another), not " +
                               j["budget"].dump());
    s.budget = j["budget"].get<std::size_t>();
  }
  if (j.contains("warm_start")) {
    if (!j["warm_start"].is_number_integer() || j["warm_start"].get<long long>() < 0)
      fail("sizes.warm_start", "must be a non-negative integer (configurations taken from the other sizes), not " +
                                   j["warm_start"].dump());
    s.warm_start = j["warm_start"].get<std::size_t>();
  }
  return s;
}

double volume(const ProblemSize& s) {
  double v = 1;
  for (long long x : s.values) v *= static_cast<double>(x);
  return v;
}

double log_distance(const ProblemSize& a, const ProblemSize& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.values.size() && i < b.values.size(); ++i)
    d += std::fabs(std::log(static_cast<double>(a.values[i])) - std::log(static_cast<double>(b.values[i])));
  return d;
}

std::vector<std::size_t> tuning_order(const std::vector<ProblemSize>& sizes) {
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return volume(sizes[a]) < volume(sizes[b]); });
  return order;
}

std::vector<std::size_t> nearest_first(const std::vector<ProblemSize>& sizes, std::size_t of,
                                       std::vector<std::size_t> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    const double da = log_distance(sizes[a], sizes[of]), db = log_distance(sizes[b], sizes[of]);
    if (std::fabs(da - db) > 1e-12) return da < db;
    return volume(sizes[a]) > volume(sizes[b]);
  });
  return candidates;
}

bool size_independent(const Outcome& o) {
  if (o.status == Status::compile_error) return true;
  // resource_limit decided before any run, from the kernel's code and the launch expressions over
  // the parameters (cuda_backend.cpp): ptxas's verdict or the static check. Not the harness's
  // (an allocation, or a block or dynamic shared memory the benchmark may compute from the size).
  return o.status == Status::resource_limit && (o.message.rfind("ptxas rejected the kernel", 0) == 0 ||
                                                o.message.find(", static check") != std::string::npos);
}

std::string SizeTransfer::describe() const {
  return counted(warm_start.size(), "configuration") + " to evaluate first and " +
         counted(prior.size(), "size-independent failure") + " known, from " + counted(sources, "other size");
}

SizeTransfer transfer_from(const std::vector<const std::vector<Outcome>*>& others, std::size_t limit,
                           const std::vector<Outcome>& measured) {
  SizeTransfer t;
  std::unordered_set<Config, ConfigHash> taken;
  for (const auto& o : measured) taken.insert(o.config);
  std::unordered_set<Config, ConfigHash> failed = taken;
  std::vector<std::vector<const Outcome*>> ranked;
  for (const auto* outcomes : others) {
    if (!outcomes) continue;
    std::vector<const Outcome*> good;
    for (const auto& o : *outcomes) {
      if (is_success(o.status) && o.objective) good.push_back(&o);
      if (size_independent(o) && failed.insert(o.config).second) t.prior.push_back(o);
    }
    std::stable_sort(good.begin(), good.end(), [](const Outcome* a, const Outcome* b) { return *a->objective < *b->objective; });
    if (!good.empty() || !outcomes->empty()) ++t.sources;
    ranked.push_back(std::move(good));
  }
  std::vector<std::size_t> next(ranked.size(), 0);
  for (bool more = true; more && t.warm_start.size() < limit;) {
    more = false;
    for (std::size_t k = 0; k < ranked.size() && t.warm_start.size() < limit; ++k) {
      while (next[k] < ranked[k].size() && !taken.insert(ranked[k][next[k]]->config).second) ++next[k];
      if (next[k] < ranked[k].size()) {
        t.warm_start.push_back(ranked[k][next[k]++]->config);
        more = true;
      }
    }
  }
  return t;
}

}  // namespace adaexplore
